"""Printed sequences in a block of a note: arrow chains, box diagrams, "先…再…然后".

A note prints an order in many shapes, and an author's edit moves, swaps or replaces one
item of it. This module only reads the shape (light: no torch); what the items mean and
whether their order is tinygpt's is :mod:`verifiers.procedures.orders`' job.

Shapes read:

* a chain on one line: at least two arrows (``→ ⟶ -> ⇒ => ──→``, LaTeX ``\\to``,
  ``\\rightarrow``) between items holding a letter (``0.50 → 0.75`` is no chain);
* a vertical diagram: item lines joined by lines that hold only a frame and one ``↓``
  (``│ ↓ │``); an item line's item is its text before an arrow to its result
  (``Softmax (3×3) ──→ A：…`` reads ``Softmax (3×3)``), a branch line (``├─→``) ends it;
* a sentence of order words: ``先 A，再 B，然后 C``, ``first … then … finally``;
* numbered steps (``1. ``, ``步骤1：``, ``第1步``, ``Step 1``): each step's first clause.

Each item keeps its place in the block (0-based line, columns), so a finding points at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Item", "Sequence", "sequences", "symbol"]

_ARROW = re.compile(r"\s*(?:─*→|⟶|->|⇒|=>|\\to\b|\\rightarrow\b|\\longrightarrow\b"
                    r"|\\Rightarrow\b)\s*")
_FRAME = "│┃|├└┌┐┘┤┬┴┼─ \t\u3000"
_DOWN = re.compile(r"^[\s│┃|]*↓[\s│┃|]*$")
_STEP_NO = re.compile(r"^(?:\d{1,2}(?:\. |、|\.)|第\s*[一二三四五六七八九十\d]+\s*步\s*[，,：:]?|"
                      r"步骤\s*\d+\s*[：:]?|Step\s*\d+\s*[：:]?)\s*", re.IGNORECASE)
# a chain's first item starts after the last of these (prose before it), its last item ends
# at the first one after it
_SEP = re.compile(r"[：:，,。；;！？“”「」《》\"（）()【】]|\s\s|需要沿着|沿着|经过|就是|即|也就是")
_LETTER = re.compile(r"[^\W\d_]")
_PIECE = re.compile(r"[^，,、]+")
_BREAK = re.compile(r"[“”「」；;。！？]+[^“”「」；;。！？]*[“”「」；;。！？]+|[“”「」；;。！？]+")
_ORDER_WORDS = re.compile(r"(首先|先|再|然后|接着|随后|最后|之后|"
                          r"(?:(?<=^)|(?<=[，,；;。\s]))(?:first|then|next|finally|after that))"
                          r"(?=\S)", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One item of a sequence: its text and place in the block (0-based line, columns)."""

    text: str
    line: int
    col: int
    end: int


@dataclass(frozen=True)
class Sequence:
    """Items in their printed order; ``shape`` is chain, vertical or sentence."""

    shape: str
    items: tuple[Item, ...]


def _trim(line: str, a: int, b: int) -> tuple[int, int]:
    while a < b and line[a] in _FRAME:
        a += 1
    while b > a and line[b - 1] in _FRAME:
        b -= 1
    return a, b


def _chains(line: str, k: int) -> list[Sequence]:
    arrows = list(_ARROW.finditer(line))
    if len(arrows) < 2:
        return []
    bounds = [0] + [p for m in arrows for p in (m.start(), m.end())] + [len(line)]
    stages = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)]
    a0, b0 = stages[0]
    seps = list(_SEP.finditer(line, a0, b0))
    stages[0] = (seps[-1].end() if seps else a0, b0)
    a1, b1 = stages[-1]
    close = _SEP.search(line, a1, b1)
    stages[-1] = (a1, close.start() if close else b1)
    chains: list[list[Item]] = [[]]
    for a, b in stages:
        cut = list(_BREAK.finditer(line, a, b))
        if cut:  # 更新参数”；生成再接“选一个Token: one chain ends, another starts
            chains[-1].append(Item(line[a:cut[0].start()], k, a, cut[0].start()))
            chains.append([])
            a = cut[-1].end()
        a, b = _trim(line, a, b)
        chains[-1].append(Item(line[a:b], k, a, b))
    out = []
    for chain in chains:
        items = [Item(it.text, k, *_trim(line, it.col, it.end)) for it in chain]
        items = [Item(line[it.col:it.end], k, it.col, it.end) for it in items]
        if len(items) >= 3 and all(it.text and _LETTER.search(it.text) and len(it.text) <= 40
                                   for it in items):
            out.append(Sequence("chain", tuple(items)))
    return out


def _vertical_item(line: str, k: int) -> Item | None:
    if line.lstrip(" \t│┃|").startswith(("├", "└", "┌", "┐", "┘")):
        return None
    a, b = _trim(line, 0, len(line))
    if a >= b:
        return None
    m = _ARROW.search(line, a, b) or re.compile(r"\s*←").search(line, a, b)
    if m:
        b = _trim(line, a, m.start())[1]
    step = _STEP_NO.match(line, a)
    if step:
        a = step.end()
    text = line[a:b]
    if not text or not _LETTER.search(text) or "↓" in text:
        return None
    return Item(text, k, a, b)


def _connector(line: str) -> bool:
    """A line of a diagram between two items: only its frame and arrows down (``│ ↓ │``)."""
    return not line.strip(_FRAME + "↓▼")


def _verticals(lines: list[str]) -> list[Sequence]:
    out: list[Sequence] = []
    run: list[Item] = []

    def close() -> None:
        if len(run) >= 2:
            out.append(Sequence("vertical", tuple(run)))
        run.clear()

    for k, line in enumerate(lines):
        if _connector(line):
            continue
        item = _vertical_item(line, k)
        joined = bool(run) and any(_DOWN.match(lines[j]) for j in range(run[-1].line + 1, k))
        if item is None or not joined:
            close()
        if item is not None:
            run.append(item)
    close()
    return out


def _sentence(line: str, k: int) -> Sequence | None:
    marks = list(_ORDER_WORDS.finditer(line))
    if len(marks) < 2 or marks[0].group(1).lower() not in ("先", "首先", "first"):
        return None
    items = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(line)
        stop = re.search(r"[。；;！？]", line[m.end():end])
        b = m.end() + stop.start() if stop else end
        for piece in _PIECE.finditer(line, m.end(), b):
            a, e = _trim(line, piece.start(), piece.end())
            if a < e:
                items.append(Item(line[a:e], k, a, e))
    return Sequence("sentence", tuple(items)) if len(items) >= 2 else None


_NUMBER = re.compile(r"^[\s│┃|]*(?:(\d{1,2})(?:\. |、)|步骤\s*(\d{1,2})\s*[：:]|"
                     r"第\s*(\d{1,2})\s*步\s*[：:，,]?|Step\s+(\d{1,2})\s*[：:.]?)\s*(\S.*)$",
                     re.IGNORECASE)
_CLAUSE = re.compile(r"[，,。；;：:]")


def _steps(lines: list[str]) -> list[Sequence]:
    """Numbered steps 1, 2, 3 … (``1. ``, ``1、``, ``步骤1：``, ``第1步``, ``Step 1``) within a
    few lines of each other: each step's item is its first clause."""
    out: list[Sequence] = []
    run: list[tuple[int, Item]] = []

    def close() -> None:
        if len(run) >= 2:
            out.append(Sequence("steps", tuple(it for _, it in run)))
        run.clear()

    for k, line in enumerate(lines):
        m = _NUMBER.match(line)
        if m is None:
            if run and k - run[-1][1].line > 6:
                close()
            continue
        number = int(next(g for g in m.groups()[:4] if g))
        a = m.start(5)
        clause = _CLAUSE.search(line, a)
        b = _trim(line, a, clause.start() if clause and clause.start() > a else len(line))[1]
        if not (run and number == run[-1][0] + 1 and k - run[-1][1].line <= 6):
            close()
            if number != 1:
                continue
        if b > a:
            run.append((number, Item(line[a:b], k, a, b)))
    close()
    return out


def sequences(block: str) -> list[Sequence]:
    """Every printed sequence of the block, in order of its first item."""
    lines = block.split("\n")
    out: list[Sequence] = []
    for k, line in enumerate(lines):
        out += _chains(line, k)
        found = _sentence(line, k)
        if found is not None:
            out.append(found)
    out += _verticals(lines)
    out += _steps(lines)
    return sorted(out, key=lambda s: (s.items[0].line, s.items[0].col))


_LATEX = re.compile(r"\\(?:mathbf|mathrm|boldsymbol|text|operatorname)\s*")


def symbol(text: str) -> str:
    """An item as a bare symbol: ``W_{Q}`` -> ``W_Q``, ``h_{5}`` -> ``h_5``, ``$P$`` -> ``P``."""
    s = _LATEX.sub("", text).replace("$", "").replace("{", "").replace("}", "")
    return "".join(s.split())
