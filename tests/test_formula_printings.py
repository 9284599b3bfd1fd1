"""Printings of one formula agree (verifiers/formulas/printings.py): a definition the note prints
more than once, read at every printing and compared, so an edit of one printing (a dropped
root, a wrong matrix) is a discrepancy at that printing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.formulas.printings import read_printing

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
AAT = "architecture-and-training.txt"


def test_read_printing_reads_one_definition() -> None:
    lhs, rhs = read_printing(r"s_{i j} = \frac{q_{i} \cdot k_{j}}{\sqrt{d_{k}}}")
    assert str(lhs) == "s_ij" and "sqrt(d_k)" in str(rhs)
    with pytest.raises(ValueError):
        read_printing(r"a = b = c")


def _run(tmp_path: Path, edits: list[tuple[str, str, int]], capsys: pytest.CaptureFixture[str]
         ) -> dict:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    shutil.copytree(REPO / "notes", notes)
    path = notes / AAT
    lines = path.read_text(encoding="utf-8").split("\n")
    for find, replace, line in edits:
        assert lines[line - 1] == find
        lines[line - 1] = replace
    path.write_text("\n".join(lines), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k", "aat-fp",
          "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    return {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["claims"]}


def test_unedited_printings_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = _run(tmp_path, [], capsys)
    assert len(got) >= 17 and {c["status"] for c in got.values()} == {"verified"}


def test_two_printings_that_differ_are_both_flagged(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    score = r"s_{i j} = \frac{q_{i} \cdot k_{j}}{\sqrt{d_{k}}}"
    got = _run(tmp_path, [(score, score.replace(r"\sqrt{d_{k}}", "d_{k}"), 172)], capsys)
    edited, other = got["aat-fp-scaled-score-2-4"], got["aat-fp-scaled-score-5-2"]
    assert edited["status"] == other["status"] == "discrepancy"
    (value,) = edited["values"]
    assert value["start"]["line"] == 172
    assert "no majority" in value["message"] and "172:1 ✗, 810:1 ✗" in value["message"]
    assert {c["status"] for k, c in got.items() if "scaled-score" not in k} == {"verified"}


def test_the_minority_printing_is_flagged(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    got = _run(tmp_path, [("Q = X W_{Q}", "Q = X W_{K}", 2180)], capsys)
    assert got["aat-fp-query-projection-2180"]["status"] == "discrepancy"
    assert got["aat-fp-query-projection-1325"]["status"] == "verified"
    assert got["aat-fp-query-projection-2271"]["status"] == "verified"
    msg = got["aat-fp-query-projection-2180"]["values"][0]["message"]
    assert "differs from what the majority of its printings state" in msg


@pytest.mark.parametrize(("entry", "problem"), [
    ("printing: {X: score}", "printing: X: name a formula hole"),
    ("reference: {S: no-such-reference}", "reference: S: name a formula hole"),
    ("reference: {X: attention-weights}", "reference: X: name a formula hole"),
])
def test_printing_and_reference_name_holes(tmp_path: Path, entry: str, problem: str) -> None:
    from verifiers.schema import load_claim_file

    path = tmp_path / "c.yaml"
    path.write_text(f"note: {AAT}\nclaims:\n  - id: c\n    kind: symbolic\n    text: |\n"
                    f"      现在计算：\n      ⟪S⟫\n    {entry}\n", encoding="utf-8")
    loaded = load_claim_file(path, "c.yaml", {AAT})
    messages = [p.message for p in loaded.problems] + [
        p.message for c in loaded.claims for p in c.problems]
    assert any(problem in m for m in messages), messages
