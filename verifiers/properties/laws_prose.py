"""Laws of the comparative and scope sentences (specs: :mod:`.specs_prose`).

- ``sum-spread-growth`` — the spread of a sum of n independent unit-variance terms, measured
  on fixed-seed samples, grows as √n (4n terms: twice the spread); the slot ``growth`` says
  how the sentence claims it grows (平方根 / 线性 / 不变), and each is checked as stated;
- ``scaled-dot-spread`` — the SD of q·k / d shrinks as d grows (and q·k's own grows), on
  fixed-seed samples; the slot ``spread`` is the sentence's word (减小 / 增大);
- ``dot-not-angle-only`` — "q·k is fixed by the angle alone", searched: rescaling q keeps the
  angle and changes the dot product (the note's 不仅由 says this fails; 仅由 says it holds);
- ``derivative-sign-step`` — tinygpt's cross-entropy as a function of one logit w: where
  autograd's dL/dw has the stated sign, a step of w the stated way moves the loss the stated
  way, and the step the sentence recommends lowers it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from tinygpt import cross_entropy
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, floats, show, vectors

RATIO = {"sqrt": 2.0, "linear": 4.0, "constant": 1.0}  # spread at 4n terms / spread at n


def sample_sum_sd(n: int, samples: int, seed: int) -> float:
    """The sample SD of a sum of n independent standard normal terms (fixed seed)."""
    draws = np.random.default_rng(seed).standard_normal((samples, n))
    return float(draws.sum(axis=1).std())


@law("sum-spread-growth")
def _spread_growth(p: Mapping[str, Any]) -> Law:
    ratio = RATIO[p["growth"]]
    draw = st.tuples(st.integers(1, max(1, p["max_terms"] // 4)), st.integers(0, 2**16))

    def check(example: Any, f: Callable[..., float]) -> None:
        n, seed = example
        a, b = f(n, p["samples"], seed), f(4 * n, p["samples"], seed + 1)
        if not abs(b / a - ratio) <= 0.1 * ratio:  # sampling error of an SD ratio: ~1 %
            fail(f"{n} terms: SD {show(a, 4)}; {4 * n} terms: SD {show(b, 4)}: ratio "
                 f"{show(b / a, 3)}, not {show(ratio, 3)} ({p['growth']} growth)")
    return Law(draw, check, {"numpy sums (fixed seeds)": sample_sum_sd})


def sample_scaled_dot_sd(n: int, samples: int, seed: int, divisor: str) -> float:
    """The sample SD of q . k / c, q and k of n independent standard normals (fixed seed)."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((samples, n)), rng.standard_normal((samples, n))
    return float((q * k).sum(axis=1).std() / (n if divisor == "d" else 1.0))


@law("scaled-dot-spread")
def _scaled_dot(p: Mapping[str, Any]) -> Law:
    grows = p["spread"] == "increases"
    draw = st.tuples(st.integers(1, max(1, p["max_dim"] // 4)), st.integers(0, 2**16))

    def check(example: Any, f: Callable[..., float]) -> None:
        n, seed = example
        a = f(n, p["samples"], seed, p["divisor"])
        b = f(4 * n, p["samples"], seed + 1, p["divisor"])
        if (b <= 1.1 * a) if grows else (b >= a / 1.1):
            fail(f"q . k / {'d' if p['divisor'] == 'd' else '1'}: SD {show(a, 4)} at d = {n}, "
                 f"{show(b, 4)} at d = {4 * n}: it does not {'grow' if grows else 'shrink'}")
    return Law(draw, check, {"numpy q . k / c (fixed seeds)": sample_scaled_dot_sd})


def dot(q: Any, k: Any) -> float:
    return float(torch.dot(torch.as_tensor(q, dtype=F64), torch.as_tensor(k, dtype=F64)))


@law("dot-not-angle-only")
def _dot_angle(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        q = d(vectors(p["max_len"], 5.0, min_len=2))
        k = d(st.lists(floats(-5, 5), min_size=len(q), max_size=len(q)).map(np.array))
        return q, k, d(floats(0.1, 10.0))

    def check(example: Any, f: Callable[..., float]) -> None:
        q, k, c = example
        if not np.abs(q).max() > 1e-3 or not np.abs(k).max() > 1e-3:
            return  # a zero vector has no angle
        a, b = f(q, k), f(c * q, k)
        if abs(a - b) > 1e-9 * max(1.0, abs(a)):
            fail(f"q = {show(q, 4)}, k = {show(k, 4)}: q . k = {show(a, 6)}, but {show(c, 4)} q "
                 f"(the same angle with k) gives {show(b, 6)}")
    return Law(draw(), check, {"torch.dot": dot})


def ce_of_logit(z: list[float], y: int, j: int, w: float) -> tuple[float, float]:
    """tinygpt.cross_entropy with logit j set to w, and autograd's dL/dw there."""
    logits = torch.tensor(z, dtype=F64)
    wt = torch.tensor(w, dtype=F64, requires_grad=True)
    full = torch.cat([logits[:j], wt.reshape(1), logits[j + 1:]])
    loss = cross_entropy(full.reshape(1, -1), torch.tensor([y]))
    loss.backward()
    return float(loss.detach()), float(wt.grad)


@law("derivative-sign-step")
def _derivative_step(p: Mapping[str, Any]) -> Law:
    sign = p["sign"]  # positive / nonneg / zero / negative: where the sentence speaks
    way = {"increases": 1.0, "decreases": -1.0}
    speaks = {"positive": lambda g: g > 0, "nonneg": lambda g: g >= 0,
              "negative": lambda g: g < 0, "zero": lambda g: True}[sign]

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        z = [float(x) for x in d(vectors(p["max_len"], 6.0, min_len=2))]
        return z, d(st.integers(0, len(z) - 1)), d(st.integers(0, len(z) - 1))

    def check(example: Any, f: Callable[..., tuple[float, float]]) -> None:
        z, y, j = example
        loss, g = f(z, y, j, z[j])
        if sign == "zero":
            fail(f"logits {show(z, 4)}, target {y}, w = logit {j}: dL/dw = {show(g, 6)}; a "
                 "derivative of 0 moves the loss by nothing to first order, so no small step "
                 "of w is said to raise or lower it")
        if abs(g) < 1e-3 or not speaks(g):
            return  # the sentence speaks of a derivative of another sign
        eps = min(1e-4, abs(g) / 8)
        moved, _ = f(z, y, j, z[j] + way[p["move"]] * eps)
        if (moved - loss) * way[p["loss"]] <= 0:
            fail(f"logits {show(z, 4)}, target {y}, w = logit {j}: dL/dw = {show(g, 6)}; "
                 f"w {'+' if way[p['move']] > 0 else '-'} {show(eps, 3)} takes the loss from "
                 f"{show(loss, 9)} to {show(moved, 9)}, not {p['loss'].replace('es', 'ing')}")
        fixed, _ = f(z, y, j, z[j] + way[p["fix"]] * eps)
        if fixed >= loss:
            fail(f"logits {show(z, 4)}, target {y}, w = logit {j}: dL/dw = {show(g, 6)}; the "
                 f"recommended step ({p['fix']} w by {show(eps, 3)}) takes the loss from "
                 f"{show(loss, 9)} to {show(fixed, 9)}: it does not lower it")
    return Law(draw(), check, {"tinygpt.cross_entropy": ce_of_logit})
