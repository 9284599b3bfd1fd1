"""约 before a long decimal says "not exact", not "off by one": 0.731058 for σ(1) =
0.7310586 is a wrong rounding (verifiers/numbers.py ``approximate_unit``)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.note_edits import check_project
from verifiers.numbers import approximate_unit, parse_printed, significant_digits


@pytest.mark.parametrize(("text", "digits", "unit"), [
    ("0.731059", 6, None), ("1.2345", 5, None), ("0.0731", 3, Fraction(1, 10000)),
    ("12.50", 4, Fraction(1, 100)), ("300", 3, Fraction(100)), ("25", 2, Fraction(1)),
])
def test_a_long_decimal_has_no_approximate_unit(text, digits, unit):
    pn = parse_printed(text)
    assert significant_digits(pn) == digits
    assert approximate_unit(pn) == unit


NOTE = """第 1 章
1.1 比例
a约0.731059，c约0.27。
"""

CLAIMS = """note: n.txt
claims:
  - id: ratios
    says: the two Softmax ratios e/(e+1) and 1/(e+1)
    section: "1.1"
    text: a约⟨a⟩，c约⟨c⟩。
    check:
      a: exp(1) / (exp(1) + 1)
      c: 1 / (exp(1) + 1)
"""


def test_the_unedited_note_verifies(tmp_path, capsys, monkeypatch):
    # c约0.27 for 0.2689: two digits, one unit either way still holds
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, by_id


def test_a_truncated_long_decimal_is_a_discrepancy(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE.replace("0.731059", "0.731058"), CLAIMS,
                                monkeypatch, capsys)
    assert code == 1
    a = next(v for v in by_id["ratios"]["values"] if v["name"] == "a")
    assert a["status"] == "discrepancy" and a["suggestion"] == "0.731059"


def test_a_short_approximate_number_keeps_one_unit(tmp_path, capsys, monkeypatch):
    code, _ = check_project(tmp_path, NOTE.replace("c约0.27", "c约0.26"), CLAIMS,
                            monkeypatch, capsys)
    assert code == 0
