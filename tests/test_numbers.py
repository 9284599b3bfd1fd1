"""Printed numbers: every supported form, its exact value and precision, and rejections."""

from __future__ import annotations

import re
from fractions import Fraction as F

import pytest

from verifiers.numbers import NUMBER_PATTERN, parse_printed

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
