"""Dot products of the tuples a formula multiplies (``q \\cdot k_{1}`` with ``q = (1, 0)``).

The reader keeps a tuple in a sum or product as ``vec(…)``, and a symbolic chain compares
linear combinations of them component by component. A product of exactly two vectors of
one length (``\\cdot`` or juxtaposed, also ``q^{2}`` after ``k_{1}`` became ``q``) is their
dot product, a number: so ``q \\cdot k_{1} = 1 \\times 1 + 0 \\times 0 = 1`` is read. Two
vectors of different lengths, or three in one product, stay as they are and are refused by
the chain ("only linear combinations of vectors are read"), never guessed.
``softmax`` of a vector (``a = softmax (s)``, s a tuple) is the vector of its Softmax values.

A step ``≈`` between two vectors whose right side is a printed tuple is compared component
by component, each within half a unit of its element's last printed digit (not at the
relative 1e-6 that a combined comparison would use).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from verifiers.symbolic.prove import StepVerdict

__all__ = ["check_components", "dot_products", "tuple_tolerances"]


def _is_vec(x: Any) -> bool:
    return isinstance(x, AppliedUndef) and x.func.__name__ == "vec"


def _dot(a: Any, b: Any) -> Any:
    return sympy.Add(*(x * y for x, y in zip(a.args, b.args, strict=True)))


def _rewrite(x: Any) -> Any:
    if isinstance(x, sympy.Pow) and _is_vec(x.base) and x.exp == 2:
        return _dot(x.base, x.base)
    if isinstance(x, sympy.Mul):
        vectors = [a for a in x.args if _is_vec(a)]
        if len(vectors) == 2 and len(vectors[0].args) == len(vectors[1].args):
            rest = [a for a in x.args if not _is_vec(a)]
            return sympy.Mul(*rest, _dot(*vectors))
    return x


def _softmax(x: Any) -> Any:
    arg = x.args[0]
    exps = [sympy.exp(c) for c in arg.args]
    total = sympy.Add(*exps)
    return sympy.Function("vec")(*(e / total for e in exps))


def _is_softmax_of_vector(x: Any) -> bool:
    return (isinstance(x, AppliedUndef) and x.func.__name__ == "softmax" and len(x.args) == 1
            and (_is_vec(x.args[0]) or isinstance(x.args[0], sympy.Tuple)))


def dot_products(expr: Any) -> Any:
    """``expr`` with ``softmax`` of a vector written out (``e^{s_i} / Σ_j e^{s_j}`` for each
    component) and every product of two vectors of one length replaced by their dot
    product (innermost first)."""
    if not isinstance(expr, sympy.Basic):
        return expr
    expr = expr.replace(_is_softmax_of_vector, _softmax)
    if not expr.has(sympy.Function("vec")):
        return expr
    return expr.replace(lambda x: isinstance(x, (sympy.Pow, sympy.Mul)), _rewrite)


_NUMBER = re.compile(r"\s*[-−]?\s*\d+(?:\.(\d+))?\s*\Z")


def tuple_tolerances(side: str) -> list[float | None] | None:
    """Half a unit of the last printed digit of each element of a printed tuple
    ``(0.731059, - 0.731059)`` (None for an element that is not a plain number); None when
    the side is no tuple."""
    text = side.strip().rstrip(".").strip()
    if not (text.startswith("(") and text.endswith(")")) or "(" in text[1:-1]:
        return None
    out: list[float | None] = []
    for element in text[1:-1].split(","):
        m = _NUMBER.match(element)
        out.append(None if m is None else 0.5 * 10.0 ** -len(m.group(1) or ""))
    return out


def check_components(lhs: list[Any], rhs: list[Any], side: str,
                     check: Callable[[Any, Any, float | None], StepVerdict]) -> StepVerdict:
    """``u ≈ (0.731059, 0.268941)`` component by component, each within the precision its
    element is printed with. The first component that fails is the step's verdict (its
    detail names the component); else the last one that passed."""
    tolerances = tuple_tolerances(side) or []
    verdict = None
    for j, (a, b) in enumerate(zip(lhs, rhs, strict=True)):
        tol = tolerances[j] if j < len(tolerances) else None
        verdict = check(a, b, tol)
        if not verdict.passed:
            return dataclasses.replace(verdict, detail=f"component {j + 1}: {verdict.detail}")
    assert verdict is not None
    return verdict
