"""The hand-derived backward formulas the notes print, written exactly as printed.

Each function transcribes one group of printed formulas into float64 torch arithmetic (no
autograd), so that :mod:`tinygpt.gradcheck` can hold the *notes* to account: if a printed
formula is wrong, the function here is wrong in the same way, and the comparison against
autograd and against 50-digit mpmath central differences shows the disagreement.

Conventions follow the notes: row vectors, ``x @ W``; an over-bar (``R_bar``) is the gradient
of the loss with respect to that quantity and has the same shape as it
(architecture-and-training.txt line 2826: ``d L = \\sum_{i r} {\\bar{X}}_{i r} d X_{i r}``).

Sources (line numbers of the note files in ``notes/``):

* architecture-and-training.txt 15.2 (line 2818), 15.3 (lines 2830-2848), 15.4 (lines
  2860-2866, numeric values of the chapter-13 model), 15.5 (lines 2884-2900).
* lesson1-text-to-distribution.txt §7 (lines 242-262, 297-312, summary line 353). The
  display equations of §7 are missing from the note file (the text says "链式法则：" and
  the formula line is blank), so the bigram functions follow the inline statements
  (lines 242, 256, 262, 353) and the NumPy listing (lines 297-305) that the note prints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

from tinygpt.model import one_hot

__all__ = [
    "activation_and_derivative",
    "attention_module_backward",
    "attention_module_forward",
    "bigram_grads",
    "bigram_grads_batch",
    "causal_allowed",
    "ffn_backward",
    "layer_norm_backward",
    "output_layer_backward",
    "small_model_grads",
    "softmax_cross_entropy_grad",
    "softmax_rows_backward",
]

DTYPE = torch.float64


def _f64(t: Tensor | Sequence) -> Tensor:
    """Coerce to float64 so every formula runs in the precision the tolerances assume."""
    return torch.as_tensor(t, dtype=DTYPE)


def causal_allowed(n: int) -> Tensor:
    """Allowed-position mask J_i = {1, ..., i} (line 1544) as an n×n bool tensor."""
    return torch.ones(n, n, dtype=torch.bool).tril()


def _masked_softmax_rows(S: Tensor, allowed: Tensor | None) -> Tensor:
    """Row softmax over the allowed set J_i only; forbidden a_ij are exactly 0 (line 1546)."""
    if allowed is None:
        return torch.softmax(S, dim=-1)
    S = S.masked_fill(~allowed, -math.inf)
    return torch.softmax(S, dim=-1).masked_fill(~allowed, 0.0)


# --------------------------------------------------------------------------------------------
# 15.2  softmax + cross-entropy
# --------------------------------------------------------------------------------------------


def softmax_cross_entropy_grad(logits: Tensor, target: int | Tensor) -> Tensor:
    r"""15.2 (line 2818): ``\frac{\partial L}{\partial ℓ_{j}} = p_{j} - 1_{j = y} .``

    ``L = -ℓ_y + \ln \sum_r e^{ℓ_r}`` (line 2814); also lesson1 §6 ``∂L/∂z = p − y``.
    ``logits`` may be one row (shape ``(N,)`` with an int target) or a batch (shape ``(B, N)``
    with ``B`` targets); a batch gives the gradient of the *summed* loss, row by row, because
    the printed formula is per position.
    """
    logits = _f64(logits)
    p = torch.softmax(logits, dim=-1)
    return p - one_hot(target, p.shape[-1])


# --------------------------------------------------------------------------------------------
# 15.3  output layer, content mixing, Q/K/V
# --------------------------------------------------------------------------------------------


def output_layer_backward(h: Tensor, U: Tensor, ell_bar: Tensor) -> dict[str, Tensor]:
    r"""15.3 (line 2830) for ``ℓ = h U + b``:
    ``\bar{U} = h^{T} \bar{ℓ}, \bar{h} = \bar{ℓ} U^{T}, \bar{b} = \bar{ℓ} .``

    ``h`` and ``ℓ̄`` are rows (``(d,)``/``(N,)``) or stacks of rows; with several positions the
    contributions are summed (line 2832), which ``h^T ℓ̄`` does by itself for stacked rows and
    which ``b̄`` does by summing over positions.
    """
    h, U, ell_bar = _f64(h), _f64(U), _f64(ell_bar)
    h2, l2 = h.reshape(-1, h.shape[-1]), ell_bar.reshape(-1, ell_bar.shape[-1])
    return {
        "U": h2.T @ l2,
        "h": ell_bar @ U.T,
        "b": l2.sum(dim=0),
    }


def softmax_rows_backward(A: Tensor, A_bar: Tensor, allowed: Tensor | None = None) -> Tensor:
    r"""15.3 (line 2840), row-wise softmax backward over the allowed set:
    ``{\bar{S}}_{i j} = a_{i j} ({\bar{A}}_{i j} - \sum_{r \in J_{i}} a_{i r} {\bar{A}}_{i r}) .``

    "被禁止位置梯度为0" (line 2842): forbidden positions get exactly 0. Since forbidden
    ``a_ir`` are 0, the sum over ``J_i`` equals the sum over the whole row.
    """
    A, A_bar = _f64(A), _f64(A_bar)
    inner = (A * A_bar).sum(dim=-1, keepdim=True)
    S_bar = A * (A_bar - inner)
    if allowed is not None:
        S_bar = S_bar.masked_fill(~allowed, 0.0)
    return S_bar


def attention_module_forward(
    X: Tensor,
    W_Q: Tensor,
    W_K: Tensor,
    W_V: Tensor,
    W_O: Tensor,
    allowed: Tensor | None = None,
) -> dict[str, Tensor]:
    r"""Forward of the chapter-13 module used by 15.3 (line 2834): ``R = X + Z W_{O}, Z = A V``,
    ``A = softmax(S)`` row-wise over ``J_i``, ``S = Q K^T / \sqrt{d_k}``, ``Q = X W_Q`` etc.

    Returned so that the backward can read the intermediates the printed formulas use.
    """
    X, W_Q, W_K, W_V, W_O = (_f64(t) for t in (X, W_Q, W_K, W_V, W_O))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    d_k = W_Q.shape[1]
    S = Q @ K.T / math.sqrt(d_k)
    A = _masked_softmax_rows(S, allowed)
    Z = A @ V
    R = X + Z @ W_O
    return {"Q": Q, "K": K, "V": V, "S": S, "A": A, "Z": Z, "R": R}


def attention_module_backward(
    X: Tensor,
    W_Q: Tensor,
    W_K: Tensor,
    W_V: Tensor,
    W_O: Tensor,
    R_bar: Tensor,
    allowed: Tensor | None = None,
) -> dict[str, Tensor]:
    r"""15.3 complete backward of ``R = X + Z W_{O}, Z = A V`` given ``\bar{R}``, as printed:

    * line 2836: ``{\bar{W}}_{O} = Z^{T} \bar{R}, \bar{Z} = \bar{R} W_{O}^{T},
      \bar{A} = \bar{Z} V^{T}, \bar{V} = A^{T} \bar{Z} .``
    * line 2840: ``{\bar{S}}_{i j} = a_{i j} ({\bar{A}}_{i j} - \sum_{r \in J_{i}} a_{i r}
      {\bar{A}}_{i r}) .`` (see :func:`softmax_rows_backward`; forbidden positions 0)
    * line 2844: ``\bar{Q} = \bar{S} K / \sqrt{d_{k}}, \bar{K} = {\bar{S}}^{T} Q / \sqrt{d_{k}},``
    * line 2846: ``{\bar{W}}_{Q} = X^{T} \bar{Q}, {\bar{W}}_{K} = X^{T} \bar{K},
      {\bar{W}}_{V} = X^{T} \bar{V} .``
    * line 2850: ``\bar{X} = \bar{R} + \bar{Q} W_{Q}^{T} + \bar{K} W_{K}^{T} + \bar{V} W_{V}^{T} .``

    Returns the gradient of every named quantity (keys ``Z, W_O, A, V, S, Q, K, W_Q, W_K,
    W_V, X``) so a disagreement can be pinned to the first printed formula that breaks.
    ``softmax_rows_backward`` is looked up at call time, which is how the tests plant a wrong
    softmax backward without a second copy of this function.
    """
    fw = attention_module_forward(X, W_Q, W_K, W_V, W_O, allowed)
    X, W_Q, W_K, W_V, W_O, R_bar = (_f64(t) for t in (X, W_Q, W_K, W_V, W_O, R_bar))
    Z, A, V, Q, K = fw["Z"], fw["A"], fw["V"], fw["Q"], fw["K"]
    d_k = W_Q.shape[1]
    rd = math.sqrt(d_k)

    W_O_bar = Z.T @ R_bar
    Z_bar = R_bar @ W_O.T
    A_bar = Z_bar @ V.T
    V_bar = A.T @ Z_bar
    S_bar = softmax_rows_backward(A, A_bar, allowed)
    Q_bar = S_bar @ K / rd
    K_bar = S_bar.T @ Q / rd
    W_Q_bar = X.T @ Q_bar
    W_K_bar = X.T @ K_bar
    W_V_bar = X.T @ V_bar
    X_bar = R_bar + Q_bar @ W_Q.T + K_bar @ W_K.T + V_bar @ W_V.T
    return {
        "Z": Z_bar, "W_O": W_O_bar, "A": A_bar, "V": V_bar, "S": S_bar, "Q": Q_bar,
        "K": K_bar, "W_Q": W_Q_bar, "W_K": W_K_bar, "W_V": W_V_bar, "X": X_bar,
    }


# --------------------------------------------------------------------------------------------
# 15.4  the chapter-13 small model, all gradients
# --------------------------------------------------------------------------------------------


def small_model_grads(
    E: Tensor,
    ids: Sequence[int],
    target: int,
    W_Q: Tensor,
    W_K: Tensor,
    W_V: Tensor,
    W_O: Tensor,
    U: Tensor,
) -> dict[str, Tensor]:
    r"""15.4 (lines 2860-2866): all gradients of the chapter-13 model, by chaining the printed
    rules, so the *numbers* 15.4 prints can be checked.

    Model (13.2-13.5, lines 2561-2639): ``X = E[ids]``, causal attention module of 15.3, the
    loss reads only the last position ``h = R[-1]``, ``ℓ = h U`` (no bias, line 2581),
    ``L = -\ln p_{target}``. Chain: 15.2 ``ℓ̄ = p - 1_{j=y}`` (line 2818) → 15.3 output layer
    (line 2830) → ``R̄`` = zeros except the last row ``h̄`` → 15.3 module backward → embedding
    rows receive the sum of the positions that used them (line 2854, "重复Token的贡献相加").
    """
    E, U = _f64(E), _f64(U)
    idx = torch.as_tensor(list(ids), dtype=torch.long)
    X = E[idx]
    n = X.shape[0]
    allowed = causal_allowed(n)
    fw = attention_module_forward(X, W_Q, W_K, W_V, W_O, allowed)
    h = fw["R"][-1]
    ell = h @ U
    ell_bar = softmax_cross_entropy_grad(ell, target)
    out = output_layer_backward(h, U, ell_bar)
    R_bar = torch.zeros_like(fw["R"])
    R_bar[-1] = out["h"]
    att = attention_module_backward(X, W_Q, W_K, W_V, W_O, R_bar, allowed)
    E_bar = torch.zeros_like(E).index_add_(0, idx, att["X"])
    p = torch.softmax(ell, dim=-1)
    return {
        "W_Q": att["W_Q"], "W_K": att["W_K"], "W_V": att["W_V"], "W_O": att["W_O"],
        "U": out["U"], "E": E_bar, "h": h, "ell_bar": ell_bar, "h_bar": out["h"],
        "S_bar": att["S"], "p": p, "loss": -torch.log(p[target]),
    }


# --------------------------------------------------------------------------------------------
# 15.5  FFN and LayerNorm
# --------------------------------------------------------------------------------------------


def activation_and_derivative(name: str, B: Tensor) -> tuple[Tensor, Tensor]:
    """σ(B) and σ'(B) for the activations the FFN tests use.

    15.5 leaves σ open ("平滑激活按自己的导数计算", line 2898); we provide exact GELU (erf),
    tanh, and ReLU (σ'(0) := 0, the autograd convention the note alludes to).
    """
    if name == "gelu":
        cdf = 0.5 * (1.0 + torch.erf(B / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * B * B) / math.sqrt(2.0 * math.pi)
        return B * cdf, cdf + B * pdf
    if name == "tanh":
        t = torch.tanh(B)
        return t, 1.0 - t * t
    if name == "relu":
        return torch.clamp(B, min=0.0), (B > 0).to(B.dtype)
    raise ValueError(f"unknown activation {name!r}")


def ffn_backward(
    X: Tensor,
    W1: Tensor,
    b1: Tensor,
    W2: Tensor,
    b2: Tensor,
    Y_bar: Tensor,
    activation: str = "gelu",
) -> dict[str, Tensor]:
    r"""15.5 FFN ``B = X W_{1} + b_{1}, C = σ (B), Y = C W_{2} + b_{2}`` (line 2892), given
    ``\bar{Y}``, as printed:

    * line 2894: ``{\bar{W}}_{2} = C^{T} \bar{Y}, \bar{C} = \bar{Y} W_{2}^{T},
      \bar{B} = \bar{C} ⊙ σ^{'} (B),``
    * line 2896: ``{\bar{W}}_{1} = X^{T} \bar{B}, \bar{X} = \bar{B} W_{1}^{T} .``
    * line 2898: "偏置梯度对位置相加" → ``b̄_2 = Σ_rows Ȳ``, ``b̄_1 = Σ_rows B̄``.
    """
    X, W1, b1, W2, b2, Y_bar = (_f64(t) for t in (X, W1, b1, W2, b2, Y_bar))
    B = X @ W1 + b1
    C, dsig = activation_and_derivative(activation, B)
    W2_bar = C.T @ Y_bar
    C_bar = Y_bar @ W2.T
    B_bar = C_bar * dsig
    W1_bar = X.T @ B_bar
    X_bar = B_bar @ W1.T
    return {
        "W2": W2_bar, "C": C_bar, "B": B_bar, "W1": W1_bar, "X": X_bar,
        "b1": B_bar.sum(dim=0), "b2": Y_bar.sum(dim=0),
    }


def layer_norm_backward(x: Tensor, gamma: Tensor, eps: float, y_bar: Tensor) -> dict[str, Tensor]:
    r"""15.5 LayerNorm backward as printed (line 2902), applied to each row of ``x``:

    ``\bar{x} = \frac{1}{s} [u - mean (u) 1 - \hat{x} mean (u ⊙ \hat{x})] .``

    with ``s = \sqrt{v + ε}``, ``\hat{x} = (x - μ) / s``, ``u = g ⊙ γ`` (line 2900), μ and
    the biased v of line 2884 (divide by d, not d−1), g the output gradient ``y_bar``.
    γ/β gradients ``g ⊙ \hat{x}`` and ``g``, "多位置时相加" (line 2904) → summed over rows.
    β does not enter x̄, so it is not an argument.
    """
    x, gamma, y_bar = _f64(x), _f64(gamma), _f64(y_bar)
    mu = x.mean(dim=-1, keepdim=True)
    v = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    s = torch.sqrt(v + eps)
    x_hat = (x - mu) / s
    u = y_bar * gamma
    x_bar = (u - u.mean(dim=-1, keepdim=True) - x_hat * (u * x_hat).mean(dim=-1, keepdim=True)) / s
    g2, xh2 = y_bar.reshape(-1, x.shape[-1]), x_hat.reshape(-1, x.shape[-1])
    return {"x": x_bar, "gamma": (g2 * xh2).sum(dim=0), "beta": g2.sum(dim=0)}


# --------------------------------------------------------------------------------------------
# lesson1 §7  bigram
# --------------------------------------------------------------------------------------------


def bigram_grads(E: Tensor, U: Tensor, b: Tensor | None, cur: int, nxt: int) -> dict[str, Tensor]:
    r"""lesson1 §7, one training pair ``(i, y) = (cur, nxt)``, ``x = E_{i,:}``, ``z = x W_U (+ b)``,
    ``L = -\ln p_y``:

    * line 242: ``g=\partial L/\partial z=p-\mathbf y`` (also 15.2 line 2818).
    * (a) line 353: ``\partial L/\partial W_U=x^\top g`` (an outer product, d×V).
    * (b) line 353: ``\partial L/\partial x=gW_U^\top``.
    * (c) line 256: "只有第 i 行非零，它等于 gW_U^\top；其余各行梯度为 0".
    * bias: lesson1 has no bias; when ``b`` is given we use 15.3 line 2830 ``\bar{b} = \bar{ℓ}``.
    """
    E, U = _f64(E), _f64(U)
    x = E[cur]
    z = x @ U + (0.0 if b is None else _f64(b))
    g = softmax_cross_entropy_grad(z, nxt)
    dU = torch.outer(x, g)
    dx = g @ U.T
    dE = torch.zeros_like(E)
    dE[cur] = dx
    out = {"z": g, "U": dU, "x": dx, "E": dE}
    if b is not None:
        out["b"] = g
    return out


def bigram_grads_batch(
    E: Tensor, U: Tensor, b: Tensor | None, cur: Sequence[int] | Tensor, nxt: Sequence[int] | Tensor
) -> dict[str, Tensor]:
    r"""lesson1 §7 batch form for the *mean* loss ``\bar L=\frac1B\sum_bL_b`` (line 260):

    * line 262: ``Y`` has rows ``e_{y_b}``; ``dW_U = X^\top G`` ("确实是各样本 x^\top g 之和");
      listing lines 297-300: ``G = (P - Y) / B``, ``dWU = X.T @ G``, ``dX = G @ WU.T``.
    * line 262 / listing line 305 ``np.add.at(dE, cur, dX)``: "把 GW_U^\top 的第 b 行加到第
      i_b 行上；同一个 token 在批里出现几次，就累加几次" — implemented with ``index_add_``,
      which accumulates repeated indices exactly like ``np.add.at`` (line 312 warns that
      ``dE[cur] += dX`` keeps only one contribution per repeated index).
    * bias (not in lesson1): ``\bar{b}`` = column sums of ``G`` (15.3 line 2830, summed).
    """
    E, U = _f64(E), _f64(U)
    cur_t = torch.as_tensor(cur, dtype=torch.long)
    nxt_t = torch.as_tensor(nxt, dtype=torch.long)
    Bsz = cur_t.shape[0]
    X = E[cur_t]
    Z = X @ U + (0.0 if b is None else _f64(b))
    G = softmax_cross_entropy_grad(Z, nxt_t) / Bsz
    dU = X.T @ G
    dX = G @ U.T
    dE = torch.zeros_like(E).index_add_(0, cur_t, dX)
    out = {"Z": G, "U": dU, "X": dX, "E": dE}
    if b is not None:
        out["b"] = G.sum(dim=0)
    return out
