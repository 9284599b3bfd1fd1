"""Magnitude words: an order of magnitude said in words (几万, 数十亿, tens of thousands).

A note often gives a size only as a magnitude word: "一个几万维的稀疏向量" for a vocabulary
of 50,257, "数十亿参数". When a claim computes that quantity, the word is a value a hole can
read, and an edit of the word (几万 → 几千, 数十亿 → 数十万, millions → thousands) is a
``discrepancy`` at the word, like an edit of a digit.

A word reads as the interval of one order of magnitude: ``几``/``数`` (a few, several) times a
place (``十``, ``百``, ``千``) times a unit (``万``, ``亿``, ``万亿``) is ``[U, 10·U]`` with U
their product (几万: 10⁴ … 10⁵; 数十亿: 10⁹ … 10¹⁰; 数百万: 10⁶ … 10⁷). English words read
the same way (thousands: 10³ … 10⁴; tens of millions: 10⁷ … 10⁸). The vocabulary is the data
below; a word outside it is no value (the hole does not match, the claim is stale).

The printed number is the interval's middle with half its width as its rounding
(``half_unit``), kind ``vague``: the engine's "rounds to" test is then "lies in the order of
magnitude". A suggestion is the word of the computed value's order, in the printed word's
language and style (:func:`word_for`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = ["VAGUE_PATTERN", "read_vague", "word_for"]

# Chinese: a prefix, an optional place, an optional unit (at least one of place and unit)
PREFIXES = ("几", "数")
PLACES = {"十": 10, "百": 100, "千": 1000}
UNITS = {"万亿": 10**12, "亿": 10**8, "万": 10**4}
# English: each word (and its "tens of" / "hundreds of" forms) and its unit
ENGLISH = {"thousands": 10**3, "millions": 10**6, "billions": 10**9, "trillions": 10**12}
ENGLISH_SCALES = {"": 1, "tens of ": 10, "hundreds of ": 100}

_ZH = (f"[{''.join(PREFIXES)}](?:[{''.join(PLACES)}](?:万亿|亿|万)?|万亿|亿|万)")
_EN = (r"(?:(?:tens|hundreds) of )?(?:" + "|".join(ENGLISH) + ")")
#: What a hole reads as a magnitude word (never scanned for: only where a quote puts a hole).
VAGUE_PATTERN = f"(?:{_ZH}|{_EN})"
_VAGUE_RE = re.compile(VAGUE_PATTERN)


def _unit(word: str) -> int | None:
    """The lower end U of ``word``'s order of magnitude (its interval is [U, 10·U])."""
    if word[:1] in PREFIXES:
        rest, unit = word[1:], 1
        if rest[:1] in PLACES:
            unit, rest = PLACES[rest[0]], rest[1:]
        if rest and rest not in UNITS:
            return None
        return unit * UNITS.get(rest, 1)
    for scale, factor in ENGLISH_SCALES.items():
        for name, value in ENGLISH.items():
            if word == scale + name:
                return factor * value
    return None


def read_vague(raw: str) -> tuple[str, Fraction, Fraction] | None:
    """``raw`` (a whole hole's text) as (text, value, half_unit) of a printed number of kind
    ``vague`` (the middle of its order of magnitude and half its width), else None."""
    text = raw.strip()
    if _VAGUE_RE.fullmatch(text) is None:
        return None
    unit = _unit(text)
    if unit is None:
        return None
    return text, Fraction(11 * unit, 2), Fraction(9 * unit, 2)


def word_for(printed: str, value: float | Fraction) -> str | None:
    """The magnitude word of ``value`` written like ``printed`` (its language and prefix):
    a suggestion for a word that names the wrong order (None when none fits)."""
    if value <= 0:
        return None
    order = math.floor(math.log10(value))
    if printed[:1] in PREFIXES:
        for unit_word, unit in sorted(UNITS.items(), key=lambda u: -u[1]):
            for place_word, place in (("", 1), *PLACES.items()):
                if unit * place == 10**order and (place_word or unit_word):
                    return printed[0] + place_word + unit_word
        for place_word, place in PLACES.items():
            if place == 10**order:
                return printed[0] + place_word
        return None
    for scale, factor in ENGLISH_SCALES.items():
        for name, unit in ENGLISH.items():
            if factor * unit == 10**order:
                return scale + name
    return None
