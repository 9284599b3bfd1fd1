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

Writing a value back (:func:`format_like`, used for suggestions and ``notecheck fix``)
follows the printed number's own style: its sign character (``−`` stays ``−``) and the
spaces after it, ``+`` on a positive value, thousands separators, full-width digits, the
``%``/``％``/``万``/``亿``/``万亿`` suffix with its spacing, and, only when the note printed
one, its scientific form (``\\times 10^{…}``, ``× 10^…``, ``e-05``, ``E+3``, a bare
``10^{…}``) with the exponent written the same way. Decimals are the printed
number's, or those given by :func:`neighbour_decimals`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction

__all__ = [
    "MANTISSA_PATTERN",
    "NUMBER_PATTERN",
    "UNSIGNED_NUMBER_PATTERN",
    "PrintedNumber",
    "decimals",
    "format_like",
    "neighbour_decimals",
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
    kind: str  # 'integer' | 'decimal' | 'percent' | 'scientific' | 'magnitude' | 'vague' | 'count'


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


# -- writing a value the way the note writes it ---------------------------------------

_RAW_RE = re.compile(r"(?P<sign>[+\-−]?)(?P<ss>[^\S\n]*)(?P<mant>[0-9０-９,.]*)(?P<rest>.*)", re.S)
_RAW_EXP_RE = re.compile(
    r"(?P<sign>[+\-−]?)(?P<ss>[^\S\n]*)(?P<digits>[0-9０-９]+)(?=[^0-9０-９]*$)")
_TO_FULLWIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
#: A plain rendering longer than this many digits falls back to the caller's form.
MAX_DIGITS = 100


def decimals(pn: PrintedNumber) -> int:
    """Digits after the point of the printed mantissa (0 for ``7``, ``50%``, ``10^{-5}``)."""
    m = _RAW_RE.fullmatch(pn.text)
    mant = m["mant"] if m else ""
    return len(mant.split(".", 1)[1]) if "." in mant else 0


def _group(pn: PrintedNumber) -> str:
    """Numbers whose decimals are comparable: plain, percent, one unit word, scientific."""
    if pn.kind in ("integer", "decimal"):
        return "plain"
    if pn.kind == "magnitude":
        return "magnitude:" + pn.text.rstrip()[-2:].lstrip("0123456789０-９. ")
    return pn.kind


def neighbour_decimals(pn: PrintedNumber, neighbours: Iterable[PrintedNumber]) -> int | None:
    """The decimals to write a *wrong* ``pn`` with, when its neighbours say otherwise.

    Only a ``pn`` printed with a point (or as %, 万, scientific) is concerned: a plain
    integer is exact, its neighbours' precision is not its. The neighbours are the other
    numbers printed in the same claim's quote (the other holes, and the other cells of
    the same row or table). Those of ``pn``'s group count
    (plain numbers, percentages, one unit word such as 万, scientific mantissas), except
    plain integers, which are counts rather than a precision. When at least two count
    and all have the same number of decimals, and ``pn`` has another number, that number
    is returned (``0.1`` among ``0.52`` and ``0.59`` is written ``0.07``); else ``None``
    (the printed decimals stay). The caller applies it only to a value that is wrong at
    its own printed precision: a right value is never rewritten to another precision.
    """
    if pn.kind == "integer":  # an exact integer (an exponent, a count) has no precision
        return None
    group = _group(pn)
    counted = [decimals(n) for n in neighbours if _group(n) == group and n.kind != "integer"]
    if len(counted) >= 2 and len(set(counted)) == 1 and counted[0] != decimals(pn):
        return counted[0]
    return None


def _exponent_like(raw: str, exponent: int, minus: str) -> str:
    """``exponent`` written like the printed exponent ``raw`` (sign char, spaces, width)."""
    m = _RAW_EXP_RE.search(raw)
    assert m is not None  # a scientific number always ends with its exponent digits
    width = len(m["digits"]) if m["digits"].startswith(("0", "０")) else 1
    sign = (m["sign"] if m["sign"] in ("-", "−") else minus) if exponent < 0 else (
        "+" if m["sign"] == "+" else "")
    digits = str(abs(exponent)).rjust(width, "0")
    if any("０" <= ch <= "９" for ch in m["digits"]):
        digits = digits.translate(_TO_FULLWIDTH)
    return raw[:m.start()] + sign + (m["ss"] if sign else "") + digits + raw[m.end():]


def _quantize(value: Decimal, places: int) -> Decimal | None:
    digits = (value.adjusted() if value else 0) + places + 2
    if digits > MAX_DIGITS:
        return None
    with localcontext() as ctx:  # quantize needs every digit (1e30 has 31 > 28)
        ctx.prec = max(ctx.prec, digits)
        return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


def format_like(pn: PrintedNumber, value: Decimal | Fraction | int,
                places: int | None = None) -> str | None:
    """``value`` written the way ``pn`` is printed, at ``places`` decimals (default: pn's).

    ``None`` when the plain form would exceed :data:`MAX_DIGITS` digits or the value is
    not finite (the caller writes it another way).
    """
    if isinstance(value, Fraction):
        with localcontext() as ctx:
            ctx.prec = 60
            value = Decimal(value.numerator) / Decimal(value.denominator)
    value = Decimal(value)
    if not value.is_finite():
        return None
    if pn.kind == "vague":  # a magnitude word (几万): the word of the value's order
        from verifiers.magnitude_words import word_for

        return word_for(pn.text, Fraction(value))
    if pn.kind == "count":  # a count word (三个): the word of the value, in its language
        from verifiers.restate.countwords import word_for_count

        return word_for_count(pn.text, Fraction(value))
    raw = _RAW_RE.fullmatch(pn.text)
    if raw is None:  # pragma: no cover - every printed number matches
        return None
    places = decimals(pn) if places is None else places
    minus = "−" if raw["sign"] == "−" else "-"
    rest = raw["rest"]
    if pn.kind == "percent":
        value = value.scaleb(2)
    elif pn.kind == "magnitude":
        value = value / Decimal(_MAGNITUDE[rest.replace("$", "").strip()])  # 25$ 亿: a hole's
    exponent_text = ""
    if pn.kind == "scientific":
        bare = rest.lstrip().startswith("^")  # 10^{-5}: the mantissa digits were the base
        printed_exp = _exp(re.sub(r"[^\d\-−+]", "", _RAW_EXP_RE.search(rest).group(0)
                                  .translate(_FULLWIDTH)))
        mant_printed = Fraction(1) if bare else abs(pn.value) / Fraction(10) ** printed_exp
        if value == 0:
            exponent = printed_exp
        elif 1 <= mant_printed < 10 or mant_printed == 0:
            exponent = value.adjusted()
            q = _quantize(abs(value).scaleb(-exponent), places)
            if q is not None and q >= 10:
                exponent += 1
        else:  # the note wrote 25 \times 10^{3}: keep its exponent
            exponent = printed_exp
        value = value.scaleb(-exponent)
        if bare:
            q = _quantize(abs(value), places)
            if q == 1:
                return (("" if value > 0 else minus + raw["ss"]) + raw["mant"]
                        + _exponent_like(rest, exponent, minus))
            times = " \\times " if "{" in rest else " × "
            rest = times + "10" + rest
        exponent_text = _exponent_like(rest, exponent, minus)
    q = _quantize(abs(value), places)
    if q is None:
        return None
    negative = value < 0 and q != 0
    mant = format(q, ",f" if "," in raw["mant"] else "f")
    if any("０" <= ch <= "９" for ch in raw["mant"]):
        mant = mant.translate(_TO_FULLWIDTH)
    sign = (minus if negative else "+" if raw["sign"] == "+" else "")
    return sign + (raw["ss"] if sign else "") + mant + (exponent_text or rest)


# -- approximate words ---------------------------------------------------------------
#
# One rule (docs/claim-format.md "Approximate numbers"): a number the note marks as
# approximate -- 约, 大约, 近, 接近, 差不多, ~ or \sim (not a range 3~5), about,
# approximately, roughly, around right before it; 左右, 上下 or 附近 right after it (a short unit
# word may sit between) -- claims the true value within one unit of its last significant
# digit. The sign ≈ (\approx) is not one of them: the notes write it for a rounded result
# (e ≈ 2.718, 49 holes), whose last digit stays checked to half a unit.

_APPROX_WORD = (r"(?:约|近|差不多|\\sim|(?<![0-9０-９)\]}])(?<![0-9０-９)\]}]\s)[~～]"
                r"|\b(?:[Aa]bout|[Aa]pproximately|[Rr]oughly|[Aa]round|approx\.))")
# between the word and the number: 为/是/有/等于, spaces, TeX $ { \, and the opening
# bracket of a list with the list's earlier elements (约 [1, 0, 0] marks all three)
_APPROX_GAP = (r"(?:为|是|有|等于)?[\s$]*(?:\\[,;!: ]\s*)*\{?\s*"
               rf"(?:(?:\\left)?[\[(]\s*(?:{NUMBER_PATTERN}\s*[,，]\s*)*)?")
_APPROX_BEFORE_RE = re.compile(rf"{_APPROX_WORD}{_APPROX_GAP}$")
# not 最近 (nearest), 附近 (nearby: 'ln V 附近' is read after the number, not here)
_NOT_APPROX_BEFORE_RE = re.compile(rf"(?:最近|附近){_APPROX_GAP}$")
_APPROX_AFTER_RE = re.compile(
    r"^[\s$}]*(?:[\u4e00-\u9fffA-Za-z%％]{0,3}?)\s*(?:左右|上下(?!文)|附近)")
#: How far before a number the word is looked for (a list of earlier elements fits).
APPROX_LOOKBACK = 200


def approximate_at(text: str, start: int, end: int) -> bool:
    """Does the note mark the number printed at ``text[start:end]`` as approximate?"""
    before = text[max(0, start - APPROX_LOOKBACK):start]
    if _APPROX_BEFORE_RE.search(before) and not _NOT_APPROX_BEFORE_RE.search(before):
        return True
    return _APPROX_AFTER_RE.match(text[end:end + 12]) is not None


def approximate_unit(pn: PrintedNumber) -> Fraction | None:
    """One unit of the last significant digit of ``pn`` (its distance for an approximate
    number), or ``None`` when it has none: a fraction such as 2/3 (compared as printed),
    or a bare power of ten (:func:`is_bare_power`: the engine takes it within a factor
    of √10, half an order of magnitude: log10 of the true value rounds to the exponent).

    Digits after a point are significant (0.30 → 0.01); an integer mantissa's trailing
    zeros are not (约 300 → 100; 约 25 → 1; ≈ 0 → 1; 约 3 亿 → 1 亿; 约 30% → 10%).

    A decimal printed to :data:`ROUNDED_DIGITS` or more significant digits has none either
    (约 0.731059): that many digits are a rounding, and 约 only says the value is not exact,
    so a truncated last digit (0.731058 for 0.7310586) is wrong like any wrong rounding.
    """
    if pn.kind == "fraction" or is_bare_power(pn):
        return None
    if decimals(pn) and significant_digits(pn) >= ROUNDED_DIGITS:
        return None
    unit = 2 * pn.half_unit
    if decimals(pn) == 0 and pn.value != 0:
        digits = abs(pn.value) / unit
        while digits.denominator == 1 and digits % 10 == 0:
            digits /= 10
            unit *= 10
    return unit


ROUNDED_DIGITS = 5  # significant digits from which an approximate decimal is a rounding


def significant_digits(pn: PrintedNumber) -> int:
    """Significant digits of the printed mantissa (0.0731 → 3, 12.50 → 4)."""
    m = _RAW_RE.fullmatch(pn.text)
    digits = re.sub(r"\D", "", (m["mant"] if m else "").translate(_FULLWIDTH))
    return len(digits.lstrip("0"))


def is_bare_power(pn: PrintedNumber) -> bool:
    return re.fullmatch(rf"(?:{_SIGN}{_WS})?{_BARE_POWER}", pn.text) is not None
