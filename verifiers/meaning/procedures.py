"""Procedures in a note: numbered steps and pipeline diagrams.

Numbered steps
    A step marker is ``N. `` or ``N、`` opening a line (after spaces), or ``第N步`` /
    ``第一步`` … ``第十步`` / ``Step N`` anywhere. A procedure is a run of markers of one
    style numbered 1, 2, … (at least two steps) with no heading between two of its
    steps; it spans from its first marker to the end of its last step's line (or a
    heading glued to that line). Any other
    marker of the same style (a new ``1.``) ends the run and may start the next.

Pipelines
    ``A → B → C``: in one sentence (split at ``。！？；``), at least three stages joined by
    ``→``, ``⟶`` or ``->``, every stage holding a letter (so ``0.50 → 0.75 → 0.90``, a
    sequence of numbers, is not a pipeline). The first stage starts after the last
    separator (``：:，,``, brackets, quotes, box-drawing characters) before the first
    arrow, a bracketed note ending it aside (``学习（10）→``); the last stage ends at the
    first separator after the last arrow.

``headings`` (offsets where headings start, from the note's index) keeps a procedure
inside one section: a heading between two markers ends the run (a heading glued to the
end of a step's line does not). Without it any text may lie between two steps.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Collection

from verifiers.meaning.items import Item

__all__ = ["find_procedures"]

_CN_DIGITS = {c: i for i, c in enumerate("一二三四五六七八九十", start=1)}
_LIST_MARKER = re.compile(r"^[ \t\u3000]*(\d{1,2})(?:\. |、)", re.M)
_CN_STEP = re.compile(r"第\s*([一二三四五六七八九十]|\d{1,2})\s*步")
_EN_STEP = re.compile(r"\bStep\s+(\d{1,2})\b", re.IGNORECASE)
_ARROW = re.compile(r"\s*(?:→|⟶|->)\s*")
_PIECE = re.compile(r"[^。！？；\n]+")
_SEP = re.compile(r"[：:，,（(）)“”「」《》\"│├└┌┐┘┤─]")
_LETTER = re.compile(r"[^\W\d_]")


def _number(label: str) -> int:
    return _CN_DIGITS[label] if label in _CN_DIGITS else int(label)


def _line_end(text: str, pos: int) -> int:
    k = text.find("\n", pos)
    return len(text) if k < 0 else k


def _steps(text: str, markers: list[tuple[int, int]], headings: list[int]) -> list[Item]:
    """Runs 1, 2, … of one style's markers (offset, number) -> procedures."""
    out = []
    run: list[tuple[int, int]] = []

    def close() -> None:
        if len(run) >= 2:
            start, end = run[0][0], _line_end(text, run[-1][0])
            k = bisect.bisect_right(headings, run[-1][0])  # a heading glued to the last step
            end = min(end, headings[k]) if k < len(headings) else end
            first = text[start:_line_end(text, start)].strip()
            out.append(Item("procedure", f"{first} … ({len(run)} steps)", start, end))

    for offset, number in markers:
        crossing = bool(run) and bisect.bisect_right(headings, offset) \
            > bisect.bisect_right(headings, run[-1][0])
        if run and number == run[-1][1] + 1 and not crossing:
            run.append((offset, number))
            continue
        close()
        run = [(offset, number)] if number == 1 else []
    close()
    return out


def _first_stage(text: str, a: int, b: int) -> tuple[int, int]:
    """The first stage starts after the last separator before it, not counting a bracketed
    note that ends it (``学习（10）→``)."""
    stage = text[a:b].rstrip()
    limit = b
    if stage.endswith(("）", ")")):
        opener = max(stage.rfind("（"), stage.rfind("("))
        limit = a + opener if opener >= 0 else b
    seps = list(_SEP.finditer(text, a, limit))
    return (seps[-1].end() if seps else a), b


def _pipelines(text: str) -> list[Item]:
    out = []
    for piece in _PIECE.finditer(text):
        arrows = list(_ARROW.finditer(text, piece.start(), piece.end()))
        if len(arrows) < 2:
            continue
        # stages between consecutive arrows; a stage without a letter splits the chain
        bounds = [piece.start()] + [p for a in arrows for p in (a.start(), a.end())]
        bounds.append(piece.end())
        stages = [(bounds[k], bounds[k + 1]) for k in range(0, len(bounds), 2)]
        stages[0] = _first_stage(text, *stages[0])
        last = stages[-1]
        close = _SEP.search(text, *last)
        stages[-1] = (last[0], close.start() if close else last[1])
        chain: list[tuple[int, int]] = []
        for stage in [*stages, None]:
            if stage is not None and _LETTER.search(text, *stage) and \
                    text[stage[0]:stage[1]].strip():
                chain.append(stage)
                continue
            if len(chain) >= 3:
                a, b = chain[0][0], chain[-1][1]
                while text[a].isspace():
                    a += 1
                while text[b - 1].isspace():
                    b -= 1
                out.append(Item("procedure", text[a:b], a, b))
            chain = []
    return out


def find_procedures(text: str, headings: Collection[int] = ()) -> list[Item]:
    """Every procedure of a note's text, in order of its start."""
    starts = sorted(set(headings))
    found: list[Item] = []
    for pattern in (_LIST_MARKER, _CN_STEP, _EN_STEP):
        markers = [(m.start(1) if pattern is _LIST_MARKER else m.start(), _number(m[1]))
                   for m in pattern.finditer(text)]
        found += _steps(text, markers, starts)
    found += _pipelines(text)
    return sorted(found, key=lambda item: (item.start, item.end))
