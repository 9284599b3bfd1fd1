"""Two printed forms a value hole reads (issue 12 item 2): a magnitude word after the math unit
(``$V^2\\approx25$ 亿``) and a share in tenths (``三成``). Both were literal text of a quote, so
an edit of them (亿 → 万, 1.24 亿 → 12.4 亿 against 三成) went stale or unseen."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from verifiers.holes import read_value
from verifiers.numbers import format_like

REPO = Path(__file__).resolve().parents[1]
L1 = "lesson1-text-to-distribution.txt"


def test_magnitude_after_the_math_unit_is_part_of_the_value() -> None:
    (n,) = read_value("25$ 亿", 0).numbers
    assert n.value == 25 * 10**8 and n.half_unit == Fraction(10**8, 2)
    assert format_like(n, 2_525_766_049) == "25$ 亿"  # written back the way it is printed
    (w,) = read_value("25$万", 0).numbers
    assert w.value == 250_000


def test_tenths() -> None:
    (n,) = read_value("三成", 0).numbers
    assert n.value == Fraction(3, 10) and n.half_unit == Fraction(1, 20)
    assert format_like(n, Fraction(31, 1000)) == "3%"


def _check(tmp_path: Path, find: str, replace: str, select: str,
           capsys: pytest.CaptureFixture[str]) -> dict:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    shutil.copytree(REPO / "notes", notes)
    text = (notes / L1).read_text(encoding="utf-8")
    assert text.count(find) == 1
    (notes / L1).write_text(text.replace(find, replace), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k", select,
          "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    return {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["claims"]}


@pytest.mark.parametrize(("find", "replace", "claim", "value"), [
    ("$V^2\\approx25$ 亿种", "$V^2\\approx25$ 万种", "l1-8-ngram-table-size", "ctx"),
    ("约 1.24 亿参数", "约 12.4 亿参数", "l1-2-embedding-params", "share"),
])
def test_an_edited_unit_fails_at_its_value(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           find: str, replace: str, claim: str,
                                           value: str) -> None:
    assert _check(tmp_path, find, find, claim, capsys)[claim]["status"] == "verified"
    got = _check(tmp_path / "edited", find, replace, claim, capsys)[claim]
    assert got["status"] == "discrepancy"
    bad = [v["name"] for v in got["values"] if v["status"] == "discrepancy"]
    assert bad == [value]
