"""Pattern family: a matrix of the dot products (or cosines) of the vectors printed before it.

Notes on embeddings and positions print a few vectors, then their Gram matrix::

    p0 = [1, 0, 1, 0], p1 = [0.54, 0.84, 1.0, 0.01], p2 = [-0.42, 0.91, 1.0, 0.02]
    Gram = [[2, 1.54, 0.58], [1.54, 2, 1.69], [0.58, 1.69, 2]]

For an n×n matrix printed within a few lines after n vectors of one length (the last n
before it), entry (i, j) is checked as ``v_i @ v_j``, or as their cosine ``v_i @ v_j /
sqrt((v_i @ v_i) (v_j @ v_j))`` -- whichever reproduces every printed entry (a loose sieve;
the engine decides exactly). So a copied or mistyped entry is a discrepancy at the matrix.
A reading of numbers, not of a stated formula: kept only when the engine verifies it, never
pinned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tables import _rows
from verifiers.infer.tokens import NUM, VAL, Token, printed_value

__all__ = ["gram_candidates"]

MAX_LINES = 12  # lines from the first vector to the matrix
MIN_SIZE = 2  # a 1×1 "matrix" is one number


def _read(tok: Token) -> tuple[tuple[int, ...], list[tuple[float, float]]] | None:
    """(shape, [(value, half unit)]) of a printed vector or matrix, or None."""
    try:
        p = read_value(tok.text, tok.start)
        return tuple(p.shape), [(float(n.value), float(n.half_unit)) for n in p.numbers]
    except Exception:  # noqa: BLE001 - not a plain printed value
        return None


def _dot(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def _tables(vs: list[list[float]]) -> list[tuple[str, list[float]]]:
    """(kind, entries row by row) of the dot products and the cosines of ``vs``."""
    dots = [_dot(a, b) for a in vs for b in vs]
    norms = [math.sqrt(_dot(a, a)) for a in vs]
    out = [("dot", dots)]
    if all(norms):
        out.append(("cos", [dots[i * len(vs) + j] / (norms[i] * norms[j])
                            for i in range(len(vs)) for j in range(len(vs))]))
    return out


def _entry(kind: str, a: str, b: str) -> str:
    if kind == "dot":
        return f"{a} @ {b}"
    return f"{a} @ {b} / sqrt(({a} @ {a}) * ({b} @ {b}))"


@dataclass(frozen=True)
class _Printed:
    """A vector or square matrix the note prints: its holes (one for a bracketed value,
    one per cell of a table row or table), where it starts, and its (value, half unit)s."""

    holes: tuple[tuple[str, Token], ...]  # (index suffix, token): ("", tok) or ("[0,1]", tok)
    start: int
    numbers: tuple[tuple[float, float], ...]
    size: int  # vector length, or matrix side


def _bracketed(tokens: list[Token]) -> tuple[list[_Printed], list[_Printed]]:
    """Vectors and square matrices printed as one value (``[1, 0, 1]``, ``[[2, 1], [1, 2]]``)."""
    vectors, matrices = [], []
    for tok in tokens:
        if tok.kind != VAL:
            continue
        got = _read(tok)
        if got is None:
            continue
        shape, numbers = got
        item = _Printed((("", tok),), tok.start, tuple(numbers), shape[0] if shape else 0)
        if tok.shape == "vector" and len(shape) == 1:
            vectors.append(item)
        elif tok.shape == "matrix" and len(shape) == 2 and shape[0] == shape[1]:
            matrices.append(item)
    return vectors, matrices


def _tabled(text: str, tokens: list[Token]) -> tuple[list[_Printed], list[_Printed]]:
    """Rows of Markdown tables as vectors (their numeric cells, after any label cells and an
    index column), and a table whose rows are n numbers each, n rows, as a square matrix."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    vectors, matrices = [], []
    for rows in _rows(text):
        table = []
        for cells in rows:
            lone = []
            for a, b in cells:
                inside = [t for t in nums.values() if a <= t.start and t.end <= b]
                if len(inside) == 1 and text[a:b].strip() == inside[0].text:
                    lone.append(inside[0])
                elif lone:  # a label after the numbers: not a plain row
                    lone = []
                    break
            if len(lone) < MIN_SIZE:
                table = []
                break
            table.append(lone)
        if len(table) >= MIN_SIZE and all(r[0].text == str(k + base) for k, r in enumerate(table)
                                           for base in [int(table[0][0].text == "1")]):
            table = [r[1:] for r in table]  # an index column (0, 1, 2 … or 1, 2, 3 …)
        for row in table:
            got = [printed_value(t) for t in row]
            if all(g is not None for g in got):
                vectors.append(_Printed(tuple((f"[{j}]", t) for j, t in enumerate(row)),
                                        row[0].start, tuple(g for g in got if g), len(row)))
        if table and all(len(r) == len(table) for r in table):
            flat = [(f"[{i},{j}]", t) for i, r in enumerate(table) for j, t in enumerate(r)]
            got = [printed_value(t) for _, t in flat]
            if all(g is not None for g in got):
                matrices.append(_Printed(tuple(flat), table[0][0].start,
                                         tuple(g for g in got if g), len(table)))
    return vectors, matrices


def gram_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``G = [[v_i @ v_j]]`` (or cosines) for a square matrix after as many vectors."""
    vb, mb = _bracketed(tokens)
    vt, mt = _tabled(text, tokens)
    vectors = sorted(vb + vt, key=lambda v: v.start)
    out = []
    for mat in sorted(mb + mt, key=lambda m: m.start):
        n = mat.size
        if n < MIN_SIZE or not any(t.start in uncovered for _, t in mat.holes):
            continue
        before = [v for v in vectors if v.start < mat.start
                  and text.count("\n", v.start, mat.start) <= MAX_LINES]
        if len(before) < n:
            continue
        chosen = before[-n:]
        if len({v.size for v in chosen}) != 1:
            continue
        vs = [[x for x, _ in v.numbers] for v in chosen]
        for kind, entries in _tables(vs):
            if all(abs(e - v) <= max(2 * h, 0.02 * abs(v), 1e-9)
                   for e, (v, h) in zip(entries, mat.numbers, strict=True)):
                names = [f"u{i}" for i in range(1, n + 1)]
                rows = ", ".join("[" + ", ".join(_entry(kind, a, b) for b in names) + "]"
                                 for a in names)
                holes = {f"{name}{suffix}": t for name, v in zip(names, chosen, strict=True)
                         for suffix, t in v.holes}
                holes.update({f"g{suffix}": t for suffix, t in mat.holes})
                says = ("inferred: the matrix of the dot products of the vectors before it"
                        if kind == "dot" else
                        "inferred: the matrix of the cosines of the vectors before it")
                out.append(Candidate("gram", says, holes, [Check("g", f"[{rows}]", False)]))
                break
    return out
