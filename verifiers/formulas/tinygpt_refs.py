"""The instances a LaTeX definition is checked on (:mod:`verifiers.formulas.code`): for each
reference, inputs made with a fixed seed and what tinygpt (or autograd through it) computes
from them. One maker per reference; :data:`REFERENCES` names them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch
from sympy.core.function import AppliedUndef

__all__ = ["DTYPE", "REFERENCES", "Instance", "Reference", "Unread"]

DTYPE = torch.float64


class Unread(ValueError):
    """The formula cannot be evaluated on the reference's inputs."""


@dataclass(frozen=True)
class Instance:
    """Inputs (reader names -> tensors or numbers), functions, and tinygpt's values."""

    env: dict[str, Any]
    expected: dict[str, Any]  # left side's reader name -> tinygpt's value
    calls: dict[str, Callable[..., Any]] = field(default_factory=dict)
    grads: dict[str, Any] = field(default_factory=dict)  # W -> ∂L/∂W
    entries: tuple[str, ...] = ()  # index names of a definition by entries (M_{i j})
    # a family defined by an index (head_i = …): left side -> [(its inputs, tinygpt's value)]
    each: dict[str, list[tuple[dict[str, Any], Any]]] = field(default_factory=dict)
    # a printed condition (dL/dw > 0): [(inputs, gradients, whether it must hold there)]
    truths: list[tuple[dict[str, Any], dict[str, Any], bool]] = field(default_factory=list)


@dataclass(frozen=True)
class Reference:
    what: str  # what tinygpt computes, for messages
    matrices: tuple[str, ...]  # names read as matrices (ordered products)
    functions: tuple[str, ...]
    make: Callable[[int], Instance]


def _randn(g: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=DTYPE)


# --------------------------------------------------------------------------- references


def _ffn(seed: int) -> Instance:
    from tinygpt.model import ffn, gelu

    g = torch.Generator().manual_seed(seed)
    x, w1, b1, w2, b2 = (_randn(g, *s) for s in ((2, 3), (3, 4), (1, 4), (4, 3), (1, 3)))
    out = ffn(x, w1, b1, w2, b2, activation="gelu")
    return Instance({"x": x, "W_1": w1, "b_1": b1, "W_2": w2, "b_2": b2}, {"FFN": out},
                    {"sigma": gelu})


def _mask(seed: int) -> Instance:
    from tinygpt.model import causal_mask

    n = 3 + seed
    allowed = causal_mask(n, n)
    additive = torch.where(allowed, torch.tensor(0.0, dtype=DTYPE),
                           torch.tensor(float("-inf"), dtype=DTYPE))
    return Instance({}, {"M_ij": additive}, entries=("i", "j"))


def _sgd(names: tuple[str, ...], old: Callable[[str], str]) -> Callable[[int], Instance]:
    """``W^{new} = W^{old} - η ∂L/∂W`` for each W of ``names``: tinygpt.sgd_step."""
    def make(seed: int) -> Instance:
        from tinygpt.model import sgd_step

        g = torch.Generator().manual_seed(seed)
        params = {n: _randn(g, 2, 3) for n in names}
        grads = {n: _randn(g, 2, 3) for n in names}
        lr = 0.1 + 0.05 * seed
        new = sgd_step(params, grads, lr)
        env: dict[str, Any] = {old(n): params[n] for n in names}
        env["eta"] = lr
        return Instance(env, {f"{n}^new": new[n] for n in names}, grads=grads)
    return make


def _scalar_sgd(seed: int) -> Instance:
    from tinygpt.model import sgd_step

    w, grad, lr = torch.tensor(0.3 - seed, dtype=DTYPE), torch.tensor(-0.7 + seed, dtype=DTYPE), 0.1
    new = sgd_step({"w": w}, {"w": grad}, lr)["w"]
    return Instance({"w_old": w, "eta": lr}, {"w_new": new}, grads={"w": grad})


def _residual(seed: int) -> Instance:
    from tinygpt.model import _residual as residual

    g = torch.Generator().manual_seed(seed)
    x = _randn(g, 2, 3)
    w = _randn(g, 3, 3)

    def sublayer(v: torch.Tensor) -> torch.Tensor:
        return torch.tanh(v @ w)
    return Instance({"x": x}, {"x_new": residual(x, sublayer(x))}, {"F": sublayer})


def _model(seed: int) -> tuple[Any, dict[str, Any]]:
    from tinygpt.model import GPTConfig, TinyGPT

    config = GPTConfig(vocab_size=5, d_model=4, n_heads=1, d_k=4, d_v=4, n_layers=1,
                       positions="sinusoidal", out_bias=True)
    model = TinyGPT(config, seed=seed)
    with torch.no_grad():
        model.b.copy_(_randn(torch.Generator().manual_seed(seed + 7), 5))
        trace = model.forward_trace([1, 3, 0, 2])
    return model, trace


def _output_last(seed: int) -> Instance:
    """``ℓ = h_{n} W_{out} + b``: the last row of tinygpt's logits."""
    model, trace = _model(seed)
    h = trace["h"].detach()
    return Instance({"h_n": h[-1:], "W_out": model.U.detach(), "b": model.b.detach()[None, :]},
                    {"ell": trace["logits"].detach()[-1:]})


def _output_rows(seed: int) -> Instance:
    """``ℓ_{i} = h_{i} U + b, p_{i} = softmax (ℓ_{i})`` at the row i = 2."""
    model, trace = _model(seed)
    h = trace["h"].detach()
    return Instance({"h_i": h[1:2], "U": model.U.detach(), "b": model.b.detach()[None, :]},
                    {"ell_i": trace["logits"].detach()[1:2], "p_i": trace["p"].detach()[1:2]})


def _positions(seed: int) -> Instance:
    """``\\tilde{x}_{i} = x_{i} + p_{i}``: tinygpt's input row i = 2, the embedding row of its
    token plus the sinusoidal position vector."""
    from tinygpt.model import sinusoidal_positions

    model, trace = _model(seed)
    token = int(trace["tokens"][1])
    return Instance({"x_i": model.E.detach()[token:token + 1],
                     "p_i": sinusoidal_positions(4, 4)[1:2].to(DTYPE)},
                    {"xtilde_i": trace["x"].detach()[1:2]})


def _scores(scale: bool) -> Callable[[int], Instance]:
    """``s_{j} = \\frac{q \\cdot k_{j}}{\\sqrt{d_{k}}}`` (or unscaled): tinygpt.scaled_scores of
    one query against key j = 2."""
    def make(seed: int) -> Instance:
        from tinygpt.model import scaled_scores

        g = torch.Generator().manual_seed(seed)
        q, k = _randn(g, 1, 4), _randn(g, 3, 4)
        s = scaled_scores(q, k, scale=scale)[0, 1]
        return Instance({"q": q[0], "k": k[1], "k_j": k[1], "d_k": 4.0}, {"s_j": s})
    return make


def _weighted(keys: bool) -> Callable[[int], Instance]:
    """``z = a_{1} v_{1} + … `` / ``z_{i} = \\sum_{j} a_{i j} v_{j}``: tinygpt.attention's output
    row i = 2 with its weights a and values v (``keys``: the values are the keys, 5.4)."""
    def make(seed: int) -> Instance:
        from tinygpt.model import attention

        g = torch.Generator().manual_seed(seed)
        q, k, v = _randn(g, 3, 4), _randn(g, 3, 4), _randn(g, 3, 2)
        out, a = attention(q, k, k if keys else v)
        rows = k if keys else v
        env: dict[str, Any] = {"a": a[1] if keys else a, "v": rows, "k": rows, "i": 2,
                               "苹果": 2, "n": 3, "N": 3}  # keys: 5.4's one query, a_{j}
        env.update({f"a_{j}": a[1, j - 1] for j in (1, 2, 3)})
        env.update({f"{'k' if keys else 'v'}_{j}": rows[j - 1] for j in (1, 2, 3)})
        # the row of position i = 2, also named by its word (5.7's z_{苹果}, a_{苹果, j})
        return Instance(env, {"z": out[1], "z_i": out[1], "z_苹果": out[1]})
    return make


def _value_rows(seed: int) -> Instance:
    """``v_{j} = x_{j} W_{V}``: tinygpt's value row j = 2 from its attention input row."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=1, d_k=3, d_v=3, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        layer = model.forward_trace([1, 3, 0])["layers"][0]
    return Instance({"x_j": layer["attn_in"][1:2], "W_V": model.blocks[0].W_V[0].detach()},
                    {"v_j": layer["v"][0][1:2]})


def _linear_map(seed: int) -> Instance:
    """``y = x W`` (``y = x_{苹果} W``): a row times a fixed matrix, as tinygpt's value
    projection computes it (the value row of position 2 from its attention input)."""
    inst = _value_rows(seed)
    x, w = inst.env["x_j"], inst.env["W_V"]
    return Instance({"x": x, "x_苹果": x, "W": w}, {"y": inst.expected["v_j"]})


def _attention_output(seed: int) -> Instance:
    """``Attention_Output = A · V`` (plain text): tinygpt.attention's output from its weights A."""
    from tinygpt.model import attention

    g = torch.Generator().manual_seed(seed)
    q, k, v = _randn(g, 3, 4), _randn(g, 3, 4), _randn(g, 3, 2)
    out, a = attention(q, k, v)
    return Instance({"A": a, "V": v}, {"Attention_Output": out})


def _logits(seed: int) -> Instance:
    """``Logits = Z · W_linear`` (plain text): tinygpt's logits h U of the final rows (no bias)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=6, d_model=4, n_heads=1, d_k=4, d_v=4, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        trace = model.forward_trace([1, 3, 0])
    return Instance({"Z": trace["h"], "W_linear": model.U.detach()},
                    {"Logits": trace["logits"]})


def _qkv(seed: int) -> Instance:
    """``Q = X_input · W_q`` (``K``, ``V``; plain text): tinygpt's projections of one head, from
    the layer's input rows (the names read whole, products in order)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=1, d_k=3, d_v=3, n_layers=1,
                              layer_norm=False, positions="sinusoidal"), seed=seed)
    with torch.no_grad():
        layer = model.forward_trace([1, 3, 0])["layers"][0]
    block = model.blocks[0]
    env = {"X_input": layer["attn_in"], "X": layer["attn_in"], "W_q": block.W_Q[0].detach(),
           "W_k": block.W_K[0].detach(), "W_v": block.W_V[0].detach()}
    return Instance(env, {"Q": layer["q"][0], "K": layer["k"][0], "V": layer["v"][0]})


def _input_rows(seed: int) -> Instance:
    """``X_input = X + PE`` (plain text): tinygpt's input rows, embedding rows plus the
    sinusoidal positions."""
    from tinygpt.model import sinusoidal_positions

    model, trace = _model(seed)
    tokens = trace["tokens"]
    return Instance({"X": model.E.detach()[tokens], "PE": sinusoidal_positions(4, 4).to(DTYPE)},
                    {"X_input": trace["x"].detach()})


def _shapes(seed: int) -> Instance:
    """Shape statements ``A \\in R^{n \\times n}``, ``V``, ``Z``, ``Z^{(r)} \\in R^{n \\times
    d_{v}}``, ``x_{苹果} \\in R^{d}``: the sizes of tinygpt's weights, values, head outputs and
    an input row (n = 3 tokens, d = 4, two heads of d_v = 2)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        trace = model.forward_trace([1, 3, 0])
    layer = trace["layers"][0]
    env = {"A": layer["weights"][0], "V": layer["v"][0], "Z": layer["z_heads"][0],
           "Z^(r)": layer["z_heads"][1], "x_苹果": trace["x"][1], "X": layer["attn_in"],
           "Q": layer["q"][0], "K": layer["k"][0], "n": 3, "d": 4, "d_k": 2, "d_v": 2,
           "E": model.E.detach(), "W_E": model.E.detach(), "h_n": trace["h"][-1],
           "U": model.U.detach(), "N": 5, "d_model": 4}
    return Instance(env, {})


def _lm_shapes(seed: int) -> Instance:
    """Shape statements of a language model's pieces in lesson-1 names: a token's row
    ``x \\in R^{1 \\times d}``, the table ``E \\in R^{V \\times d}``, the output matrix
    ``W_U \\in R^{d \\times V}``, the logits ``z \\in R^{V}``, the stacked rows ``X \\in
    R^{T \\times d}`` (tinygpt with V = 5 tokens, d = 4, a text of T = n = 3 tokens) and a
    projection ``W \\in R^{d \\times m}`` (a head's W_Q, m = 2)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        trace = model.forward_trace([1, 3, 0])
    env = {"x": trace["x"][1:2], "E": model.E.detach(), "W_U": model.U.detach(),
           "z": trace["logits"][-1], "X": trace["x"], "V": 5, "d": 4, "T": 3,
           "W": model.blocks[0].W_Q[0].detach(), "n": 3, "m": 2}
    return Instance(env, {})


def _counts(seed: int) -> Instance:
    """Counts in prose: ``V \\times d`` parameters of the embedding table, ``n \\times m`` (or
    ``T \\times m``) entries of a product X W: numel of tinygpt's E and of its X W_Q (V = 5
    tokens, d = 4, a text of n = T = 3 tokens, a head of m = 2 columns)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        x = model.forward_trace([1, 3, 0])["x"]
        product = x @ model.blocks[0].W_Q[0]
    env = {"V": 5, "d": 4, "n": 3, "T": 3, "m": 2}
    return Instance(env, {"count": torch.tensor(float(model.E.numel()), dtype=DTYPE),
                          "entries": torch.tensor(float(product.numel()), dtype=DTYPE)})


def _head(seed: int) -> Instance:
    """``Z^{(h)} = Attention (Q^{(h)}, K^{(h)}, V^{(h)})``: tinygpt's head h = 2 of a two-head
    layer (no mask) is tinygpt.attention of that head's Q, K, V."""
    from tinygpt.model import GPTConfig, TinyGPT, attention

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=1,
                              causal=False), seed=seed)
    with torch.no_grad():
        layer = model.forward_trace([1, 3, 0])["layers"][0]
    env = {"Q^(h)": layer["q"][1], "K^(h)": layer["k"][1], "V^(h)": layer["v"][1]}
    return Instance(env, {"Z^(h)": layer["z_heads"][1]},
                    {"Attention": lambda q, k, v: attention(q, k, v)[0]})


def _loss(seed: int) -> Instance:
    """``L = \\frac{1}{| I |} \\sum_{i \\in I} - \\ln p_{i, t_{i + 1}}``: tinygpt.cross_entropy
    with the loss mask I = {1, 2, 4} of four positions (targets t_2 … t_5; like every index of
    a formula, a token id counts from 1)."""
    from tinygpt.model import cross_entropy

    g = torch.Generator().manual_seed(seed)
    logits = _randn(g, 4, 5)
    tokens = torch.tensor([0, 3, 1, 4, 2])
    mask = torch.tensor([True, True, False, True])
    loss = cross_entropy(logits, tokens[1:], mask)
    return Instance({"p": torch.softmax(logits, dim=-1), "t": tokens + 1, "I": [1, 2, 4]},
                    {"L": loss})


def _raw_score_matrix(seed: int) -> Instance:
    """``X W_{Q} W_{K}^{T} X^{T}``: tinygpt's unscaled score matrix Q Kᵀ of Q = X W_Q, K = X W_K."""
    from tinygpt.model import scaled_scores

    g = torch.Generator().manual_seed(seed)
    x, wq, wk = _randn(g, 3, 4), _randn(g, 4, 2), _randn(g, 4, 2)
    return Instance({"X": x, "W_Q": wq, "W_K": wk},
                    {"S": scaled_scores(x @ wq, x @ wk, scale=False)})


def _score_entries(seed: int) -> Instance:
    """``(Q K^{T})_{i j} = q_{i} \\cdot k_{j}``: each entry of tinygpt's unscaled score matrix,
    q_i, k_j the rows of Q and K at the entry's indices (q_j and k_i too: a swapped index
    is read, and differs)."""
    from tinygpt.model import scaled_scores

    g = torch.Generator().manual_seed(seed)
    q, k = _randn(g, 3, 2), _randn(g, 3, 2)
    scores = scaled_scores(q, k, scale=False)
    pairs = [(i, j) for i in range(3) for j in range(3)]
    family = [({"i": i + 1, "j": j + 1, "q_i": q[i], "q_j": q[j], "k_i": k[i], "k_j": k[j]},
               scores[i, j]) for i, j in pairs]
    # plain text (3.1's score(i, j) = Q[i] · K[j]^T): the rows are 1×d matrices
    rows = [({"i": i + 1, "j": j + 1, "Q_i": q[i:i + 1], "Q_j": q[j:j + 1], "K_i": k[i:i + 1],
              "K_j": k[j:j + 1]}, scores[i:i + 1, j:j + 1]) for i, j in pairs]
    return Instance({"Q": q, "K": k}, {"entry": scores, "score": scores},
                    each={"entry": family, "score": rows})


def _tied_output_gradient(seed: int) -> Instance:
    """``{\\bar{U}}^{T}`` (12.5: with U = Eᵀ, E also receives the output path's Ūᵀ): what weight
    tying adds to E's gradient in tinygpt (tied minus untied at the same weights), against
    the untied model's Ū."""
    from tinygpt.model import GPTConfig, TinyGPT

    config = {"vocab_size": 5, "d_model": 4, "n_heads": 1, "d_k": 4, "d_v": 4, "n_layers": 1}
    tied = TinyGPT(GPTConfig(**config, tie_weights=True), seed=seed)
    untied = TinyGPT(GPTConfig(**config), seed=seed)
    weights = {**tied.state_dict(), "U": tied.E.detach().T.clone()}
    untied.load_state_dict(weights)
    tokens, targets = [1, 3, 0, 3], [3, 0, 3, 2]
    tied_grads = tied.loss_and_grads(tokens, targets)[1]
    untied_grads = untied.loss_and_grads(tokens, targets)[1]
    return Instance({"Ubar": untied_grads["U"]}, {"Ebar": tied_grads["E"] - untied_grads["E"]})


def _softmax_as_written(seed: int) -> Instance:
    """``\\infty/\\infty`` (lesson 1, §5): the first probability of exp(z) / Σ exp(z) computed
    as written in float64 at logits as large as the note's (1000, 999, 998): e^{1000}
    overflows to ∞ and ∞/∞ is NaN. The seed shifts the logits, all beyond 709.78."""
    z = torch.tensor([1000.0, 999.0, 998.0], dtype=DTYPE) + float(seed % 7)
    e = torch.exp(z)
    return Instance({}, {"p": e[0] / e.sum()})


def _layernorm_stats(seed: int) -> Instance:
    """``μ = \\frac{1}{d} \\sum_{r} x_{r}, v = \\frac{1}{d} \\sum_{r} (x_{r} - μ)^{2}`` (15.5): the
    mean and the mean squared deviation that tinygpt's layer_norm normalises one row with,
    recovered from its output at γ = 1, β = 0: y_r = (x_r − μ)/√(v + ε), so two coordinates
    give √(v + ε) = (x_1 − x_2)/(y_1 − y_2) and then μ = x_1 − y_1 √(v + ε)."""
    from tinygpt.model import layer_norm

    g = torch.Generator().manual_seed(seed)
    d, eps = 5, 1e-5
    x = _randn(g, d) * 2.0 + 1.0
    y = layer_norm(x, torch.ones(d, dtype=DTYPE), torch.zeros(d, dtype=DTYPE), eps)
    root = (x[0] - x[1]) / (y[0] - y[1])
    return Instance({"x": x, "d": d, "N": d}, {"mu": x[0] - y[0] * root, "v": root ** 2 - eps})


def _hidden_row(seed: int) -> Instance:
    """``h_{3} = F_{θ} (x_{1}, x_{2}, x_{3})_{3}``: F_θ is tinygpt's stack of blocks and final
    norm applied to the input rows; row 3 of its value is tinygpt's h_3 of the same prefix."""
    from tinygpt.model import GPTConfig, TinyGPT, layer_norm

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=2),
                    seed=seed)

    def f_theta(*rows: torch.Tensor) -> torch.Tensor:
        x = torch.cat(rows, dim=0)
        for block in model.blocks:
            x = block(x)
        return layer_norm(x, model.gamma_f, model.beta_f, model.config.eps)

    with torch.no_grad():
        trace = model.forward_trace([1, 3, 0])
        rows = {f"x_{k + 1}": trace["x"][k:k + 1] for k in range(3)}
        return Instance(rows, {"h_3": trace["h"][2:3]},
                        {"F_theta": lambda *r: f_theta(*r).detach()})


def _heads(seed: int) -> Instance:
    """``Z = Concat (Z^{(1)}, \\dots, Z^{(H)}) W_{O}`` (or ``O = …``, with ``W_{O} \\in R^{H d_{v}
    \\times d}``): tinygpt's multi-head output (H = 3, d_v = 2, d = 4)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=4, n_heads=3, d_k=2, d_v=2, n_layers=1),
                    seed=seed)
    with torch.no_grad():
        layer = model.forward_trace([1, 3, 0])["layers"][0]
    env: dict[str, Any] = {f"Z^({h + 1})": z for h, z in enumerate(layer["z_heads"])}
    env.update({"H": 3, "Z^(H)": layer["z_heads"][-1], "W_O": model.blocks[0].W_O.detach(),
                "d_v": 2, "d": 4})
    return Instance(env, {"Z": layer["attn_out"], "O": layer["attn_out"]})


def _next_token(entry: bool) -> Callable[[int], Instance]:
    """``P (t_{T + 1} ∣ t_{1}, \\dots, t_{T}) = softmax (h_{T} W_{out} + b)`` (the last row of
    tinygpt's p) or ``P (t_{n + 1} = j) = \\frac{e^{ℓ_{j}}}{\\sum_{k} e^{ℓ_{k}}}`` (its entry
    j = 2)."""
    def make(seed: int) -> Instance:
        model, trace = _model(seed)
        h, ell, p = (trace[k].detach() for k in ("h", "logits", "p"))
        env: dict[str, Any] = {"h_T": h[-1:], "h": h[-1:], "W_out": model.U.detach(),
                               "b": model.b.detach()[None, :], "ell": ell[-1], "ell_j": ell[-1, 1],
                               "j": 2, "N": ell.shape[1]}
        return Instance(env, {"P": p[-1, 1] if entry else p[-1:]})
    return make


def _weights_of_x(seed: int) -> Instance:
    """``z_{i} = \\sum_{j} a_{i j} (X) v_{j}`` (and ``x_{j} W_{V}`` for ``v_{j}``):
    tinygpt.attention of Q = X W_Q, K = X W_K, V = X W_V, row i = 2; ``a (X)`` is its weight
    matrix."""
    from tinygpt.model import attention

    g = torch.Generator().manual_seed(seed)
    x, wq, wk, wv = _randn(g, 3, 4), _randn(g, 4, 2), _randn(g, 4, 2), _randn(g, 4, 2)

    def weights(inputs: torch.Tensor) -> torch.Tensor:
        return attention(inputs @ wq, inputs @ wk, inputs @ wv)[1]

    out = attention(x @ wq, x @ wk, x @ wv)[0]
    env = {"X": x, "x": x, "v": x @ wv, "W_V": wv, "i": 2, "N": 3}
    return Instance(env, {"z_i": out[1]}, {"a": weights})


def _embedding_rows(seed: int) -> Instance:
    """``{\\bar{E}}_{w, :} = \\sum_{i : t_{i} = w} {\\bar{X}}_{i, :}`` for ``x_{i} = E_{t_{i}, :} +
    p_{i}``: the gradient of tinygpt's embedding table under autograd, with a loss whose
    gradient by the input rows X is a random X̄ (tokens t = (1, 2, 1) of N = 3: a repeated
    token, and token 3 unused)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=3, d_model=4, n_heads=1, d_k=4, d_v=4, n_layers=1,
                              positions="sinusoidal"), seed=seed)
    tokens = [0, 1, 0]
    x_bar = _randn(torch.Generator().manual_seed(seed + 11), 3, 4)
    model.zero_grad()
    (model.forward_trace(tokens)["x"] * x_bar).sum().backward()
    return Instance({"Xbar": x_bar, "t": torch.tensor(tokens) + 1, "N": 3},
                    {"Ebar_w,:": model.E.grad.detach().clone()}, entries=("w",))


def _preview(seed: int) -> Instance:
    """lesson1's preview of attention: ``a = softmax (s)`` of the scores ``s_j = q \\cdot k_j``
    and the weighted sum ``\\sum_j a_j v_j``: tinygpt.attention (unscaled) of one query."""
    from tinygpt.model import attention

    g = torch.Generator().manual_seed(seed)
    q, k, v = _randn(g, 1, 4), _randn(g, 3, 4), _randn(g, 3, 2)
    out, a = attention(q, k, v, scale=False)
    scores = (q @ k.T)[0]
    return Instance({"s": scores, "a": a[0], "v": v, "N": 3}, {"a": a[0], "z": out[0]},
                    {"softmax": lambda x: torch.softmax(x, dim=-1)})


def _ce_grad(seed: int) -> Instance:
    """``\\partial L / \\partial z = p - \\mathbf y``: the gradient of tinygpt.cross_entropy by the
    logits (autograd), p the softmax of z and y the one-hot target."""
    from tinygpt.model import cross_entropy

    z = _randn(torch.Generator().manual_seed(seed), 1, 5).requires_grad_(True)
    target = 3 - seed
    cross_entropy(z, [target]).backward()
    p = torch.softmax(z.detach(), dim=-1)
    y = torch.zeros(1, 5, dtype=DTYPE)
    y[0, target] = 1.0
    return Instance({"p": p, "ybold": y}, {"Derivative(L, z)": z.grad.detach()})


def _token_loss(seed: int) -> Instance:
    """``- \\ln p``, p the probability of the correct next token: tinygpt.cross_entropy of the
    last position (target token 2)."""
    from tinygpt.model import cross_entropy

    _, trace = _model(seed)
    logits = trace["logits"].detach()[-1:]
    p = torch.softmax(logits, dim=-1)[0, 2]
    return Instance({"p": p}, {"L": cross_entropy(logits, [2])})


def _uniform_loss(seed: int) -> Instance:
    """``\\ln V``: tinygpt.cross_entropy of equal logits over V tokens (a uniform guess)."""
    from tinygpt.model import cross_entropy

    vocab = 15 + 10 * seed
    loss = cross_entropy(torch.zeros(2, vocab, dtype=DTYPE), [1, 4])
    return Instance({"V": float(vocab)}, {"L": loss})


def _softmax_jacobian(seed: int) -> Instance:
    """``\\mathrm{diag}(p) - p p^\\top``: the Jacobian of tinygpt.softmax (autograd), p a column."""
    from tinygpt.model import softmax

    z = _randn(torch.Generator().manual_seed(seed), 4)
    jac = torch.autograd.functional.jacobian(softmax, z)
    p = softmax(z)
    return Instance({"p": p[:, None]}, {"J": jac}, {"diag": lambda v: torch.diag(v.flatten())})


VOCABULARY = {"黑便": 2, "出血": 4}  # the words the notes' loss formulas name, as token ids


def _word_loss(seed: int) -> Instance:
    """``L = - \\ln P (黑便 ∣ 前文)``, ``L = - \\ln P (t_{6} = 黑便 ∣ X)``: tinygpt.cross_entropy
    of the last position with the word's token as the target."""
    from tinygpt.model import cross_entropy

    _, trace = _model(seed)
    logits = trace["logits"].detach()

    def probability(event: Any, *given: Any) -> torch.Tensor:
        inner = event.args[0] if isinstance(event, AppliedUndef) and event.args else event
        word = inner.rhs if isinstance(inner, sympy.Eq) else inner
        if getattr(word, "name", None) not in VOCABULARY or not given:
            raise Unread(f"P of {inner} is not a next-token probability of a known word")
        return torch.softmax(logits[-1], dim=-1)[VOCABULARY[word.name]]

    return Instance({}, {"L": cross_entropy(logits[-1:], [VOCABULARY["黑便"]])},
                    {"given": probability})


#: name -> what tinygpt computes, the names read as matrices, the functions, the instance maker
REFERENCES: dict[str, Reference] = {
    "tinygpt-ffn": Reference("tinygpt.model.ffn (GELU)", ("x", "W_1", "b_1", "W_2", "b_2"),
                             ("sigma", "FFN"), _ffn),
    "tinygpt-causal-mask": Reference("tinygpt.model.causal_mask (0 where allowed, −∞ else)",
                                     (), (), _mask),
    "tinygpt-sgd-old": Reference("tinygpt.model.sgd_step", ("W_Q", "W_Q^old"), (),
                                 _sgd(("W_Q",), lambda n: f"{n}^old")),
    "tinygpt-sgd": Reference("tinygpt.model.sgd_step", ("W_Q", "W_out"), (),
                             _sgd(("W_Q", "W_out"), lambda n: n)),
    "tinygpt-sgd-scalar": Reference("tinygpt.model.sgd_step on one scalar", (), (), _scalar_sgd),
    "tinygpt-residual": Reference("tinygpt's residual x + sublayer(x)", ("x",), ("F",),
                                  _residual),
    "tinygpt-output-last": Reference("tinygpt's logits h U + b, last row",
                                     ("h_n", "W_out", "b"), (), _output_last),
    "tinygpt-output-rows": Reference("tinygpt's logits h U + b and p = softmax of a row",
                                     ("h_i", "U", "b"), ("softmax",), _output_rows),
    "tinygpt-positions": Reference("tinygpt's input row (embedding + sinusoidal position)",
                                   ("x_i", "p_i", "xtilde_i"), (), _positions),
    "tinygpt-scaled-score": Reference("tinygpt.model.scaled_scores", (), (), _scores(True)),
    "tinygpt-raw-score": Reference("tinygpt.model.scaled_scores without the scale", (), (),
                                   _scores(False)),
    "tinygpt-weighted-sum": Reference("tinygpt.attention's output row", (), (),
                                      _weighted(False)),
    "tinygpt-key-weighted-sum": Reference("tinygpt.attention's output with the keys as values",
                                          (), (), _weighted(True)),
    "tinygpt-value-row": Reference("tinygpt's value row x_j W_V", ("x_j", "W_V", "v_j"), (),
                                   _value_rows),
    "tinygpt-linear-map": Reference("tinygpt's projection of a row by a fixed matrix (x W_V)",
                                    ("x", "x_苹果", "W", "y"), (), _linear_map),
    "tinygpt-attention-output": Reference("tinygpt.attention's output A V",
                                          ("Attention_Output", "A", "V"), (), _attention_output),
    "tinygpt-logits": Reference("tinygpt's logits h U (final rows times the output matrix)",
                                ("Logits", "Z", "W_linear"), (), _logits),
    "tinygpt-qkv": Reference("tinygpt's Q, K, V projections of the layer input",
                             ("Q", "K", "V", "X_input", "X", "W_q", "W_k", "W_v"), (), _qkv),
    "tinygpt-input": Reference("tinygpt's input rows (embedding rows + sinusoidal positions)",
                               ("X_input", "X", "PE"), (), _input_rows),
    "tinygpt-shapes": Reference("the sizes of tinygpt's inputs, projections, weights and heads",
                                ("A", "V", "Z", "Z^(r)", "x_苹果", "X", "Q", "K", "E", "W_E",
                                 "h_n"), (), _shapes),
    "tinygpt-lm-shapes": Reference("the sizes of tinygpt's token rows, embedding table, output "
                                   "matrix and logits", ("x", "E", "W_U", "z", "X", "W"), (),
                                   _lm_shapes),
    "tinygpt-embedding-count": Reference("the number of entries of tinygpt's embedding table",
                                         (), (), lambda seed: _only(_counts(seed), "count")),
    "tinygpt-product-count": Reference("the number of entries of tinygpt's product X W_Q",
                                       (), (), lambda seed: _only(_counts(seed), "entries")),
    "tinygpt-head": Reference("tinygpt's attention head (tinygpt.attention of its Q, K, V)",
                              ("Q^(h)", "K^(h)", "V^(h)", "Z^(h)"), ("Attention",), _head),
    "tinygpt-score-entries": Reference("tinygpt's unscaled scores Q Kᵀ, entry by entry",
                                       ("Q", "K", "Q_i", "Q_j", "K_i", "K_j"), ("score",),
                                       _score_entries),
    "tinygpt-tied-output-gradient": Reference(
        "the output path's share of E's gradient in tinygpt with tied weights", ("Ubar",), (),
        _tied_output_gradient),
    "tinygpt-softmax-as-written": Reference("exp(z) / Σ exp(z) computed as written, large z",
                                    (), (), _softmax_as_written),
    "tinygpt-layernorm-stats": Reference("the mean μ and squared deviation v of tinygpt's "
                                         "layer_norm (one row)", (), (), _layernorm_stats),
    "tinygpt-raw-score-matrix": Reference("tinygpt's unscaled scores Q Kᵀ (Q = X W_Q, K = X W_K)",
                                          ("X", "W_Q", "W_K"), (), _raw_score_matrix),
    "tinygpt-hidden-row": Reference("tinygpt's hidden row h_3 (blocks and final norm)",
                                    ("x_1", "x_2", "x_3", "h_3"), ("F_theta",), _hidden_row),
    "tinygpt-heads": Reference("tinygpt's multi-head output (heads concatenated, times W_O)",
                               ("W_O",), ("Concat",), _heads),
    "tinygpt-next-token": Reference("tinygpt's next-token distribution p (last row)",
                                    ("h_T", "h", "W_out", "b"), ("P", "softmax"),
                                    _next_token(False)),
    "tinygpt-next-token-entry": Reference("tinygpt's next-token probability of token j",
                                          (), ("P",), _next_token(True)),
    "tinygpt-weights-of-x": Reference("tinygpt.attention of X (weights a(X), values X W_V)",
                                      ("X", "W_V"), ("a",), _weights_of_x),
    "tinygpt-embedding-rows": Reference("the gradient of tinygpt's embedding table (autograd)",
                                        (), (), _embedding_rows),
    "tinygpt-preview-weights": Reference("tinygpt.attention's weights (unscaled) of one query",
                                         (), ("softmax",), _preview),
    "tinygpt-preview-sum": Reference("tinygpt.attention's output (unscaled) of one query",
                                     (), (), lambda seed: _only(_preview(seed), "z")),
    "tinygpt-ce-grad": Reference("the gradient of tinygpt.cross_entropy by the logits",
                                 ("p",), (), _ce_grad),
    "tinygpt-token-loss": Reference("tinygpt.cross_entropy of the correct next token", (), (),
                                    _token_loss),
    "tinygpt-uniform-loss": Reference("tinygpt.cross_entropy of a uniform guess", (), (),
                                      _uniform_loss),
    "tinygpt-softmax-jacobian": Reference("the Jacobian of tinygpt.softmax (autograd)", ("p",),
                                          ("diag",), _softmax_jacobian),
    "tinygpt-word-loss": Reference("tinygpt.cross_entropy of the last position, target 黑便",
                                   (), ("P",), _word_loss),
    "tinygpt-cross-entropy": Reference("tinygpt.model.cross_entropy with a loss mask", (), (),
                                       _loss),
}


# --------------------------------------------------------------------------- evaluation


def _only(inst: Instance, key: str) -> Instance:
    """The instance with one expected value (a bare expression is compared with it)."""
    return Instance(inst.env, {key: inst.expected[key]}, inst.calls, inst.grads, inst.entries)
