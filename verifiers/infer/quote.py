"""A unique quote for a candidate: its holes with the words between the nearest other printed
numbers on their lines when that is unique (:func:`_tight`), else whole lines, widened by
neighbouring lines until unique.

The notes repeat themselves (36 lines of one computed chain look alike), so a
quote of one line is often found several times in its section. The quote
grows by whole lines of context -- first the lines before, then after --
until :func:`verifiers.holes.find` resolves it exactly once and every hole
reads the very value the candidate was built from. Never line numbers: the
claim must survive edits elsewhere in the note.
"""

from __future__ import annotations

import re
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


def unique_quote(note: Note, holes: dict[str, Token],
                 formulas: dict[str, tuple[int, int]] | None = None,
                 words: dict[str, tuple[int, int]] | None = None) -> Quote | None:
    """The shortest whole-line quote (plus context) that resolves once to ``holes`` (and to
    the formula holes ``formulas`` and word holes ``words``, name -> span, written ``⟪F⟫``
    and ``⟦w⟧``)."""
    spans = sorted([(t.start, t.end, name) for name, t in holes.items()] +
                   [(a, b, f"⟪{name}") for name, (a, b) in (formulas or {}).items()] +
                   [(a, b, f"⟦{name}") for name, (a, b) in (words or {}).items()])
    section = note.section_at(spans[0][0])
    scope = (section.start, section.end) if section else (0, len(note.text))
    scopes = note.scopes(section.label) if section else [(0, len(note.text))]
    first = note.position(spans[0][0])[0]
    last = note.position(spans[-1][1])[0]
    tight = _tight(note, spans, first, last)
    if tight is not None and _resolves(note, tight, spans, scopes):
        return Quote(tight, section.label if section else None)
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
            parts += [note.text[pos:a], _hole(name)]
            pos = b
        parts.append(note.text[pos:end])
        text = "".join(parts).strip()
        if _resolves(note, text, spans, scopes):
            return Quote(text, section.label if section else None)
    return None


def _resolves(note: Note, text: str, spans: list[tuple[int, int, str]],
              scopes: list[tuple[int, int]]) -> bool:
    """Does ``text`` resolve exactly once, each hole reading the very value it was built from?"""
    try:
        match = find(note.text, text, scopes, displays=note.displays)
    except ResolveError:
        return False
    for mark, read in (("⟪", match.formulas), ("⟦", match.words)):
        if any(name[1:] not in read or read[name[1:]].start != a
               or read[name[1:]].text.strip() != note.text[a:b].strip()
               for a, b, name in spans if name.startswith(mark)):
            return False
    return all((match.values[name].start, match.values[name].end) == (a, b)
               for a, b, name in spans if name in match.values) \
        and set(match.values) == {name for _, _, name in spans if not name.startswith(("⟪", "⟦"))}


def _hole(name: str) -> str:
    """``⟨v1⟩`` for a value, ``⟪F⟫`` for a formula, ``⟦w⟧`` for a word (the span's name
    starts with ``⟪`` or ``⟦``)."""
    if name.startswith("⟪"):
        return f"{name}⟫"
    return f"{name}⟧" if name.startswith("⟦") else f"⟨{name}⟩"


_LEAD = " \t])},;:，；：、"
_TRAIL = " \t[({"


def _tight(note: Note, spans: list[tuple[int, int, str]], first: int, last: int) -> str | None:
    """The holes with the words around them on their lines, up to the nearest other printed
    number: an edit of a number the claim does not read (a vector printed before the sum of
    its products, a share printed after a ratio) then leaves the quote intact, where a whole
    line would go stale."""
    line_start = note.offset(first, 1)
    line_end = note.offset(last, len(note.line_text(last)) + 1)
    lits = note.literals_in(line_start, line_end)
    left = max([line_start] + [lit.end for lit in lits if lit.end <= spans[0][0]])
    right = min([line_end] + [lit.start for lit in lits if lit.start >= spans[-1][1]])
    parts, pos = [], left
    for a, b, name in spans:
        parts += [note.text[pos:a], _hole(name)]
        pos = b
    parts.append(note.text[pos:right])
    text = "".join(parts).lstrip(_LEAD).rstrip(_TRAIL)
    words = sum(ch.isalpha() for ch in _HOLE_RE.sub("", text))
    return text if words >= MIN_LETTERS else None  # `+ ⟨v1⟩ +` anchors nothing: whole lines


MIN_LETTERS = 1  # letters (or CJK characters) a tight quote needs outside its holes
_HOLE_RE = re.compile(r"⟨\w+⟩|⟪\w+⟫|⟦\w+⟧")
