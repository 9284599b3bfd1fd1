"""Printed numbers: every supported form, its exact value and precision, and rejections."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction as F

import pytest

from verifiers.numbers import NUMBER_PATTERN, format_like, neighbour_decimals, parse_printed

# text, value, half_unit, exact, kind
FORMS = [
    ("7", F(7), F(1, 2), True, "integer"),
    ("0", F(0), F(1, 2), True, "integer"),
    ("-7", F(-7), F(1, 2), True, "integer"),
    ("+7", F(7), F(1, 2), True, "integer"),
    ("− 1", F(-1), F(1, 2), True, "integer"),  # U+2212 and a LaTeX-style space
    ("- 0.921286", F(-921286, 10**6), F(5, 10**7), False, "decimal"),
    ("0.25", F(1, 4), F(1, 200), False, "decimal"),
    ("0.10", F(1, 10), F(1, 200), False, "decimal"),  # trailing zero is precision
    (".5", F(1, 2), F(1, 20), False, "decimal"),
    ("−0.133562", F(-133562, 10**6), F(5, 10**7), False, "decimal"),
    ("50,257", F(50257), F(1, 2), True, "integer"),
    ("1,000,000", F(10**6), F(1, 2), True, "integer"),
    ("1,234.50", F(123450, 100), F(1, 200), False, "decimal"),
    ("55.5%", F(555, 1000), F(5, 10**4), False, "percent"),
    ("55.5 %", F(555, 1000), F(5, 10**4), False, "percent"),
    ("50%", F(1, 2), F(1, 200), False, "percent"),
    ("-0.5%", F(-1, 200), F(1, 2000), False, "percent"),
    ("５５％", F(55, 100), F(1, 200), False, "percent"),  # full-width digits and ％
    ("１２３", F(123), F(1, 2), True, "integer"),
    ("３.１４", F(314, 100), F(1, 200), False, "decimal"),
    ("3 \\times 10^{- 11}", F(3, 10**11), F(5, 10**12), False, "scientific"),
    ("4.9\\times10^{-324}", F(49, 10**325), F(5, 10**326), False, "scientific"),
    ("1.27\\times10^{14}", F(127 * 10**12), F(5 * 10**11), False, "scientific"),
    ("1.8\\times10^{308}", F(18 * 10**307), F(5 * 10**306), False, "scientific"),
    ("3 × 10^-11", F(3, 10**11), F(5, 10**12), False, "scientific"),
    ("2 \\cdot 10^{3}", F(2000), F(500), False, "scientific"),
    ("10^{-5}", F(1, 10**5), F(5, 10**6), False, "scientific"),  # bare power: mantissa 1
    ("10^{- 5}", F(1, 10**5), F(5, 10**6), False, "scientific"),
    ("10^3", F(1000), F(500), False, "scientific"),
    ("-10^{-400}", F(-1, 10**400), F(5, 10**401), False, "scientific"),
    ("1e-5", F(1, 10**5), F(5, 10**6), False, "scientific"),
    ("2.5e3", F(2500), F(50), False, "scientific"),
    ("2.5E+3", F(2500), F(50), False, "scientific"),
    ("3860 万", F(38_600_000), F(5000), False, "magnitude"),
    ("3860万", F(38_600_000), F(5000), False, "magnitude"),
    ("1.24 亿", F(124_000_000), F(500_000), False, "magnitude"),
    ("25 亿", F(2_500_000_000), F(50_000_000), False, "magnitude"),
    ("2 万亿", F(2 * 10**12), F(5 * 10**11), False, "magnitude"),
]


@pytest.mark.parametrize(("text", "value", "half_unit", "exact", "kind"), FORMS)
def test_form(text: str, value: F, half_unit: F, exact: bool, kind: str) -> None:
    n = parse_printed(text)
    assert (n.text, n.value, n.half_unit, n.exact, n.kind) == (text, value, half_unit, exact, kind)


@pytest.mark.parametrize("text", [t for t, *_ in FORMS])
def test_pattern_matches_every_form_and_has_no_capturing_group(text: str) -> None:
    assert re.fullmatch(NUMBER_PATTERN, text)
    assert re.compile(NUMBER_PATTERN).groups == 0  # safe to embed in other regexes


def test_surrounding_whitespace_is_stripped() -> None:
    n = parse_printed("  1.5\n")
    assert n.text == "1.5" and n.value == F(3, 2)


def test_value_is_exact_not_float() -> None:
    assert parse_printed("0.1").value * 3 == F(3, 10)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "abc",
        "1.2.3",
        "1,00",  # groups must have exactly three digits
        "1234,567",
        "12,3456",
        "1 2",
        "1, 2",
        "3%%",
        "5.",
        "-",
        "x1",
        "1/16",  # a fraction is two numbers
        "3 \\times 10",  # no exponent
        "3 \\times 2^{4}",  # only powers of ten
        "10^{x}",
        "1e",
        "1e5.5",
        "3860\n万",  # a number never spans lines
        "5 千",
        "５５．５",  # only digits and ％ are accepted full-width
        "--1",
    ],
)
def test_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not a printed number"):
        parse_printed(text)


def test_rejects_non_string() -> None:
    with pytest.raises(ValueError):
        parse_printed(1.5)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- writing a value back

# printed, value, written the way the note writes it
LIKE = [
    ("386 万", "38597400", "3860 万"),  # unit word kept, at its own decimals
    ("3860万", "38597400", "3860万"),
    ("1.24 亿", "125500000", "1.26 亿"),
    ("55.5%", "0.5612", "56.1%"),
    ("55.5 %", "0.5612", "56.1 %"),
    ("５５％", "0.561", "５６％"),  # full-width digits and ％ stay
    ("−0.133562", "-0.1234567", "−0.123457"),  # Unicode minus stays
    ("− 1", "-2", "− 2"),
    ("−0.5", "0.25", "0.2"),  # half to even; a positive value has no sign
    ("+7", "8", "+8"),
    ("50,257", "1234567", "1,234,567"),  # thousands separators
    ("1,234.50", "1000.125", "1,000.12"),
    ("0.07", "-0.0049", "0.00"),  # no "-0.00"
    ("3 \\times 10^{- 11}", "4.2e-11", "4 \\times 10^{- 11}"),
    ("4.9\\times10^{-324}", "9.99e-324", "1.0\\times10^{-323}"),
    ("1.27\\times10^{14}", "1.3e15", "1.30\\times10^{15}"),
    ("3 × 10^-11", "5e-10", "5 × 10^-10"),
    ("1e-5", "2.5e-5", "2e-5"),
    ("2.5E+3", "2600", "2.6E+3"),
    ("1e-05", "3e-7", "3e-07"),
    ("10^{-5}", "1e-6", "10^{-6}"),
    ("10^{-5}", "3e-6", "3 \\times 10^{-6}"),
    ("25 \\times 10^{3}", "26100", "26 \\times 10^{3}"),  # an unnormalised exponent is kept
    ("0.0000040", "0.0000045", "0.0000045"),  # never scientific unless printed so
]


@pytest.mark.parametrize(("printed", "value", "written"), LIKE)
def test_format_like(printed: str, value: str, written: str) -> None:
    assert format_like(parse_printed(printed), Decimal(value)) == written
    assert parse_printed(written)  # still one printed number


def test_format_like_at_other_decimals_and_too_long() -> None:
    assert format_like(parse_printed("0.2"), Decimal("0.0712"), 2) == "0.07"
    assert format_like(parse_printed("55%"), F(5612, 10000), 1) == "56.1%"
    assert format_like(parse_printed("7"), Decimal("1e400")) is None
    assert format_like(parse_printed("7"), Decimal("NaN")) is None


@pytest.mark.parametrize(
    ("printed", "neighbours", "places"),
    [
        ("0.1", ["0.52", "0.59"], 2),
        ("0.0812", ["0.52", "0.59"], 2),
        ("0.1", ["0.52", "0.59", "3"], 2),  # plain integers are counts, not a precision
        ("0.1", ["0.52"], None),  # one neighbour is not enough
        ("0.1", ["0.52", "0.5"], None),  # neighbours disagree
        ("0.10", ["0.52", "0.59"], None),  # same decimals already
        ("2", ["0.8415", "0.5403"], None),  # a printed integer is exact: no neighbours' decimals
        ("5%", ["55.5%", "60.5%", "0.25"], 1),  # only percentages count for a percentage
        ("386 万", ["12.5 万", "3.5 万"], 1),
        ("386 万", ["12.5 亿", "3.5 亿"], None),  # another unit word
    ],
)
def test_neighbour_decimals(printed: str, neighbours: list[str], places: int | None) -> None:
    assert neighbour_decimals(parse_printed(printed), [parse_printed(n) for n in neighbours]) == (
        places)


# -- approximate words (docs/claim-format.md "Approximate numbers") ---------------------

from verifiers.numbers import approximate_at, approximate_unit, is_bare_power  # noqa: E402


def _marked(text: str, number: str) -> bool:
    i = text.index(number)
    return approximate_at(text, i, i + len(number))


@pytest.mark.parametrize(("text", "number", "marked"), [
    ("大约 25 行", "25", True), ("约为 0.37", "0.37", True), ("约 $10^{-5}$", "10^{-5}", True),
    ("接近 $2/3$", "2/3", True), ("差不多 7 个", "7", True), ("about 25 lines", "25", True),
    ("roughly 0.4", "0.4", True), ("~25", "25", True), ("25 行左右", "25", True),
    ("30 上下", "30", True), ("$2.708$ 附近出发", "2.708", True),
    ("约为 $(1.26, 0.58)$", "(1.26, 0.58)", True), ("约 [1, 0, 0]", "0, 0]", True),
    # the rounding sign ≈ is not an approximate word: its last digit stays checked
    ("e ≈ 2.718", "2.718", False), ("$e\\approx 2.718$", "2.718", False),
    ("共 25 行", "25", False), ("最近 3 个", "3", False), ("附近 3 个", "3", False),
    ("3 维的上下文", "3", False), ("K=40~50", "50", False), ("K=40 ~ 50", "50", False),
])
def test_approximate_words(text, number, marked):
    assert _marked(text, number) is marked


@pytest.mark.parametrize(("printed", "unit"), [
    ("25", F(1)), ("0.37", F(1, 100)), ("0.30", F(1, 100)), ("300", F(100)), ("0", F(1)),
    ("3 亿", F(10**8)), ("30%", F(1, 10)), ("33.97%", F(1, 10000)), ("2.5 \\times 10^{3}", F(100)),
])
def test_approximate_unit_is_one_unit_of_the_last_significant_digit(printed, unit):
    assert approximate_unit(parse_printed(printed)) == unit


def test_a_bare_power_of_ten_has_no_digit_unit():
    pn = parse_printed("10^{-5}")
    assert is_bare_power(pn) and approximate_unit(pn) is None
    assert not is_bare_power(parse_printed("1 \\times 10^{-5}"))
