"""One-digit edits of the notes: does the suite notice every printed number it covers?

A mutation changes the last digit of one printed number inside one hole and
re-runs the claims of that note against the edited text. It is *caught* when
some claim stops passing. This is the measure behind "a one-digit edit
anywhere is caught".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from verifiers.engine import Engine
from verifiers.notes import Note
from verifiers.run import RunResult, load_claims, load_notes, run
from verifiers.schema import Claim

_DIGIT = re.compile(r"[0-9]")


@dataclass(frozen=True)
class Mutation:
    note: str
    claim_id: str
    hole: str
    offset: int  # of the digit in the note text
    old: str
    new: str
    line: int
    col: int


def mutations(result: RunResult) -> list[Mutation]:
    """One mutation per value (hole) of every resolved claim: its last digit, +1 mod 10."""
    found: dict[tuple[str, int], Mutation] = {}
    for verdict in result.verdicts:
        note = result.notes.get(verdict.note)
        if note is None:
            continue
        for value in verdict.values:
            start = note.offset(*value.start)
            end = note.offset(*value.end)
            digits = list(_DIGIT.finditer(note.text, start, end))
            if not digits:
                continue
            d = digits[-1]
            new = str((int(d.group()) + 1) % 10)
            key = (verdict.note, d.start())
            found.setdefault(key, Mutation(verdict.note, verdict.id, value.name, d.start(),
                                           d.group(), new, *note.position(d.start())))
    return sorted(found.values(), key=lambda m: (m.note, m.offset))


def is_caught(notes: dict[str, Note], claims: list[Claim], mutation: Mutation) -> bool:
    """Re-run the note's claims with one digit changed; caught if any claim fails."""
    original = notes[mutation.note]
    text = original.text
    edited = text[:mutation.offset] + mutation.new + text[mutation.offset + 1:]
    changed = dict(notes)
    changed[mutation.note] = Note(original.path, edited, original.name)
    mine = [c for c in claims if c.note == mutation.note]
    engine = Engine(changed, claims)
    return any(not engine.verdict(c.id).passed for c in mine)


def survey(
    notes_dir: Path, claims_dir: Path, sample: int | None = None
) -> list[tuple[Mutation, bool]]:
    """Apply every mutation (or an evenly spaced sample) and report which are caught."""
    result = run(notes_dir, claims_dir)
    todo = mutations(result)
    if sample is not None and sample < len(todo):
        step = len(todo) / sample
        todo = [todo[int(i * step)] for i in range(sample)]
    notes = load_notes(notes_dir)
    claims, _ = load_claims(claims_dir, set(notes))
    return [(m, is_caught(notes, claims, m)) for m in todo]
