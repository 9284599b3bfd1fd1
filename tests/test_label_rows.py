"""Label rows of printed distributions (``Token: 猫 追 我 <PAD> 老鼠 爱``) are read word by word
(issue 12 item 3: a printed trace's entries are judged, not quoted): the label above a printed
probability must be the token whose probability it is, so labels swapped or copied in
another order are a ``discrepancy`` at the labels, not a ``stale`` quote."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.run import run
from verifiers.words import word_ends

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
MBM = "matrix-by-matrix.txt"


def test_a_space_separated_word_is_tried_whole_first() -> None:
    text = "Token: <PAD> 老鼠 爱"
    pos = text.index("<")
    assert text[pos:word_ends(text, pos, len(text))[0]] == "<PAD>"
    assert text.index("P") + 1 in word_ends(text, pos, len(text))  # cuts still tried after


@pytest.mark.parametrize(("line", "find", "replace", "claim", "holes"), [
    (559, "Token: 猫 追 我 <PAD> 老鼠 爱", "Token: 猫 追 我 老鼠 <PAD> 爱", "mbm-9-2-topk",
     {"lb3", "lb4"}),
    (590, "Token: 猫 追 我 <PAD> 爱 老鼠", "Token: 猫 追 我 <PAD> 老鼠 爱", "mbm-10-2-topp",
     {"la4", "la5"}),
])
def test_swapped_labels_are_a_discrepancy_at_the_labels(tmp_path: Path, line: int, find: str,
                                                        replace: str, claim: str,
                                                        holes: set[str]) -> None:
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "notes", notes)
    path = notes / MBM
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[line - 1] == find
    lines[line - 1] = replace
    path.write_text("\n".join(lines), encoding="utf-8")
    with profiles.default("ci"):
        result = run(notes, ROOT / "claims", lambda c: c.id == claim)
    (verdict,) = result.verdicts
    bad = {v.name for v in verdict.values if v.status not in ("verified", "given")}
    assert verdict.status == "discrepancy" and bad == holes, verdict.message
    assert all(v.start[0] == line for v in verdict.values if v.name in holes)
