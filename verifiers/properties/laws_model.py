"""Whole-model laws on tinygpt: causality, permutations, the KV cache, training vs inference,
weight tying, embedding gradients, LayerNorm, FFN, residuals and gradient steps.

Implementations under test are tinygpt's: ``TinyGPT.forward_trace``, ``generate`` with its
KV cache, ``loss_and_grads`` (autograd through the model), ``layer_norm``, ``ffn``, ``Block``,
``sgd_step``, and ``tinygpt.backward.bigram_grads_batch`` (the note's hand-derived bigram
gradients).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import strategies as st

from tinygpt import TinyGPT, cross_entropy, ffn, generate, layer_norm, sgd_step
from tinygpt.backward import bigram_grads_batch
from verifiers.properties.base import Law, close, fail, law
from verifiers.properties.laws_attention import block_and_input, block_name, make_block
from verifiers.properties.strategies import (
    F64,
    ModelSpec,
    floats,
    matrices,
    models,
    show,
    tensor,
    token_lists,
)

Vec = torch.Tensor


def tinygpt_forward(model: TinyGPT, tokens: list[int]) -> dict[str, Any]:
    return model.forward_trace(tokens)


def states(trace: Mapping[str, Any]) -> list[tuple[str, Vec]]:
    """Every hidden state a law compares, named as a reader would: layer l's output, logits."""
    out = [(f"layer {i}'s hidden state", t["y"]) for i, t in enumerate(trace["layers"])]
    out.append(("the logits", trace["logits"]))
    return out


def first_gap(a: Vec, b: Vec, tol: float = 1e-10) -> tuple[int, float] | None:
    """The first row where a and b differ by more than tol (relative to their size)."""
    for r in range(a.shape[0]):
        gap = float((a[r] - b[r]).abs().max())
        if not gap <= tol * (1 + float(a[r].abs().max())):
            return r, gap
    return None


def model_tokens(p: Mapping[str, Any], min_len: int = 2, **kw: Any) -> st.SearchStrategy[Any]:
    # Strategies are built once, outside the draw: the same search, without rebuilding
    # (and re-inspecting) a composite at every example.
    specs = models(max_layers=p["max_layers"], positions=p.get("positions", "any"), **kw)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec = d(specs)
        return spec, d(token_lists(spec.vocab, min_len, p["max_len"]))
    return draw()


# -- causality --------------------------------------------------------------------------------

@law("causal-no-future-dependence")
def _causal(p: Mapping[str, Any]) -> Law:
    inputs = model_tokens(p, deep_first=True)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec, toks = d(inputs)
        i = d(st.integers(0, len(toks) - 2))
        suffix = d(token_lists(spec.vocab, 0, p["max_len"] - i - 1))
        new = toks[: i + 1] + suffix
        return spec, toks, i, new

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, old, i, new = example
        if old == new:
            return
        model = spec.build()
        with torch.no_grad():
            a, b = states(f(model, old)), states(f(model, new))
        for (name, x), (_, y) in zip(a, b, strict=True):
            gap = first_gap(x[: i + 1], y[: i + 1])
            if gap is not None:
                r, size = gap
                fail(f"{spec}: tokens {old} -> {new} (the same up to position {i}, changed "
                     f"after it): {name} at position {r} moved by {show(size, 3)}, so it reads "
                     "a later token")
    return Law(draw(), check, {"tinygpt.TinyGPT.forward_trace": tinygpt_forward})


def permuted_check(causal: bool | None, invariant: bool = False) -> Callable[[Any, Any], None]:
    """Outputs permuted with the tokens (equivariant) or, if ``invariant``, left in place."""
    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks, perm = example
        model = spec.build()
        moved = [toks[j] for j in perm]
        with torch.no_grad():
            a, b = states(f(model, toks)), states(f(model, moved))
        for (name, x), (_, y) in zip(a, b, strict=True):
            gap = first_gap(x if invariant else x[list(perm)], y, 1e-9)
            if gap is not None:
                r, size = gap
                row = r if invariant else perm[r]
                fail(f"{spec}: tokens {toks} reordered by {list(perm)} to {moved}: {name} at "
                     f"position {r} is not the original row {row} (off by {show(size, 3)})")
    return check


def with_permutation(p: Mapping[str, Any], **kw: Any) -> st.SearchStrategy[Any]:
    inputs = model_tokens(p, **kw)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec, toks = d(inputs)
        return spec, toks, d(st.permutations(range(len(toks))))
    return draw()


@law("permutation-equivariance")
def _perm(p: Mapping[str, Any]) -> Law:
    """Slot ``symmetry``: 等变 (outputs permuted with the tokens) or 不变 (left in place)."""
    check = permuted_check(False, invariant=p["symmetry"] == "invariant")  # aware: negated
    return Law(with_permutation({**p, "positions": "none"}, causal=False), check,
               {"tinygpt.TinyGPT.forward_trace": tinygpt_forward})


@law("permutation-breaks-with-order")
def _perm_breaks(p: Mapping[str, Any]) -> Law:
    return Law(with_permutation(p, causal=p["mask"] == "causal"), permuted_check(None),
               {"tinygpt.TinyGPT.forward_trace": tinygpt_forward})


# -- KV cache, training vs inference, the output distribution ---------------------------------

def tinygpt_cached(model: TinyGPT, prompt: list[int], steps: int) -> tuple[list[int], Vec]:
    return generate(model, prompt, steps, use_cache=True, return_logits=True)


@law("kv-cache-equals-recompute")
def _kv(p: Mapping[str, Any]) -> Law:
    inputs = model_tokens(p, min_len=1)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec, toks = d(inputs)
        prompt = toks[: max(1, len(toks) - 1)]
        return spec, prompt, d(st.integers(1, max(1, p["max_len"] - len(prompt))))

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, prompt, steps = example
        model = spec.build()
        with torch.no_grad():
            tokens, logits = f(model, list(prompt), steps)
            for k in range(steps):
                prefix = list(tokens[: len(prompt) + k])
                full = model(prefix)[-1]
                gap = float((torch.as_tensor(logits[k], dtype=F64) - full).abs().max())
                if not gap <= 1e-12 * (1 + float(full.abs().max())):
                    fail(f"{spec}, prompt {list(prompt)}: step {k + 1} (prefix {prefix}) gives "
                         f"logits {show(logits[k], 5)} from the cache but {show(full, 5)} "
                         f"recomputed (off by {show(gap, 3)})")
    return Law(draw(), check, {"tinygpt.generate(use_cache=True)": tinygpt_cached})


def tinygpt_train_probs(model: TinyGPT, tokens: list[int]) -> Vec:
    return model.forward_trace(tokens)["p"]


@law("train-inference-same-distribution")
def _train_infer(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks = example
        model = spec.build()
        with torch.no_grad():
            train = torch.as_tensor(f(model, toks), dtype=F64)
            for i in range(len(toks)):
                _, logits = generate(model, toks[: i + 1], 1, return_logits=True)
                infer = torch.softmax(logits[0], dim=-1)
                gap = float((train[i] - infer).abs().max())
                if not gap <= 1e-12:
                    fail(f"{spec}, sentence {toks}: the training pass's row {i} gives "
                         f"{show(train[i], 4)}, inference on the prefix {toks[: i + 1]} gives "
                         f"{show(infer, 4)} (off by {show(gap, 3)})")
    return Law(model_tokens(p), check, {"tinygpt.TinyGPT.forward_trace p": tinygpt_train_probs})


@law("next-token-distribution")
def _distribution(p: Mapping[str, Any]) -> Law:
    want = 1.0 if p["total"] == "one" else 0.0  # slot ``total``: the row sum stated

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks = example
        with torch.no_grad():
            P = torch.as_tensor(f(spec.build(), toks), dtype=F64)
        for i, row in enumerate(P.tolist()):
            total = math.fsum(row)
            if any(not x > 0 for x in row) or not close(total, want, 0, 1e-12):
                fail(f"{spec}, tokens {toks}: row {i} = {show(row, 4)} (sum {show(total, 12)}) "
                     f"is not a probability distribution (positive, sum {want:g})")
    return Law(model_tokens(p, min_len=1), check,
               {"tinygpt.TinyGPT.forward_trace p": tinygpt_train_probs})


# -- gradients: weight tying and embedding rows ---------------------------------------------

def with_targets(p: Mapping[str, Any], **kw: Any) -> st.SearchStrategy[Any]:
    inputs = model_tokens({**p, "positions": p.get("positions", "any")}, min_len=1, **kw)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec, toks = d(inputs)
        targets = d(st.lists(st.integers(0, spec.vocab - 1), min_size=len(toks),
                             max_size=len(toks)))
        return spec, toks, targets
    return draw()


def tinygpt_tied_grad(model: TinyGPT, tokens: list[int], targets: list[int]) -> Vec:
    return model.loss_and_grads(tokens, targets)[1]["E"]


@law("tied-gradient-sum")
def _tied(p: Mapping[str, Any]) -> Law:
    """Slot ``combine``: the two paths' gradients added (之和, 加) or, as a sentence may misstate
    it, subtracted (之差, 减去): the law checks the combination the words state."""
    sign, op = (-1.0, "-") if p.get("combine", "add") == "subtract" else (1.0, "+")

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks, targets = example
        model = spec.build()
        got = torch.as_tensor(f(model, toks, targets), dtype=F64)
        params = {k: v.detach().clone() for k, v in model.params().items()}
        untied = TinyGPT.from_params(spec.config(tie=False), **params,
                                     U=model.E.detach().T.clone())
        _, grads = untied.loss_and_grads(toks, targets)
        want = grads["E"] + sign * grads["U"].T
        gap = float((got - want).abs().max())
        if not gap <= 1e-12 * (1 + float(want.abs().max())):
            fail(f"{spec}, tokens {toks} -> targets {targets}: the shared E gets gradient "
                 f"{show(got, 4)}, but input path {show(grads['E'], 4)} {op} output path "
                 f"{show(grads['U'].T, 4)} = {show(want, 4)}")
    return Law(with_targets(p, tie=True), check, {"tinygpt autograd (U = E^T)": tinygpt_tied_grad})


def tinygpt_embedding_grads(model: TinyGPT, tokens: list[int], targets: list[int]
                            ) -> tuple[Vec, Vec]:
    trace = model.forward_trace(tokens)
    loss = cross_entropy(trace["logits"], targets)
    gE, gX = torch.autograd.grad(loss, [model.E, trace["x"]])
    return gE, gX


@law("embedding-gradient-rows")
def _embedding(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks, targets = example
        gE, gX = f(spec.build(), toks, targets)
        for w in range(spec.vocab):
            uses = [i for i, t in enumerate(toks) if t == w]
            want = sum((gX[i] for i in uses), torch.zeros(spec.d_model, dtype=F64))
            row = gE[w]
            bad = bool((row != 0).any()) if not uses else \
                float((row - want).abs().max()) > 1e-12 * (1 + float(want.abs().max()))
            if bad:
                used = f"positions {uses}" if uses else "no position"
                fail(f"{spec}, tokens {toks} -> targets {targets}: row {w} of E gets "
                     f"{show(row, 4)}, but {used} looked it up: the sum of their gradients is "
                     f"{show(want, 4)}")
    return Law(with_targets(p), check, {"tinygpt autograd": tinygpt_embedding_grads})


# -- LayerNorm, FFN, residual -----------------------------------------------------------------

def ln_input(p: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n, dim = d(st.integers(2, p["max_len"])), d(st.integers(2, 8))
        gamma, beta = d(matrices(1, dim, 2.0)), d(matrices(1, dim, 2.0))
        return d(matrices(n, dim, 3.0)), gamma[0], beta[0], n
    return draw()


def tinygpt_layer_norm(x: Vec, gamma: Vec, beta: Vec) -> Vec:
    return layer_norm(x, gamma, beta)


@law("layernorm-per-position")
def _ln_rows(p: Mapping[str, Any]) -> Law:
    inputs = ln_input(p)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        X, gamma, beta, n = d(inputs)
        return X, gamma, beta, d(st.integers(0, n - 1)), d(matrices(n, X.shape[1], 3.0))

    def check(example: Any, f: Callable[..., Vec]) -> None:
        X, gamma, beta, i, other = example
        Y = other.copy()
        Y[i] = X[i]
        a = f(tensor(X), tensor(gamma), tensor(beta))[i]
        b = f(tensor(Y), tensor(gamma), tensor(beta))[i]
        if not float((a - b).abs().max()) <= 1e-12:
            fail(f"row {i} = {show(X[i], 4)} normalises to {show(a, 4)} among rows "
                 f"{show(X, 3)} but to {show(b, 4)} among {show(Y, 3)}")
    return Law(draw(), check, {"tinygpt.layer_norm": tinygpt_layer_norm})


@law("layernorm-shift-invariance")
def _ln_shift(p: Mapping[str, Any]) -> Law:
    inputs = ln_input(p)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        X, gamma, beta, n = d(inputs)
        return X, gamma, beta, d(matrices(n, 1, 10.0))

    def check(example: Any, f: Callable[..., Vec]) -> None:
        X, gamma, beta, c = example
        a = f(tensor(X), tensor(gamma), tensor(beta))
        b = f(tensor(X) + tensor(c), tensor(gamma), tensor(beta))
        gap = first_gap(a, b, 1e-9)
        if gap is not None:
            r, size = gap
            fail(f"rows {show(X, 3)}: adding {show(c[r][0])} to row {r} changes its LayerNorm "
                 f"from {show(a[r], 4)} to {show(b[r], 4)} (by {show(size, 3)})")
    return Law(draw(), check, {"tinygpt.layer_norm": tinygpt_layer_norm})


def ffn_weights(max_rows: int, max_dim: int = 4, max_width: int = 8, integer: bool = False
                ) -> st.SearchStrategy[Any]:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        dim, width = d(st.integers(1, max_dim)), d(st.integers(1, max_width))
        n = d(st.integers(1, max_rows))

        def m(rows: int, cols: int) -> Any:
            return d(matrices(rows, cols, 2.0, integer))
        return m(n, dim), m(n, dim), m(dim, width), m(1, width)[0], m(width, dim), m(1, dim)[0]
    return draw()


def linear_ffn(x: Vec, W1: Vec, b1: Vec, W2: Vec, b2: Vec) -> Vec:
    """Two linear layers written out (the tests' mutant for the non-linear FFN law)."""
    return (x @ W1 + b1) @ W2 + b2


def tinygpt_linear_ffn(x: Vec, W1: Vec, b1: Vec, W2: Vec, b2: Vec) -> Vec:
    """tinygpt's FFN with the non-linearity taken out (σ = identity)."""
    return ffn(x, W1, b1, W2, b2, activation="identity")


@law("ffn-linear-collapses")
def _ffn_linear(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Vec]) -> None:
        x, _, W1, b1, W2, b2 = (tensor(a) for a in example)
        got = torch.as_tensor(f(x, W1, b1, W2, b2), dtype=F64)
        want = x @ (W1 @ W2) + (b1 @ W2 + b2)
        gap = first_gap(got, want, 1e-9)
        if gap is not None:
            r, size = gap
            fail(f"x = {show(x, 3)}, W1 = {show(W1, 3)}, b1 = {show(b1, 3)}, W2 = {show(W2, 3)}, "
                 f"b2 = {show(b2, 3)}: row {r} is {show(got[r], 4)}, but one matrix "
                 f"x (W1 W2) + (b1 W2 + b2) gives {show(want[r], 4)}")
    return Law(ffn_weights(p["max_len"]), check, {"tinygpt.ffn(identity)": tinygpt_linear_ffn})


@law("ffn-nonlinear-does-not-collapse")
def _ffn_nonlinear(p: Mapping[str, Any]) -> Law:
    act = p["activation"]

    def tinygpt_ffn(x: Vec, W1: Vec, b1: Vec, W2: Vec, b2: Vec) -> Vec:
        return ffn(x, W1, b1, W2, b2, activation=act)

    def check(example: Any, f: Callable[..., Vec]) -> None:
        x, y, W1, b1, W2, b2 = (tensor(a) for a in example)

        def F(v: Vec) -> Vec:
            return torch.as_tensor(f(v, W1, b1, W2, b2), dtype=F64)

        lhs, rhs = F(x + y) + F(torch.zeros_like(x)), F(x) + F(y)
        gap = first_gap(lhs, rhs, 1e-9)
        if gap is not None:
            r, size = gap
            fail(f"x = {show(x, 3)}, y = {show(y, 3)}, W1 = {show(W1, 3)}, b1 = {show(b1, 3)}, "
                 f"W2 = {show(W2, 3)}, b2 = {show(b2, 3)}: FFN(x + y) + FFN(0) and FFN(x) + "
                 f"FFN(y) differ by {show(size, 3)} in row {r}, so no single matrix (plus bias) "
                 "gives this FFN")
    # few entries: a counterexample is found at once, and shrinking it stays cheap
    return Law(ffn_weights(1, 1, 1, integer=True), check, {f"tinygpt.ffn({act})": tinygpt_ffn})


def tinygpt_residual(block: Any, x: Vec) -> Vec:
    return block.forward_trace(x, torch.arange(x.shape[0]))["y"]


@law("residual-jacobian")
def _residual(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Vec]) -> None:
        config, seed, x = example
        block = make_block(config, seed)
        pos = torch.arange(x.shape[0])

        def F(v: Vec) -> Vec:
            return block.attend(block._ln(v, 1), pos)["attn_out"]

        X = tensor(x)
        J_y = torch.autograd.functional.jacobian(lambda v: f(block, v), X).reshape(X.numel(), -1)
        J_F = torch.autograd.functional.jacobian(F, X).reshape(X.numel(), -1)
        gap = float((J_y - torch.eye(X.numel(), dtype=F64) - J_F).abs().max())
        if not gap <= 1e-10 * (1 + float(J_F.abs().max())):
            fail(f"{block_name(config, seed)} (y = x + MHA(LN(x))), x = {show(x, 3)}: the "
                 f"Jacobian of y differs from I + J_F by up to {show(gap, 3)}")
    return Law(block_and_input(p["max_len"], dims=(2, 4), ffn=False), check,
               {"tinygpt.Block (pre-LN, no FFN)": tinygpt_residual})


# -- gradient steps ---------------------------------------------------------------------------

def loss_at(model: TinyGPT, params: Mapping[str, Vec], toks: list[int], targets: list[int]
            ) -> float:
    logits = torch.func.functional_call(model, dict(params), (toks,))
    return float(cross_entropy(logits, targets))


def tinygpt_sgd(params: Mapping[str, Vec], grads: Mapping[str, Vec], lr: float
                ) -> dict[str, Vec]:
    return sgd_step(dict(params), dict(grads), lr)


@law("small-step-lowers-loss")
def _small_step(p: Mapping[str, Any]) -> Law:
    """Slot ``loss``: a small enough step against g lowers (decreases) or raises the loss."""
    lowers = p["loss"] == "decreases"

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, toks, targets = example
        model = spec.build()
        loss, grads = model.loss_and_grads(toks, targets)
        norm = math.sqrt(math.fsum(float((g ** 2).sum()) for g in grads.values()))
        if norm < 1e-6:
            return  # g = 0: the law says nothing
        params = {k: v.detach() for k, v in model.params().items()}
        tried = []
        with torch.no_grad():
            for k in range(1, 9):
                lr = 10.0 ** -k
                after = loss_at(model, f(params, grads, lr), toks, targets)
                if (after < float(loss)) if lowers else (after > float(loss)):
                    return
                tried.append(f"{lr:g}: {show(after, 10)}")
        fail(f"{spec}, tokens {toks} -> targets {targets}: loss {show(float(loss), 10)}, "
             f"|g| = {show(norm, 3)}, yet no step size {'lowers' if lowers else 'raises'} it "
             f"({'; '.join(tried[:3])}; ...)")
    return Law(with_targets(p), check, {"tinygpt.sgd_step": tinygpt_sgd})


@law("large-step-can-raise-loss")
def _large_step(p: Mapping[str, Any]) -> Law:
    lo, hi = math.ceil(p["lr_min"]), math.floor(p["lr_max"])
    lr = st.integers(lo, hi).map(float) if lo <= hi else floats(p["lr_min"], p["lr_max"])
    inputs = with_targets(p)  # built once, not at every draw (the same search)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        return d(inputs), d(lr)  # whole step sizes shrink fast

    def check(example: Any, f: Callable[..., Any]) -> None:
        (spec, toks, targets), lr = example
        model = spec.build()
        loss, grads = model.loss_and_grads(toks, targets)
        params = {k: v.detach() for k, v in model.params().items()}
        with torch.no_grad():
            after = loss_at(model, f(params, grads, lr), toks, targets)
        if not after <= float(loss) + 1e-12 * (1 + float(loss)):
            fail(f"{spec}, tokens {toks} -> targets {targets}: a step of size {show(lr, 4)} "
                 f"moves the loss from {show(float(loss), 6)} to {show(after, 6)}")
    return Law(draw(), check, {"tinygpt.sgd_step": tinygpt_sgd})


# -- lesson 1's bigram and the embedding lookup ----------------------------------------------

def bigram_batch(p: Mapping[str, Any], min_pairs: int = 1) -> st.SearchStrategy[Any]:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V, dim = d(st.integers(2, p["max_vocab"])), d(st.integers(1, 4))
        B = d(st.integers(min_pairs, p["max_pairs"]))
        ids = st.lists(st.integers(0, V - 1), min_size=B, max_size=B)
        return d(matrices(V, dim, 2.0)), d(matrices(dim, V, 2.0)), d(ids), d(ids)
    return draw()


def tinygpt_bigram_grads(E: Vec, U: Vec, cur: list[int], nxt: list[int]) -> dict[str, Vec]:
    return bigram_grads_batch(E, U, None, cur, nxt)


def fancy_index_grads(E: Vec, U: Vec, cur: list[int], nxt: list[int]) -> dict[str, Vec]:
    """The note's warning: ``dE[cur] += dX`` writes each repeated row once (the last wins)."""
    out = dict(bigram_grads_batch(E, U, None, cur, nxt))
    dE = torch.zeros_like(out["E"])
    for b, i in enumerate(cur):
        dE[i] = out["X"][b]
    out["E"] = dE
    return out


def bigram_check(example: Any, f: Callable[..., Any], rows_of: str = "input") -> None:
    """``rows_of``: whose rows of dE the sentence says are the only nonzero ones (the input
    tokens', ``$i$``; "target" states the false law that the targets' rows are)."""
    E, U, cur, nxt = example
    Et, Ut = tensor(E).requires_grad_(True), tensor(U).requires_grad_(True)
    loss = cross_entropy(Et[torch.as_tensor(cur)] @ Ut, nxt)
    auto = dict(zip(("E", "U"), torch.autograd.grad(loss, [Et, Ut]), strict=True))
    got = f(tensor(E), tensor(U), list(cur), list(nxt))
    pairs = ", ".join(f"{a}→{b}" for a, b in zip(cur, nxt, strict=True))
    head = f"V = {E.shape[0]}, d = {E.shape[1]}, pairs {pairs}"
    used = cur if rows_of == "input" else nxt
    for w in range(E.shape[0]):
        if w not in used and bool((torch.as_tensor(got["E"][w]) != 0).any()):
            fail(f"{head}: token {w} is never {'an input' if rows_of == 'input' else 'a target'}"
                 f", yet its row of dE is {show(got['E'][w], 4)}")
    for name in ("U", "E"):
        g = torch.as_tensor(got[name], dtype=F64)
        gap = float((g - auto[name]).abs().max())
        if not gap <= 1e-12 * (1 + float(auto[name].abs().max())):
            rows = (g - auto[name]).abs().amax(dim=-1)
            r = int(rows.argmax())
            count = list(cur).count(r) if name == "E" else None
            extra = f" (token {r} occurs {count} times)" if count is not None else ""
            fail(f"{head}: row {r} of d{name} is {show(g[r], 4)}, autograd gives "
                 f"{show(auto[name][r], 4)}{extra}")


@law("bigram-gradients")
def _bigram(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        bigram_check(example, f, p.get("row", "input"))
    return Law(bigram_batch(p), check,
               {"tinygpt.backward.bigram_grads_batch": tinygpt_bigram_grads})


@law("embedding-fancy-index-loses-repeats")
def _fancy(p: Mapping[str, Any]) -> Law:
    return Law(bigram_batch(p, 2), bigram_check, {"dE[cur] += dX": fancy_index_grads})


def tinygpt_lookup(model: TinyGPT, tokens: list[int]) -> Vec:
    return model.forward_trace(tokens)["x"]


@law("onehot-lookup")
def _lookup(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        spec = ModelSpec(vocab=V, d_model=4, heads=1, d_k=2, layers=1,
                         seed=d(st.integers(0, 2**16)))
        return spec, d(token_lists(V, 1, 6))

    def check(example: Any, f: Callable[..., Vec]) -> None:
        spec, toks = example
        model = spec.build()
        with torch.no_grad():
            got = torch.as_tensor(f(model, toks), dtype=F64)
            onehot = torch.nn.functional.one_hot(torch.as_tensor(toks), spec.vocab).to(F64)
            want = onehot @ model.E
        gap = first_gap(got, want, 1e-15)
        if gap is not None:
            r, _ = gap
            fail(f"{spec}, tokens {toks}: position {r} looks up {show(got[r], 4)}, but the "
                 f"one-hot row u_{toks[r]} times E gives {show(want[r], 4)}")
    return Law(draw(), check, {"tinygpt.TinyGPT.forward_trace x": tinygpt_lookup})


def tinygpt_project(block: Any, x: Vec) -> list[Vec]:
    return block.attend(x, torch.arange(x.shape[0]))["q"]


@law("projection-rows-independent")
def _rows(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        config, seed, x = example
        block = make_block(config, seed)
        X = tensor(x)
        with torch.no_grad():
            together = f(block, X)
            for t in range(X.shape[0]):
                alone = f(block, X[t : t + 1])
                for h in range(config.n_heads):
                    gap = float((together[h][t] - alone[h][0]).abs().max())
                    if not gap <= 1e-12 * (1 + float(alone[h][0].abs().max())):
                        fail(f"{block_name(config, seed)}, X = {show(x, 3)}: head {h} projects "
                             f"row {t} to {show(together[h][t], 4)} in X W_Q but to "
                             f"{show(alone[h][0], 4)} on its own")
    return Law(block_and_input(p["max_len"]), check, {"tinygpt.Block.attend q": tinygpt_project})

