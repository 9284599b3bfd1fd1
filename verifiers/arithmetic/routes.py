"""Honest routes: the computations an author may have done to print a value (issue 13).

A checked value verifies when some *route* gives it at the printed precision:

* ``exact`` — the exact upstream values;
* ``printed`` — the note's printed upstream values, used as printed;
* ``finer1`` / ``finer2`` — upstream values carried to one or two more digits than
  printed, each correctly rounded from its exact value (a wrong printed value is
  carried as printed: the author went on with what is on the page);
* each of those again with the claim's declared ``hidden:`` intermediates rounded
  as declared (an intermediate the author rounded but never printed).

The interval hull of the inputs' rounding intervals is not a route: a value only
the hull admits (5.54 between exp(printed) = 5.53 and exact 5.55) is a discrepancy.
This module is pure: the engine evaluates expressions along each route.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import mp

from verifiers.numbers import PrintedNumber

__all__ = ["EXACT", "FINER", "PRINTED", "Hidden", "Route", "carry_number", "describe",
           "first_admitting", "label_of", "matches_a_route", "mixed_message", "one_route",
           "round_hidden", "routes_for"]

EXACT, PRINTED, FINER = "exact", "printed", "finer"
DPS = 40


@dataclass(frozen=True)
class Hidden:
    """A declared hidden intermediate: rounded to ``digits`` significant digits or to
    ``decimals`` places by the author, never printed (``hidden:`` in a claim)."""

    name: str
    digits: int | None
    decimals: int | None
    line: int


@dataclass(frozen=True)
class Route:
    """How upstream checked values are carried (and whether hidden ones are rounded)."""

    carry: str  # EXACT | PRINTED | FINER
    extra: int = 0  # FINER: digits beyond the printed ones
    hidden: bool = False

    @property
    def key(self) -> str:
        base = self.carry if self.carry != FINER else f"finer{self.extra}"
        return base + ("+hidden" if self.hidden else "")

    @property
    def label(self) -> str:
        base = {EXACT: "exact",
                PRINTED: "from the printed inputs"}.get(
            self.carry, f"from inputs carried {self.extra} digit{'s' * (self.extra > 1)} finer")
        return base + (" with the hidden intermediates rounded" if self.hidden else "")


_BASE = (Route(EXACT), Route(PRINTED), Route(FINER, 1), Route(FINER, 2))


def routes_for(has_hidden: bool) -> tuple[Route, ...]:
    """The routes of a claim, exact first (the order names a value's route)."""
    if not has_hidden:
        return _BASE
    return (*_BASE, *(Route(r.carry, r.extra, True) for r in _BASE))


def label_of(key: str) -> str:
    return next(r.label for r in routes_for(True) if r.key == key)


def _decimal(x: Any) -> Decimal:
    with mp.workdps(DPS):
        return Decimal(mpmath.nstr(mp.mpf(x), DPS, strip_zeros=False))


def _mpf(d: Decimal) -> mpmath.mpf:
    with mp.workdps(DPS):
        return mp.mpf(str(d))


def round_to_unit(x: Any, unit: Fraction) -> mpmath.mpf:
    """``x`` rounded to the nearest multiple of ``unit`` (ties away from zero)."""
    with localcontext() as ctx:
        ctx.prec = 80
        u = Decimal(unit.numerator) / Decimal(unit.denominator)
        q = (_decimal(x) / u).quantize(Decimal(1), rounding=ROUND_HALF_UP)
        return _mpf(q * u)


def carry_number(pn: PrintedNumber, exact: Any, right: bool, route: Route) -> mpmath.mpf:
    """The value a route carries forward for one printed number whose exact value is
    ``exact`` (``right``: the printed digits round from it)."""
    printed = _mpf(Decimal(pn.value.numerator) / Decimal(pn.value.denominator)) \
        if pn.value.denominator != 1 else _mpf(Decimal(pn.value.numerator))
    if route.carry == PRINTED or not right:
        return printed
    if route.carry == EXACT or pn.exact or not pn.half_unit:
        return exact
    return round_to_unit(exact, 2 * pn.half_unit / Fraction(10) ** route.extra)


def _round_scalar(x: Any, spec: Hidden) -> Any:
    if isinstance(x, bool) or not isinstance(x, (int, float, mpmath.mpf)):
        return x
    d = _decimal(x)
    if not d.is_finite() or d == 0:
        return x
    with localcontext() as ctx:
        ctx.prec = 80
        ctx.rounding = ROUND_HALF_UP
        if spec.decimals is not None:
            return _mpf(d.quantize(Decimal(1).scaleb(-spec.decimals)))
        places = spec.digits - 1 - d.adjusted()
        return _mpf(d.quantize(Decimal(1).scaleb(-places)))


def round_hidden(value: Any, spec: Hidden) -> Any:
    """A hidden intermediate as its author rounded it (elementwise for vectors)."""
    if isinstance(value, (tuple, list)):
        return tuple(round_hidden(v, spec) for v in value)
    return _round_scalar(value, spec)


def first_admitting(values: dict[str, Any], admits: Any) -> str | None:
    """The first route (in route order) whose value ``admits(value)`` accepts."""
    return next((key for key, v in values.items() if admits(v)), None)


def describe(texts: dict[str, str]) -> str:
    """Candidates by route, one per distinct text: "5.53 from the printed inputs, 5.55 exact"."""
    seen: dict[str, str] = {}
    for key, text in texts.items():
        seen.setdefault(text, key)
    return ", ".join(f"{text} {label_of(key)}" for text, key in seen.items())


def matches_a_route(pn: PrintedNumber, values: list[Any]) -> bool:
    """Does the printed number equal some route's value written at its precision (either
    side of a tie; no approximate word's ±1, no ``widen:``)? Relative 1e-12 absorbs a
    model run's float64 round-off."""
    with mp.workdps(DPS):
        p = mp.mpf(pn.value.numerator) / pn.value.denominator
        for v in values:
            try:
                v = mp.mpf(v)
            except (TypeError, ValueError):
                continue
            half = mp.mpf(pn.half_unit.numerator) / pn.half_unit.denominator
            slack = mp.mpf("1e-12") * max(abs(v), abs(p))
            if pn.kind == "integer":  # units are a rounding only of a 2+ digit integer
                near = abs(v - mp.nint(v)) <= slack or abs(pn.value) < 10
                half = mp.mpf(0) if near else mp.mpf(1) / 2
            if abs(p - v) <= half + slack:
                return True
    return False


def one_route(admitted: list[set[str]]) -> tuple[list[int], list[str]]:
    """One printed row, one route: the numbers of a printed vector that its other numbers'
    route does not give, and the leading route(s).

    An author computes a printed row in one pass, from the exact values or from the printed
    inputs, not some entries one way and some the other. When every number of the row is
    given by some honest route (``admitted[i]``: the keys of the routes giving number i) but
    no route gives them all, the row mixes routes: the route(s) giving the most numbers lead,
    and each number that a leading route does not give is flagged (two leading routes flag
    both their misses: which one is wrong cannot be told). Rows of fewer than three numbers,
    and rows with a number no route gives (already a failure), are left alone."""
    if len(admitted) < 3 or any(not a for a in admitted):
        return [], []
    keys = sorted(set().union(*admitted))
    if any(all(k in a for a in admitted) for k in keys):
        return [], []
    counts = {k: sum(k in a for a in admitted) for k in keys}
    best = max(counts.values())
    leaders = [k for k in keys if counts[k] == best]
    flagged = sorted({i for k in leaders for i, a in enumerate(admitted) if k not in a})
    return flagged, leaders


def mixed_message(number: str, admitted: set[str], leaders: list[str]) -> str:
    """Why one number of a row that mixes routes is flagged."""
    own = " / ".join(label_of(k) for k in sorted(admitted))
    lead = " / ".join(label_of(k) for k in leaders)
    return (f"{number} is the value {own} only, and no one route gives the whole row "
            f"(most of it: {lead}); one printed row is computed one way")
