"""What a law is: a strategy for examples, a check, and the implementation(s) it holds to account.

A check receives one drawn example and one implementation and raises :class:`Counterexample`
with a message in the note's terms (the scores, the token ids, the layer) when the law fails
for that example. The implementation is a parameter so that a test can hand in a
deliberately broken one (a mutant) and see the law catch it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st


class Counterexample(AssertionError):
    """The law fails for this example; the message says how, in domain terms."""


@dataclass(frozen=True)
class Law:
    """One property, ready to search: examples, the check, the implementations under test."""

    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Any], None]
    impls: Mapping[str, Any]
    examples: tuple[Any, ...] = ()


LawFactory = Callable[[Mapping[str, Any]], Law]
LAWS: dict[str, LawFactory] = {}


def law(name: str) -> Callable[[LawFactory], LawFactory]:
    """Register the factory that builds property ``name`` from its (complete) parameters."""
    def register(factory: LawFactory) -> LawFactory:
        if name in LAWS:
            raise ValueError(f"law {name!r} registered twice")
        LAWS[name] = factory
        return factory
    return register


def fail(message: str) -> None:
    raise Counterexample(message)


def close(a: float, b: float, rtol: float = 1e-9, atol: float = 1e-12) -> bool:
    """|a - b| <= atol + rtol |b|, and never for NaN (a NaN is a counterexample, not a pass)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def worst_gap(a: Iterable[float], b: Iterable[float]) -> tuple[int, float]:
    """Index and size of the largest |a_i - b_i| (NaN counts as infinite)."""
    best, where = -1.0, 0
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        gap = abs(x - y)
        gap = math.inf if math.isnan(gap) else gap
        if gap > best:
            best, where = gap, i
    return where, best
