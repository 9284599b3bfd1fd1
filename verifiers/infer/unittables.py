"""Pattern family: a table whose columns hold one size in several units, and prose that quotes it.

    | 格式 | 每参数字节 | 总字节 | GB | GiB |
    | int8 | 1 | 6,738,415,616 | 6.74 | 6.28 |
    … 同一个 fp16 模型是 13.48 GB，却只有 12.55 GiB …

A column whose header is a unit word (``GB``, ``GiB``, ``M`` …, :mod:`verifiers.unit_words`)
restates, row by row, another column of the table (the one whose every row it fits at the unit's
factor): each cell is checked against it, and the header's unit word is a word hole read with
``states: unit`` (an edited header is a discrepancy at the word). A number in the prose after the
table that prints a cell of such a column, followed by a unit word, has that word read the same
way against the cell's row, so ``13.48 GiB`` for the GB column is a discrepancy at the word.

A reading of the table: kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.named import _tables
from verifiers.infer.tables import _cell, _close
from verifiers.infer.tokens import NUM, Token
from verifiers.infer.units import _unit
from verifiers.unit_words import readings

__all__ = ["unit_table_candidates"]

MAX_LINES = 8  # lines after the table where prose may quote it


def _factor(word: str) -> float | None:
    """The factor of a header that is exactly one unit word read one way, else None."""
    reads = readings(re.sub(r"[\s$()（）]", "", word))
    return reads[0][1] if len(reads) == 1 and reads[0][1] != 1 else None


def unit_table_candidates(text: str, tokens: list[Token], uncovered: set[int]
                          ) -> list[Candidate]:
    out: list[Candidate] = []
    for header, rows in _tables(text):
        grid = [[_cell(tokens, c) for c in row] for row in rows if len(row) == len(header)]
        if len(grid) < 2:
            continue
        for j, span in enumerate(header):
            factor = _factor(text[span[0]:span[1]])
            if factor is None or any(r[j] is None for r in grid):
                continue
            base = next((b for b in range(len(header)) if b != j and all(
                r[b] is not None and _close(r[b][1] / factor, r[j])  # type: ignore[index]
                for r in grid)), None)
            if base is None:
                continue
            word = re.search(r"[^\s|$()（）]+", text[span[0]:span[1]])
            if word is None:
                continue
            out.append(_column(grid, j, base, factor, (span[0] + word.start(),
                                                          span[0] + word.end())))
            out += _prose(text, tokens, rows, grid, j, base, factor)
    return out


def _number(x: float) -> str:
    return str(int(x)) if x == int(x) else repr(x)


def _column(grid: list[list[tuple[Token, float, float] | None]], j: int, base: int,
            factor: float, word: tuple[int, int]) -> Candidate:
    """Every cell of column ``j`` = its row's ``base`` cell / the unit's factor; the header's
    unit word read with ``states: unit`` over the first row."""
    cand = Candidate("unit table", "inferred: a column restates another in its header's unit")
    for k, row in enumerate(grid, start=1):
        b, c = row[base], row[j]
        assert b is not None and c is not None
        cand.holes[f"b{k}"] = b[0]
        cand.holes[f"c{k}"] = c[0]
        cand.checks.append(Check(f"c{k}", f"b{k} / {_number(factor)}", False))
    cand.extra = ["    states:", "      u: {unit: \"b1 / c1\"}"]
    cand.words = {"u": word}
    return cand


def _prose(text: str, tokens: list[Token], rows: list[list[tuple[int, int]]],
           grid: list[list[tuple[Token, float, float] | None]], j: int, base: int,
           factor: float) -> list[Candidate]:
    """A number after the table that prints a cell of column ``j``, then a unit word: the
    word is read, and the number checked against the cell's row (never read as an input
    only)."""
    end = rows[-1][-1][1]
    limit = end
    for _ in range(MAX_LINES):
        nxt = text.find("\n", limit + 1)
        limit = len(text) if nxt < 0 else nxt
    cells = {row[j][0].text: row for row in grid if row[j] is not None}
    out = []
    for tok in tokens:
        if tok.kind != NUM or not end < tok.start < limit or tok.text not in cells:
            continue
        line_end = text.find("\n", tok.end)
        unit = _unit(text, tok.end, len(text) if line_end < 0 else line_end)
        if unit is None or len(readings(unit[0])) != 1:
            continue
        row = cells[tok.text]
        b = row[base]
        assert b is not None
        cand = Candidate("unit table", "inferred: the unit word after a value the table "
                         "prints names the unit of its column", {"b": b[0], "v": tok},
                         [Check("v", f"b / {_number(factor)}", False)], {},
                         ["    states:", "      u: {unit: \"b / v\"}"])
        cand.words = {"u": (unit[2], unit[3])}
        out.append(cand)
    return out
