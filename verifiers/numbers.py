"""Printed numbers: recognise one number as the notes print it, and read its exact value.

The suite compares computed truths with what a note *prints*, so a printed
number carries two things: its exact value (a ``Fraction``, never a float, so
``0.1`` is really 1/10) and its precision (``half_unit``: half a unit of the last
printed digit), which is the natural rounding tolerance of the printed text.

Forms (see ``NUMBER_PATTERN``):

* optional sign ``+``, ``-`` or ``−`` (U+2212), optionally followed by spaces
  (LaTeX exports print ``- 1``);
* integers ``7``, decimals ``0.25`` / ``.5``, thousands separators in groups of
  exactly three ``50,257`` / ``1,000,000.5``; full-width digits ``０-９``;
* percentages ``55.5%`` / ``55.5 %`` / ``55.5％`` (value divided by 100);
* scientific: ``3 \\times 10^{- 11}``, ``4.9\\times10^{-324}``, ``3 × 10^-11``,
  ``1e-5``, ``2.5E3`` and a bare power of ten ``10^{-5}`` (read as mantissa 1);
* Chinese magnitudes ``3860 万`` (×10⁴), ``1.24 亿`` (×10⁸), ``2 万亿`` (×10¹²).

Spaces inside a number never span a line break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "MANTISSA_PATTERN",
    "NUMBER_PATTERN",
    "UNSIGNED_NUMBER_PATTERN",
    "PrintedNumber",
    "parse_printed",
]

_D = "[0-9０-９]"  # one digit, ASCII or full-width
_WS = r"[^\S\n]*"  # horizontal whitespace only: a number never spans lines
_SIGN = "[+\\-−]"
_UNSIGNED_MANTISSA = (
    f"(?:{_D}{{1,3}}(?:,{_D}{{3}}(?!{_D}))+(?:\\.{_D}+)?"  # 50,257 / 1,000.5
    f"|{_D}+(?:\\.{_D}+)?"  # 7 / 0.25
    f"|\\.{_D}+)"  # .5
)
_EXPONENT = f"(?:\\{{{_WS}{_SIGN}?{_WS}{_D}+{_WS}\\}}|{_SIGN}?{_D}+)"  # {- 11} or -11
_TIMES_TEN = f"{_WS}(?:\\\\times|\\\\cdot|×){_WS}10{_WS}\\^{_WS}{_EXPONENT}"
_E_NOTATION = f"[eE]{_SIGN}?{_D}+"
_BARE_POWER = f"10{_WS}\\^{_WS}{_EXPONENT}"
_SUFFIX = f"(?:{_TIMES_TEN}|{_E_NOTATION}|{_WS}(?:[%％]|万亿|万|亿))"

#: Unsigned number (no capturing groups). The bare power of ten comes first so
#: ``10^{-5}`` is one number, not ``10`` followed by an exponent.
UNSIGNED_NUMBER_PATTERN: str = f"(?:{_BARE_POWER}|{_UNSIGNED_MANTISSA}{_SUFFIX}?)"
#: Digits only (no sign, no suffix): a hole may stop before a ``%`` that the quote spells out.
MANTISSA_PATTERN: str = _UNSIGNED_MANTISSA
#: One printed number in any supported form, sign included (no capturing groups).
NUMBER_PATTERN: str = f"(?:{_SIGN}{_WS})?{UNSIGNED_NUMBER_PATTERN}"

_FULLWIDTH = str.maketrans("０１２３４５６７８９％", "0123456789%")
_NUMBER_RE = re.compile(NUMBER_PATTERN)
# Parsing regex on the ASCII-folded, space-free text (capturing groups are internal).
_PARTS_RE = re.compile(
    r"(?P<sign>[+\-−])?"
    r"(?:(?P<bare>10)\^(?:\{(?P<bexp>[+\-−]?\d+)\}|(?P<bexp2>[+\-−]?\d+))"
    r"|(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<frac>\d+))?"
    r"(?:(?:\\times|\\cdot|×)10\^(?:\{(?P<texp>[+\-−]?\d+)\}|(?P<texp2>[+\-−]?\d+))"
    r"|[eE](?P<eexp>[+\-−]?\d+)"
    r"|(?P<pct>%)|(?P<mag>万亿|万|亿))?)"
)
#: The largest power of ten a printed number may carry (the notes print 10^{-400}).
MAX_EXPONENT = 10_000
_MAGNITUDE = {"万": 10**4, "亿": 10**8, "万亿": 10**12}


@dataclass(frozen=True)
class PrintedNumber:
    """A number as printed: exact value plus the precision its digits imply."""

    text: str  # exactly as printed (surrounding whitespace stripped)
    value: Fraction  # exact; percent /100, 万 ×1e4, 亿 ×1e8, exponent applied
    half_unit: Fraction  # half a unit of the last printed digit, in the value's scale
    exact: bool  # True only for a plain integer: integers are exact, others rounded
    kind: str  # 'integer' | 'decimal' | 'percent' | 'scientific' | 'magnitude'


def _exp(text: str) -> int:
    return int(text.replace("−", "-"))


def parse_printed(text: str) -> PrintedNumber:
    """Parse ``text`` (one printed number, surrounding whitespace allowed).

    Raises ``ValueError`` naming the text when it is not exactly one number, so
    a claim author sees which printed value could not be read.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a printed number: {text!r} (expected a string)")
    stripped = text.strip()
    if not stripped or _NUMBER_RE.fullmatch(stripped) is None:
        raise ValueError(f"not a printed number: {text!r}")
    folded = re.sub(r"\s+", "", stripped.translate(_FULLWIDTH))
    m = _PARTS_RE.fullmatch(folded)
    if m is None:  # pragma: no cover - NUMBER_PATTERN and _PARTS_RE agree
        raise ValueError(f"not a printed number: {text!r}")
    negative = m["sign"] in ("-", "−")
    if m["bare"]:
        mantissa, decimals = Fraction(1), 0
        exponent = _exp(m["bexp"] or m["bexp2"])
    else:
        int_part = (m["int"] or "").replace(",", "")
        frac = m["frac"] or ""
        decimals = len(frac)
        mantissa = Fraction(int(int_part + frac), 10**decimals)
        exponent = 0
        texp = m["texp"] or m["texp2"] or m["eexp"]
        if texp is not None:
            exponent = _exp(texp)
    if abs(exponent) > MAX_EXPONENT:  # 1e999999999 would build a billion-digit integer
        raise ValueError(f"not a printed number: {text!r}: exponent beyond ±{MAX_EXPONENT:,} "
                         "(value too large to compute)")
    scale = Fraction(10) ** exponent
    half_unit = Fraction(1, 2 * 10**decimals) * scale
    value = mantissa * scale
    if m["bare"] or m["texp"] or m["texp2"] or m["eexp"]:
        kind = "scientific"
    elif m["pct"]:
        kind, value, half_unit = "percent", value / 100, half_unit / 100
    elif m["mag"]:
        factor = _MAGNITUDE[m["mag"]]
        kind, value, half_unit = "magnitude", value * factor, half_unit * factor
    else:
        kind = "decimal" if m["frac"] is not None else "integer"
    return PrintedNumber(
        text=stripped,
        value=-value if negative else value,
        half_unit=half_unit,
        exact=kind == "integer",
        kind=kind,
    )
