"""The backward formulas the notes print == autograd == 50-digit mpmath central differences.

Tolerance (``gc.RTOL = gc.ATOL = 1e-12``): the mpmath differences carry ≈1e-30 error (ε=1e-20
at 50 digits) at exactly the same float64 point, so any gap is float64 rounding in torch,
≈1e-15 for these O(1) entries at n ≤ 3, d ≤ 4; 1e-12 leaves three decades of headroom
while every planted error below moves some entry by ≥1e-2, ten decades above it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from torch import Tensor

from tinygpt import backward as bw
from tinygpt import gradcheck as gc

D = torch.float64


def rand(gen: torch.Generator, *shape: int) -> Tensor:
    return torch.randn(*shape, generator=gen, dtype=D)


def check(note: dict[str, Tensor], fn_t: Callable, fn_mp: Callable,
          inputs: dict[str, Tensor]) -> tuple[list[str], float]:
    """Three-way verdicts plus the measured max |note − mpmath| over the parameters."""
    auto = gc.autograd_grads(fn_t, inputs)
    mpd = gc.central_differences(fn_mp, inputs)
    return gc.three_way(note, auto, mpd), gc.max_abs_diff(note, mpd)


# --------------------------------------------------------------------------------------------
# agreement on random instances
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed,n,N", [(0, 1, 3), (1, 2, 4), (2, 3, 5)])
def test_softmax_cross_entropy_grad_15_2(seed: int, n: int, N: int) -> None:
    g = torch.Generator().manual_seed(seed)
    logits = rand(g, N) if n == 1 else rand(g, n, N)
    target: int | list[int] = seed % N if n == 1 else [(seed + i) % N for i in range(n)]
    note = {"logits": bw.softmax_cross_entropy_grad(logits, torch.tensor(target))}
    verdicts, err = check(note, gc.cross_entropy_loss_torch(target),
                          gc.cross_entropy_loss_mp(target), {"logits": logits})
    assert verdicts == [] and err < 1e-12


@pytest.mark.parametrize("causal", [False, True])
def test_softmax_rows_backward_15_3(causal: bool) -> None:
    g = torch.Generator().manual_seed(3)
    S, A_bar = rand(g, 3, 3), rand(g, 3, 3)
    allowed = bw.causal_allowed(3) if causal else None
    A = torch.softmax(S if allowed is None else S.masked_fill(~allowed, -math.inf), dim=-1)
    note = {"S": bw.softmax_rows_backward(A, A_bar, allowed)}
    verdicts, err = check(note, gc.softmax_rows_loss_torch(A_bar, allowed),
                          gc.softmax_rows_loss_mp(A_bar, allowed), {"S": S})
    assert verdicts == [] and err < 1e-12
    if causal:  # "被禁止位置梯度为0" (line 2842)
        assert torch.all(note["S"][~allowed] == 0)


def attention_instance(seed: int, n: int, d: int, d_k: int, d_v: int) -> dict[str, Tensor]:
    g = torch.Generator().manual_seed(seed)
    return {"X": rand(g, n, d), "W_Q": rand(g, d, d_k), "W_K": rand(g, d, d_k),
            "W_V": rand(g, d, d_v), "W_O": rand(g, d_v, d)}


ATT_CASES = [(10, 2, 2, 1, 2, False), (11, 3, 3, 2, 2, True), (12, 3, 4, 3, 4, False),
             (13, 3, 4, 2, 3, True)]


@pytest.mark.parametrize("seed,n,d,d_k,d_v,causal", ATT_CASES)
def test_attention_module_backward_15_3(seed: int, n: int, d: int, d_k: int, d_v: int,
                                        causal: bool) -> None:
    p = attention_instance(seed, n, d, d_k, d_v)
    R_bar = rand(torch.Generator().manual_seed(seed + 100), n, d)
    allowed = bw.causal_allowed(n) if causal else None
    note = bw.attention_module_backward(**p, R_bar=R_bar, allowed=allowed)
    verdicts, err = check(note, gc.attention_loss_torch(R_bar, allowed),
                          gc.attention_loss_mp(R_bar, allowed), p)
    assert verdicts == [] and err < 1e-12


@pytest.mark.parametrize("seed,n,d,eps", [(20, 1, 2, 1e-5), (21, 3, 4, 1e-5), (22, 2, 3, 0.5)])
def test_layer_norm_backward_15_5(seed: int, n: int, d: int, eps: float) -> None:
    g = torch.Generator().manual_seed(seed)
    p = {"x": rand(g, n, d), "gamma": rand(g, d), "beta": rand(g, d)}
    y_bar = rand(g, n, d)
    note = bw.layer_norm_backward(p["x"], p["gamma"], eps, y_bar)
    verdicts, err = check(note, gc.layer_norm_loss_torch(eps, y_bar),
                          gc.layer_norm_loss_mp(eps, y_bar), p)
    assert verdicts == [] and err < 1e-12


@pytest.mark.parametrize("seed,act", [(30, "gelu"), (31, "tanh"), (32, "relu")])
def test_ffn_backward_15_5(seed: int, act: str) -> None:
    g = torch.Generator().manual_seed(seed)
    n, d, m = 3, 3, 4
    p = {"X": rand(g, n, d), "W1": rand(g, d, m), "b1": rand(g, m), "W2": rand(g, m, d),
         "b2": rand(g, d)}
    Y_bar = rand(g, n, d)
    note = bw.ffn_backward(**p, Y_bar=Y_bar, activation=act)
    verdicts, err = check(note, gc.ffn_loss_torch(Y_bar, act), gc.ffn_loss_mp(Y_bar, act), p)
    assert verdicts == [] and err < 1e-12


@pytest.mark.parametrize("with_bias", [False, True])
def test_bigram_grads_lesson1_7_single(with_bias: bool) -> None:
    g = torch.Generator().manual_seed(40)
    V, d, cur, nxt = 4, 3, 2, 1
    p = {"E": rand(g, V, d), "U": rand(g, d, V)}
    if with_bias:
        p["b"] = rand(g, V)
    note = bw.bigram_grads(p["E"], p["U"], p.get("b"), cur, nxt)
    note_b = {k: note[k] for k in note if k in p}
    inter = {"X": note["x"][None], "Z": note["z"][None]}  # autograd sees a batch of one
    verdicts, err = check(note_b | inter, gc.bigram_loss_torch([cur], [nxt], with_bias),
                          gc.bigram_loss_mp([cur], [nxt], with_bias), p)
    assert verdicts == [] and err < 1e-12
    others = [r for r in range(V) if r != cur]  # (c): only row i is non-zero
    assert torch.all(note["E"][others] == 0)


@pytest.mark.parametrize("with_bias", [False, True])
def test_bigram_grads_batch_lesson1_7_repeated_indices(with_bias: bool) -> None:
    g = torch.Generator().manual_seed(41)
    V, d = 4, 3
    cur, nxt = [0, 1, 0, 2, 0], [1, 0, 2, 0, 3]  # token 0 appears three times
    p = {"E": rand(g, V, d), "U": rand(g, d, V)}
    if with_bias:
        p["b"] = rand(g, V)
    note = bw.bigram_grads_batch(p["E"], p["U"], p.get("b"), cur, nxt)
    verdicts, err = check(note, gc.bigram_loss_torch(cur, nxt, with_bias),
                          gc.bigram_loss_mp(cur, nxt, with_bias), p)
    assert verdicts == [] and err < 1e-12
    assert torch.all(note["E"][3] == 0)  # unused token: no gradient from the input path


# --------------------------------------------------------------------------------------------
# 15.4: the printed numbers of the chapter-13 model
# --------------------------------------------------------------------------------------------

CH13 = {  # 13.2, lines 2563-2579
    "E": torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], dtype=D),
    "W_Q": torch.tensor([[0.0], [1.0]], dtype=D),
    "W_K": torch.tensor([[1.0], [0.0]], dtype=D),
    "W_V": torch.eye(2, dtype=D),
    "W_O": torch.eye(2, dtype=D),
    "U": torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, 0.0]], dtype=D),
}
PRINTED_15_4 = {  # lines 2860-2866 (6 decimals)
    "W_Q": [[0.0], [0.133562]],
    "W_K": [[0.133562], [-0.133562]],
    "W_V": [[0.921825, 0.425203], [0.339120, 0.156423]],
    "W_O": [[0.921825, 0.425203], [0.339120, 0.156423]],
    "U": [[0.248311, 0.425203, -0.673514], [0.431008, 0.738049, -1.169057]],
    "E": [[1.055387, 0.425203], [1.466503, 0.871611], [0.0, 0.0]],
}


def test_small_model_15_4_printed_values() -> None:
    ids, target = [0, 1], 2  # input A, B; target C
    note = bw.small_model_grads(**CH13, ids=ids, target=target)
    printed = {k: torch.tensor(v, dtype=D) for k, v in PRINTED_15_4.items()}
    # printed values are rounded to 6 decimals: |error| ≤ 5e-7
    assert gc.compare(printed, note, rtol=0.0, atol=5e-7 + 1e-12) == []
    assert abs(note["loss"].item() - 2.541928) <= 5e-7  # line 2637
    assert gc.compare({"S": torch.tensor([0.133562, -0.133562], dtype=D)},
                      {"S": note["S_bar"][1]}, rtol=0.0, atol=5e-7) == []  # lines 2679-2681
    params = {k: note[k] for k in CH13}
    verdicts, err = check(params, gc.small_model_loss_torch(ids, target),
                          gc.small_model_loss_mp(ids, target), CH13)
    assert verdicts == [] and err < 1e-12


# --------------------------------------------------------------------------------------------
# planted errors are caught, and the verdict names the guilty computation and entries
# --------------------------------------------------------------------------------------------


def _flagged(verdicts: list[str]) -> set[str]:
    return {v.split(":", 1)[0] for v in verdicts}


def test_planted_softmax_backward_missing_pp_term(monkeypatch: pytest.MonkeyPatch) -> None:
    """S̄ = a ⊙ Ā (diag(p) only, the −p p_jᵀ term dropped) must be caught from S̄ onward."""
    def wrong(A: Tensor, A_bar: Tensor, allowed: Tensor | None = None) -> Tensor:
        return A * A_bar

    monkeypatch.setattr(bw, "softmax_rows_backward", wrong)
    p = attention_instance(12, 3, 4, 3, 4)
    R_bar = rand(torch.Generator().manual_seed(112), 3, 4)
    note = bw.attention_module_backward(**p, R_bar=R_bar)
    verdicts, _ = check(note, gc.attention_loss_torch(R_bar), gc.attention_loss_mp(R_bar), p)
    assert _flagged(verdicts) == {"S", "Q", "K", "W_Q", "W_K", "X"}
    assert all("note formula disagrees" in v for v in verdicts)


@pytest.mark.parametrize("d_v", [4, 3])
def test_planted_transposed_W_O_gradient(d_v: int) -> None:
    p = attention_instance(12, 3, 4, 3, d_v)
    R_bar = rand(torch.Generator().manual_seed(112), 3, 4)
    note = bw.attention_module_backward(**p, R_bar=R_bar)
    Z = bw.attention_module_forward(**p)["Z"]
    note["W_O"] = R_bar.T @ Z  # (Zᵀ R̄)ᵀ
    verdicts, _ = check(note, gc.attention_loss_torch(R_bar), gc.attention_loss_mp(R_bar), p)
    assert _flagged(verdicts) == {"W_O"}
    assert ("shape" in verdicts[0]) == (d_v != 4)


def buggy_bigram_E(E: Tensor, U: Tensor, cur: list[int], nxt: list[int]) -> Tensor:
    """lesson1 line 312's warning: ``dE[cur] += dX`` keeps one contribution per index."""
    G = bw.softmax_cross_entropy_grad(E[cur] @ U, torch.tensor(nxt)) / len(cur)
    dE = torch.zeros_like(E)
    dE[cur] += G @ U.T
    return dE


@pytest.mark.parametrize("cur,caught", [([0, 1, 0, 2, 0], True), ([3, 1, 0, 2], False)])
def test_planted_fancy_index_instead_of_add_at(cur: list[int], caught: bool) -> None:
    g = torch.Generator().manual_seed(41)
    p = {"E": rand(g, 4, 3), "U": rand(g, 3, 4)}
    nxt = [(c + 1) % 4 for c in cur]
    note = {"E": buggy_bigram_E(p["E"], p["U"], cur, nxt)}
    verdicts, _ = check(note, gc.bigram_loss_torch(cur, nxt, False),
                        gc.bigram_loss_mp(cur, nxt, False), p)
    if caught:  # only the repeated row 0 is wrong
        assert verdicts and _flagged(verdicts) == {"E"}
        assert "note formula disagrees" in verdicts[0] and verdicts[0].count("E[0,") == 1
        assert all(line.startswith("E[0,") for line in gc.compare(note, gc.autograd_grads(
            gc.bigram_loss_torch(cur, nxt, False), p)))
    else:  # without repeats the bug is invisible, which is why the test above repeats 0
        assert verdicts == []


@pytest.mark.parametrize("drop", ["mean_u", "xhat_term"])
def test_planted_layer_norm_missing_mean_term(drop: str) -> None:
    g = torch.Generator().manual_seed(21)
    p = {"x": rand(g, 3, 4), "gamma": rand(g, 4), "beta": rand(g, 4)}
    y_bar, eps = rand(g, 3, 4), 1e-5
    x, gam = p["x"], p["gamma"]
    mu, v = x.mean(-1, keepdim=True), x.var(-1, unbiased=False, keepdim=True)
    s = torch.sqrt(v + eps)
    xh, u = (x - mu) / s, y_bar * gam
    if drop == "mean_u":
        x_bar = (u - xh * (u * xh).mean(-1, keepdim=True)) / s
    else:
        x_bar = (u - u.mean(-1, keepdim=True)) / s
    good = bw.layer_norm_backward(x, gam, eps, y_bar)
    note = {"x": x_bar, "gamma": good["gamma"], "beta": good["beta"]}
    verdicts, _ = check(note, gc.layer_norm_loss_torch(eps, y_bar),
                        gc.layer_norm_loss_mp(eps, y_bar), p)
    assert _flagged(verdicts) == {"x"}
    assert "note formula disagrees" in verdicts[0]


# --------------------------------------------------------------------------------------------
# the arbiter itself: it must blame the right computation
# --------------------------------------------------------------------------------------------


def test_three_way_blames_the_odd_one_out() -> None:
    good = {"W": torch.tensor([[1.0, 2.0]], dtype=D)}
    bad = {"W": torch.tensor([[1.0, 2.5]], dtype=D)}
    assert gc.three_way(good, good, good) == []
    assert "note formula disagrees" in gc.three_way(bad, good, good)[0]
    assert "autograd disagrees" in gc.three_way(good, bad, good)[0]
    assert "mpmath differences disagree" in gc.three_way(good, good, bad)[0]
    assert "W[0,1]" in gc.compare(bad, good)[0] and len(gc.compare(bad, good)) == 1


def test_central_differences_reach_float64_resolution() -> None:
    """d/dx of exp at 50 digits: the float64 rounding of the exact derivative, not ≈1e-10."""
    import mpmath

    def fn(p: dict) -> object:
        return mpmath.exp(p["x"][0])

    x = torch.tensor([0.3], dtype=D)
    got = gc.central_differences(fn, {"x": x})["x"]
    assert got.item() == float(mpmath.exp(mpmath.mpf(0.3)))
