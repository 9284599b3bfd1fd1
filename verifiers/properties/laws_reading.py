"""Laws of the sentences whose words no slot could read before (specs: :mod:`.specs_reading`).

- ``input-invariant`` — a TinyGPT forward pass's attention weights A (or q, k, v) are the
  same for every input: false (the note: "A 会随着每次输入的文本发生改变"), so the search must
  find two inputs of one model whose A differ; a sentence that says A is fixed (固定, 相同)
  states the law as true and fails with those two inputs;
- ``cross-attention-roles`` — ``tinygpt.attention`` with Q taken from the side the sentence
  names for Q and K, V from the side it names for them: the attention matrix must be target
  length x source length and the output one row per target (decoder) position;
- ``variance-additive-only-independent`` — "variances add only for independent terms": false,
  searched on X symmetric and Y = X² (dependent, uncorrelated), whose variances add (the
  note: 独立是充分条件，但不是必要条件);
- ``matmul-inner-dims`` — ``torch.matmul`` of (n x d)(d' x m): defined exactly when d = d',
  and then n x m (中间的两个 d 必须相等，它们在结果里消失);
- ``adjacent-ids-similar`` — "adjacent ids have more similar embeddings" on TinyGPT's
  initial E: false (an id is a row number), searched as a law the note denies (不代表).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from tinygpt import attention as tinygpt_attention
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, matrices, models, show, token_lists


def tinygpt_intermediate(model: Any, tokens: list[int], what: str) -> torch.Tensor:
    """Layer 1, head 1 of ``model.forward_trace``: A, q, k or v for the input ``tokens``."""
    with torch.no_grad():
        layer = model.forward_trace(tokens)["layers"][0]
    return layer[what][0].detach()


@law("input-invariant")
def _input_invariant(p: Mapping[str, Any]) -> Law:
    what = p["what"]

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec = d(models(max_layers=1))
        n = d(st.integers(2, p["max_len"]))
        return spec, d(token_lists(spec.vocab, n, n)), d(token_lists(spec.vocab, n, n))

    def check(example: Any, f: Callable[..., torch.Tensor]) -> None:
        spec, a, b = example
        model = spec.build()
        xa, xb = f(model, a, what), f(model, b, what)
        if not torch.equal(xa, xb):
            fail(f"{spec}: inputs {a} and {b} give {what} {show(xa, 4)} and {show(xb, 4)}")
    return Law(draw(), check, {"TinyGPT.forward_trace (layer 1, head 1)": tinygpt_intermediate})


def cross_attention(decoder: torch.Tensor, encoder: torch.Tensor, q_side: str,
                    kv_side: str) -> tuple[torch.Tensor, torch.Tensor]:
    """tinygpt.attention with Q from one side's rows and K = V from the other's (no mask)."""
    sides = {"decoder": decoder, "encoder": encoder}
    q, kv = sides[q_side], sides[kv_side]
    return tinygpt_attention(q, kv, kv, causal=False)


@law("cross-attention-roles")
def _cross_roles(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n_t = d(st.integers(1, p["max_len"]))
        n_s = d(st.integers(1, p["max_len"]).filter(lambda n: n != n_t))
        width = d(st.integers(1, 3))
        return d(matrices(n_t, width, 3.0)), d(matrices(n_s, width, 3.0))

    def check(example: Any, f: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> None:
        dec, enc = (torch.tensor(m, dtype=F64) for m in example)
        z, a = f(dec, enc, p["q"], p["kv"])
        n_t, n_s = dec.shape[0], enc.shape[0]
        if tuple(a.shape) != (n_t, n_s) or z.shape[0] != n_t:
            fail(f"target length {n_t}, source length {n_s}: Q from the {p['q']}, K/V from "
                 f"the {p['kv']} give an attention matrix {a.shape[0]} x {a.shape[1]} and "
                 f"{z.shape[0]} output rows, not target x source {n_t} x {n_s} with one row "
                 "per target position")
    return Law(draw(), check, {"tinygpt.attention (cross)": cross_attention})


def initial_embedding(vocab: int, seed: int) -> torch.Tensor:
    """TinyGPT's embedding matrix E as initialised (d_model 4)."""
    from verifiers.properties.strategies import ModelSpec

    spec = ModelSpec(vocab=vocab, d_model=4, heads=1, d_k=2, layers=1, seed=seed)
    return spec.build().E.detach()


@law("adjacent-ids-similar")
def _adjacent_similar(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        vocab = d(st.integers(4, p["max_vocab"]))
        i = d(st.integers(0, vocab - 2))
        j = d(st.integers(0, vocab - 1).filter(lambda j: j not in (i - 1, i, i + 1)))
        return vocab, d(st.integers(0, 2**16)), i, j

    def check(example: Any, f: Callable[..., torch.Tensor]) -> None:
        vocab, seed, i, j = example
        E = f(vocab, seed)
        near = float(torch.cosine_similarity(E[i], E[i + 1], dim=0))
        far = float(torch.cosine_similarity(E[i], E[j], dim=0))
        if near < far - 1e-9:  # a tie is no counterexample
            fail(f"V = {vocab}, seed {seed}: cos(E[{i}], E[{i + 1}]) = {show(near, 4)} < "
                 f"cos(E[{i}], E[{j}]) = {show(far, 4)}: the adjacent id is the less similar")
    return Law(draw(), check, {"TinyGPT E (initialised)": initial_embedding})


def population_variances(x: list[float], y: list[float]) -> tuple[float, float, float]:
    """Var X, Var Y, Var(X + Y) of equally likely outcomes (population variances, numpy)."""
    a, b = np.array(x, dtype=float), np.array(y, dtype=float)
    return float(a.var()), float(b.var()), float((a + b).var())


@law("variance-additive-only-independent")
def _additive_only_independent(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        half = d(st.lists(st.integers(1, 5), min_size=1, max_size=p["max_values"]))
        return [*half, *(-v for v in half)]  # symmetric: E[X] = 0 and E[X^3] = 0

    def check(example: Any, f: Callable[..., tuple[float, float, float]]) -> None:
        x = [float(v) for v in example]
        y = [v * v for v in x]  # a function of X: dependent whenever X takes two sizes
        if len(set(y)) < 2:
            return  # Y constant: independent of X, so no counterexample
        vx, vy, vs = f(x, y)
        if abs(vs - (vx + vy)) <= 1e-9 * max(1.0, vs):
            fail(f"X uniform on {example}, Y = X^2 (dependent on X): Var X = {show(vx, 6)}, "
                 f"Var Y = {show(vy, 6)}, Var(X + Y) = {show(vs, 6)}: the variances add, "
                 "though X and Y are not independent (Cov = 0)")
    return Law(draw(), check, {"numpy population variance": population_variances})


def matmul_shape(n: int, d: int, d2: int, m: int) -> tuple[int, ...] | None:
    """The shape of torch.matmul of an (n x d) and a (d2 x m) matrix, or None if undefined."""
    try:
        return tuple(torch.matmul(torch.ones(n, d), torch.ones(d2, m)).shape)
    except RuntimeError:
        return None


@law("matmul-inner-dims")
def _matmul_inner(p: Mapping[str, Any]) -> Law:
    dims = st.integers(1, p["max_dim"])
    draw = st.tuples(dims, dims, dims, dims)

    def check(example: Any, f: Callable[..., tuple[int, ...] | None]) -> None:
        n, d, d2, m = example
        shape = f(n, d, d2, m)
        if d != d2 and shape is not None:
            fail(f"({n} x {d})({d2} x {m}): inner sizes {d} != {d2}, yet the product is "
                 f"defined ({shape[0]} x {shape[1]})")
        if d == d2 and shape != (n, m):
            fail(f"({n} x {d})({d2} x {m}): the product is {shape}, not {n} x {m}")
    return Law(draw, check, {"torch.matmul": matmul_shape})
