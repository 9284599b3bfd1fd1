"""Pattern family: the shape printed next to a matrix's name is the shape of the matrix printed.

Notes that work matrices by hand announce each one with its shape::

    W_q (4 × 3)：
    q0 q1 q2
    [[0.10, 0.20, 0.30],
    ...
    注意力权重矩阵 A (3 × 3)：
    位置0 [ 0.504, 0.293, 0.203 ] # 猫的关注分布
    ...
    输入 X（4 × 4）：

A parenthesised ``(r × c)`` (``×``, ``x``, ``*``; full-width brackets; a comment after a
comma, ``（3 × 3，竖直边缘检测）``) or ``\\mathbb{R}^{r \\times c}``, followed on its line
after ``=``/``：`` or on the next lines (blank lines or one header line of labels may sit
between) by one printed matrix, or by consecutive lines that each print one row vector of
equal length, gives ``r = len(M)``, ``c = len(M[0])`` (rows: ``r = len([v0, v1, …])``,
``c = len(v0)``). A shape edited (``4 × 3`` → ``3 × 4``) is then a ``discrepancy`` at the
shape. Kept only when verified, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token

__all__ = ["shape_candidates"]

MAX_ROWS = 64
_SHAPE = re.compile(r"(?:[(（]\s*(\d{1,4})\s*[×xX*]\s*(\d{1,4})\s*(?:[,，][^()（）\n]{0,40})?[)）]"
                    r"|(?:\\mathbb\{R\}|ℝ)\^\{\s*(\d{1,4})\s*(?:\\times|×)\s*(\d{1,4})\s*\}\$?)")
_AFTER = re.compile(r"[ \t]*(?:[=:：][ \t]*)?$|[ \t]*(?:[=:：])[ \t]*(?=\[)")


def _lines(text: str, start: int) -> list[tuple[int, int]]:
    """(start, end) of the lines from offset ``start`` (its own line first)."""
    out = []
    a = text.rfind("\n", 0, start) + 1
    while a <= len(text) and len(out) < MAX_ROWS + 3:
        b = text.find("\n", a)
        b = len(text) if b < 0 else b
        out.append((a, b))
        a = b + 1
    return out


def _matrix_after(text: str, vals: list[Token], at: int) -> list[Token] | None:
    """The printed matrix (one token) or the rows (one vector token per line) after ``at``."""
    lines = _lines(text, at)
    first_line_end = lines[0][1]
    same = [t for t in vals if at <= t.start < first_line_end]
    if same:
        if same[0].shape == "matrix" and _AFTER.match(text, at, same[0].start + 1):
            return [same[0]]
        return None
    if any(ch.isdigit() for ch in text[at:first_line_end]):
        return None  # the line goes on with other numbers: the matrix is not what follows
    rows: list[Token] = []
    skipped = 0
    for a, b in lines[1:]:
        inside = [t for t in vals if a <= t.start < b]
        if not inside:
            if not rows and not text[a:b].strip() and skipped < 2:
                skipped += 1  # a blank line before the matrix (Markdown)
                continue
            if rows or skipped > 1 or "[" in text[a:b] or not text[a:b].strip():
                break
            skipped += 2  # a header of labels (`q0 q1 q2`, `dim 0 dim 1`)
            continue
        if len(inside) != 1:
            return None
        tok = inside[0]
        if tok.shape == "matrix":
            return [tok] if not rows else None
        rows.append(tok)
        if tok.end > b:
            break
    return rows or None


def _length(tok: Token) -> int:
    return tok.text.count(",") + 1


def shape_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``r = len(M)``, ``c = len(M[0])`` for each shape announced before a printed matrix."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    vals = [t for t in tokens if t.kind == VAL]
    out: list[Candidate] = []
    for m in _SHAPE.finditer(text):
        k = 1 if m.group(1) else 3  # `(r × c)` or `\mathbb{R}^{r \times c}`
        r, c = nums.get(m.start(k)), nums.get(m.start(k + 1))
        if r is None or c is None or not {r.start, c.start} & uncovered:
            continue
        got = _matrix_after(text, vals, m.end())
        if got is None:
            continue
        if len(got) == 1 and got[0].shape == "matrix":
            holes = {"r": r, "c": c, "M": got[0]}
            checks = [Check("r", "len(M)", False), Check("c", "len(M[0])", False)]
        else:
            if len({_length(t) for t in got}) != 1:
                continue
            rows = {f"v{k}": t for k, t in enumerate(got)}
            holes = {"r": r, "c": c, **rows}
            checks = [Check("r", f"len([{', '.join(rows)}])", False),
                      Check("c", "len(v0)", False)]
        out.append(Candidate("shape", "inferred: the shape printed with the matrix's name is "
                             "the shape of the matrix printed", holes, checks))
    return out
