"""One failing step: which input explains it, when one reading tells the input from the step.

:mod:`verifiers.arithmetic.suspects` names a given value only when it repairs at least two
failing steps: with one failing step, the step itself or any of its inputs could be the edit.
Two readings still single out the input, without guessing which of several values moved:

- **a unit slip** — exactly one number of the input, printed in a unit (``%``, ``万``, ``亿``),
  multiplied or divided by that unit's factor makes every value verify (``从第三个获取 0.1%``
  with ``a_1 + a_2 + a_3 = 1`` stated: ``10%``). A value written as if already in the unit
  (0.1 printed ``0.1%``) changes by exactly the factor; a step's own arithmetic slip does not.
  More than one such number (or reading) names nobody.
- **a restated printing** — the failing step only restates the input: its computed value is
  the input's value (``只有 ⟨n⟩ 维`` and ``\\sqrt{⟨vs⟩}`` with ``vs = n·1``). A copy is not
  arithmetic, so this is two printings of one value that disagree, judged as copies are: the
  input is the odd one when setting it to the restatement's printing verifies everything and
  setting the restatement to the input's value does not (the steps computed from the
  restatement agree with it: ``\\sqrt{4} = 2``). When both repairs verify, nobody is named.

When neither reading names an input, a failing step that is what a **column of percentages**
leaves of 100% (``黑便 60%`` … ``其他 10%`` with ``rest: 1 − (p0 + p1 + p2)``: every row enters
with coefficient −1, and the rows and the step make up 1; a difference ``b − a`` is no column)
and that two or more of its rows could each repair alone is a tie: like two
printings of one value that differ, nobody can tell which row is wrong, so every such row is a
``discrepancy`` at its own place, and none (nor the step) has a suggestion (``suspects._tied``).

All of this only ever adds a verdict where a step already fails: an unedited note is never
touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath

from verifiers.numbers import PrintedNumber

__all__ = ["Printing", "Reading", "UNIT_FACTORS", "explain", "in_column"]

# the factor a value changes by when it is written in (or out of) its unit
UNIT_FACTORS = {"%": 100, "％": 100, "万亿": 10**12, "亿": 10**8, "万": 10**4}

Change = tuple[int, int, str]


@dataclass(frozen=True)
class Reading:
    """A candidate for one number of the input, and why it is the input that is wrong."""

    index: int  # the input's number
    text: str  # its candidate text
    why: str  # appended to the input's message
    restated: bool = False  # a restated reading (it must also beat the other repair)


@dataclass(frozen=True)
class Printing:
    """One printed number of a failing step: where it is, and what the claim computes."""

    pn: PrintedNumber
    span: tuple[int, int] | None  # offsets in the note
    place: str  # line:col in the note
    printed: Any  # mpf
    computed: Any  # mpf


def unit_factor(pn: PrintedNumber) -> int | None:
    """The factor of the unit ``pn`` is printed in (``%`` → 100, ``万`` → 10⁴), if any."""
    if pn.kind not in ("percent", "magnitude"):
        return None
    tail = pn.text.rstrip().replace("$", "")
    for unit in sorted(UNIT_FACTORS, key=len, reverse=True):
        if tail.endswith(unit):
            return UNIT_FACTORS[unit]
    return None


def explain(numbers: Sequence[PrintedNumber], spans: Sequence[tuple[int, int]],
            failing: Sequence[Printing], passes: Callable[[list[Change]], bool],
            text: Callable[..., str | None]) -> Reading | None:
    """The one reading (see the module) of the input ``numbers`` that explains the one failing
    step ``failing`` (its printed numbers); None when no reading, or more than one, does.

    ``passes(changes)``: every value of the involved claims verifies with ``changes`` made in
    the note. ``text(pn, value, exact=...)``: ``value`` written like ``pn``."""
    found: list[Reading] = []
    for i, pn in enumerate(numbers):
        for reading in _unit_readings(i, pn, text) + _restated(i, pn, failing, text):
            if passes([(*spans[i], reading.text)]) and _stands(reading, failing, passes, text):
                found.append(reading)
    return found[0] if len(found) == 1 else None


def _unit_readings(i: int, pn: PrintedNumber, text: Callable[..., str | None]) -> list[Reading]:
    """``0.1%`` → ``10%``, ``0.001%`` (the digits moved by the factor); ``1.5 亿`` → ``1.5 万``,
    ``1.5 万亿`` (another unit word: the digits kept)."""
    factor = unit_factor(pn)
    if factor is None or pn.value == 0:
        return []
    out = []
    if pn.kind == "percent":
        for value in (pn.value * factor, pn.value / factor):
            t = text(pn, value, exact=True)
            if t is not None and t != pn.text:
                ratio = factor if value > pn.value else f"1/{factor}"
                out.append(Reading(i, t, f" (a unit slip: {t} is {pn.text.strip()} × {ratio})"))
        return out
    body = pn.text.rstrip()
    unit = next(u for u in sorted(UNIT_FACTORS, key=len, reverse=True) if body.endswith(u))
    for other, f in UNIT_FACTORS.items():
        if f != factor and other not in ("%", "％"):
            t = body[:len(body) - len(unit)] + other + pn.text[len(body):]
            out.append(Reading(i, t, f" (a unit slip: {other} written {unit})"))
    return out


def _restated(i: int, pn: PrintedNumber, failing: Sequence[Printing],
              text: Callable[..., str | None]) -> list[Reading]:
    value = mpmath.mpf(pn.value.numerator) / pn.value.denominator
    out = []
    for p in failing:
        if p.span is None or not _same(p.computed, value) or _same(p.printed, value):
            continue
        t = text(pn, p.printed)
        if t is not None and t != pn.text:
            out.append(Reading(i, t, f" (restated as {p.pn.text.strip()} at {p.place}, "
                                     "where the steps computed from it agree with it)",
                               restated=True))
    return out


def _stands(reading: Reading, failing: Sequence[Printing],
            passes: Callable[[list[Change]], bool], text: Callable[..., str | None]) -> bool:
    """A restated reading stands only when the other repair (the restatement made the input's
    value) leaves something failing; a unit reading always stands."""
    if not reading.restated:
        return True
    changes = []
    for p in failing:
        if p.span is None:
            return False
        t = text(p.pn, p.computed)
        if t is None:
            return False
        if t != p.pn.text:
            changes.append((*p.span, t))
    return bool(changes) and not passes(changes)


def _same(a: Any, b: Any) -> bool:
    return bool(abs(a - b) <= mpmath.mpf(10) ** -20 * max(1, abs(b)))



def in_column(step: Printing, numbers: Sequence[PrintedNumber]) -> bool:
    """The failing step and the input are members of one column of percentages (a
    distribution's rows: ``黑便 60%``, ``头晕 10%``, ``其他 10%``): a row that fails the
    column's sum could be any of them."""
    return step.pn.kind == "percent" and all(pn.kind == "percent" for pn in numbers)
