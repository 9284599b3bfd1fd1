"""Sums and products written with an ellipsis: ``a_{1} + a_{2} + \\dots + a_{n}``.

The note writes a run of terms and an ellipsis where a ``\\sum`` would do; the reader folds
the run into the sum (or product) it means, so the formula is checked as printed instead of
being restated. The rule, precisely:

* the shown terms and the last term differ only in the subscript of the names that vary:
  each such name is ``base_{k}`` in the first term (``k`` an integer), ``base_{k + 1}`` in
  the second, ..., and ``base_{X}`` in the last (``X`` an integer or one name: ``n``, ``T``);
* every name that varies starts at the same ``k``; the others are the same in every term;
* the result is ``Sum(body, (i, k, X))`` (``Product`` for a product), ``body`` the first
  term with each varying name made an entry ``base[i]`` of a fresh index ``i``.

Anything else (``a_{1} + \\dots + b_{n}``, a second term that is not the next index) is
not folded: the reader then says the ellipsis is not read. The folded value remembers how
many terms were shown, so it prints back as written (the reader's round trip).
"""

from __future__ import annotations

import functools
from typing import Any

import sympy

__all__ = ["LENGTHS", "DotsProduct", "DotsSum", "fold", "length_cases", "terms_of"]

_INDEX_LETTERS = ("i", "j", "k", "m", "r", "s")
LENGTHS = (1, 2, 3, 4)  # a length written as a name (the n of p_1 … p_n) is checked at each


class DotsSum(sympy.Sum):
    """A sum the note wrote as ``t_1 + … + t_n``; ``shown`` terms before the ellipsis."""

    shown = 1


class DotsProduct(sympy.Product):
    """A product the note wrote as ``p_1 p_2 … p_n``; ``shown`` factors before it."""

    shown = 1


@functools.cache
def _dots_class(kind: str, shown: int) -> type:
    base = DotsSum if kind == "sum" else DotsProduct
    return type(f"{base.__name__}{shown}", (base,), {"shown": shown})


def _subscripted(expr: Any) -> dict[str, tuple[str, sympy.Symbol]]:
    """name -> (base, subscript) for each ``base_sub`` symbol of ``expr``."""
    out = {}
    for sym in expr.free_symbols:
        base, _, sub = getattr(sym, "name", "").rpartition("_")
        if base and sub and sub.isascii() and (sub.isdigit() or sub.isalpha()):
            out[sym.name] = (base, sym)
    return out


def _at(body: Any, index: sympy.Symbol, value: Any) -> Any:
    """``body`` with each entry ``base[index]`` made the name ``base_{value}``."""
    def name(entry: sympy.Indexed) -> sympy.Symbol:
        return sympy.Symbol(f"{entry.base.label}_{value}", real=True)
    return body.replace(lambda e: isinstance(e, sympy.Indexed) and e.indices == (index,), name)


def fold(shown: list[Any], last: Any, kind: str) -> Any | None:
    """The sum (``kind == "sum"``) or product of ``shown + [… , last]``, or None when the terms
    do not follow one index (see the module docstring)."""
    first = _subscripted(shown[0])
    tail = _subscripted(last)
    starts = {}
    for name, (base, sym) in first.items():
        sub = name[len(base) + 1:]
        if sub.isdigit() and any(b == base for b, _ in tail.values()) and name not in tail:
            starts[base] = (int(sub), sym)
    if not starts or len({k for k, _ in starts.values()}) != 1:
        return None
    lo = next(iter(starts.values()))[0]
    his = {n[len(b) + 1:] for n, (b, _) in tail.items() if b in starts and n not in first}
    if len(his) != 1:
        return None
    hi_text = his.pop()
    hi = sympy.Integer(int(hi_text)) if hi_text.isdigit() else sympy.Symbol(hi_text, real=True)
    used = {s.name for t in (*shown, last) for s in t.free_symbols if hasattr(s, "name")}
    letter = next((c for c in _INDEX_LETTERS if c not in used and c != hi_text), None)
    if letter is None:
        return None
    index = sympy.Symbol(letter, real=True)
    body = shown[0].xreplace({sym: sympy.Indexed(sympy.IndexedBase(sympy.Symbol(base, real=True)),
                                                 index) for base, (_, sym) in starts.items()})
    if any(_at(body, index, lo + t) != term for t, term in enumerate(shown)):
        return None
    if _at(body, index, hi_text) != last or (hi.is_Integer and hi < lo + len(shown)):
        return None
    return _dots_class(kind, len(shown))(body, (index, sympy.Integer(lo), hi))


def terms_of(expr: DotsSum | DotsProduct) -> tuple[list[Any], Any]:
    """The shown terms and the last one, as the note prints them (for the printer)."""
    body, (index, lo, hi) = expr.function, expr.limits[0]
    shown = [_at(body, index, lo + t) for t in range(expr.shown)]
    return shown, _at(body, index, hi)


def length_cases(exprs: list[Any]) -> tuple[list[str], list[dict[Any, Any]]]:
    """The lengths a chain is checked at when a sum or product of it runs to a name
    (``\\sum_{i = 1}^{n}``, ``p_{1} \\dots p_{n}``): that name takes each of :data:`LENGTHS`
    (a finite case split, so a proof in each case is a proof for those lengths; SymPy has no
    proof for an unknown length). ``([], [])`` when no bound is a name."""
    names = sorted({lim[2] for e in exprs for x in e.atoms(sympy.Sum, sympy.Product)
                    for lim in x.limits if isinstance(lim[2], sympy.Symbol)
                    and lim[2].name.isalpha()}, key=str)
    if len(names) != 1:
        return [], []
    return ([f"{names[0]}={n}" for n in LENGTHS],
            [{names[0]: sympy.Integer(n)} for n in LENGTHS])

