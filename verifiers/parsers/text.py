"""Plain-text notes: headings are numbered lines, everything else is prose.

The three notes of the repository are exports of a chat and of a slide deck: no
markup, so a heading is a number at the start of a line (or glued to the end of
the previous one), and a formula ends with its line.

Headings
    * ``第 3 章：…`` / ``第3章：…`` -> level 1, label ``第3章``;
    * ``3.3 …`` -> level 2, label ``3.3``;
    * ``§5…`` at line start -> level 1, label ``§5``.

    A heading at line start is always accepted for chapters and ``§N``; a
    ``N.M`` heading is accepted when it continues the numbering (``N.M+1`` of the
    current chapter ``N``, a later ``N.K`` at line start, or ``N+1.1``). The
    export of matrix-by-matrix glues most headings to the end of the previous
    line (``… 假设词表大小为61.2 Token 到索引``), so the *next expected* label is
    also searched anywhere in a line: a glued ``N.M`` must be followed by
    whitespace and a title (a letter or CJK character), a glued chapter by
    ``：``. A heading's title runs to the end of its line.

Literals follow the shared rules of :mod:`verifiers.parsers.abstract`; a
plain-text note has no display units.
"""

from __future__ import annotations

import re

from verifiers.parsers.abstract import Heading, Note

__all__ = ["TextNote", "find_numbered_headings"]

_HSPACE = "[ \t\u3000\u00a0]"
_CHAPTER_RE = re.compile(rf"第{_HSPACE}*([0-9]+){_HSPACE}*章(?={_HSPACE}*[：:])")
_TITLE_START = '(?:[^\\W\\d_]|["“「（(《【])'  # a letter (CJK included) or an opening quote
_SUB_RE = re.compile(rf"([0-9]+)\.([0-9]+)(?![0-9])(?={_HSPACE}+{_TITLE_START})")
_SECTION_SIGN_RE = re.compile(rf"§([0-9]+)(?![0-9])(?={_HSPACE}*{_TITLE_START})")


def find_numbered_headings(text: str) -> list[Heading]:
    """Find headings in document order, following the numbering (see module docstring)."""
    found: list[Heading] = []
    chapter: int | None = None
    sub = 0
    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        lead = len(line) - len(line.lstrip(" \t\u3000"))
        col = lead
        absent: dict[object, int] = {}  # label -> column from which the line has none
        while col < len(line):
            best: tuple[int, Heading, int | None, int] | None = None
            # line-start forms
            if col == lead:
                m = _CHAPTER_RE.match(line, col)
                if m:
                    n = int(m[1])
                    best = (m.start(), Heading(f"第{n}章", 1, m.start(), m.end()), n, 0)
                m = _SECTION_SIGN_RE.match(line, col) if best is None else None
                if m:
                    best = (m.start(), Heading(f"§{m[1]}", 1, m.start(), m.end()), chapter, sub)
                m = _SUB_RE.match(line, col) if best is None else None
                if m:
                    major, minor = int(m[1]), int(m[2])
                    if (chapter is not None and major == chapter and minor > sub) or (
                        minor == 1 and major == (chapter or 0) + 1
                    ):
                        best = (col, Heading(m[0], 2, col, m.end()), major, minor)
            # glued forms: only the next expected label, anywhere in the line
            if best is None:
                nxt = (chapter or 0) + 1
                cands: list[tuple[int, Heading, int | None, int]] = []
                # Each search remembers where it found nothing, so a long line with many
                # glued headings is read in linear time.
                for m in _CHAPTER_RE.finditer(line, col) if absent.get(nxt, col + 1) > col else ():
                    if int(m[1]) == nxt:
                        cands.append(
                            (m.start(), Heading(f"第{nxt}章", 1, m.start(), m.end()), nxt, 0)
                        )
                        break
                else:
                    absent[nxt] = col
                expected = [(nxt, 1)] + ([(chapter, sub + 1)] if chapter is not None else [])
                for major, minor in expected:
                    label = f"{major}.{minor}"
                    k = line.find(label, col) if absent.get(label, col + 1) > col else -1
                    while k >= 0:
                        m = _SUB_RE.match(line, k)
                        if m and m[0] == label and not (k and line[k - 1] == "."):
                            cands.append((k, Heading(label, 2, k, m.end()), major, minor))
                            break
                        k = line.find(label, k + 1)
                    else:
                        absent[label] = col
                if cands:
                    best = min(cands, key=lambda c: c[0])
            if best is None:
                break
            _, heading, chapter, sub = best
            heading.start += line_start
            heading.label_end += line_start
            found.append(heading)
            col = heading.label_end - line_start
    return found


class TextNote(Note):
    """A plain-text note (``.txt`` and any suffix without a parser of its own)."""

    suffixes = (".txt",)
    format = "text"

    def _find_headings(self) -> list[Heading]:
        return find_numbered_headings(self.text)
