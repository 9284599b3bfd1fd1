"""Formulas read since branch formulas4: each edit is a discrepancy at the edited line.

Two general gaps closed: a restatement of *words* no longer hides the math inside the words
(``verifiers/formulas/restated_words.py``), and plain-text formulas that a quote skipped are
read by a claim of their own. Each conversion gets an edit here (a flipped index, a dropped
root, a wrong shape) that must fail at the note's line, and the unedited note must pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.formulas.restated_words import words_differ

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
AAT = "architecture-and-training.txt"
L1 = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"


def test_words_keep_their_formulas() -> None:
    restated = r"\sum_{m} (e_i)_m E_{mk} = \delta_{ii} E_{ik}"
    reason = 'the note says it in words ("求和里只有 $m=i$ 那一项不为 0")'
    assert words_differ("求和里只有 $m=i$ 那一项不为 0", restated, reason) is None
    assert words_differ("求和里只有 $m = i$ 那一项不为 0", restated, reason) is None  # spacing
    bad = words_differ("求和里只有 $m=k$ 那一项不为 0", restated, reason)
    assert bad is not None and "'m=k'" in bad
    assert words_differ("求和里只有一项不为 0", restated, reason) is None  # no math: nothing


EDITS = [
    # a restatement of words: the inline math of the words is kept
    ("l1-c-2-onehot-step3", "只有 $m=i$ 那一项", "只有 $m=k$ 那一项", 93, L1),
    ("aat-s-12-5-input-gradient", "若 $x_{i} = E_{t_{i}, :} + p_{i}$", "若 $x_{i} = E_{t_{i}, :} - p_{i}$",
     2463, AAT),
    # 3.2's divisor, skipped by the arithmetic claim's quote, read with its value
    ("mbm-f4-3-2-divide-by", "除以 √d_k = 1.732 后", "除以 d_k = 1.732 后", 207, MBM),
]


def _verdicts(tmp_path: Path, cid: str, name: str, find: str, replace: str) -> tuple:
    """The claim's verdict on the notes as they are, then with the one edit."""
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    note = notes / name
    text = note.read_text(encoding="utf-8")
    assert text.count(find) == 1
    (clean,) = run(notes, CLAIMS, select=lambda c: c.id == cid).verdicts
    note.write_text(text.replace(find, replace), encoding="utf-8")
    (edited,) = run(notes, CLAIMS, select=lambda c: c.id == cid).verdicts
    return clean, edited


@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{e[3]}" for e in EDITS])
def test_an_edited_formula_fails_at_its_line(tmp_path: Path, cid: str, find: str, replace: str,
                                             line: int, name: str) -> None:
    clean, edited = _verdicts(tmp_path, cid, name, find, replace)
    assert clean.status in ("verified", "known"), clean.message
    assert edited.status == "discrepancy", edited.message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited.values)
