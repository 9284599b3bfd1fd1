"""Procedures drawn inside a box (matrix-by-matrix 11.3: ``│ │ Softmax → 概率分布 │ │`` lines
joined by ``↓``): the frame stays in place and the step's text moves with it, so two lines
swapped are read and judged (``discrepancy``), not ``stale``; a replaced word is judged too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
MBM = "matrix-by-matrix.txt"
CLAIM = "mbm-proc-11-3-decoding-box"
TEMPERATURE, SOFTMAX = "│ │ （可选）÷ Temperature │ │", "│ │ Softmax → 概率分布 │ │"


def _verdict(tmp_path: Path, edit=None):  # type: ignore[no-untyped-def]
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "notes", notes)
    path = notes / MBM
    text = path.read_text(encoding="utf-8")
    if edit is not None:
        path.write_text(edit(text), encoding="utf-8")
    with profiles.default("ci"):
        (verdict,) = run(notes, ROOT / "claims", lambda c: c.id == CLAIM).verdicts
    return verdict


def _line(text: str) -> int:
    note = (ROOT / "notes" / MBM).read_text(encoding="utf-8")
    return note[:note.index(text)].count("\n") + 1


def test_the_box_verifies(tmp_path: Path) -> None:
    assert _verdict(tmp_path).status == "verified"


@pytest.mark.parametrize(("edit", "says", "line"), [
    (lambda t: t.replace(TEMPERATURE, "@").replace(SOFTMAX, TEMPERATURE).replace("@", SOFTMAX),
     "softmax", TEMPERATURE),  # two lines of the box swapped
    (lambda t: t.replace("│ │ 按概率采样 → 选中 Token │ │", "│ │ 按概率取最大 → 选中 Token │ │"),
     "argmax", "│ │ 按概率采样 → 选中 Token │ │"),  # sampling replaced by greedy
])
def test_an_edit_inside_the_box_is_judged_at_its_line(tmp_path: Path, edit, says: str,
                                                      line: str) -> None:
    verdict = _verdict(tmp_path, edit)
    assert verdict.status == "discrepancy", verdict.message
    assert says in verdict.message and verdict.where[0] == _line(line)
