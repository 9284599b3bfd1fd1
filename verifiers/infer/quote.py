"""A unique quote for a candidate: whole lines, widened by neighbouring lines until unique.

The notes repeat themselves (36 lines of one computed chain look alike), so a
quote of one line is often found several times in its section. The quote
grows by whole lines of context -- first the lines before, then after --
until :func:`verifiers.holes.find` resolves it exactly once and every hole
reads the very value the candidate was built from. Never line numbers: the
claim must survive edits elsewhere in the note.
"""

from __future__ import annotations

from dataclasses import dataclass

from verifiers.holes import ResolveError, find
from verifiers.infer.tokens import Token
from verifiers.notes import Note

__all__ = ["Quote", "unique_quote"]

MAX_CONTEXT = 3  # lines of context on each side before giving up


@dataclass(frozen=True)
class Quote:
    text: str
    section: str | None


def unique_quote(note: Note, holes: dict[str, Token]) -> Quote | None:
    """The shortest whole-line quote (plus context) that resolves once to ``holes``."""
    spans = sorted((t.start, t.end, name) for name, t in holes.items())
    section = note.section_at(spans[0][0])
    scope = (section.start, section.end) if section else (0, len(note.text))
    scopes = note.scopes(section.label) if section else [(0, len(note.text))]
    first = note.position(spans[0][0])[0]
    last = note.position(spans[-1][1])[0]
    tries = [(up, 0) for up in range(MAX_CONTEXT + 1)] + \
        [(MAX_CONTEXT, down) for down in range(1, MAX_CONTEXT + 1)]
    for up, down in tries:
        a_line, b_line = max(1, first - up), min(note.line_count, last + down)
        start = max(note.offset(a_line, 1), scope[0])
        end = min(note.offset(b_line, len(note.line_text(b_line)) + 1), scope[1])
        if section is not None and start < section.header_end and up:
            start = section.header_end  # never quote the heading's label itself
        if start > spans[0][0] or end < spans[-1][1]:
            continue
        parts, pos = [], start
        for a, b, name in spans:
            parts += [note.text[pos:a], f"⟨{name}⟩"]
            pos = b
        parts.append(note.text[pos:end])
        text = "".join(parts).strip()
        try:
            match = find(note.text, text, scopes, displays=note.displays)
        except ResolveError:
            continue
        if all((match.values[name].start, match.values[name].end) == (a, b)
               for a, b, name in spans if name in match.values) \
                and set(match.values) == {name for _, _, name in spans}:
            return Quote(text, section.label if section else None)
    return None
