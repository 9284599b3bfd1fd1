"""Formulas that claims quoted as literal text, now read (issue 12 item 2, session 21).

Each edit below changed a formula (or a name that indexes a printed row) that some claim
quoted character by character, so the edit made that claim ``stale`` and nothing said what
was wrong. Now a claim reads it, and the edit is a real verdict (``discrepancy``, or
``unparsed`` where nothing can be evaluated) at the edited line. The clean verdict is checked
too: a reading that fails on the note as it is would prove nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
AAT = "architecture-and-training.txt"
L1 = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"

#: (claim, text in the note, its edit, the edited line, note)
EDITS = [
    # held-out misses of the planted corpus, fixed by reading the formula / the index
    ("aat-fq-9-3-softmax-entries", r"P_{j} = \frac{e^{ℓ_{j}}}", r"P_{j} = \frac{e^{-ℓ_{j}}}",
     1653, AAT),
    ("aat-3-1-score-table", "$k_{2}$\t0", "$k_{3}$\t0", 235, AAT),
    ("l1-fq-4-row-of-product", "行是 $X_{t,:}W$", "行是 $X_{:,t}W$", 131, L1),
    ("l1-fq-4-row-of-product", "行是 $X_{t,:}W$", "行是 $W X_{t,:}$", 131, L1),
    # 9.2 and 9.4, quoted by aat-s-p-9-4-prediction before
    ("aat-fq-9-2-logits", "ℓ = h_{5} W_{out} + b\n", "ℓ = h_{5} W_{out} - b\n", 1616, AAT),
    ("aat-s-p-9-4-prediction", "H = F_{θ} (X)\n", "H = F_{θ} (X) + X\n", 1672, AAT),
]


def _edited(tmp_path: Path, cid: str, name: str, find: str, replace: str):
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    note = notes / name
    text = note.read_text(encoding="utf-8")
    assert text.count(find) == 1, find
    note.write_text(text.replace(find, replace), encoding="utf-8")
    (edited,) = run(notes, CLAIMS, select=lambda c: c.id == cid).verdicts
    return edited


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{k}" for k, e in enumerate(EDITS)])
def test_an_edited_quoted_formula_fails_at_its_line(tmp_path: Path, real_verdict, cid: str,
                                                    find: str, replace: str, line: int,
                                                    name: str) -> None:
    clean = real_verdict(cid)
    assert clean.status in ("verified", "known"), clean.message
    edited = _edited(tmp_path, cid, name, find, replace)
    assert edited.status in ("discrepancy", "unparsed"), edited.message
    assert any(v.status in ("discrepancy", "unparsed") and v.start[0] == line
               for v in edited.values), [(v.name, v.status, v.start) for v in edited.values]
