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
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
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


def test_an_unwritten_coefficient_reads_one() -> None:
    """``⟨ke⟩i`` against ``i/d_model``: the note left the coefficient out, so it is 1 (not a
    stale quote); a coefficient that is printed is read as before, and a hole before a word
    (``⟨n⟩ tokens``) or in the middle of a name reads nothing."""
    from verifiers.holes import ResolveError, find

    quote = "PE(pos, ⟨k⟩i) = sin(pos / ⟨base⟩^(⟨ke⟩i/d_model))"
    text = "PE(pos, 2i) = sin(pos / 10000^(i/d_model))\n"
    m = find(text, quote, [(0, len(text))])
    assert m.values["k"].numbers[0].value == 2
    ke = m.values["ke"]
    at = text.index("i/d")
    assert (ke.text, ke.start, ke.end, ke.numbers[0].value) == ("", at, at, 1)
    with pytest.raises(ResolveError):
        find("many tokens\n", "⟨n⟩ tokens", [(0, 12)])
    with pytest.raises(ResolveError):
        find("x = ai\n", "x = a⟨k⟩i", [(0, 7)])


def test_dropping_the_2_of_the_pe_exponent_fails_at_the_formula(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    shutil.copytree(REPO / "notes", notes)
    path = notes / "matrix-by-matrix.txt"
    text = path.read_text(encoding="utf-8")
    find_, line = "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))", 0
    line = text[:text.index(find_)].count("\n") + 1
    path.write_text(text.replace(find_, find_.replace("^(2i", "^(i")), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k",
          "mbm-1-4-pe-formula", "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    (claim,) = json.loads(report.read_text(encoding="utf-8"))["claims"]
    bad = {(v["name"], v["start"]["line"]) for v in claim["values"] if v["status"] != "verified"
           and v["status"] != "given"}
    assert ("ke", line) in bad and claim["status"] == "discrepancy"
