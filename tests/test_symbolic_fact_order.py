"""SymPy's assumption queries run in a fixed order once the symbolic stage is loaded: no
random draw per query (the cost it saves), and the same answers and verdicts."""

from __future__ import annotations

import importlib

import sympy
from sympy.core import random as sympy_random

from verifiers.symbolic import prove


def _deep_query() -> bool | None:
    """A query no handler answers at once: its prerequisites are searched."""
    x, y = sympy.symbols("x y", positive=True)
    return (sympy.log(x * y + 1) - sympy.sqrt(x) * y).is_extended_nonnegative


def test_a_query_draws_nothing_from_sympys_generator() -> None:
    before = sympy_random._assumptions_rng.getstate()
    _deep_query()
    assert sympy_random._assumptions_rng.getstate() == before  # the old shuffle drew here


def test_prerequisites_are_visited_in_sorted_order() -> None:
    facts = ["real", "finite", "commutative", "complex"]
    importlib.import_module("sympy.core.assumptions").shuffle(facts)
    assert facts == sorted(facts)


def test_answers_and_verdicts_are_unchanged() -> None:
    x, y = sympy.symbols("x y")
    a = prove.Assumptions(positive={"x", "y"})
    assert prove.check_step(sympy.log(x * y), sympy.log(x) + sympy.log(y), "=", a).status \
        == prove.PROVED
    wrong = prove.check_step(sympy.log(x * y), sympy.log(x) * sympy.log(y), "=", a)
    assert wrong.status == prove.FAILED and wrong.counterexample
    assert prove.check_step(x**2 + y**2, 2 * x * y, ">=", a).status == prove.PROVED
    assert prove.check_step(x**2 + y**2, 2 * x * y, "<", a).status == prove.FAILED
    assert sympy.Symbol("n", integer=True, positive=True).is_nonnegative is True
