"""One claim run on a copy of the real notes with one edit: the body the formula-edit tests
(test_formula_quotes5, test_read_by, test_formula_misses) share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_edited(tmp_path: Path, claim_id: str, note: str, find: str, replace: str
               ) -> tuple[Any, int]:
    """The verdict of claim ``claim_id`` after ``find`` → ``replace`` in ``note`` (``find``
    must occur once), and the line the edit starts on."""
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    path = notes / note
    text = path.read_text(encoding="utf-8")
    assert text.count(find) == 1, find
    line = text[:text.index(find)].count("\n") + 1
    path.write_text(text.replace(find, replace), encoding="utf-8")
    (edited,) = run(notes, ROOT / "claims", select=lambda c: c.id == claim_id).verdicts
    return edited, line
