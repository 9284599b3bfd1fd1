"""``notecheck scaffold``: claim stubs for the numbers no claim checks yet.

One stub per note line that holds uncovered literals (a formula or a table
row): the line quoted, each uncovered literal already a hole ``⟨v1⟩``, the
section set, and the ``check`` left for the author. A stub checks nothing, so
it covers nothing until the author writes its check. Stubs are named by the
hash of the line they quote: re-running the scaffold adds only new ones.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from verifiers.coverage.literals import coverage
from verifiers.holes import ResolveError, find
from verifiers.notes import Literal, Note
from verifiers.verdicts import RunResult

__all__ = ["Stub", "render", "stubs"]


@dataclass(frozen=True)
class Stub:
    id: str
    line: int
    section: str | None
    quote: str
    holes: tuple[str, ...]


def stubs(result: RunResult, note_name: str, section: str | None = None,
          lines: tuple[int, int] | None = None) -> tuple[list[Stub], list[str]]:
    """Stubs for the uncovered literals of one note (optionally one section or line range)."""
    note = result.notes[note_name]
    covs, _ = coverage(result)
    uncovered = next(c for c in covs if c.note == note_name).uncovered
    if section is not None:
        scopes = note.scopes(section)
        uncovered = [lit for lit in uncovered if any(a <= lit.start < b for a, b in scopes)]
    if lines is not None:
        uncovered = [lit for lit in uncovered if lines[0] <= note.position(lit.start)[0]
                     <= lines[1]]
    by_line: dict[int, list[Literal]] = {}
    for lit in uncovered:
        by_line.setdefault(note.position(lit.start)[0], []).append(lit)
    existing = {c.id for c in result.claims}
    out, skipped = [], []
    stem = Path(note_name).stem
    for line_no, lits in sorted(by_line.items()):
        stub = _stub(note, stem, line_no, lits)
        if stub is None:
            skipped.append(f"{result.note_path(note_name)}:{line_no}: the line is not unique "
                           "in its section; write this claim by hand")
        elif stub.id not in existing:
            out.append(stub)
    return out, skipped


def _stub(note: Note, stem: str, line_no: int, lits: list[Literal]) -> Stub | None:
    line_start = note.offset(line_no, 1)
    line_text = note.line_text(line_no)
    quote, holes, pos = [], [], line_start
    for k, lit in enumerate(lits, start=1):
        quote.append(note.text[pos:lit.start])
        quote.append(f"⟨v{k}⟩")
        holes.append(f"v{k}")
        pos = lit.end
    quote.append(note.text[pos:line_start + len(line_text)])
    text = "".join(quote).strip()
    section = note.section_at(line_start)
    scopes = note.scopes(section.label) if section else [(0, len(note.text))]
    try:
        match = find(note.text, text, scopes, displays=note.displays)
    except ResolveError:
        return None
    spans = sorted((p.start, p.end) for p in match.values.values())
    if spans != [(lit.start, lit.end) for lit in lits]:
        return None  # a hole would read something else than the literal: leave it to a person
    digest = hashlib.sha256(line_text.strip().encode("utf-8")).hexdigest()[:10]
    return Stub(f"todo-{stem}-{digest}", line_no, section.label if section else None, text,
                tuple(holes))


def render(stub: Stub) -> str:
    """YAML for one stub; strings are JSON-quoted (valid YAML, nothing to escape by hand)."""
    lines = [f"  - id: {stub.id}"]
    if stub.section:
        lines.append(f"    section: {json.dumps(stub.section, ensure_ascii=False)}")
    lines.append(f"    says: {json.dumps(f'TODO: what line {stub.line} claims')}")
    lines.append(f"    text: {json.dumps(stub.quote, ensure_ascii=False)}")
    later = ", ".join(f"{h}: <how {h} follows from the others>" for h in stub.holes[1:])
    lines.append(f"    # TODO check: {{{later or stub.holes[0] + ': <expression>'}}}")
    return "\n".join(lines) + "\n"
