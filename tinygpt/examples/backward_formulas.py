"""The notes' printed backward formulas, held to account three ways (claims of kind ``model``).

Each example below checks one printed group of backward formulas on a few small random
instances (fixed seeds, sizes listed per example). For every instance it computes

* the note's formula, transcribed as printed in :mod:`tinygpt.backward`,
* torch autograd of an independent torch forward (:func:`tinygpt.gradcheck.autograd_grads`),
* 50-digit mpmath central differences of an mpmath forward
  (:func:`tinygpt.gradcheck.central_differences`),

and raises ``ValueError`` naming the odd one out (:func:`tinygpt.gradcheck.three_way`) when
they disagree; the engine turns that into a claim error. Intermediates the formulas name
(``Z̄, Ā, S̄, Q̄, ...``) are differentiated in mpmath too, by forwards that start at that node.

The claims quote the formula text exactly, so editing a formula in the note makes the claim
stale. The quoted note text is passed in (``run: {text: true}``) and each example first checks
that it contains the key symbols of the formula it checks, so a claim pointed at the wrong
text fails instead of passing vacuously.

Numbers that a printed formula itself contains (the 1 of ``1_{j = y}``, the 1 of ``\\frac{1}{s}``,
the ``-= 1`` of the NumPy listing, the 0 of "被禁止位置梯度为0" ...) are returned as outputs
measured from the 50-digit differences or autograd, so claims check them as holes.

The examples take no numeric inputs: the instances are random (the formulas print no values);
the results are cached, so the many claims of one group cost one computation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import torch
from mpmath import mp
from torch import Tensor

from tinygpt import backward as bw
from tinygpt import gradcheck as gc
from tinygpt.examples import example
from tinygpt.gradcheck import matmul_mp as _mm
from tinygpt.gradcheck import transpose_mp as _T

F64 = torch.float64
DPS = 50
H = "1e-20"  # the step of the 50-digit central differences (see tinygpt.gradcheck)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def _rand(gen: torch.Generator, *shape: int) -> Tensor:
    return torch.randn(*shape, generator=gen, dtype=F64)


def _require(text: str, what: str, symbols: Sequence[str]) -> None:
    """The quoted note text must print the formula this example checks."""
    missing = [s for s in symbols if s not in text]
    if missing:
        raise ValueError(f"{what}: the quoted text does not contain {', '.join(map(repr, missing))}"
                         " - the claim does not quote the formula this example checks")


def _judge(what: str, note: dict[str, Tensor], auto: dict[str, Tensor],
           mpd: dict[str, Tensor]) -> None:
    """Raise naming which of the three computations disagrees (note formula, autograd, mpmath)."""
    verdicts = gc.three_way(note, auto, mpd)
    if verdicts:
        more = f" (and {len(verdicts) - 3} more)" if len(verdicts) > 3 else ""
        raise ValueError(f"{what}: " + "; ".join(verdicts[:3]) + more)


def _scalar(x: float) -> Tensor:
    return torch.tensor(float(x), dtype=F64)


def _worst(values: Sequence[Any], ideal: float) -> float:
    """The measured value furthest from the printed ``ideal`` (so one bad instance shows)."""
    return float(max(values, key=lambda v: abs(v - ideal)))


def _mp_partial(fn_mp: Callable[[dict[str, Any]], Any], inputs: dict[str, Any], key: str,
                index: tuple[int, ...]) -> Any:
    """One partial derivative at 50 digits, kept as an mpf (not rounded to float64)."""
    with mp.workdps(DPS):
        h = mp.mpf(H)
        base = {k: gc.to_mp(v) for k, v in inputs.items()}

        def shifted(delta: Any) -> Any:
            args = {k: gc.to_mp(v) for k, v in inputs.items()}
            node = args[key]
            for i in index[:-1]:
                node = node[i]
            node[index[-1]] = base_entry(base[key]) + delta
            return fn_mp(args)

        def base_entry(x: Any) -> Any:
            for i in index:
                x = x[i]
            return x

        return (shifted(h) - shifted(-h)) / (2 * h)


def _dot(A: list, B: list) -> Any:
    return mp.fsum(x * y for ra, rb in zip(A, B, strict=True) for x, y in zip(ra, rb, strict=True))


# --------------------------------------------------------------------------------------------
# 15.2  softmax + cross-entropy: ∂L/∂ℓ_j = p_j − 1_{j=y}
# --------------------------------------------------------------------------------------------

# (seed, rows, N): one row of 4 logits; a batch of 3 rows of 5 (summed loss, row by row)
CE_CASES = [(200, 1, 4), (201, 3, 5)]


@cache
def _ce() -> dict[str, Any]:
    indicator = []
    for seed, rows, N in CE_CASES:
        g = torch.Generator().manual_seed(seed)
        logits = _rand(g, N) if rows == 1 else _rand(g, rows, N)
        target: int | list[int] = (seed % N if rows == 1
                                   else [(seed + i) % N for i in range(rows)])
        inputs = {"logits": logits}
        note = {"logits": bw.softmax_cross_entropy_grad(logits, torch.tensor(target))}
        auto = gc.autograd_grads(gc.cross_entropy_loss_torch(target), inputs)
        fn_mp = gc.cross_entropy_loss_mp(target)
        mpd = gc.central_differences(fn_mp, inputs)
        _judge(f"15.2 instance seed {seed} ({rows}×{N})", note, auto, mpd)
        # the printed 1 of 1_{j=y}: p_y − ∂L/∂ℓ_y at 50 digits, at every target entry
        tg = [target] if rows == 1 else target
        for r, y in enumerate(tg):
            idx = (y,) if rows == 1 else (r, y)
            with mp.workdps(DPS):
                row = gc.to_mp(logits if rows == 1 else logits[r])
                p_y = gc.softmax_row_mp(row)[y]
                indicator.append(p_y - _mp_partial(fn_mp, inputs, "logits", idx))
    return {"indicator": _worst(indicator, 1.0)}


@example("aat_15_2_softmax_ce_grad")
def softmax_ce_grad(text: str) -> dict[str, Tensor]:
    """15.2 ``∂L/∂ℓ_j = p_j − 1_{j=y}`` (``softmax_cross_entropy_grad``) on one row of 4
    logits and a 3×5 batch (summed loss), seeds 200, 201. Output ``indicator``: what is
    subtracted at the target entry, ``p_y − ∂L/∂ℓ_y`` (50-digit differences), worst entry."""
    _require(text, "15.2", [r"\frac{\partial L}{\partial ℓ_{j}}", "p_{j}", "_{j = y}"])
    return {"indicator": _scalar(_ce()["indicator"])}


# --------------------------------------------------------------------------------------------
# 15.3  output layer ℓ = h U + b
# --------------------------------------------------------------------------------------------

# (seed, positions, d, N): one position; three positions (contributions summed)
OUT_CASES = [(210, 1, 3, 4), (211, 3, 2, 3)]


@cache
def _output_layer() -> dict[str, Any]:
    for seed, n, d, N in OUT_CASES:
        g = torch.Generator().manual_seed(seed)
        h = _rand(g, d) if n == 1 else _rand(g, n, d)
        p = {"h": h, "U": _rand(g, d, N), "b": _rand(g, N)}
        ell_bar = _rand(g, N) if n == 1 else _rand(g, n, N)
        note = bw.output_layer_backward(p["h"], p["U"], ell_bar)

        def fn_t(q: dict[str, Tensor], lb: Tensor = ell_bar) -> Tensor:
            return ((q["h"] @ q["U"] + q["b"]) * lb).sum()

        lbm = gc.to_mp(ell_bar)

        def fn_mp(q: dict[str, Any], lbm: Any = lbm, n: int = n) -> Any:
            hs = q["h"] if n > 1 else [q["h"]]
            lb = lbm if n > 1 else [lbm]
            ell = [[x + c for x, c in zip(r, q["b"], strict=True)] for r in _mm(hs, q["U"])]
            return _dot(ell, lb)

        auto = gc.autograd_grads(fn_t, p)
        mpd = gc.central_differences(fn_mp, p)
        _judge(f"15.3 output layer, seed {seed} ({n} position(s))", note, auto, mpd)
    return {}


@example("aat_15_3_output_layer")
def output_layer(text: str) -> dict[str, Tensor]:
    """15.3 ``Ū = hᵀ ℓ̄, h̄ = ℓ̄ Uᵀ, b̄ = ℓ̄`` (``output_layer_backward``) for ``ℓ = h U + b``
    with ``L = Σ ℓ ∘ ℓ̄``: one position (d = 3, N = 4, seed 210) and three positions summed
    (d = 2, N = 3, seed 211)."""
    _require(text, "15.3 output layer",
             [r"\bar{U} = h^{T} \bar{ℓ}", r"\bar{h} = \bar{ℓ} U^{T}", r"\bar{b} = \bar{ℓ}"])
    _output_layer()
    return {}


# --------------------------------------------------------------------------------------------
# 15.3  the chapter-13 module R = X + Z W_O, Z = A V, A = softmax(S), S = Q Kᵀ/√d_k
# --------------------------------------------------------------------------------------------

# (seed, n, d, d_k, d_v, causal); d_k ∈ {2, 3} so that the 1/√d_k factor is visible
ATT_CASES = [(220, 3, 3, 2, 2, True), (221, 2, 2, 3, 3, False), (222, 3, 2, 2, 3, True)]


def _att_tail_mp(X: Any, W_O: Any, Rb: Any, ok: list[list[bool]] | None,
                 fixed: dict[str, Any], start: str) -> Callable[[dict[str, Any]], Any]:
    """mpmath forward of the module from node ``start`` on (``Q``/``K``/``V``, ``S``, ``A`` or
    ``Z``), the other nodes held at their values: its derivative is that node's gradient."""

    def fn(q: dict[str, Any]) -> Any:
        v = {**fixed, **q}
        if start == "QKV":
            rd = mp.sqrt(len(v["Q"][0]))
            v["S"] = [[s / rd for s in row] for row in _mm(v["Q"], _T(v["K"]))]
        if start in ("QKV", "S"):
            v["A"] = [gc.softmax_row_mp(r, None if ok is None else ok[i])
                      for i, r in enumerate(v["S"])]
        if start in ("QKV", "S", "A"):
            v["Z"] = _mm(v["A"], v["V"])
        R = [[x + y for x, y in zip(rx, rz, strict=True)]
             for rx, rz in zip(X, _mm(v["Z"], W_O), strict=True)]
        return _dot(R, Rb)

    return fn


@cache
def _attention() -> dict[str, Any]:
    forbidden = []
    for seed, n, d, d_k, d_v, causal in ATT_CASES:
        g = torch.Generator().manual_seed(seed)
        p = {"X": _rand(g, n, d), "W_Q": _rand(g, d, d_k), "W_K": _rand(g, d, d_k),
             "W_V": _rand(g, d, d_v), "W_O": _rand(g, d_v, d)}
        R_bar = _rand(g, n, d)
        allowed = bw.causal_allowed(n) if causal else None
        note = bw.attention_module_backward(**p, R_bar=R_bar, allowed=allowed)
        auto = gc.autograd_grads(gc.attention_loss_torch(R_bar, allowed), p)
        mpd = dict(gc.central_differences(gc.attention_loss_mp(R_bar, allowed), p))
        # the intermediates, differentiated in mpmath from their own node on
        fw = bw.attention_module_forward(**p, allowed=allowed)
        ok = None if allowed is None else [[bool(x) for x in r] for r in allowed.tolist()]
        with mp.workdps(DPS):
            X, W_O, Rb = gc.to_mp(p["X"]), gc.to_mp(p["W_O"]), gc.to_mp(R_bar)
            nodes = {k: gc.to_mp(fw[k]) for k in ("Q", "K", "V", "S", "A", "Z")}
        for start, wrt in (("QKV", ("Q", "K", "V")), ("S", ("S",)), ("A", ("A",)),
                           ("Z", ("Z",))):
            fn = _att_tail_mp(X, W_O, Rb, ok, nodes, start)
            mpd.update(gc.central_differences(fn, {k: nodes[k] for k in wrt}))
        _judge(f"15.3 module, seed {seed} (n={n}, d={d}, d_k={d_k}, d_v={d_v}, "
               f"{'causal' if causal else 'no mask'})", note, auto, mpd)
        if allowed is not None:
            # "被禁止位置梯度为0": the 50-digit derivative at every forbidden score
            forbidden.extend(float(x) for x in mpd["S"][~allowed].abs().reshape(-1))
    return {"forbidden": max(forbidden)}


ATT_RULES = {
    "aat_15_3_mixing": ("15.3 W̄_O, Z̄, Ā, V̄", [r"{\bar{W}}_{O} = Z^{T} \bar{R}",
                        r"\bar{Z} = \bar{R} W_{O}^{T}", r"\bar{A} = \bar{Z} V^{T}",
                        r"\bar{V} = A^{T} \bar{Z}"]),
    "aat_15_3_softmax_rows": ("15.3 S̄ (row softmax over J_i)",
                              [r"{\bar{S}}_{i j} = a_{i j}", r"\sum_{r \in J_{i}}",
                               r"a_{i r} {\bar{A}}_{i r}", "被禁止位置梯度为"]),
    "aat_15_3_qk": ("15.3 Q̄, K̄", [r"\bar{Q} = \bar{S} K / \sqrt{d_{k}}",
                                   r"\bar{K} = {\bar{S}}^{T} Q / \sqrt{d_{k}}"]),
    "aat_15_3_projections": ("15.3 W̄_Q, W̄_K, W̄_V", [r"{\bar{W}}_{Q} = X^{T} \bar{Q}",
                             r"{\bar{W}}_{K} = X^{T} \bar{K}", r"{\bar{W}}_{V} = X^{T} \bar{V}"]),
    "aat_15_3_input": ("15.3 X̄", [r"\bar{X} = \bar{R} + \bar{Q} W_{Q}^{T}",
                                  r"\bar{K} W_{K}^{T}", r"\bar{V} W_{V}^{T}"]),
}


def _attention_example(name: str, what: str, symbols: list[str]) -> None:
    def run(text: str) -> dict[str, Tensor]:
        _require(text, what, symbols)
        return {"forbidden": _scalar(_attention()["forbidden"])}

    run.__doc__ = (f"{what} (``attention_module_backward``) against autograd and 50-digit "
                   "differences on three instances: n=3, d=3, d_k=2, d_v=2 causal (seed 220); "
                   "n=2, d=2, d_k=3, d_v=3 unmasked (221); n=3, d=2, d_k=2, d_v=3 causal (222); "
                   "L = Σ R ∘ R̄. All of Z̄, W̄_O, Ā, V̄, S̄, Q̄, K̄, W̄_Q, W̄_K, W̄_V, X̄ are checked "
                   "(one computation, cached). Output ``forbidden``: largest |S̄| at a masked "
                   "position, from the differences.")
    example(name)(run)


for _name, (_what, _symbols) in ATT_RULES.items():
    _attention_example(_name, _what, _symbols)


# --------------------------------------------------------------------------------------------
# 15.3 last paragraph (and 15.4's model): embedding rows sum the positions that used them
# --------------------------------------------------------------------------------------------

# (seed, V, d, d_k, ids, target): token 0 used twice, one row of E never used
EMB_CASES = [(230, 4, 2, 2, (0, 2, 0), 1)]


@cache
def _embedding_rows() -> dict[str, Any]:
    unused = []
    for seed, V, d, d_k, ids, target in EMB_CASES:
        g = torch.Generator().manual_seed(seed)
        p = {"E": _rand(g, V, d), "W_Q": _rand(g, d, d_k), "W_K": _rand(g, d, d_k),
             "W_V": _rand(g, d, d), "W_O": _rand(g, d, d), "U": _rand(g, d, V)}
        full = bw.small_model_grads(p["E"], ids, target, p["W_Q"], p["W_K"], p["W_V"],
                                    p["W_O"], p["U"])
        note = {k: full[k] for k in p}
        auto = gc.autograd_grads(gc.small_model_loss_torch(ids, target), p)
        mpd = gc.central_differences(gc.small_model_loss_mp(ids, target), p)
        _judge(f"15.3/15.4 embedding rows, seed {seed} (ids {list(ids)})", note, auto, mpd)
        rest = [r for r in range(V) if r not in ids]
        unused.extend(float(x) for x in mpd["E"][rest].abs().reshape(-1))
    return {"unused": max(unused)}


@example("aat_15_3_embedding_rows")
def embedding_rows(text: str) -> dict[str, Tensor]:
    """15.3 (last paragraph): a row of E receives the sum of the gradients of the positions
    that used it, unused rows get none; the chapter-13 model chained from the printed rules
    (``small_model_grads``) with V=4, d=2, d_k=2, ids (0, 2, 0) (token 0 twice, token 3
    unused), target 1, seed 230. Output ``unused``: largest |Ē| on unused rows (differences)."""
    _require(text, "15.3 embedding rows", ["位置梯度之和", "重复Token的贡献相加"])
    return {"unused": _scalar(_embedding_rows()["unused"])}


# --------------------------------------------------------------------------------------------
# 15.5  FFN
# --------------------------------------------------------------------------------------------

# (seed, n, d, m, activation)
FFN_CASES = [(250, 3, 2, 3, "gelu"), (251, 2, 3, 2, "tanh")]


@cache
def _ffn() -> dict[str, Any]:
    for seed, n, d, m, act in FFN_CASES:
        g = torch.Generator().manual_seed(seed)
        p = {"X": _rand(g, n, d), "W1": _rand(g, d, m), "b1": _rand(g, m),
             "W2": _rand(g, m, d), "b2": _rand(g, d)}
        Y_bar = _rand(g, n, d)
        note = bw.ffn_backward(**p, Y_bar=Y_bar, activation=act)
        auto = gc.autograd_grads(gc.ffn_loss_torch(Y_bar, act), p)
        mpd = dict(gc.central_differences(gc.ffn_loss_mp(Y_bar, act), p))
        with mp.workdps(DPS):
            Yb, W2, b2 = gc.to_mp(Y_bar), gc.to_mp(p["W2"]), gc.to_mp(p["b2"])
            B = gc.to_mp(p["X"] @ p["W1"] + p["b1"])

            def tail_c(q: dict[str, Any], W2: Any = W2, b2: Any = b2, Yb: Any = Yb) -> Any:
                Y = [[x + c for x, c in zip(r, b2, strict=True)] for r in _mm(q["C"], W2)]
                return _dot(Y, Yb)

            def tail_b(q: dict[str, Any], act: str = act, tail_c: Callable = tail_c) -> Any:
                C = [[gc._mp_act(act, x) for x in r] for r in q["B"]]
                return tail_c({"C": C})

            C = [[gc._mp_act(act, x) for x in r] for r in B]
        mpd.update(gc.central_differences(tail_c, {"C": C}))
        mpd.update(gc.central_differences(tail_b, {"B": B}))
        _judge(f"15.5 FFN, seed {seed} (n={n}, d={d}, m={m}, {act})", note, auto, mpd)
    return {}


@example("aat_15_5_ffn")
def ffn(text: str) -> dict[str, Tensor]:
    """15.5 FFN ``W̄_2 = Cᵀ Ȳ, C̄ = Ȳ W_2ᵀ, B̄ = C̄ ⊙ σ'(B), W̄_1 = Xᵀ B̄, X̄ = B̄ W_1ᵀ`` and
    "偏置梯度对位置相加" (``ffn_backward``), L = Σ Y ∘ Ȳ: n=3, d=2, m=3, GELU (seed 250);
    n=2, d=3, m=2, tanh (seed 251). C̄ and B̄ are differentiated in mpmath from their node."""
    _require(text, "15.5 FFN", [r"{\bar{W}}_{2} = C^{T} \bar{Y}", r"\bar{C} = \bar{Y} W_{2}^{T}",
                                r"\bar{B} = \bar{C} ⊙ σ^{'} (B)", r"{\bar{W}}_{1} = X^{T} \bar{B}",
                                r"\bar{X} = \bar{B} W_{1}^{T}", "偏置梯度对位置相加"])
    _ffn()
    return {}


# --------------------------------------------------------------------------------------------
# 15.5  LayerNorm
# --------------------------------------------------------------------------------------------

# (seed, n, d, eps)
LN_CASES = [(260, 2, 3, 1e-5), (261, 1, 4, 0.5)]


@cache
def _layer_norm() -> dict[str, Any]:
    frac_one, ones, two_v, two_s = [], [], [], []
    for seed, n, d, eps in LN_CASES:
        g = torch.Generator().manual_seed(seed)
        p = {"x": _rand(g, n, d), "gamma": _rand(g, d), "beta": _rand(g, d)}
        y_bar = _rand(g, n, d)
        note = bw.layer_norm_backward(p["x"], p["gamma"], eps, y_bar)
        auto = gc.autograd_grads(gc.layer_norm_loss_torch(eps, y_bar), p)
        fn_mp = gc.layer_norm_loss_mp(eps, y_bar)
        mpd = gc.central_differences(fn_mp, p)
        _judge(f"15.5 LayerNorm, seed {seed} (n={n}, d={d}, ε={eps})", note, auto, mpd)
        # the printed numbers of the formula and its derivation, measured at 50 digits
        with mp.workdps(DPS):
            for i in range(n):
                x, gam, gb = gc.to_mp(p["x"][i]), gc.to_mp(p["gamma"]), gc.to_mp(y_bar[i])
                mu = mp.fsum(x) / d
                v = mp.fsum((t - mu) ** 2 for t in x) / d
                s = mp.sqrt(v + mp.mpf(eps))
                xh = [(t - mu) / s for t in x]
                u = [a * b for a, b in zip(gb, gam, strict=True)]
                mu_u = mp.fsum(u) / d
                m2 = mp.fsum(a * b for a, b in zip(u, xh, strict=True)) / d
                xbar = [_mp_partial(fn_mp, p, "x", (i, r)) for r in range(d)]
                bracket = [u[r] - mu_u - xh[r] * m2 for r in range(d)]
                r0 = max(range(d), key=lambda r, b=bracket: abs(b[r]))
                # x̄ = (1/s)[...]: the 1 of \frac{1}{s}
                frac_one.append(s * xbar[r0] / bracket[r0])
                # u − mean(u)·1 − x̂ mean(u⊙x̂) = s x̄: the entries of the vector 1
                ones.extend((u[r] - xh[r] * m2 - s * xbar[r]) / mu_u for r in range(d))

                # dv = 2 mean((x − μ) ⊙ dx): ∂v/∂x_r = (2/d)(x_r − μ)
                def v_of(q: dict[str, Any], d: int = d) -> Any:
                    m = mp.fsum(q["x"]) / d
                    return mp.fsum((t - m) ** 2 for t in q["x"]) / d

                xr = {"x": [float(t) for t in p["x"][i]]}
                two_v.extend(d * _mp_partial(v_of, xr, "x", (r,)) / (x[r] - mu)
                             for r in range(d))

                # ds = dv / (2 s): ∂s/∂v with s = √(v + ε)
                def s_of(q: dict[str, Any], e: float = eps) -> Any:
                    return mp.sqrt(q["v"][0] + mp.mpf(e))

                two_s.append(1 / (s * _mp_partial(s_of, {"v": [v]}, "v", (0,))))
    return {"frac_one": _worst(frac_one, 1.0), "ones": _worst(ones, 1.0),
            "two_v": _worst(two_v, 2.0), "two_s": _worst(two_s, 2.0)}


@example("aat_15_5_layer_norm")
def layer_norm(text: str) -> dict[str, Tensor]:
    """15.5 LayerNorm ``x̄ = (1/s)[u − mean(u) 1 − x̂ mean(u ⊙ x̂)]`` with ``s = √(v+ε)``,
    ``x̂ = (x − μ)/s``, ``u = g ⊙ γ``, and γ/β gradients ``g ⊙ x̂``, ``g`` summed over positions
    (``layer_norm_backward``), L = Σ LN(x) ∘ ȳ: n=2, d=3, ε=1e-5 (seed 260); n=1, d=4,
    ε=0.5 (seed 261). Outputs, at 50 digits, worst over rows/entries: ``frac_one`` = s x̄_r /
    [...]_r, ``ones`` = the coefficient of mean(u) (the vector 1), ``two_v`` = d ∂v/∂x_r /
    (x_r − μ) (the 2 of dv = 2 mean(...)), ``two_s`` = 1/(s ∂s/∂v) (the 2 of ds = dv/(2s))."""
    _require(text, "15.5 LayerNorm", [r"s = \sqrt{v + ε}", r"\hat{x} = (x - μ) / s",
                                      "u = g ⊙ γ", r"\bar{x} = \frac{", "u - mean (u)",
                                      r"\hat{x} mean (u ⊙ \hat{x})", r"g ⊙ \hat{x}"])
    return {k: _scalar(v) for k, v in _layer_norm().items()}


# --------------------------------------------------------------------------------------------
# lesson1 §7  bigram, one pair: g = p − y, ∂L/∂W_U = xᵀ g, ∂L/∂x = g W_Uᵀ, row i of Ē
# --------------------------------------------------------------------------------------------

# (seed, V, d, cur, nxt)
BIGRAM_CASES = [(270, 4, 3, 2, 1), (271, 5, 2, 0, 0)]


def _jacobians(fn_t: Callable[[Tensor], Tensor], fn_mp: Callable[[list], list],
               x: Tensor) -> tuple[Tensor, Tensor]:
    """Jacobian of a tensor function by autograd and by 50-digit central differences
    (output shape + input shape)."""
    auto = torch.autograd.functional.jacobian(fn_t, x)
    out_shape = auto.shape[: auto.dim() - x.dim()]
    flat = x.reshape(-1).tolist()
    cols = []
    with mp.workdps(DPS):
        h = mp.mpf(H)
        for r in range(len(flat)):
            plus = [mp.mpf(v) for v in flat]
            minus = list(plus)
            plus[r] += h
            minus[r] -= h
            fp = gc._flatten(fn_mp(gc._unflatten(plus, tuple(x.shape))))
            fm = gc._flatten(fn_mp(gc._unflatten(minus, tuple(x.shape))))
            cols.append([float((a - b) / (2 * h)) for a, b in zip(fp, fm, strict=True)])
    num = torch.tensor(cols, dtype=F64).T.reshape(*out_shape, *x.shape)
    return auto, num


@cache
def _bigram() -> dict[str, Any]:
    g_rows, rank_u, x_rows, other_rows = [], [], [], []
    for seed, V, d, cur, nxt in BIGRAM_CASES:
        gen = torch.Generator().manual_seed(seed)
        p = {"E": _rand(gen, V, d), "U": _rand(gen, d, V)}
        note = bw.bigram_grads(p["E"], p["U"], None, cur, nxt)
        fn_t = gc.bigram_loss_torch([cur], [nxt], False)
        auto = gc.autograd_grads(fn_t, p)
        mpd = dict(gc.central_differences(gc.bigram_loss_mp([cur], [nxt], False), p))
        x, U = p["E"][cur], p["U"]
        # g = ∂L/∂z and ∂L/∂x, differentiated in mpmath from their own node
        Um = gc.to_mp(U)
        mpd["z"] = gc.central_differences(gc.cross_entropy_loss_mp(nxt),
                                          {"logits": x @ U})["logits"]
        mpd["x"] = gc.central_differences(
            lambda q, Um=Um, y=nxt: (lambda z: -z[y] + gc.logsumexp_mp(z))(_mm([q["x"]], Um)[0]),
            {"x": x})["x"]
        auto["z"], auto["x"] = auto.pop("Z")[0], auto.pop("X")[0]
        note_g = {k: note[k] for k in ("z", "U", "x", "E")}
        _judge(f"lesson1 §7 bigram, seed {seed} (V={V}, d={d}, pair ({cur}, {nxt}))",
               note_g, auto, mpd)
        # the printed partials of (a), (b), (c)
        Vn = U.shape[1]
        jz_u = torch.einsum("k,jl->jkl", x, torch.eye(Vn, dtype=F64))  # x_k δ_jl
        xm = gc.to_mp(x)
        a_auto, a_num = _jacobians(lambda W, x=x: x @ W, lambda W, xm=xm: _mm([xm], W)[0], U)
        jz_x = U.T  # ∂z_j/∂x_k = (W_U)_kj
        b_auto, b_num = _jacobians(lambda v, U=U: v @ U, lambda v, Um=Um: _mm([v], Um)[0], x)
        jx_e = torch.zeros(d, V, d, dtype=F64)
        for k in range(d):
            jx_e[k, cur, k] = 1.0  # δ_mi δ_kn
        c_auto, c_num = _jacobians(lambda E, i=cur: E[i], lambda E, i=cur: E[i], p["E"])
        _judge(f"lesson1 §7 printed partials, seed {seed}",
               {"dz/dW_U": jz_u, "dz/dx": jz_x, "dx/dE": jx_e},
               {"dz/dW_U": a_auto, "dz/dx": b_auto, "dx/dE": c_auto},
               {"dz/dW_U": a_num, "dz/dx": b_num, "dx/dE": c_num})
        # the printed shapes and the 0 of (c), from autograd / the differences
        z_row = torch.autograd.functional.jacobian(  # ∂L/∂z for the 1×V row z
            lambda z, y=nxt: torch.nn.functional.cross_entropy(z, torch.tensor([y])),
            (x @ U)[None])
        g_rows.append(z_row.shape[0])
        rank_u.append(int(torch.linalg.matrix_rank(auto["U"])))
        x_rows.append(gc.autograd_grads(
            lambda q, U=U, y=nxt: torch.nn.functional.cross_entropy(q["x"] @ U,
                                                                    torch.tensor([y])),
            {"x": x[None]})["x"].shape[0])
        rest = [r for r in range(V) if r != cur]
        other_rows.extend(float(t) for t in mpd["E"][rest].abs().reshape(-1))
    return {"g_rows": _worst(g_rows, 1), "rank_U": _worst(rank_u, 1),
            "x_rows": _worst(x_rows, 1), "other_rows": max(other_rows)}


BIGRAM_PARTS = {
    "l1_7_g": ("lesson1 §7 g = p − y", [r"g=\partial L/\partial z=p-\mathbf y", r"1\times V"]),
    "l1_7_a": ("lesson1 §7 (a) ∂L/∂W_U", [
        r"\dfrac{\partial z_j}{\partial(W_U)_{kl}}=x_k\,\delta_{jl}", r"(d\times1)(1\times V)"]),
    "l1_7_b": ("lesson1 §7 (b) ∂L/∂x", [
        r"\dfrac{\partial z_j}{\partial x_k}=(W_U)_{kj}", r"(1\times V)(V\times d)"]),
    "l1_7_c": ("lesson1 §7 (c) ∂L/∂E", [
        r"\dfrac{\partial x_k}{\partial E_{mn}}=\delta_{mi}\,\delta_{kn}", "只有第 $i$ 行非零",
        r"$gW_U^\top$"]),
    "l1_7_summary": ("lesson1 summary, bigram gradients", [
        r"\partial L/\partial W_U=x^\top g", r"\partial L/\partial x=gW_U^\top",
        "只有出现过的行得到梯度"]),
}


def _bigram_example(name: str, what: str, symbols: list[str]) -> None:
    def run(text: str) -> dict[str, Tensor]:
        _require(text, what, symbols)
        return {k: _scalar(v) for k, v in _bigram().items()}

    run.__doc__ = (
        f"{what}: one training pair (``bigram_grads``): g = p − y, (a) ∂L/∂W_U = xᵀ g, "
        "(b) ∂L/∂x = g W_Uᵀ, (c) only row i of Ē is non-zero and equals g W_Uᵀ, plus the "
        "printed partials ∂z_j/∂(W_U)_kl = x_k δ_jl, ∂z_j/∂x_k = (W_U)_kj, "
        "∂x_k/∂E_mn = δ_mi δ_kn as full Jacobians (all checked together, cached). Instances: "
        "V=4, d=3, pair (2, 1), seed 270; V=5, d=2, pair (0, 0), seed 271. Outputs "
        "(autograd / 50-digit differences, worst over instances): ``g_rows`` rows of ∂L/∂z "
        "for a 1×V row z; ``rank_U`` rank of ∂L/∂W_U (an outer product (d×1)(1×V)); "
        "``x_rows`` rows of ∂L/∂x for a 1×d row x; ``other_rows`` largest |Ē| off row i.")
    example(name)(run)


for _name, (_what, _symbols) in BIGRAM_PARTS.items():
    _bigram_example(_name, _what, _symbols)


# --------------------------------------------------------------------------------------------
# lesson1 §7  batch: mean loss, G = (P − Y)/B, dW_U = Xᵀ G, dX = G W_Uᵀ, np.add.at
# --------------------------------------------------------------------------------------------

# (seed, V, d, cur, nxt): repeated current tokens, so np.add.at's accumulation matters
BATCH_CASES = [(280, 4, 3, (1, 3, 1, 0, 1), (2, 0, 3, 1, 1)), (281, 3, 2, (2, 2, 0), (0, 1, 2))]


@cache
def _bigram_batch() -> dict[str, Any]:
    ones, mean_coef = [], []
    for seed, V, d, cur, nxt in BATCH_CASES:
        gen = torch.Generator().manual_seed(seed)
        p = {"E": _rand(gen, V, d), "U": _rand(gen, d, V)}
        note = bw.bigram_grads_batch(p["E"], p["U"], None, cur, nxt)
        auto = gc.autograd_grads(gc.bigram_loss_torch(list(cur), list(nxt), False), p)
        fn_mp = gc.bigram_loss_mp(list(cur), list(nxt), False)
        mpd = dict(gc.central_differences(fn_mp, p))
        X = p["E"][list(cur)]
        Bn = len(cur)

        def tail_z(q: dict[str, Any], nxt: tuple = nxt, Bn: int = Bn) -> Any:
            losses = (-r[y] + gc.logsumexp_mp(r) for r, y in zip(q["Z"], nxt, strict=True))
            return mp.fsum(losses) / Bn

        Um = gc.to_mp(p["U"])

        def tail_x(q: dict[str, Any], Um: Any = Um, tail_z: Callable = tail_z) -> Any:
            return tail_z({"Z": _mm(q["X"], Um)})

        Zt = X @ p["U"]
        mpd["Z"] = gc.central_differences(tail_z, {"Z": Zt})["Z"]
        mpd["X"] = gc.central_differences(tail_x, {"X": X})["X"]
        _judge(f"lesson1 §7 batch, seed {seed} (V={V}, d={d}, B={Bn}, cur {list(cur)})",
               note, auto, mpd)
        # the note's warning: dE[cur] += dX keeps one contribution per repeated index
        wrong = torch.zeros_like(p["E"])
        wrong[list(cur)] += note["X"]
        if not gc.compare({"E": wrong}, mpd):
            raise ValueError(f"lesson1 §7 batch, seed {seed}: the instance has no repeated "
                             "token, so np.add.at is not tested")
        with mp.workdps(DPS):
            Zm = gc.to_mp(Zt)
            for b, y in enumerate(nxt):
                p_by = gc.softmax_row_mp(Zm[b])[y]
                dz = _mp_partial(tail_z, {"Z": Zt}, "Z", (b, y))
                # G[b, y] = (p − y)/B: what is subtracted at the target, times B
                ones.append(p_by - Bn * dz)
                # \bar L = (1/B) Σ L_b: the mean loss's derivative is 1/B times the sum's
                one_pair = _mp_partial(lambda q, y=y: -q["z"][y] + gc.logsumexp_mp(q["z"]),
                                       {"z": Zt[b]}, "z", (y,))
                mean_coef.append(Bn * dz / one_pair)
    return {"minus_one": _worst(ones, 1.0), "mean_coef": _worst(mean_coef, 1.0)}


@example("l1_7_bigram_batch")
def bigram_batch(text: str) -> dict[str, Tensor]:
    """lesson1 §7 batch form for the mean loss (``bigram_grads_batch``): G = (P − Y)/B,
    dW_U = Xᵀ G, dX = G W_Uᵀ, and Ē by ``np.add.at`` (rows of G W_Uᵀ added to row i_b, once
    per occurrence). Instances: V=4, d=3, B=5, cur (1, 3, 1, 0, 1), seed 280; V=3, d=2, B=3,
    cur (2, 2, 0), seed 281 (repeats, so ``dE[cur] += dX`` would differ; checked).
    Outputs (50 digits, worst entry): ``minus_one`` = p_{b,y_b} − B ∂L̄/∂Z_{b,y_b} (the
    listing's ``-= 1``); ``mean_coef`` = B ∂L̄/∂Z_{b,y} / ∂L_b/∂z_y (the 1 of \\frac1B)."""
    _require(text, "lesson1 §7 batch", [r"$\bar L=\frac1B\sum_bL_b$", r"$e_{y_b}$",
                                        r"$(X^\top G)_{kl}=\sum_bX_{bk}G_{bl}$",
                                        r"$GW_U^\top$ 的第 $b$ 行加到第 $i_b$ 行上"])
    return {k: _scalar(v) for k, v in _bigram_batch().items()}


@example("l1_7_bigram_program_grads")
def bigram_program_grads(text: str) -> dict[str, Tensor]:
    """The gradient lines of §7's NumPy program, the same computation as ``l1_7_bigram_batch``
    (same instances and outputs)."""
    _require(text, "lesson1 §7 program", ["G[np.arange(B), nxt] -=", "G /= B", "dWU = X.T @ G",
                                          "dX  = G @ WU.T", "np.add.at(dE, cur, dX)"])
    return {k: _scalar(v) for k, v in _bigram_batch().items()}
