"""Dot products of the tuples a formula multiplies (``q \\cdot k_{1}`` with ``q = (1, 0)``).

The reader keeps a tuple in a sum or product as ``vec(…)``, and a symbolic chain compares
linear combinations of them component by component. A product of exactly two vectors of
one length (``\\cdot`` or juxtaposed, also ``q^{2}`` after ``k_{1}`` became ``q``) is their
dot product, a number: so ``q \\cdot k_{1} = 1 \\times 1 + 0 \\times 0 = 1`` is read. Two
vectors of different lengths, or three in one product, stay as they are and are refused by
the chain ("only linear combinations of vectors are read"), never guessed.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.core.function import AppliedUndef

__all__ = ["dot_products"]


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


def dot_products(expr: Any) -> Any:
    """``expr`` with every product of two vectors of one length replaced by their dot
    product (innermost first)."""
    if not isinstance(expr, sympy.Basic) or not expr.has(sympy.Function("vec")):
        return expr
    return expr.replace(lambda x: isinstance(x, (sympy.Pow, sympy.Mul)), _rewrite)
