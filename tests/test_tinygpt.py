"""tinygpt against independent computations, and planted bugs the checks must catch.

The references below are written differently on purpose: NumPy and explicit loops with
``math.exp``/``math.sin``/``math.erf``, the masked softmax of 8.6 as a sum over the allowed
set (not -inf), RoPE as literal 2x2 rotation matrices on column vectors (15.6), gradients
as central differences. Each ``check_*`` raises AssertionError; the real code passes it and
each mutant (a small monkeypatch or subclass) must make its check fail.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
import torch
from torch.func import functional_call

import tinygpt
from tinygpt import (
    GPTConfig,
    KVCache,
    TinyGPT,
    apply_temperature,
    cross_entropy,
    ffn,
    gelu,
    generate,
    greedy,
    layer_norm,
    multi_head_attention,
    rope,
    sgd_step,
    sinusoidal_positions,
    top_k_filter,
    top_p_filter,
)

M = importlib.import_module("tinygpt.model")
G = importlib.import_module("tinygpt.generate")  # ``tinygpt.generate`` is the function

F64 = torch.float64


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """These tensors are tiny: extra intra-op threads only contend for the CPU (5x slower
    on a busy machine). Restored afterwards."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def t64(x: Any) -> torch.Tensor:
    return torch.as_tensor(x, dtype=F64)


def randn(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=F64, generator=torch.Generator().manual_seed(seed))


def arr(x: torch.Tensor) -> np.ndarray:
    return x.detach().numpy()


# ------------------------------------------------------------------ independent references


def ref_attention(q, k, v, causal: bool, scale: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Loops; causal softmax over the allowed set J_i = {j <= i + n_k - n_q} (8.6)."""
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    n_q, n_k, d_k = q.shape[0], k.shape[0], q.shape[1]
    weights = np.zeros((n_q, n_k))
    out = np.zeros((n_q, v.shape[1]))
    for i in range(n_q):
        allowed = [j for j in range(n_k) if not causal or j <= i + n_k - n_q]
        s = {}
        for j in allowed:
            s[j] = sum(q[i, r] * k[j, r] for r in range(d_k))
            if scale:
                s[j] /= math.sqrt(d_k)
        top = max(s.values())
        denom = sum(math.exp(s[r] - top) for r in allowed)
        for j in allowed:
            weights[i, j] = math.exp(s[j] - top) / denom
            out[i] += weights[i, j] * v[j]
    return out, weights


def ref_rope(x: np.ndarray, positions, base: float = 10000.0) -> np.ndarray:
    """15.6 literally: q̃ = R q with column vectors, one 2x2 rotation per coordinate pair."""
    out = np.zeros_like(x)
    d = x.shape[1]
    for row, pos in enumerate(positions):
        for i in range(d // 2):
            th = pos * base ** (-2 * i / d)
            R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]])
            out[row, 2 * i : 2 * i + 2] = R @ x[row, 2 * i : 2 * i + 2]
    return out


def ref_layer_norm(x: np.ndarray, gamma, beta, eps: float = 1e-5) -> np.ndarray:
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, ddof=0, keepdims=True)
                                                         + eps) * gamma + beta


def ref_act(b: np.ndarray, activation: str) -> np.ndarray:
    if activation == "relu":
        return np.where(b > 0, b, 0.0)
    return np.vectorize(lambda u: u * (1 + math.erf(u / math.sqrt(2))) / 2)(b)


def ref_forward(model: TinyGPT, tokens: list[int]) -> np.ndarray:
    """The whole model in NumPy, from the config and the parameters only."""
    c, P = model.config, {n: arr(p) for n, p in model.params().items()}
    n = len(tokens)
    x = P["E"][tokens]
    if c.positions == "sinusoidal":
        x = x + np.array([[math.sin(pos / 10000 ** (r / c.d_model)) if r % 2 == 0
                           else math.cos(pos / 10000 ** ((r - 1) / c.d_model))
                           for r in range(c.d_model)] for pos in range(n)])

    def ln(u, layer, which):
        if not c.layer_norm:
            return u
        gamma, beta = P[f"blocks.{layer}.gamma{which}"], P[f"blocks.{layer}.beta{which}"]
        return ref_layer_norm(u, gamma, beta)

    for layer in range(c.n_layers):
        def mha(a, layer=layer):
            zs = []
            for h in range(c.n_heads):
                q, k, v = (a @ P[f"blocks.{layer}.{w}.{h}"] for w in ("W_Q", "W_K", "W_V"))
                if c.positions == "rope":
                    q, k = ref_rope(q, range(n)), ref_rope(k, range(n))
                zs.append(ref_attention(q, k, v, c.causal)[0])
            return np.concatenate(zs, axis=1) @ P[f"blocks.{layer}.W_O"]

        def ff(a, layer=layer):
            b = a @ P[f"blocks.{layer}.W1"] + P[f"blocks.{layer}.b1"]
            return ref_act(b, c.activation) @ P[f"blocks.{layer}.W2"] + P[f"blocks.{layer}.b2"]

        if c.arrangement == "pre":
            x = x + mha(ln(x, layer, 1))
            x = x + ff(ln(x, layer, 2)) if c.ffn else x
        else:
            x = ln(x + mha(x), layer, 1)
            x = ln(x + ff(x), layer, 2) if c.ffn else x
    if c.layer_norm and c.final_norm:
        x = ref_layer_norm(x, P["gamma_f"], P["beta_f"])
    U = P["E"].T if c.tie_weights else P["U"]
    return x @ U + (P["b"] if c.out_bias else 0.0)


def central_differences(f: Callable[[dict], float], params: dict[str, torch.Tensor],
                        eps: float = 1e-6) -> dict[str, torch.Tensor]:
    """[L(θ + ε e_r) − L(θ − ε e_r)] / 2ε, element by element (15.4)."""
    base = {n: p.detach().clone() for n, p in params.items()}
    grads = {}
    for name, p in base.items():
        g = torch.zeros_like(p)
        for idx in np.ndindex(*p.shape):
            plus, minus = dict(base), dict(base)
            plus[name], minus[name] = p.clone(), p.clone()
            plus[name][idx] += eps
            minus[name][idx] -= eps
            g[idx] = (f(plus) - f(minus)) / (2 * eps)
        grads[name] = g
    return grads


def loss_at(model: TinyGPT, tokens, targets, mask=None) -> Callable[[dict], float]:
    def f(params: dict) -> float:
        with torch.no_grad():
            return float(cross_entropy(functional_call(model, params, (tokens,)), targets, mask))

    return f


# ------------------------------------------------------------------ configurations

CH13 = GPTConfig(3, 2, 1, 1, 2, 1, layer_norm=False, ffn=False)
CH13_PARAMS = dict(E=[[1, 0], [0, 1], [1, 1]], W_Q=[[0], [1]], W_K=[[1], [0]],
                   W_V=[[1, 0], [0, 1]], W_O=[[1, 0], [0, 1]], U=[[1, 0, -1], [0, 1, 0]])
CH13_DATA = ([0, 1], [2, 2], [False, True])  # tokens A B, target C at the last position

FULL = GPTConfig(vocab_size=7, d_model=4, n_heads=2, d_k=2, d_v=3, n_layers=2, d_ff=6,
                 positions="rope", activation="gelu", out_bias=True)
CONFIGS = [
    FULL,
    GPTConfig(7, 4, 2, 2, 3, 2, d_ff=6, positions="sinusoidal", arrangement="post",
              tie_weights=True),
    GPTConfig(7, 4, 1, 4, 4, 1, positions="none", causal=False, final_norm=False),
    GPTConfig(7, 4, 2, 2, 2, 2, layer_norm=False, ffn=False, positions="rope"),
]
TOKENS = [3, 1, 4, 1, 5, 6]


def ch13_model() -> TinyGPT:
    return TinyGPT.from_params(CH13, **CH13_PARAMS)


# ------------------------------------------------------------------ the checks


def check_attention() -> None:
    """M.attention and the model's layers against loops (d_k = 4, so the scale matters)."""
    q, k, v = randn(4, 4, seed=1), randn(4, 4, seed=2), randn(4, 3, seed=3)
    for causal in (False, True):
        out, w = M.attention(q, k, v, causal=causal)
        ref_out, ref_w = ref_attention(arr(q), arr(k), arr(v), causal)
        np.testing.assert_allclose(arr(w), ref_w, rtol=0, atol=1e-12)
        np.testing.assert_allclose(arr(out), ref_out, rtol=0, atol=1e-12)
    out, w = M.attention(q[2:], k, v, causal=True)  # the last 2 queries of 4 keys (a cache)
    np.testing.assert_allclose(arr(w), ref_attention(arr(q)[2:], arr(k), arr(v), True)[1],
                               rtol=0, atol=1e-12)
    for config in CONFIGS:
        model = TinyGPT(config, seed=5)
        np.testing.assert_allclose(arr(model(TOKENS)), ref_forward(model, TOKENS),
                                   rtol=0, atol=1e-11)


def check_causal_flow() -> None:
    """8.6: in a causal 2-layer model, h_i depends on tokens 1..i only."""
    model = TinyGPT(FULL, seed=3)
    a, b = [0, 1, 2, 3, 4, 5], [0, 1, 2, 6, 6, 6]
    la, lb = model(a), model(b)
    assert torch.equal(la[:3], lb[:3]), "earlier logits changed with later tokens"
    assert not torch.allclose(la[3:], lb[3:])
    for layer in model.forward_trace(a)["layers"]:
        for w in layer["weights"]:
            assert torch.all(torch.triu(w, diagonal=1) == 0), "weight on a future position"


def check_tied_gradients(model_cls: type[TinyGPT]) -> None:
    """15.6: tied E receives input-path plus output-path gradients."""
    config = GPTConfig(5, 4, 2, 2, 2, 1, d_ff=4, tie_weights=True, positions="rope")
    tied = model_cls(config, seed=2)
    tokens, targets = [0, 3, 2, 3], [3, 2, 3, 1]
    tied.loss(tokens, targets).backward()
    # independent 1: central differences of the tied loss with respect to E
    numeric = central_differences(loss_at(tied, tokens, targets), {"E": tied.E})["E"]
    np.testing.assert_allclose(arr(tied.E.grad), arr(numeric), rtol=0, atol=1e-8)
    # independent 2: untie (U a separate copy of E.T) and add the two paths by hand
    params = {n: p.detach() for n, p in tied.params().items()}
    untied = TinyGPT.from_params(replace(config, tie_weights=False),
                                 U=params["E"].T.clone(), **params)
    _, g = untied.loss_and_grads(tokens, targets)
    np.testing.assert_allclose(arr(tied.E.grad), arr(g["E"] + g["U"].T), rtol=0, atol=1e-12)


def correct_step(model: TinyGPT, tokens, targets, mask, lr: float) -> dict[str, torch.Tensor]:
    _, grads = model.loss_and_grads(tokens, targets, mask)
    return sgd_step(model.params(), grads, lr)


def check_joint_update(step: Callable[..., dict[str, torch.Tensor]]) -> None:
    """13.10: new θ = old θ − lr · (gradient at the OLD θ), for every parameter."""
    model = ch13_model()
    old = {n: p.detach().clone() for n, p in model.params().items()}
    numeric = central_differences(loss_at(model, *CH13_DATA), old)
    new = step(model, *CH13_DATA, 0.1)
    for name in old:
        np.testing.assert_allclose(arr(new[name]), arr(old[name] - 0.1 * numeric[name]),
                                   rtol=0, atol=1e-9, err_msg=name)


def check_sgd_step_keeps_old(step: Callable[..., dict[str, torch.Tensor]]) -> None:
    """sgd_step returns new tensors and leaves the old parameters as they were."""
    params = {"a": randn(2, 2, seed=1), "b": randn(3, seed=2)}
    grads = {"a": randn(2, 2, seed=3), "b": randn(3, seed=4)}
    before = {n: p.clone() for n, p in params.items()}
    new = step(params, grads, 0.5)
    for n in params:
        assert torch.equal(params[n], before[n]), f"{n} was modified in place"
        assert new[n].data_ptr() != params[n].data_ptr()
        np.testing.assert_allclose(arr(new[n]), arr(before[n]) - 0.5 * arr(grads[n]))


def check_kv_cache() -> None:
    """14.4: decoding with the per-layer cache gives the logits of recomputing the prefix."""
    for config in (c for c in CONFIGS if c.causal):
        model = TinyGPT(config, seed=7)
        for kwargs in ({}, {"strategy": "sample", "top_k": 3, "temperature": 1.5}):
            runs = []
            for use_cache in (True, False):
                gen = torch.Generator().manual_seed(11)
                runs.append(generate(model, [1, 2, 3], 5, use_cache=use_cache, generator=gen,
                                     return_logits=True, **kwargs))
            (tok_c, log_c), (tok_f, log_f) = runs
            assert tok_c == tok_f
            assert torch.allclose(log_c, log_f, rtol=0, atol=1e-12), (log_c - log_f).abs().max()


# ------------------------------------------------------------------ the real code passes


def test_default_dtype_untouched_and_everything_float64() -> None:
    assert torch.get_default_dtype() == torch.float32
    model = TinyGPT(FULL)
    assert all(p.dtype == F64 for p in model.parameters())
    trace = model.forward_trace(TOKENS)
    assert trace["logits"].dtype == trace["p"].dtype == F64
    assert sinusoidal_positions(3, 4).dtype == F64
    assert torch.get_default_dtype() == torch.float32


def test_sinusoidal_positions_match_math() -> None:
    for d in (6, 5):
        pe = sinusoidal_positions(9, d, base=100.0)
        for pos in range(9):
            for r in range(d):
                i2 = r - r % 2
                f = math.sin if r % 2 == 0 else math.cos
                assert math.isclose(float(pe[pos, r]), f(pos / 100.0 ** (i2 / d)), abs_tol=1e-14)


def test_rope_is_the_rotation_of_15_6() -> None:
    x = randn(5, 6)
    positions = [0, 1, 2, 7, 30]
    np.testing.assert_allclose(arr(rope(x, positions)), ref_rope(arr(x), positions),
                               rtol=0, atol=1e-13)
    np.testing.assert_allclose(arr(rope(x, positions, base=50.0)),
                               ref_rope(arr(x), positions, base=50.0), rtol=0, atol=1e-13)


def test_rope_score_depends_only_on_offset() -> None:
    q, k = randn(1, 8, seed=1), randn(1, 8, seed=2)

    def score(m: int, n: int) -> float:
        return float(rope(q, [m]) @ rope(k, [n]).T)

    for diff in (0, 1, -3, 5):
        scores = [score(m, m - diff) for m in (5, 9, 23)]
        assert max(scores) - min(scores) < 1e-12
    assert abs(score(5, 4) - score(5, 2)) > 1e-3
    # norms are kept (a rotation)
    assert torch.allclose(rope(q, [17]).norm(), q.norm(), rtol=0, atol=1e-13)


def test_attention_and_model_match_loops() -> None:
    check_attention()


def test_multi_head_attention_matches_loops() -> None:
    x = randn(4, 5)
    W_Q = [randn(5, 3, seed=s) for s in (1, 2)]
    W_K = [randn(5, 3, seed=s) for s in (3, 4)]
    W_V = [randn(5, 2, seed=s) for s in (5, 6)]
    W_O = randn(4, 5, seed=7)
    for causal in (False, True):
        out, weights = multi_head_attention(x, W_Q, W_K, W_V, W_O, causal=causal)
        refs = [ref_attention(arr(x @ q), arr(x @ k), arr(x @ v), causal)
                for q, k, v in zip(W_Q, W_K, W_V, strict=True)]
        z = np.hstack([r[0] for r in refs])
        np.testing.assert_allclose(arr(out), z @ arr(W_O), rtol=0, atol=1e-12)
        for w, r in zip(weights, refs, strict=True):
            np.testing.assert_allclose(arr(w), r[1], rtol=0, atol=1e-12)


def test_layer_norm_and_ffn_match_numpy() -> None:
    x, gamma, beta = randn(3, 5), randn(5, seed=1), randn(5, seed=2)
    np.testing.assert_allclose(arr(layer_norm(x, gamma, beta)),
                               ref_layer_norm(arr(x), arr(gamma), arr(beta)), rtol=0, atol=1e-13)
    # 7.7's example: (1, 2, 3) -> (-1, 0, 1) / sqrt(2/3 + eps)
    ln = layer_norm(t64([[1, 2, 3]]), t64([1, 1, 1]), t64([0, 0, 0]), eps=0.0)
    np.testing.assert_allclose(arr(ln), [[-math.sqrt(1.5), 0, math.sqrt(1.5)]], atol=1e-15)
    W1, b1, W2, b2 = randn(5, 7, seed=3), randn(7, seed=4), randn(7, 5, seed=5), randn(5, seed=6)
    for act in ("relu", "gelu"):
        ref = ref_act(arr(x) @ arr(W1) + arr(b1), act) @ arr(W2) + arr(b2)
        np.testing.assert_allclose(arr(ffn(x, W1, b1, W2, b2, act)), ref, rtol=0, atol=1e-13)
    assert math.isclose(float(gelu(t64(1.0))), 0.5 * (1 + math.erf(1 / math.sqrt(2))))


def test_attention_residual_only_block_is_chapter_13() -> None:
    """With every switch off a block is exactly R = X + Z W_O (ch. 13)."""
    model = TinyGPT(CONFIGS[3], seed=1)
    x = randn(4, 4, seed=9)
    block = model.blocks[0]
    t = block.forward_trace(x, range(4))
    assert set(t) >= {"q", "k", "v", "weights", "z", "attn_out", "t", "y"}
    assert torch.equal(t["y"], x + t["z"] @ block.W_O)


def test_chapter_13_numbers() -> None:
    """The printed numbers of 13.3-13.11 and 15.4 (6 decimals)."""
    model = ch13_model()
    tr = model.forward_trace(CH13_DATA[0])
    close = dict(rtol=0, atol=6e-7)
    np.testing.assert_allclose(arr(tr["layers"][0]["weights"][0][1]), [0.731059, 0.268941], **close)
    np.testing.assert_allclose(arr(tr["h"][1]), [0.731059, 1.268941], **close)
    np.testing.assert_allclose(arr(tr["p"][1]), [0.339660, 0.581626, 0.078714], **close)
    loss, g = model.loss_and_grads(*CH13_DATA)
    assert abs(float(loss) - 2.541928) < 6e-7
    np.testing.assert_allclose(arr(g["blocks.0.W_Q.0"]), [[0], [0.133562]], **close)
    np.testing.assert_allclose(arr(g["U"]), [[0.248311, 0.425203, -0.673514],
                                             [0.431008, 0.738049, -1.169057]], **close)
    np.testing.assert_allclose(arr(g["E"]), [[1.055387, 0.425203], [1.466503, 0.871611],
                                             [0, 0]], **close)
    new = TinyGPT.from_params(CH13, **sgd_step(model.params(), g, 0.1))
    tr2 = new.forward_trace(CH13_DATA[0])
    with torch.no_grad():
        assert abs(float(tr2["layers"][0]["weights"][0][1, 0]) - 0.713748) < 6e-7
        assert abs(float(tr2["p"][1, 2]) - 0.171807) < 6e-7
        assert abs(float(new.loss(*CH13_DATA)) - 1.761382) < 6e-7


def test_cross_entropy_matches_loops() -> None:
    logits, targets, mask = randn(4, 6), [1, 5, 0, 2], [True, False, True, True]
    terms = []
    for i, (row, t) in enumerate(zip(arr(logits), targets, strict=True)):
        if mask[i]:
            terms.append(-math.log(math.exp(row[t]) / sum(math.exp(s) for s in row)))
    assert math.isclose(float(cross_entropy(logits, targets, mask)), sum(terms) / len(terms),
                        rel_tol=1e-14)
    assert math.isclose(float(cross_entropy(logits, targets)),
                        float(cross_entropy(logits, targets, [True] * 4)), rel_tol=1e-15)


def gradcheck_model(config: GPTConfig, fast_mode: bool) -> bool:
    """torch.autograd.gradcheck: autograd vs central differences for every parameter."""
    model = TinyGPT(config, seed=4)
    names = list(model.params())
    values = tuple(p.detach().clone().requires_grad_() for p in model.params().values())
    tokens, targets, mask = [2, 0, 4, 4, 1], [0, 4, 4, 1, 3], [False, True, True, True, True]

    def loss(*vals: torch.Tensor) -> torch.Tensor:
        logits = functional_call(model, dict(zip(names, vals, strict=True)), (tokens,))
        return cross_entropy(logits, targets, mask)

    return torch.autograd.gradcheck(loss, values, eps=1e-6, atol=1e-8, rtol=1e-6,
                                    fast_mode=fast_mode)


def test_autograd_matches_central_differences() -> None:
    """Element by element for a tied, RoPE, GELU, biased 2-head layer; two-layer Pre-LN and
    Post-LN models along random directions (gradcheck's fast mode), to stay quick."""
    one = GPTConfig(5, 4, 2, 2, 2, 1, d_ff=4, positions="rope", activation="gelu",
                    out_bias=True, tie_weights=True)
    assert gradcheck_model(one, fast_mode=False)
    two = replace(one, n_layers=2)
    assert gradcheck_model(two, fast_mode=True)
    post = GPTConfig(5, 4, 2, 2, 3, 2, d_ff=6, positions="sinusoidal", arrangement="post",
                     activation="gelu")  # GELU: no ReLU kink for differences to straddle
    assert gradcheck_model(post, fast_mode=True)


def test_causal_flow() -> None:
    check_causal_flow()


def test_permutation_equivariance_without_positions_or_mask() -> None:
    """15.6: no positions and no mask -> permuting the tokens permutes the outputs."""
    model = TinyGPT(CONFIGS[2], seed=1)
    perm = [4, 0, 5, 2, 1, 3]
    np.testing.assert_allclose(arr(model([TOKENS[i] for i in perm])), arr(model(TOKENS))[perm],
                               rtol=0, atol=1e-12)


def test_tied_weights_sum_both_paths() -> None:
    check_tied_gradients(TinyGPT)
    model = TinyGPT(CONFIGS[1])
    assert "U" not in model.params() and model.U.data_ptr() == model.E.data_ptr()


def test_joint_update_uses_old_parameters() -> None:
    check_joint_update(correct_step)
    check_sgd_step_keeps_old(sgd_step)


def test_kv_cache_equals_recompute() -> None:
    check_kv_cache()


def test_decoding_filters() -> None:
    # matrix-by-matrix 9.2 / 10.2 (order 猫 追 我 <PAD> 老鼠 爱)
    probs = t64([0.555, 0.185, 0.124, 0.061, 0.034, 0.041])
    np.testing.assert_allclose(arr(top_k_filter(probs, 3)), [0.642, 0.214, 0.144, 0, 0, 0],
                               atol=5e-4)
    np.testing.assert_allclose(arr(top_p_filter(probs, 0.9)), [0.600, 0.200, 0.134, 0.066, 0, 0],
                               atol=5e-4)
    assert int((top_p_filter(t64([0.50, 0.25, 0.15, 0.10]), 0.8) > 0).sum()) == 3
    # round-off: 0.7 + 0.1 = 0.7999999999999999 still reaches p = 0.8
    assert int((top_p_filter(t64([0.1, 0.7, 0.1, 0.1]), 0.8) > 0).sum()) == 2
    assert torch.equal(top_p_filter(probs, 1.0) > 0, probs > 0)
    logits = t64([0.1, -0.5, 2.3, 1.2, 0.8, -0.3])
    for T in (0.3, 1.5):
        e = [math.exp(s / T) for s in arr(logits)]
        np.testing.assert_allclose(arr(torch.softmax(apply_temperature(logits, T), -1)),
                                   [u / sum(e) for u in e], rtol=1e-14)
    with pytest.raises(ValueError):
        apply_temperature(logits, 0.0)
    assert greedy(logits) == 2 and greedy(t64([1.0, 3.0, 3.0])) == 1


def test_generate_stops_and_samples_within_top_k() -> None:
    model = TinyGPT(FULL, seed=2)
    out = generate(model, [1, 2], 4)
    assert out[:2] == [1, 2] and len(out) == 6
    stop = out[2]
    assert generate(model, [1, 2], 4, eos=stop) == [1, 2, stop]
    assert generate(model, [1, 2], 0) == [1, 2]
    tokens, logits = generate(model, [1], 6, strategy="sample", top_k=2,
                              generator=torch.Generator().manual_seed(0), return_logits=True)
    for tok, row in zip(tokens[1:], logits, strict=True):
        assert tok in torch.topk(row, 2).indices.tolist()
    with pytest.raises(ValueError):
        generate(TinyGPT(CONFIGS[2]), [1], 2)  # non-causal: a cache would be wrong


def test_from_params_round_trip_and_errors() -> None:
    model = TinyGPT(FULL, seed=8)
    again = TinyGPT.from_params(FULL, **model.params())
    assert torch.equal(again(TOKENS), model(TOKENS))
    p = {n: v.detach() for n, v in model.params().items()}
    short = dict(E=p["E"], U=p["U"], b=p["b"],
                 W_Q=[[p[f"blocks.{ly}.W_Q.{h}"] for h in range(2)] for ly in range(2)],
                 W_K=[[p[f"blocks.{ly}.W_K.{h}"] for h in range(2)] for ly in range(2)],
                 W_V=[[p[f"blocks.{ly}.W_V.{h}"] for h in range(2)] for ly in range(2)],
                 **{w: [p[f"blocks.{ly}.{w}"] for ly in range(2)] for w in ("W_O", "W1", "W2")})
    short_model = TinyGPT.from_params(FULL, **short)  # biases 0, γ = 1, β = 0 by default
    assert torch.equal(short_model(TOKENS), model(TOKENS))  # the init has the same defaults
    with pytest.raises(ValueError, match="not given"):
        TinyGPT.from_params(CH13, **{k: v for k, v in CH13_PARAMS.items() if k != "U"})
    with pytest.raises(ValueError, match="no such"):
        TinyGPT.from_params(CH13, W_X=[[1.0]], **CH13_PARAMS)
    with pytest.raises(ValueError, match="shape"):
        TinyGPT.from_params(CH13, **{**CH13_PARAMS, "W_Q": [[0.0], [1.0], [2.0]]})


def test_public_names() -> None:
    for name in tinygpt.__all__:
        assert hasattr(tinygpt, name)
    assert KVCache(2, 3).length == 0


# ------------------------------------------------------------------ planted bugs are caught


def test_mutant_causal_mask_sees_next_position(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(M, "causal_mask", lambda n_q, n_k: (
        torch.arange(n_k)[None, :] <= torch.arange(n_q)[:, None] + (n_k - n_q) + 1))
    with pytest.raises(AssertionError):
        check_causal_flow()
    with pytest.raises(AssertionError):
        check_attention()


def test_mutant_missing_scale(monkeypatch: pytest.MonkeyPatch) -> None:
    original = M.attention
    monkeypatch.setattr(M, "attention", lambda q, k, v, causal=False, scale=True:
                        original(q, k, v, causal=causal, scale=False))
    with pytest.raises(AssertionError):
        check_attention()


def test_mutant_softmax_over_query_axis(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(M, "softmax", lambda s: torch.softmax(s, dim=0))
    with pytest.raises(AssertionError):
        check_attention()


class DetachedTiedGPT(TinyGPT):
    """Mutant: U is a detached copy of E.T, so the output path never reaches E.grad."""

    def __getattr__(self, name: str) -> Any:
        if name == "U" and self.__dict__["config"].tie_weights:
            return self.E.T.detach().clone()
        return super().__getattr__(name)


def test_mutant_tied_weights_one_path_only() -> None:
    with pytest.raises(AssertionError):
        check_tied_gradients(DetachedTiedGPT)


def sequential_step(model: TinyGPT, tokens, targets, mask, lr: float) -> dict[str, torch.Tensor]:
    """Mutant: update one parameter in place, then take the next gradient at the new point."""
    for name, p in model.params().items():
        _, grads = model.loss_and_grads(tokens, targets, mask)
        with torch.no_grad():
            p -= lr * grads[name]
    return {n: p.detach() for n, p in model.params().items()}


def in_place_sgd(params, grads, lr):
    """Mutant: sgd_step that overwrites the old parameters."""
    for name, p in params.items():
        p.sub_(lr * grads[name])
    return params


def test_mutant_sequential_updates() -> None:
    with pytest.raises(AssertionError):
        check_joint_update(sequential_step)
    with pytest.raises(AssertionError):
        check_sgd_step_keeps_old(in_place_sgd)


class DropNewestKeyCache(KVCache):
    """Mutant: once decoding, the new token's q does not see its own (newest) key/value."""

    def update(self, layer, head, k, v):
        had_old = self.keys[layer][head] is not None
        keys, values = super().update(layer, head, k, v)
        return (keys[:-1], values[:-1]) if had_old else (keys, values)


def test_mutant_kv_cache_drops_newest_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(G, "KVCache", DropNewestKeyCache)
    with pytest.raises(AssertionError):
        check_kv_cache()
