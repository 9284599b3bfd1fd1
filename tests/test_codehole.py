"""Code holes: programs and printed traces read from the note as it is now (issue 12 item 3).

Each planted kind of program edit gets the right verdict at the right place: a computation
that departs from the reference step at the edited line, a crash or NaN at its line, a loop
that stops early at the loop, an edit that keeps the outputs verified; a swapped entry of
a printed trace fails at that entry.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.programs.codehole import locate_block, loop_shape
from verifiers.schema import load_claim_file

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
L1 = "lesson1-text-to-distribution.txt"
NOTE = (REPO / "notes" / L1).read_text(encoding="utf-8")


def _line(find: str) -> int:
    assert NOTE.count(find) == 1, find
    return NOTE[:NOTE.index(find)].count("\n") + 1


def _check(tmp_path: Path, find: str, replace: str, select: str,
           capsys: pytest.CaptureFixture[str]) -> dict:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (REPO / "notes").iterdir():
        shutil.copy(p, notes / p.name)
    assert NOTE.count(find) == 1
    (notes / L1).write_text(NOTE.replace(find, replace), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k", select,
          "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    return {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["claims"]}


def _failing_lines(claim: dict) -> set[int]:
    return {v["start"]["line"] for v in claim["values"]
            if v["status"] not in ("verified", "given", "known")}


def test_locate_block_reads_the_program_as_printed() -> None:
    block = locate_block(NOTE, 0, len(NOTE), "import numpy as np", None)
    assert block.first_line == _line("import numpy as np")
    assert block.text.splitlines()[-1].strip().startswith("print(step")
    shape = loop_shape(block.text)
    assert shape is not None and block.first_line + shape.header - 1 == _line("for step in range")
    with pytest.raises(ValueError, match="no line"):
        locate_block(NOTE, 0, len(NOTE), "import torch", None)


def test_code_needs_a_model_claim(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"note: {L1}\nclaims:\n  - id: x\n    text: a\n"
                    "    code: {from: import, bad: 1}\n", encoding="utf-8")
    (claim,) = load_claim_file(path, "c.yaml", {L1}).claims
    assert any("'code' needs kind: model" in p.message for p in claim.problems)
    path.write_text(f"note: {L1}\nclaims:\n  - id: x\n    kind: model\n    text: a\n"
                    "    code: {from: import, bad: 1}\n    run: {example: e, outputs: [o]}\n",
                    encoding="utf-8")
    (claim,) = load_claim_file(path, "c.yaml", {L1}).claims
    assert any("unknown key 'bad'" in p.message for p in claim.problems)


@pytest.mark.parametrize(("find", "replace"), [
    ("G[np.arange(B), nxt] -= 1", "G[np.arange(B), nxt] += 1"),  # sign flip in the gradient
    ("G /= B  ", "G /= V  "),  # the batch mean over V
    ("np.add.at(dE, cur, dX)", "np.add.at(dE, nxt, dX)"),  # wrong rows
    ("WU -= lr * dWU", "WU += lr * dWU"),  # gradient ascent
])
def test_a_computation_edit_fails_at_its_line(tmp_path: Path, find: str, replace: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    claim = _check(tmp_path, find, replace, "l1-7-program", capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    assert claim["span"] is not None
    assert claim["values"][0]["start"]["line"] == _line(find)  # where: the edited line first
    assert "reference step" in claim["values"][0]["message"]
    assert _line("# 0 2.732") in _failing_lines(claim)  # and the printed output


def test_wrong_axis_is_located_and_its_nan_too(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    find = "Z = Z - Z.max(axis=1, keepdims=True)"
    claim = _check(tmp_path, find, find.replace("axis=1", "axis=0"), "l1-7-program",
                   capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    assert claim["values"][0]["start"]["line"] == _line(find)
    nan = [v for v in claim["values"] if "NaN" in v["message"]]
    assert nan and all(v["start"]["line"] > 1 for v in nan)  # located in the note, not 1:1


def test_a_crash_is_located_at_its_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    find = "dX  = G @ WU.T"
    claim = _check(tmp_path, find, "dX  = G @ WU", "l1-7-program", capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    first = claim["values"][0]
    assert first["start"]["line"] == _line(find) and "stops here" in first["message"]
    assert "ValueError" in first["message"]


def test_wrong_loop_count_names_the_loop(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    find = "for step in range(501):"
    claim = _check(tmp_path, find, "for step in range(500):", "l1-7-program",
                   capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    assert {_line(find), _line("# 0 2.732")} <= _failing_lines(claim)
    assert any("never prints step 500" in v["message"] for v in claim["values"])


def test_wrong_learning_rate_names_the_candidate(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Internally consistent, but not what the note prints: the printed value or the step size.

    The program alone cannot tell a mistyped printed loss from a changed learning rate, so
    the verdict is at the printed output and, by what feeds the later outputs only (data
    flow, :func:`later_pass_feeders`), at the set-up line of the step size.
    """
    claim = _check(tmp_path, "lr = 1.0", "lr = 0.1", "l1-7-program", capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    assert _failing_lines(claim) == {_line("# 0 2.732"), _line("lr = 1.0")}
    assert f"step size 0.1, set at note line {_line('lr = 1.0')}" in claim["message"]
    setting = next(v for v in claim["values"] if v["name"] == "setting")
    assert "`lr = 0.1`" in setting["message"]
    assert "feeds only the later passes" in setting["message"]


_GENERIC = """x = 2.0
rate = 0.5
scale = 3
for step in range(4):
    y = scale * x * x
    x = x - rate * y
    print(step, y)   # 0 12 … 3 …
"""


def test_later_pass_feeders_is_data_flow_not_the_bigram_trainer() -> None:
    """Any program: ``rate`` reaches the print only through the carried ``x``; ``scale`` and
    ``x`` feed the first print already."""
    from verifiers.programs.codehole import later_pass_feeders

    shape = loop_shape(_GENERIC)
    assert shape is not None
    assert later_pass_feeders(_GENERIC, shape) == [2]


def test_later_pass_settings_only_when_the_first_output_is_right() -> None:
    from verifiers.programs.codehole import Finding, later_pass_settings

    def out(col: int, status: str) -> Finding:
        return Finding(7, col, col + 2, status, f"out {col}", "12", "12", "")

    named = later_pass_settings(_GENERIC, [out(24, "verified"), out(30, "discrepancy")], 1)
    assert [(f.line, f.status, f.printed) for f in named] == [(2, "discrepancy", "rate = 0.5")]
    # the first output already wrong: the set-up or the printing is at fault, not the rate
    assert later_pass_settings(_GENERIC, [out(24, "discrepancy"), out(30, "discrepancy")], 1) == []
    # a code line already named: nothing added
    code = Finding(5, 4, 10, "discrepancy", "program", "y", "y", "")
    assert later_pass_settings(_GENERIC, [out(24, "verified"), out(30, "discrepancy"), code],
                               1) == []


@pytest.mark.parametrize(("find", "replace"), [
    ("G /= B  ", "G = G / B"),
    ("dX  = G @ WU.T", "dX  = (WU @ G.T).T"),
    ("E  -= lr * dE", "E  = E - lr * dE"),
])
def test_an_edit_that_keeps_the_outputs_verifies(tmp_path: Path, find: str, replace: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    claims = _check(tmp_path, find, replace, "l1-7-program or l1-7-add-at", capsys)
    # passing: its one pin ("about 25 lines" for 29) is unrelated to the edit
    assert claims["l1-7-program"]["status"] == "known", claims["l1-7-program"]["message"]
    assert all(v["status"] in ("verified", "given") or v["name"] == "nlines"
               for v in claims["l1-7-program"]["values"])


def test_a_printed_comment_value_fails_at_the_comment(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    claim = _check(tmp_path, "# 15, 8, 36", "# 15, 8, 37", "l1-7-program",
                   capsys)["l1-7-program"]
    assert claim["status"] == "discrepancy"
    (bad,) = [v for v in claim["values"] if v["status"] == "discrepancy"]
    assert bad["name"] == "B" and bad["printed"] == "37" and bad["expected"] == "36"


def test_a_swapped_trace_entry_fails_at_that_entry(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    find = "学习（10）→ 机器（7）→ 机器学习（5）→ 深度（4）"
    claims = _check(tmp_path, find, "学习（10）→ 机器（7）→ 深度（4）→ 机器学习（5）",
                    "l1-1-bpe-merge-order", capsys)
    claim = claims["l1-1-bpe-merge-order"]
    assert claim["status"] == "discrepancy"
    bad = [v for v in claim["values"] if v["status"] != "verified"]
    assert [v["name"] for v in bad] == ["merge 3"]
    assert bad[0]["start"]["line"] == _line(find) and bad[0]["printed"] == "深度（4）"
    assert bad[0]["expected"] == "机器学习（5）"


def test_a_wrong_trace_count_fails_at_the_count(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    claims = _check(tmp_path, "深度学习（3）", "深度学习（4）", "l1-1-bpe-merge-order", capsys)
    bad = [v for v in claims["l1-1-bpe-merge-order"]["values"] if v["status"] != "verified"]
    assert [(v["name"], v["printed"], v["expected"]) for v in bad] == [("merge 5", "4", "3")]


def test_a_topp_trace_entry_fails_at_that_entry(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from verifiers.cli import main

    mbm = "matrix-by-matrix.txt"
    note = (REPO / "notes" / mbm).read_text(encoding="utf-8")
    find = "累计0.864，不够0.9，继续"
    assert note.count(find) == 1
    line = note[:note.index(find)].count("\n") + 1
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / mbm).write_text(note.replace(find, "累计0.864，超过0.9，停止！"), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k",
          "mbm-10-2-topp-trace", "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    (claim,) = json.loads(report.read_text(encoding="utf-8"))["claims"]
    assert claim["status"] == "discrepancy"
    bad = [v for v in claim["values"] if v["status"] == "discrepancy"]
    assert bad[0]["start"]["line"] == line
    assert bad[0]["name"] == "entry 3 decision" and bad[0]["expected"] == "不够…继续"
    assert any("stopped at entry 3" in v["message"] for v in bad)  # entry 4 comes after it
