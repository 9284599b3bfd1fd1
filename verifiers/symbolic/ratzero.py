"""Is an expression 0 as a rational function of its atoms? Sparse polynomials say it fast.

``together`` and ``expand`` decide this on SymPy trees, which is slow for the large
entries of a matrix rule (a Softmax's Jacobian): each operation builds and canonicalises
new trees. Here the expression is written as ``numerator / denominator`` in a polynomial
ring over the rationals whose generators are its atoms (symbols, function calls, powers
with a non-integer exponent as a power of their root, ``exp(c·a)`` as a power of
``exp(a)``), and the numerator is compared with
0: dict arithmetic, no trees.

Only a yes is an answer. The atoms are taken as independent, so ``sqrt(x)**2 - x`` (whose
atoms are tied) or a Float (not an exact rational) get ``False`` or ``None``, and the
caller asks its own slower procedure: :func:`zero` never decides that something is
*not* zero, it only spares the slow procedure the common case where it is.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.polys.domains import QQ
from sympy.polys.rings import PolyElement, PolyRing

__all__ = ["zero"]

#: A denominator kept as its factors (polynomial -> exponent): the same Softmax sum in
#: many terms is one factor, as ``together`` finds it, not a product that grows.
Factors = dict[PolyElement, int]


_INFINITE = (sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)  # oo - oo is no 0


class _Unsupported(Exception):
    """A node this arithmetic does not represent exactly (a Float, a symbolic exponent)."""


def _generator(node: sympy.Basic) -> tuple[sympy.Basic, int] | None:
    """``(atom, exponent)`` for a node that is a power of one generator; None otherwise.
    ``exp(c·a)`` with a rational ``c = p/q`` is ``exp(a/q)**p``, so exp(a), exp(-a) and
    exp(2a) are powers of one generator, as ``E_a**c`` in :mod:`.matrixcalc`."""
    if isinstance(node, sympy.exp):
        coeff, rest = node.args[0].as_coeff_Mul()
        if coeff.is_Rational and coeff != 1:
            root = sympy.exp(rest / coeff.q)
            if not root.is_Number:  # (a root that evaluates to a number: the node itself)
                return root, int(coeff.p)
        return node, 1
    if isinstance(node, sympy.Pow):
        exp = node.exp
        if exp.is_Integer:
            return None
        if exp.is_Rational:  # x**(3/2) is (x**(1/2))**3: one generator per root
            return sympy.Pow(node.base, sympy.Rational(1, exp.q)), int(exp.p)
        return node, 1  # a symbolic exponent: an atom of its own
    return node, 1


def _atoms(expr: sympy.Basic, found: dict[sympy.Basic, None]) -> None:
    if isinstance(expr, sympy.Rational):
        return
    if expr.is_Number:  # a Float is no exact rational
        raise _Unsupported(f"the number {expr}")
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        for arg in expr.args:
            _atoms(arg, found)
        return
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer:
        _atoms(expr.base, found)
        return
    atom = _generator(expr)
    if atom is not None:
        found.setdefault(atom[0])


class _Rational:
    """Numerator and factored denominator of each node, in one ring."""

    def __init__(self, atoms: list[sympy.Basic]) -> None:
        names = [sympy.Dummy(f"g{k}") for k in range(len(atoms))]
        self.ring = PolyRing(names, QQ) if atoms else PolyRing([sympy.Dummy("g")], QQ)
        self.gens = dict(zip(atoms, self.ring.gens, strict=False))

    def value(self, expr: sympy.Basic) -> tuple[PolyElement, Factors]:
        ring = self.ring
        if isinstance(expr, sympy.Rational):
            return ring(QQ(int(expr.p), int(expr.q))), {}
        if isinstance(expr, sympy.Add):
            return self._add([self.value(a) for a in expr.args])
        if isinstance(expr, sympy.Mul):
            num, den = ring.one, {}
            for arg in expr.args:
                n, d = self.value(arg)
                num *= n
                for f, e in d.items():
                    den[f] = den.get(f, 0) + e
            return num, den
        if isinstance(expr, sympy.Pow) and expr.exp.is_Integer:
            n, d = self.value(expr.base)
            k = int(expr.exp)
            if k < 0:
                n, d = self._inverse(n, d)
                k = -k
            return n ** k, {f: e * k for f, e in d.items()}
        atom = _generator(expr)
        if atom is None or atom[0] not in self.gens:
            raise _Unsupported(f"no generator for {type(expr).__name__}")
        base, k = atom
        gen = self.gens[base]
        return (gen ** k, {}) if k >= 0 else self._inverse(gen ** -k, {})

    def _inverse(self, num: PolyElement, den: Factors) -> tuple[PolyElement, Factors]:
        if not num:
            raise _Unsupported("division by zero")
        return self._product(den), {num: 1}

    def _product(self, den: Factors) -> PolyElement:
        out = self.ring.one
        for f, e in den.items():
            out *= f ** e
        return out

    def _add(self, terms: list[tuple[PolyElement, Factors]]) -> tuple[PolyElement, Factors]:
        common: Factors = {}
        for _, den in terms:
            for f, e in den.items():
                common[f] = max(common.get(f, 0), e)
        total = self.ring.zero
        for num, den in terms:
            rest = {f: e - den.get(f, 0) for f, e in common.items() if e > den.get(f, 0)}
            total += num * self._product(rest)
        return total, common


def zero(expr: Any) -> bool | None:
    """True when ``expr`` is 0 as a rational function of its atoms taken as independent
    generators; False or None (not representable) when this cannot say so."""
    if not isinstance(expr, sympy.Basic) or expr.has(*_INFINITE):
        return None
    try:
        found: dict[sympy.Basic, None] = {}
        _atoms(expr, found)
        arithmetic = _Rational(sorted(found, key=sympy.default_sort_key))
        num, _ = arithmetic.value(expr)
    except _Unsupported:
        return None
    return not num
