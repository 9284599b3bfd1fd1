"""Laws of sentences once waived as hedges (issue 12 item 4; specs: :mod:`.specs_hedges`).

- ``step-raises-every-sample`` — a softmax regression trained one step on a batch's mean
  cross-entropy: the note says it does *not* raise every sample's target probability
  ("这不意味着每次更新都一定能提高所有样本的预测准确率"), so the search must find one it
  lowers;
- ``fixed-average-weights-constant`` — z = Σ c_j x_j: autograd's dz/dx_j is c_j I at every
  input ("不管输入是什么，这三个系数始终不变");
- ``high-dim-dots-all-large`` — the note says it is *not* so ("并不是说所有高维向量的点积都
  必然很大"): the search must find two ±1 vectors with a small dot product.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import strategies as st

from tinygpt import attention as tinygpt_attention
from tinygpt import cross_entropy as tinygpt_cross_entropy
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, floats, matrices, show


def cross_entropy_step(W: torch.Tensor, X: torch.Tensor, y: list[int], lr: float
                       ) -> torch.Tensor:
    """W after one gradient step on the mean cross-entropy of softmax(X W) against y."""
    W = W.clone().requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(X @ W, torch.tensor(y))
    (grad,) = torch.autograd.grad(loss, W)
    return (W - lr * grad).detach()


@law("step-raises-every-sample")
def _every_sample(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V, dim = d(st.integers(2, p["max_vocab"])), d(st.integers(1, p["max_dim"]))
        n = d(st.integers(2, 3))
        W = [[d(floats(-2, 2)) for _ in range(V)] for _ in range(dim)]
        X = [[d(floats(-2, 2)) for _ in range(dim)] for _ in range(n)]
        y = [d(st.integers(0, V - 1)) for _ in range(n)]
        return W, X, y, d(floats(0.05, 2.0))

    def check(example: Any, f: Callable[..., Any]) -> None:
        W, X, y, lr = (torch.tensor(example[0], dtype=F64), torch.tensor(example[1], dtype=F64),
                       example[2], example[3])
        before = torch.softmax(X @ W, dim=-1)
        after = torch.softmax(X @ f(W, X, y, lr), dim=-1)
        for i, t in enumerate(y):
            if after[i, t] < before[i, t]:
                fail(f"W = {show(W, 3)}, inputs {show(X, 3)}, targets {y}, lr = {show(lr, 3)}: "
                     f"one step lowers sample {i}'s target probability from "
                     f"{show(before[i, t], 4)} to {show(after[i, t], 4)}")
    # one input, two targets: a step cannot raise both of a two-token softmax
    example = ([[0.0, 0.0]], [[1.0], [1.0]], [0, 1], 0.5)
    return Law(draw(), check, {"torch cross_entropy + one SGD step": cross_entropy_step},
               examples=(example,))


def fixed_average(c: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """The Jacobian of z = Σ_j c_j x_j with respect to each x_j (rows of X), by autograd."""
    X = X.clone().requires_grad_(True)
    dim = X.shape[1]
    rows = [torch.autograd.grad((c[:, None] * X).sum(0)[k], X, retain_graph=True)[0]
            for k in range(dim)]
    return torch.stack(rows)  # [k, j, m] = dz_k / dX_jm


@law("fixed-average-weights-constant")
def _fixed_average(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n, dim = d(st.integers(2, p["max_terms"])), d(st.integers(1, 3))
        c = [d(floats(-1, 1)) for _ in range(n)]
        inputs = [[[d(floats(-5, 5)) for _ in range(dim)] for _ in range(n)] for _ in range(2)]
        return c, inputs

    def check(example: Any, f: Callable[..., Any]) -> None:
        c = torch.tensor(example[0], dtype=F64)
        a, b = (f(c, torch.tensor(x, dtype=F64)) for x in example[1])
        if not torch.equal(a, b):
            fail(f"coefficients {show(c, 3)}: the weights of the inputs differ between "
                 f"{example[1][0]} and {example[1][1]}")
        n, dim = c.shape[0], a.shape[0]
        want = torch.einsum("j,km->kjm", c, torch.eye(dim, dtype=F64))
        if not torch.allclose(a, want, rtol=0, atol=1e-15):
            fail(f"coefficients {show(c, 3)}: dz/dx_j is not c_j I ({n} terms)")
    return Law(draw(), check, {"autograd of sum_j c_j x_j": fixed_average})


def dot(q: torch.Tensor, k: torch.Tensor) -> float:
    return float(q @ k)


@law("high-dim-dots-all-large")
def _dots_large(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        dim = d(st.integers(16, p["max_dim"]))
        signs = st.lists(st.sampled_from([-1.0, 1.0]), min_size=dim, max_size=dim)
        return d(signs), d(signs)

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k = (torch.tensor(v, dtype=F64) for v in example)
        value = f(q, k)
        if abs(value) < 1:
            fail(f"d = {len(example[0])}: q = {example[0][:4]}…, k = {example[1][:4]}… have "
                 f"q . k = {show(value, 3)}")
    half = [1.0] * 8 + [-1.0] * 8
    return Law(draw(), check, {"torch dot": dot}, examples=(([1.0] * 16, half),))


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    return tinygpt_attention(q, k, v, causal=True)[0]


@law("attention-row-own-only")
def _own_only(p: Mapping[str, Any]) -> Law:
    """The note says z_i does *not* depend on its own position only ("不再只依赖于「华法林」"):
    the search must find a change of another position's value that moves z_i."""
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n, dk, dv = d(st.integers(2, p["max_len"])), d(st.integers(1, 3)), d(st.integers(1, 2))
        q, k, v = (d(matrices(n, c, 3.0, integer=True)) for c in (dk, dk, dv))
        j = d(st.integers(0, n - 2))
        return q, k, v, j, [d(st.integers(-3, 3)) * 1.0 for _ in range(dv)]

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v, j, delta = example
        q, k, v = (torch.tensor(m, dtype=F64) for m in (q, k, v))
        moved = v.clone()
        moved[j] += torch.tensor(delta, dtype=F64)
        before, after = f(q, k, v)[-1], f(q, k, moved)[-1]
        if not torch.equal(before, after):
            fail(f"n = {v.shape[0]}: changing v_{j + 1} by {delta} moves the last position's "
                 f"z from {show(before, 4)} to {show(after, 4)}")
    zero = [[0.0], [0.0]]
    return Law(draw(), check, {"tinygpt.attention (causal)": causal_attention},
               examples=((zero, zero, zero, 0, [1.0]),))


def residual(x: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    """y = x + F(x) with the linear sublayer F(x) = x A."""
    return x + x @ A


@law("residual-keeps-information")
def _keeps_information(p: Mapping[str, Any]) -> Law:
    """The note says the residual path does *not* guarantee that no information is lost
    ("并不保证任何情况下信息都不丢失"): the search must find a sublayer F and two inputs that
    y = x + F(x) maps to the same output (15.7's F(x) = −x is one)."""
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        dim = d(st.integers(1, p["max_dim"]))
        return d(matrices(dim, dim, 2.0, integer=True))

    def check(example: Any, f: Callable[..., Any]) -> None:
        A = torch.tensor(example, dtype=F64)
        dim = A.shape[0]
        images = f(torch.eye(dim, dtype=F64), A)  # the rows: y of each basis vector
        if int(torch.linalg.matrix_rank(images)) < dim:
            fail(f"F(x) = x A with A = {show(A, 3)}: y = x + F(x) has rank "
                 f"{int(torch.linalg.matrix_rank(images))} < {dim}: two inputs give one output")
    return Law(draw(), check, {"x + F(x)": residual}, examples=([[-1.0]],))


def target_gradient(z: torch.Tensor, y: int) -> float:
    """dL/dz_y of tinygpt.cross_entropy(z, y), by autograd."""
    z = z.clone().requires_grad_(True)
    loss = tinygpt_cross_entropy(z[None], torch.tensor([y]))
    (grad,) = torch.autograd.grad(loss, z)
    return float(grad[y])


@law("small-softmax-derivative-stalls")
def _stalls(p: Mapping[str, Any]) -> Law:
    """The note says one *cannot* infer from a small softmax derivative that learning stalls:
    the search must find logits where p_y(1 − p_y) is small yet dL/dz_y is near −1."""
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        z = [float(d(st.integers(-8, 8))) for _ in range(V)]
        return z, d(st.integers(0, V - 1))

    def check(example: Any, f: Callable[..., Any]) -> None:
        z, y = torch.tensor(example[0], dtype=F64), example[1]
        p_y = float(torch.softmax(z, dim=-1)[y])
        if p_y * (1 - p_y) < 0.05:
            g = f(z, y)
            if abs(g) >= 0.5:
                fail(f"logits {example[0]}, target {y}: p_y = {show(p_y, 4)}, so the softmax "
                     f"derivative p_y(1 − p_y) = {show(p_y * (1 - p_y), 3)} is small, but "
                     f"dL/dz_y = {show(g, 4)}")
    return Law(draw(), check, {"tinygpt.cross_entropy + autograd": target_gradient},
               examples=(([8.0, 0.0], 1),))
