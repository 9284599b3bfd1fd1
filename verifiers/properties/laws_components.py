"""The component law: a trait searched on the component a sentence names (laws7).

Why: a sentence that gives a property to the wrong component ("LayerNorm：把每一行变成非负且
和为 1 的系数", written for Softmax) used to go ``stale``: the component name was fixed quote
text. Here the component is a slot (spec: :mod:`.specs_components`), so the law is searched on
the function the word names, and a trait that the component lacks fails with the shrunk input.

Components (all on an n x d matrix of rows, float64): tinygpt's ``softmax``, ``layer_norm``
(γ = 1, β = 0, ε = 1e-5), ``gelu``, ``attention`` (Q = K = V = X, with or without the causal
mask) and ``ffn``; torch's ReLU, sigmoid and tanh; RMSNorm as x / sqrt(mean(x²) + ε) (tinygpt
has none); the residual as X + FFN(X). The FFN's weights are fixed per width (seeded), so a
counterexample can be rebuilt.

Traits, checked on one drawn input (rows whose spread is at least 0.25 in variance, so that ε
stays below 1e-4 of it):

- ``sums_to_one`` / ``mean_zero`` / ``unit_variance``: each output row's sum, mean, variance
  (1e-9, 1e-9, 1e-3 of slack: LayerNorm's ε);
- ``nonneg`` / ``positive`` / ``unit_interval``: the outputs' range;
- ``shift_invariant`` / ``scale_invariant``: f(X + c) and f(aX) against f(X);
- ``monotone``: raising one input entry does not lower its own output;
- ``bounded``: every output within √d of 0, however large the inputs (a fixed bound);
- ``equivariant``: permuting the rows (positions) permutes the output rows;
- ``causal``: output rows ≤ i ignore a change of the rows after i;
- ``per_position``: output row i ignores a change of every other row;
- ``mixes`` (laws8): some output row changes when the other rows change. An existence, so it
  is looked for on seeded inputs (:func:`mixing_problem`), not on each drawn one (a saturated
  softmax may hide another row's change below any tolerance).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import assume
from hypothesis import strategies as st

from tinygpt.model import attention, ffn, gelu, layer_norm, softmax
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, floats, matrices, show

EPS = 1e-5  # LayerNorm's and RMSNorm's ε


@functools.cache
def ffn_weights(d: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """W1 (d x 2d), b1, W2 (2d x d), b2 of the FFN of width d (seeded: rebuildable)."""
    g = torch.Generator().manual_seed(1000 + d)
    w1 = torch.randn(d, 2 * d, generator=g, dtype=F64) * 0.5
    b1 = torch.randn(2 * d, generator=g, dtype=F64) * 0.1
    w2 = torch.randn(2 * d, d, generator=g, dtype=F64) * 0.5
    b2 = torch.randn(d, generator=g, dtype=F64) * 0.1
    return w1, b1, w2, b2


def _ffn(x: torch.Tensor) -> torch.Tensor:
    return ffn(x, *ffn_weights(x.shape[1]), activation="relu")


COMPONENTS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "softmax": softmax,
    "layernorm": lambda x: layer_norm(x, torch.ones(x.shape[1], dtype=F64),
                                      torch.zeros(x.shape[1], dtype=F64), EPS),
    "rmsnorm": lambda x: x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + EPS),
    "relu": torch.relu,
    "gelu": gelu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "attention": lambda x: attention(x, x, x)[0],
    "masked_attention": lambda x: attention(x, x, x, causal=True)[0],
    "residual": lambda x: x + _ffn(x),
    "ffn": _ffn,
}


def component_output(name: str, x: torch.Tensor) -> torch.Tensor:
    """The named component applied to the rows of ``x`` (the implementation under test)."""
    with torch.no_grad():
        return COMPONENTS[name](x)


Impl = Callable[[str, torch.Tensor], torch.Tensor]


def _rows(y: torch.Tensor, values: torch.Tensor, want: float, tol: float, what: str) -> str | None:
    bad = (values - want).abs() > tol
    if bool(bad.any()):
        r = int(bad.nonzero()[0][0])
        return f"row {r} has {what} {show(float(values[r]), 8)}, not {show(want)}"
    return None


def _gap(a: torch.Tensor, b: torch.Tensor, rtol: float) -> bool:
    """Do the two outputs differ beyond rtol of their size (NaN differs)?"""
    scale = 1.0 + float(max(a.abs().max(), b.abs().max()))
    diff = (a - b).abs().max()
    return bool(torch.isnan(diff)) or float(diff) > rtol * scale


def trait_problem(trait: str, name: str, f: Impl, ex: dict[str, Any]) -> str | None:
    """What is wrong with ``trait`` on this example (None: it holds here)."""
    x = ex["x"]
    y = f(name, x)
    n, d = x.shape
    if trait == "sums_to_one":
        return _rows(y, y.sum(dim=-1), 1.0, 1e-9, "sum")
    if trait == "mean_zero":
        return _rows(y, y.mean(dim=-1), 0.0, 1e-9 * (1 + float(y.abs().max())), "mean")
    if trait == "unit_variance":
        return _rows(y, y.var(dim=-1, unbiased=False), 1.0, 1e-3, "variance")
    if trait in ("nonneg", "positive", "unit_interval"):
        low = bool((y <= 0).any()) if trait == "positive" else bool((y < 0).any())
        high = trait == "unit_interval" and bool((y > 1).any())
        if low or high:
            return f"an output is {show(float(y.min() if low else y.max()), 8)}"
        return None
    if trait == "shift_invariant":
        if _gap(f(name, x + ex["c"]), y, 1e-7):
            return f"adding {show(ex['c'])} changes the output to {show(f(name, x + ex['c']))}"
        return None
    if trait == "scale_invariant":
        if _gap(f(name, x * ex["a"]), y, 1e-3):
            return f"scaling by {show(ex['a'])} changes the output to {show(f(name, x * ex['a']))}"
        return None
    if trait == "monotone":
        i, j = ex["i"] % n, ex["j"] % d
        x2 = x.clone()
        x2[i, j] += ex["delta"]
        y2 = f(name, x2)
        if float(y2[i, j]) < float(y[i, j]) - 1e-12:
            return (f"raising entry ({i}, {j}) by {show(ex['delta'])} lowers its output from "
                    f"{show(float(y[i, j]), 8)} to {show(float(y2[i, j]), 8)}")
        return None
    if trait == "bounded":
        top = float(y.abs().max())
        return (f"an output of size {show(top, 6)} exceeds sqrt(d) = {show(math.sqrt(d), 6)}"
                if top > math.sqrt(d) + 1e-9 else None)
    if trait == "equivariant":
        perm = [p for p in ex["perm"] if p < n] or [0]
        perm += [k for k in range(n) if k not in perm]
        if _gap(f(name, x[perm]), y[perm], 1e-9):
            return f"permuting the rows by {perm} does not permute the output rows"
        return None
    if trait in ("causal", "per_position"):
        i = ex["i"] % n
        x2 = ex["x2"][:n, :d] if ex["x2"].shape[0] >= n else ex["x2"]
        changed = x.clone()
        if trait == "causal":
            changed[i + 1:] = x2[i + 1:n]
            keep = slice(0, i + 1)
        else:
            others = [k for k in range(n) if k != i]
            changed[others] = x2[others]
            keep = slice(i, i + 1)
        if _gap(f(name, changed)[keep], y[keep], 1e-9):
            what = f"rows after {i}" if trait == "causal" else f"rows other than {i}"
            return f"changing the {what} to {show(changed)} changes output row(s) ≤ {i}"
        return None
    if trait == "mixes":
        return None  # an existence: mixing_problem, on seeded inputs
    raise ValueError(f"unknown trait {trait!r}")


SEEDED = 24  # seeded inputs per shape on which an existence trait is looked for


def mixing_problem(name: str, f: Impl) -> str | None:
    """None when some seeded input has an output row that changes with the other rows."""
    for n, d in ((3, 3), (4, 2), (2, 4)):
        g = torch.Generator().manual_seed(1700 + 10 * n + d)
        for _ in range(SEEDED):
            x = torch.rand(n, d, generator=g, dtype=F64) * 2 - 1
            other = x.clone()  # the earlier rows changed: the last row reads them (causal too)
            other[:-1] = torch.rand(n - 1, d, generator=g, dtype=F64) * 2 - 1
            if _gap(f(name, other)[-1:], f(name, x)[-1:], 1e-9):
                return None
    return (f"the last output row of {name} ignores every change of the other rows on "
            f"{3 * SEEDED} seeded inputs: it reads its own position only")


@law("component-trait")
def _component_trait(p: Mapping[str, Any]) -> Law:
    return _traits_law(p, [p["trait"]])


@law("component-two-traits")
def _component_two_traits(p: Mapping[str, Any]) -> Law:
    return _traits_law(p, [p["trait"], p["trait2"]])


def _traits_law(p: Mapping[str, Any], traits: list[str]) -> Law:
    """The traits searched on the component named, on one drawn input at a time."""
    name = p["component"]
    mixing: dict[Impl, str | None] = {}

    @st.composite
    def draw(dr: st.DrawFn) -> dict[str, Any]:
        n = dr(st.integers(1, p["max_len"]))
        d = dr(st.integers(2, p["max_width"]))
        x = torch.tensor(dr(matrices(n, d, p["bound"])), dtype=F64)
        assume(bool((x.var(dim=-1, unbiased=False) >= 0.25).all()))
        return {"x": x, "x2": torch.tensor(dr(matrices(n, d, p["bound"])), dtype=F64),
                "c": dr(floats(-p["bound"], p["bound"])), "a": dr(floats(0.5, 3.0)),
                "delta": dr(floats(0.01, 1.0)), "i": dr(st.integers(0, n - 1)),
                "j": dr(st.integers(0, d - 1)), "perm": dr(st.permutations(range(n)))}

    def check(ex: dict[str, Any], f: Impl) -> None:
        if "mixes" in traits:  # per implementation (a mutant may stop mixing), once each
            if f not in mixing:
                mixing[f] = mixing_problem(name, f)
            if mixing[f] is not None:
                fail(f"{name} is not mixing positions: {mixing[f]}")
        for trait in traits:
            problem = trait_problem(trait, name, f, ex)
            if problem is not None:
                fail(f"{name} is not {trait.replace('_', ' ')} on X = {show(ex['x'])}: "
                     f"{problem}")
    return Law(draw(), check, {"tinygpt / torch component": component_output})
