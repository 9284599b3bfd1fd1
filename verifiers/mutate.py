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

from verifiers.arithmetic.edits import number_at
from verifiers.arithmetic.routes import matches_a_route
from verifiers.engine import Engine, flat
from verifiers.notes import Note
from verifiers.run import load_claims, run
from verifiers.schema import Claim
from verifiers.verdicts import RunResult

_DIGIT = re.compile(r"[0-9]")


CAUGHT = "caught"
MISSED = "missed"
CORRECTED = "corrected"  # the new text is an honest route's value at its precision
APPROXIMATE = "approximate"  # accepted by an approximate word's ±1 of its last digit
UNREAD = "unread input"  # an input no check reads: an edit cannot change a verdict


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


def read_inputs(claims: list[Claim]) -> set[tuple[str, str]]:
    """(claim id, hole name) of every input that some expression reads."""
    from verifiers.expr import free_names

    read: set[tuple[str, str]] = set()
    for claim in claims:
        names: set[str] = set()
        for tree, _ in [*claim.where.values(), *claim.check.values()]:
            names |= free_names(tree)
        read |= {(claim.id, n) for n in names if n in claim.inputs}
        read |= {(use.claim_id, use.hole) for use in claim.uses.values()}
    return read


def affected(claims: list[Claim], spans: dict[str, tuple[int, int]], mutation: Mutation
             ) -> list[str]:
    """Claims whose quote covers the edited digit, and every claim that uses them."""
    return reach(claims, spans, mutation.offset, mutation.claim_id)


def reach(claims: list[Claim], spans: dict[str, tuple[int, int]], offset: int, claim_id: str
          ) -> list[str]:
    """``claim_id``, the claims whose quote covers note ``offset``, and their users."""
    dependents: dict[str, set[str]] = {}
    for claim in claims:
        for use in claim.uses.values():
            dependents.setdefault(use.claim_id, set()).add(claim.id)
    todo = [cid for cid, (start, end) in spans.items()
            if start <= offset < end]
    todo.append(claim_id)
    seen: list[str] = []
    while todo:
        cid = todo.pop()
        if cid not in seen:
            seen.append(cid)
            todo.extend(sorted(dependents.get(cid, ())))
    return seen


def outcome(notes: dict[str, Note], claims: list[Claim], mutation: Mutation,
            read: set[tuple[str, str]], spans: dict[str, tuple[int, int]]) -> str:
    """Re-run the claims the edit can reach, with one digit changed, and classify the result."""
    hole = mutation.hole.split("[", 1)[0]
    if (mutation.claim_id, hole) not in read and any(
            c.id == mutation.claim_id and hole in c.inputs for c in claims):
        return UNREAD
    original = notes[mutation.note]
    text = original.text
    edited = text[:mutation.offset] + mutation.new + text[mutation.offset + 1:]
    changed = dict(notes)
    changed[mutation.note] = Note(original.path, edited, original.name)
    engine = Engine(changed, claims)
    if any(not engine.verdict(cid).passed for cid in affected(claims, spans, mutation)):
        return CAUGHT
    return accepted(engine, mutation)


def accepted(engine: Engine, mutation: Mutation) -> str:
    """Why an edit that no claim noticed passed: its new text is some honest route's value
    at that precision (``corrected``), an approximate word's ±1, or nothing (``missed``)."""
    edited_value = next((v for v in engine.verdict(mutation.claim_id).values
                         if v.name == mutation.hole), None)
    ev = engine.evaluations[mutation.claim_id]
    state = ev.states.get(mutation.hole)
    if edited_value is None or edited_value.status != "verified" or state is None:
        return MISSED
    printed = ev.match.values[mutation.hole]
    i = number_at(printed, mutation.offset)
    if i is None:
        return MISSED
    candidates = [flat(part)[i] for part in state.candidates.values()]
    if matches_a_route(printed.numbers[i], candidates):
        return CORRECTED
    return APPROXIMATE if edited_value.approximate else MISSED


def survey(
    notes_dir: Path, claims_dir: Path, sample: int | None = None
) -> list[tuple[Mutation, str]]:
    """Apply every mutation (or an evenly spaced sample) and classify each outcome."""
    result = run(notes_dir, claims_dir)
    todo = mutations(result)
    if sample is not None and sample < len(todo):
        step = len(todo) / sample
        todo = [todo[int(i * step)] for i in range(sample)]
    notes = result.notes  # read once, by run()
    claims, _ = load_claims(claims_dir, set(notes))
    read = read_inputs(claims)
    spans = {}
    for v in result.verdicts:
        if v.span is not None and v.note in result.notes:
            note = result.notes[v.note]
            spans[v.id] = (note.offset(*v.span[0]), note.offset(*v.span[1]))
    return [(m, outcome(notes, claims, m, read, spans)) for m in todo]
