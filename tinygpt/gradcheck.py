"""Two gradient computations independent of the printed formulas, and the comparison.

Why two: a printed formula (:mod:`tinygpt.backward`) could agree with autograd by sharing a
mistake in the forward we wrote, or autograd could be fed a forward that differs from the
note's. So we also differentiate a forward written separately in mpmath by central
differences at 50 significant digits. With ``eps = 1e-20`` the truncation error is
``O(eps^2 * f''') ≈ 1e-40`` and the rounding error ``≈ 10^-50 / eps = 1e-30``, so the
differences are exact for every float64 purpose; the float64 inputs convert to mpmath
exactly, so all three computations differentiate at the *same* point, and the only remaining
discrepancy is float64 rounding in torch (≈1e-15 for O(1) entries at these sizes).

* :func:`autograd_grads` — torch autograd of a scalar loss (optionally also intermediates).
* :func:`central_differences` — mpmath central differences of a mpmath forward.
* ``*_torch`` / ``*_mp`` factories — the same modules as :mod:`tinygpt.backward`, each with a
  scalar loss: the 15.3 attention module with ``L = sum(R ∘ R̄)`` (so ``R̄`` *is* the upstream
  gradient), row softmax, LayerNorm, FFN, softmax-cross-entropy, bigram, chapter-13 model.
* :func:`compare` and :func:`three_way` — name each disagreeing entry and, with three
  computations, say which one is the odd one out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import mpmath
import torch
import torch.nn.functional as F
from mpmath import mp
from torch import Tensor

DTYPE = torch.float64

#: Default tolerances, justified in the module docstring: float64 vs 50-digit references.
RTOL = 1e-12
ATOL = 1e-12

Nested = Any  # nested lists of mpf (a matrix is a list of rows, a vector a list)


# --------------------------------------------------------------------------------------------
# (a) autograd
# --------------------------------------------------------------------------------------------


def autograd_grads(
    fn: Callable[[dict[str, Tensor]], Tensor | tuple[Tensor, Mapping[str, Tensor]]],
    inputs: Mapping[str, Tensor],
) -> dict[str, Tensor]:
    """Gradients of the scalar ``fn(inputs)`` with respect to every input, by torch autograd.

    ``fn`` may also return ``(loss, intermediates)``; then the gradients with respect to those
    intermediate tensors (e.g. ``S`` or ``Z`` of the attention module) are returned too, which
    lets a disagreement be located at the first printed formula that breaks.
    Inputs are copied to float64 leaves so the caller's tensors are untouched.
    """
    leaves = {k: torch.as_tensor(v, dtype=DTYPE).detach().clone().requires_grad_(True)
              for k, v in inputs.items()}
    out = fn(leaves)
    loss, inter = (out if isinstance(out, tuple) else (out, {}))
    if loss.dim() != 0:
        raise ValueError("fn must return a scalar loss")
    names = list(leaves) + [k for k in inter if k not in leaves]
    tensors = [leaves[k] if k in leaves else inter[k] for k in names]
    grads = torch.autograd.grad(loss, tensors, allow_unused=True)
    return {k: (torch.zeros_like(t) if g is None else g).detach()
            for k, t, g in zip(names, tensors, grads, strict=True)}


# --------------------------------------------------------------------------------------------
# (b) mpmath central differences
# --------------------------------------------------------------------------------------------


def _shape(x: Nested) -> tuple[int, ...]:
    shape: list[int] = []
    while isinstance(x, (list, tuple)):
        shape.append(len(x))
        x = x[0] if len(x) else 0
    return tuple(shape)


def _flatten(x: Nested) -> list:
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    return [x]


def _unflatten(flat: Sequence, shape: tuple[int, ...]) -> Nested:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = math.prod(shape[1:])
    return [_unflatten(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def to_mp(x: Tensor | Nested) -> Nested:
    """Nested lists of ``mpf``; a float64 converts exactly, so no precision is invented."""
    if isinstance(x, Tensor):
        x = x.detach().to(DTYPE).tolist()
    if isinstance(x, mpmath.matrix):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [to_mp(y) for y in x]
    return mp.mpf(x)


def central_differences(
    fn_mp: Callable[[dict[str, Nested]], Any],
    inputs: Mapping[str, Tensor | Nested],
    eps: Any = None,
    dps: int = 50,
    wrt: Iterable[str] | None = None,
) -> dict[str, Tensor]:
    """``[L(θ + ε e_r) − L(θ − ε e_r)] / (2ε)`` for every entry r, at ``dps`` digits.

    The same scheme as 15.4 line 2868 (which uses ε = 1e-5 in float64), but with ε = 1e-20
    and 50 digits, so the error (≈1e-30) is far below float64 resolution and the result is a
    reference, not an estimate. ``fn_mp`` receives nested lists of ``mpf`` (same shapes as the
    inputs) and returns an ``mpf``; it must use the global ``mp`` context (we set its
    precision here). Results are rounded to float64 tensors of the inputs' shapes.
    """
    with mp.workdps(dps):
        h = mp.mpf("1e-20") if eps is None else mp.mpf(eps)
        shapes = {k: _shape(to_mp(v)) for k, v in inputs.items()}
        flats = {k: _flatten(to_mp(v)) for k, v in inputs.items()}
        names = list(inputs) if wrt is None else list(wrt)

        def call(k: str, flat: list) -> Any:
            args = {n: _unflatten(flat if n == k else flats[n], shapes[n]) for n in flats}
            return fn_mp(args)

        result: dict[str, Tensor] = {}
        for k in names:
            grads = []
            for r in range(len(flats[k])):
                plus, minus = list(flats[k]), list(flats[k])
                plus[r] += h
                minus[r] -= h
                grads.append((call(k, plus) - call(k, minus)) / (2 * h))
            result[k] = torch.tensor([float(g) for g in grads], dtype=DTYPE).reshape(shapes[k])
        return result


# --------------------------------------------------------------------------------------------
# (c) comparison
# --------------------------------------------------------------------------------------------


def _fmt_index(idx: tuple[int, ...]) -> str:
    return "[" + ",".join(str(i) for i in idx) + "]" if idx else ""


def compare(
    a: Mapping[str, Tensor],
    b: Mapping[str, Tensor],
    rtol: float = RTOL,
    atol: float = ATOL,
    names: tuple[str, str] = ("a", "b"),
) -> list[str]:
    """Disagreements ``|a − b| > atol + rtol |b|`` between common keys, one line per entry.

    Each line names the quantity and index (``W_O[0,1]``) and both values, so a failing test
    says *where* a formula breaks rather than just "not close". Shape mismatches are reported
    as such (a transposed gradient of a non-square matrix shows up here).
    """
    out: list[str] = []
    for k in a:
        if k not in b:
            continue
        x, y = torch.as_tensor(a[k], dtype=DTYPE), torch.as_tensor(b[k], dtype=DTYPE)
        if x.shape != y.shape:
            out.append(f"{k}: shape {tuple(x.shape)} ({names[0]}) != {tuple(y.shape)} ({names[1]})")
            continue
        bad = (x - y).abs() > atol + rtol * y.abs()
        for idx in bad.nonzero().tolist():
            i = tuple(idx)
            out.append(f"{k}{_fmt_index(i)}: {names[0]}={x[i].item():.17g} "
                       f"{names[1]}={y[i].item():.17g} |diff|={abs(x[i] - y[i]).item():.3g}")
    return out


def three_way(
    note: Mapping[str, Tensor],
    auto: Mapping[str, Tensor],
    mpd: Mapping[str, Tensor] | None = None,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> list[str]:
    """Verdicts for each quantity of ``note``: which of the three computations is the odd one.

    ``note`` = printed formula, ``auto`` = autograd, ``mpd`` = mpmath differences. A key with
    no mpmath value (an intermediate such as ``S``) is judged against autograd alone.
    Empty list = all computations agree on every entry.
    """
    mpd = mpd or {}
    verdicts: list[str] = []
    for k in note:
        pair = {k: note[k]}
        na = compare(pair, auto, rtol, atol, ("note", "autograd")) if k in auto else []
        nm = compare(pair, mpd, rtol, atol, ("note", "mpmath")) if k in mpd else []
        am = (compare({k: auto[k]}, mpd, rtol, atol, ("autograd", "mpmath"))
              if k in auto and k in mpd else [])
        if not (na or nm or am):
            continue
        if k not in mpd:
            verdicts.append(f"{k}: note formula disagrees with autograd "
                            f"(no mpmath reference): {na[0]}")
        elif k not in auto:
            verdicts.append(f"{k}: note formula disagrees with mpmath "
                            f"(no autograd reference): {nm[0]}")
        elif na and nm and not am:
            verdicts.append(f"{k}: note formula disagrees; autograd and mpmath agree: {nm[0]}")
        elif na and am and not nm:
            verdicts.append(f"{k}: autograd disagrees; note formula and mpmath agree: {am[0]}")
        elif nm and am and not na:
            verdicts.append(f"{k}: mpmath differences disagree; note formula and autograd "
                            f"agree: {nm[0]}")
        else:
            verdicts.append(f"{k}: no two computations agree: {(nm + na + am)[0]}")
    return verdicts


def max_abs_diff(a: Mapping[str, Tensor], b: Mapping[str, Tensor]) -> float:
    """Largest entrywise |a − b| over common keys: the measured agreement the tests report."""
    worst = 0.0
    for k in a:
        if k not in b:
            continue
        x, y = torch.as_tensor(a[k], dtype=DTYPE), torch.as_tensor(b[k], dtype=DTYPE)
        worst = max(worst, math.inf if x.shape != y.shape else (x - y).abs().max().item())
    return worst


# --------------------------------------------------------------------------------------------
# nested-list arithmetic for the mpmath forwards
# --------------------------------------------------------------------------------------------


def matmul_mp(A: Nested, B: Nested) -> Nested:
    Bt = list(zip(*B, strict=True))
    return [[mp.fsum(x * y for x, y in zip(row, col, strict=True)) for col in Bt] for row in A]


def transpose_mp(A: Nested) -> Nested:
    return [list(c) for c in zip(*A, strict=True)]


def _add(A: Nested, B: Nested) -> Nested:
    return [[x + y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(A, B, strict=True)]


def _dot_all(A: Nested, B: Nested) -> Any:
    return mp.fsum(x * y for x, y in zip(_flatten(A), _flatten(B), strict=True))


def softmax_row_mp(row: Sequence, allowed: Sequence[bool] | None = None) -> list:
    ok = [True] * len(row) if allowed is None else list(allowed)
    m = max(s for s, o in zip(row, ok, strict=True) if o)
    e = [mp.exp(s - m) if o else mp.mpf(0) for s, o in zip(row, ok, strict=True)]
    tot = mp.fsum(e)
    return [x / tot for x in e]


def logsumexp_mp(row: Sequence) -> Any:
    m = max(row)
    return m + mp.log(mp.fsum(mp.exp(s - m) for s in row))


def _allowed_rows(allowed: Tensor | None, n: int) -> list[list[bool]] | None:
    return None if allowed is None else [[bool(v) for v in r] for r in allowed.tolist()][:n]


# --------------------------------------------------------------------------------------------
# forwards: 15.3 attention module, L = sum(R ∘ R̄)
# --------------------------------------------------------------------------------------------


def attention_loss_torch(R_bar: Tensor, allowed: Tensor | None = None) -> Callable:
    """Torch forward of ``R = X + Z W_O, Z = A V, A = softmax(S), S = Q K^T/√d_k`` with the
    scalar loss ``sum(R ∘ R̄)``, whose gradient w.r.t. R is exactly ``R̄``; returns the
    intermediates so autograd also yields ``Z̄, Ā, S̄, Q̄, K̄, V̄``. Masking uses ``-inf`` before
    the softmax, a different mechanism from the ``J_i`` sum of line 2840.
    """
    R_bar = torch.as_tensor(R_bar, dtype=DTYPE)

    def fn(p: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        X = p["X"]
        Q, K, V = X @ p["W_Q"], X @ p["W_K"], X @ p["W_V"]
        S = Q @ K.T / math.sqrt(p["W_Q"].shape[1])
        Sm = S if allowed is None else S.masked_fill(~allowed, -math.inf)
        A = torch.softmax(Sm, dim=-1)
        Z = A @ V
        R = X + Z @ p["W_O"]
        return (R * R_bar).sum(), {"Q": Q, "K": K, "V": V, "S": S, "A": A, "Z": Z}

    return fn


def attention_loss_mp(R_bar: Tensor, allowed: Tensor | None = None) -> Callable:
    """The same module in mpmath (nested lists), for :func:`central_differences`."""
    Rb = to_mp(R_bar)

    def fn(p: dict[str, Nested]) -> Any:
        X = p["X"]
        Q, K, V = matmul_mp(X, p["W_Q"]), matmul_mp(X, p["W_K"]), matmul_mp(X, p["W_V"])
        rd = mp.sqrt(len(p["W_Q"][0]))
        S = [[s / rd for s in row] for row in matmul_mp(Q, transpose_mp(K))]
        ok = _allowed_rows(allowed, len(S))
        A = [softmax_row_mp(r, None if ok is None else ok[i]) for i, r in enumerate(S)]
        R = _add(X, matmul_mp(matmul_mp(A, V), p["W_O"]))
        return _dot_all(R, Rb)

    return fn


def softmax_rows_loss_torch(A_bar: Tensor, allowed: Tensor | None = None) -> Callable:
    """``sum(softmax_rows(S) ∘ Ā)``: its gradient w.r.t. S is the S̄ of line 2840."""
    A_bar = torch.as_tensor(A_bar, dtype=DTYPE)

    def fn(p: dict[str, Tensor]) -> Tensor:
        S = p["S"] if allowed is None else p["S"].masked_fill(~allowed, -math.inf)
        return (torch.softmax(S, dim=-1) * A_bar).sum()

    return fn


def softmax_rows_loss_mp(A_bar: Tensor, allowed: Tensor | None = None) -> Callable:
    """mpmath twin of :func:`softmax_rows_loss_torch`."""
    Ab = to_mp(A_bar)

    def fn(p: dict[str, Nested]) -> Any:
        ok = _allowed_rows(allowed, len(p["S"]))
        A = [softmax_row_mp(r, None if ok is None else ok[i]) for i, r in enumerate(p["S"])]
        return _dot_all(A, Ab)

    return fn


# --------------------------------------------------------------------------------------------
# forwards: 15.5 LayerNorm and FFN
# --------------------------------------------------------------------------------------------


def layer_norm_loss_torch(eps: float, y_bar: Tensor) -> Callable:
    """``sum(LN(x) ∘ ȳ)`` via ``F.layer_norm`` (biased variance, like line 2884)."""
    y_bar = torch.as_tensor(y_bar, dtype=DTYPE)

    def fn(p: dict[str, Tensor]) -> Tensor:
        y = F.layer_norm(p["x"], (p["x"].shape[-1],), p["gamma"], p["beta"], eps)
        return (y * y_bar).sum()

    return fn


def layer_norm_loss_mp(eps: float, y_bar: Tensor) -> Callable:
    """LN of line 2886 row by row, ``γ_r (x_r − μ)/√(v+ε) + β_r``, with μ, v of line 2884."""
    yb = to_mp(y_bar)

    def fn(p: dict[str, Nested]) -> Any:
        rows = p["x"] if isinstance(p["x"][0], list) else [p["x"]]
        e = mp.mpf(eps)
        out = []
        for row in rows:
            d = len(row)
            mu = mp.fsum(row) / d
            v = mp.fsum((x - mu) ** 2 for x in row) / d
            s = mp.sqrt(v + e)
            out.append([g * (x - mu) / s + bb
                        for x, g, bb in zip(row, p["gamma"], p["beta"], strict=True)])
        return _dot_all(out, yb if isinstance(yb[0], list) else [yb])

    return fn


_TORCH_ACT: dict[str, Callable[[Tensor], Tensor]] = {
    "gelu": F.gelu, "tanh": torch.tanh, "relu": F.relu,
}


def _mp_act(name: str, x: Any) -> Any:
    if name == "gelu":
        return x * (1 + mp.erf(x / mp.sqrt(2))) / 2
    if name == "tanh":
        return mp.tanh(x)
    if name == "relu":
        return x if x > 0 else mp.mpf(0)
    raise ValueError(f"unknown activation {name!r}")


def ffn_loss_torch(Y_bar: Tensor, activation: str = "gelu") -> Callable:
    """``sum(FFN(X) ∘ Ȳ)`` with ``FFN(X) = σ(X W_1 + b_1) W_2 + b_2`` (line 2892)."""
    Y_bar = torch.as_tensor(Y_bar, dtype=DTYPE)
    act = _TORCH_ACT[activation]

    def fn(p: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        B = p["X"] @ p["W1"] + p["b1"]
        C = act(B)
        Y = C @ p["W2"] + p["b2"]
        return (Y * Y_bar).sum(), {"B": B, "C": C}

    return fn


def ffn_loss_mp(Y_bar: Tensor, activation: str = "gelu") -> Callable:
    """mpmath twin of :func:`ffn_loss_torch`."""
    Yb = to_mp(Y_bar)

    def fn(p: dict[str, Nested]) -> Any:
        B = [[x + c for x, c in zip(r, p["b1"], strict=True)] for r in matmul_mp(p["X"], p["W1"])]
        C = [[_mp_act(activation, x) for x in r] for r in B]
        Y = [[x + c for x, c in zip(r, p["b2"], strict=True)] for r in matmul_mp(C, p["W2"])]
        return _dot_all(Y, Yb)

    return fn


# --------------------------------------------------------------------------------------------
# forwards: 15.2 softmax-cross-entropy, lesson1 bigram, chapter-13 small model
# --------------------------------------------------------------------------------------------


def cross_entropy_loss_torch(target: int | Sequence[int]) -> Callable:
    """``−ℓ_y + ln Σ e^{ℓ_r}`` (line 2814) via ``F.cross_entropy``, summed over rows."""
    def fn(p: dict[str, Tensor]) -> Tensor:
        logits = p["logits"]
        if logits.dim() == 1:
            return F.cross_entropy(logits[None], torch.tensor([int(target)]))  # type: ignore[arg-type]
        return F.cross_entropy(logits, torch.as_tensor(target), reduction="sum")

    return fn


def cross_entropy_loss_mp(target: int | Sequence[int]) -> Callable:
    """mpmath twin: line 2814 literally, ``L = −ℓ_y + \\ln Σ_r e^{ℓ_r}``."""
    def fn(p: dict[str, Nested]) -> Any:
        rows = p["logits"] if isinstance(p["logits"][0], list) else [p["logits"]]
        tg = [int(target)] if not isinstance(target, Sequence) else list(target)  # type: ignore[arg-type]
        return mp.fsum(-r[y] + logsumexp_mp(r) for r, y in zip(rows, tg, strict=True))

    return fn


def bigram_loss_torch(cur: Sequence[int], nxt: Sequence[int], with_bias: bool) -> Callable:
    """Mean cross-entropy of ``z = E[cur] W_U (+ b)`` (lesson1 §7 listing lines 292-296).

    Returns the lookup ``X`` and logits ``Z`` as intermediates so ``x̄``/``ḡ`` are checked too.
    """
    ci, ni = torch.as_tensor(cur), torch.as_tensor(nxt)

    def fn(p: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        X = p["E"][ci]
        Z = X @ p["U"] + (p["b"] if with_bias else 0.0)
        return F.cross_entropy(Z, ni), {"X": X, "Z": Z}

    return fn


def bigram_loss_mp(cur: Sequence[int], nxt: Sequence[int], with_bias: bool) -> Callable:
    """mpmath twin of :func:`bigram_loss_torch`."""
    def fn(p: dict[str, Nested]) -> Any:
        X = [p["E"][i] for i in cur]
        Z = matmul_mp(X, p["U"])
        if with_bias:
            Z = [[z + c for z, c in zip(r, p["b"], strict=True)] for r in Z]
        return mp.fsum(-r[y] + logsumexp_mp(r) for r, y in zip(Z, nxt, strict=True)) / len(cur)

    return fn


def small_model_loss_torch(ids: Sequence[int], target: int) -> Callable:
    """Chapter-13 model (13.2-13.5): causal 15.3 module on ``E[ids]``, ``ℓ = R[-1] U``,
    ``L = −ln p_target``."""
    idx = torch.as_tensor(list(ids))
    n = len(idx)
    allowed = torch.ones(n, n, dtype=torch.bool).tril()

    def fn(p: dict[str, Tensor]) -> Tensor:
        X = p["E"][idx]
        Q, K, V = X @ p["W_Q"], X @ p["W_K"], X @ p["W_V"]
        S = (Q @ K.T / math.sqrt(p["W_Q"].shape[1])).masked_fill(~allowed, -math.inf)
        R = X + torch.softmax(S, dim=-1) @ V @ p["W_O"]
        return F.cross_entropy((R[-1] @ p["U"])[None], torch.tensor([target]))

    return fn


def small_model_loss_mp(ids: Sequence[int], target: int) -> Callable:
    """mpmath twin of :func:`small_model_loss_torch`."""
    n = len(ids)
    allowed = torch.ones(n, n, dtype=torch.bool).tril()

    def fn(p: dict[str, Nested]) -> Any:
        X = [p["E"][i] for i in ids]
        Q, K, V = matmul_mp(X, p["W_Q"]), matmul_mp(X, p["W_K"]), matmul_mp(X, p["W_V"])
        rd = mp.sqrt(len(p["W_Q"][0]))
        S = [[s / rd for s in row] for row in matmul_mp(Q, transpose_mp(K))]
        ok = _allowed_rows(allowed, n)
        A = [softmax_row_mp(r, ok[i]) for i, r in enumerate(S)]  # type: ignore[index]
        R = _add(X, matmul_mp(matmul_mp(A, V), p["W_O"]))
        ell = matmul_mp([R[-1]], p["U"])[0]
        return -ell[target] + logsumexp_mp(ell)

    return fn
