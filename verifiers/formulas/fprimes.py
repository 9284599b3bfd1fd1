"""The derivative of a declared function written with a prime: ``f^{'} (w)``.

The reader reads ``f^{'} (w)`` (``f`` in ``functions:``) as a call of the function named
``f'``. In a scalar chain that name means nothing, so ``f^{'} (w) = \\frac{d L}{d w}`` with
``L = f (w)`` was sampled as two unrelated functions (undecided). Here ``f'(w)`` becomes
``d f(w)/d w``, and ``f'(u)`` of an expression ``u`` the derivative at ``u``, so the step is
decided: proved when it holds for every f, else refuted. A matrix claim keeps its own
reading (``σ^{'} (B)`` entrywise), since this runs only on scalar chains.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.core.function import AppliedUndef

__all__ = ["function_primes"]


def _is_prime_call(x: Any) -> bool:
    return (isinstance(x, AppliedUndef) and x.func.__name__.endswith("'")
            and len(x.args) == 1 and x.func.__name__.rstrip("'") != "")


def _derivative(x: Any) -> Any:
    name = x.func.__name__
    order = len(name) - len(name.rstrip("'"))
    f = sympy.Function(name.rstrip("'"))
    arg = x.args[0]
    if isinstance(arg, sympy.Symbol):
        return sympy.Derivative(f(arg), (arg, order))
    t = sympy.Dummy("t", real=True)
    return sympy.Subs(sympy.Derivative(f(t), (t, order)), t, arg)


def function_primes(expr: Any) -> Any:
    """``expr`` with every ``f'(u)`` written as the derivative of ``f`` at ``u``."""
    if not isinstance(expr, sympy.Basic) or not expr.has(AppliedUndef):
        return expr
    return expr.replace(_is_prime_call, _derivative)
