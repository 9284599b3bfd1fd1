"""Pattern family: a table column whose header states its formula in the other headers.

``| $i$ | $\\theta_i$ | wavelength $2\\pi/\\theta_i$ |``, ``| $x$ | $x^2$ |``: a header whose math
is a lone name is that column's *symbol*; a header whose math is an expression in symbols
of other columns is a formula, and each row's number under it is checked against the
formula over that row's numbers. A table may be written sideways (``| head $h$ | 1 | 2 |``
over ``| slope $2^{-h}$ | 0.5 | 0.25 |``): its first column is read as the header.

A cell that computes from printed numbers (``$2^{10}$``) is checked against the lone number
right of it (:func:`expression_cell_candidates`).

The header is stated by the note, but which printed precision the author meant is not, so
the checks are ambiguous: kept only when the engine verifies them, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.parse import parse_segment
from verifiers.infer.tables import _cell, _close, _rows
from verifiers.infer.tokens import NAME, NUM, OTHER, VAL, Token
from verifiers.infer.units import _evaluate_float

__all__ = ["expression_cell_candidates", "header_formula_candidates"]

Span = tuple[int, int]
_MATH_RE = re.compile(r"\$([^$\n]+)\$")


def _header(text: str, first_row: int) -> list[Span] | None:
    """The cells of the header row above a Markdown table's separator, else None."""
    sep_end = text.rfind("\n", 0, first_row)
    sep_start = text.rfind("\n", 0, sep_end) + 1
    if sep_end < 0 or not set(text[sep_start:sep_end].strip()) <= set("|-: ") \
            or sep_start == 0:
        return None
    start = text.rfind("\n", 0, sep_start - 1) + 1
    line = text[start:sep_start - 1]
    bars = [start + k for k, ch in enumerate(line) if ch == "|"]
    return [(a + 1, b) for a, b in zip(bars, bars[1:], strict=False)] or None


def _math(text: str, tokens: list[Token], span: Span) -> list[Token]:
    """The tokens of a header's math (``wavelength $2\\pi / \\omega_i$``), else []."""
    m = _MATH_RE.search(text, span[0], span[1])
    if m is None:
        return []
    return [t for t in tokens if m.start(1) <= t.start < m.end(1)
            and not (t.kind == OTHER and t.text == "$")]


def _checks(text: str, tokens: list[Token], heads: list[list[Token]],
            records: list[list[Span]], uncovered: set[int]) -> Candidate | None:
    """One candidate: every formula header's column, over the records (rows) below it."""
    symbols = {h[0].text: j for j, h in enumerate(heads) if len(h) == 1 and h[0].kind == NAME}
    cand = Candidate("table", "inferred: a column computed by its header's formula")
    for target, head in enumerate(heads):
        if len(head) < 2 or not any(t.kind == NAME and symbols.get(t.text, target) != target
                                    for t in head):
            continue
        names = {t.start: f"h{t.start}" for t in head if t.kind in (NUM, VAL)}
        for record in records:
            if target >= len(record):
                continue
            res = _cell(tokens, record[target])
            if res is None or res[0].start not in uncovered:
                continue

            def bind(tok: Token, record: list[Span] = record) -> Token | None:
                j = symbols.get(tok.text)
                cell = _cell(tokens, record[j]) if j is not None and j < len(record) else None
                return None if cell is None else cell[0]

            e = parse_segment(head, names, bind)
            if e is None or e.ops == 0 or not e.uses:
                break  # a header that is no formula in the symbols: nothing in this column
            expr = e.text
            for local, tok in e.uses.items():
                expr = re.sub(rf"(?<![A-Za-z0-9_]){local}(?![A-Za-z0-9_])", f"t{tok.start}", expr)
                cand.holes[f"t{tok.start}"] = tok
            cand.holes.update({f"h{t.start}": t for t in head if t.kind in (NUM, VAL)})
            cand.holes[f"t{res[0].start}"] = res[0]
            cand.checks.append(Check(f"t{res[0].start}", expr, False))
    return cand if cand.checks else None


def header_formula_candidates(text: str, tokens: list[Token], uncovered: set[int]
                              ) -> list[Candidate]:
    out = []
    for rows in _rows(text):
        header = _header(text, rows[0][0][0]) if rows and rows[0] else None
        if header is None:
            continue
        grid = [header] + rows
        heads = [_math(text, tokens, span) for span in header]
        down = _checks(text, tokens, heads, rows, uncovered)
        # sideways: the first column names the rows, each later column is a record
        side_heads = [_math(text, tokens, r[0]) for r in grid]
        width = min(len(r) for r in grid)
        records = [[r[j] for r in grid] for j in range(1, width)]
        side = _checks(text, tokens, side_heads, records, uncovered)
        out += [c for c in (down, side) if c is not None]
    return out


def expression_cell_candidates(text: str, tokens: list[Token], uncovered: set[int]
                               ) -> list[Candidate]:
    """``| 1 | $10000^{-0.25}$ | 0.1 |``, ``| $2^{10}$ | 1024 |``: a cell that computes from
    printed numbers, and the lone number in the cell right of it, is its value (every row of
    the column alike: a table is one reading). Kept only when verified."""
    from verifiers.infer.tables import cell_tokens

    out = []
    for rows in _rows(text):
        cand = Candidate("table", "inferred: a cell's expression and the value next to it")
        for row in rows:
            cells = cell_tokens(tokens, row)
            for j in range(len(cells) - 1):
                res = _cell(tokens, row[j + 1])
                if res is None or res[0].start not in uncovered or not cells[j] \
                        or any(t.kind == OTHER for t in cells[j]):  # words: a label
                    continue
                names = {t.start: f"c{t.start}" for t in cells[j] if t.kind == NUM}
                e = parse_segment(cells[j], names)
                if e is None or e.ops == 0 or e.uses or e.shape != "scalar" \
                        or e.text.startswith("(-") and e.ops == 1:  # `-0.2`: a signed value
                    continue
                got = _evaluate_float(cells[j], e.text, names)
                if got is None or not _close(got, res):
                    continue  # a sieve: the engine decides exactly
                cand.holes.update({names[t.start]: t for t in cells[j] if t.kind == NUM})
                cand.holes[f"t{res[0].start}"] = res[0]
                cand.checks.append(Check(f"t{res[0].start}", e.text, False))
        if cand.checks:
            out.append(cand)
    return out
