"""Program edits named at the edited line (issue 12 item 3): a program that computes what the
reference computes from its own data, but from edited data, is named at its literal data
line; a vocabulary built in another order is named where it is built."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.programs.codehole import Finding, data_sources, locate_block

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
L1 = "lesson1-text-to-distribution.txt"
NOTE = (REPO / "notes" / L1).read_text(encoding="utf-8")
BLOCK = locate_block(NOTE, 0, len(NOTE), "import numpy as np", None)


def _block_line(find: str) -> int:
    return next(k for k, line in enumerate(BLOCK.text.splitlines(), 1) if find in line)


def _findings(first_ok: bool, code: bool = False) -> list[Finding]:
    shape_line = _block_line("V, d, B = ")
    printing = _block_line("print(step")
    out = [Finding(shape_line, 53, 55, "discrepancy", "V", "15", "16", "comment"),
           Finding(printing, 55, 60, "verified" if first_ok else "discrepancy",
                   "loss at step 0", "2.732", "2.7252", "output")]
    if code:
        out.append(Finding(_block_line("G /= B"), 4, 10, "discrepancy", "program", "", "", ""))
    return out


def test_a_wrong_setup_value_and_output_name_the_literal_data_line() -> None:
    found = data_sources(BLOCK.text, _findings(first_ok=False), BLOCK.first_line)
    assert [(f.line, f.status, f.name) for f in found] == [
        (_block_line("text = "), "discrepancy", "data")]
    assert "`V` is 16" in found[0].message and "prints 15" in found[0].message


@pytest.mark.parametrize(("first_ok", "code"), [(True, False), (False, True)])
def test_no_data_line_is_named_when_the_outputs_agree_or_a_code_line_is_named(
        first_ok: bool, code: bool) -> None:
    """A comment edited alone (the outputs still the note's), or a computation already
    located at its code line: the data lines are not blamed."""
    assert data_sources(BLOCK.text, _findings(first_ok, code), BLOCK.first_line) == []


def _check(tmp_path: Path, find: str, replace: str, capsys: pytest.CaptureFixture[str]) -> dict:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (REPO / "notes").iterdir():
        shutil.copy(p, notes / p.name)
    assert NOTE.count(find) == 1
    (notes / L1).write_text(NOTE.replace(find, replace), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k",
          "l1-7-program", "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    claims = json.loads(report.read_text(encoding="utf-8"))["claims"]
    return next(c for c in claims if c["id"] == "l1-7-program")


def _line(find: str) -> int:
    return NOTE[:NOTE.index(find)].count("\n") + 1


@pytest.mark.parametrize(("find", "replace", "says"), [
    ('我爱你。他喝水。"', '我爱你。他喝茶。"', "literal data"),  # the corpus edited: V = 16
    ("vocab = sorted(set(text), key=text.index)", "vocab = sorted(set(text))",
     "another order than their first occurrence"),  # ids by code point
    ("stoi = {c: i for i, c in enumerate(vocab)}", "stoi = {c: i for i, c in enumerate(vocab, 1)}",
     "the note's ids start at 0"),  # ids from 1: the program stops later, at E[cur]
])
def test_a_data_edit_is_named_at_its_line(tmp_path: Path, find: str, replace: str, says: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    claim = _check(tmp_path, find, replace, capsys)
    assert claim["status"] == "discrepancy"
    named = [v for v in claim["values"] if v["start"]["line"] == _line(find)]
    assert named and named[0]["status"] == "discrepancy" and says in named[0]["message"]
    assert any(v["status"] == "discrepancy" and v["start"]["line"] == _line("# 0 2.732")
               for v in claim["values"])  # and the printed output


def test_a_shape_comment_is_judged_against_the_traced_shape() -> None:
    """`# B×V`: the sizes are the set-up's integers, the shape the traced value's."""
    import numpy as np

    from verifiers.programs.codehole import shape_comments

    source = "V, d = 3, 2\nA = np.zeros((V, d))  # A: V×d\nB = A.T  # V×d\n"
    events = [(1, "V", -1, 3), (1, "d", -1, 2), (2, "A", -1, np.zeros((3, 2))),
              (3, "B", -1, np.zeros((2, 3)))]
    found = shape_comments(source, events)
    assert [(f.line, f.status, f.printed, f.expected) for f in found] == [
        (2, "verified", "V×d", "V×d"), (3, "discrepancy", "V×d", "2×3")]


def test_an_edited_shape_comment_fails_at_the_comment(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    find = "dWU = X.T @ G                                 # d×V"
    claim = _check(tmp_path, find, find.replace("d×V", "V×d"), capsys)
    bad = [v for v in claim["values"] if v["name"] == "shape" and v["status"] == "discrepancy"]
    assert [v["start"]["line"] for v in bad] == [_line(find)]
    assert "8×15" in bad[0]["message"]
