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

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import VAL, Token

__all__ = ["gram_candidates"]

MAX_LINES = 8  # lines from the first vector to the matrix
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


def gram_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``G = [[v_i @ v_j]]`` (or cosines) for a square matrix after as many vectors."""
    vals = [t for t in tokens if t.kind == VAL]
    out = []
    for k, mat in enumerate(vals):
        if mat.shape != "matrix" or mat.start not in uncovered:
            continue
        got = _read(mat)
        if got is None or len(got[0]) != 2 or got[0][0] != got[0][1] or got[0][0] < MIN_SIZE:
            continue
        n, printed = got[0][0], got[1]
        before = [v for v in vals[:k] if v.shape == "vector"
                  and text.count("\n", v.start, mat.start) <= MAX_LINES]
        if len(before) < n:
            continue
        chosen = before[-n:]
        read = [_read(v) for v in chosen]
        if any(r is None for r in read) or len({len(r[1]) for r in read if r}) != 1:
            continue
        vs = [[x for x, _ in r[1]] for r in read if r]
        for kind, entries in _tables(vs):
            if all(abs(e - v) <= max(2 * h, 0.02 * abs(v), 1e-9)
                   for e, (v, h) in zip(entries, printed, strict=True)):
                names = [f"u{i}" for i in range(1, n + 1)]
                rows = ", ".join("[" + ", ".join(_entry(kind, a, b) for b in names) + "]"
                                 for a in names)
                holes = dict(zip(names, chosen, strict=True))
                holes["g"] = mat
                says = ("inferred: the matrix of the dot products of the vectors before it"
                        if kind == "dot" else
                        "inferred: the matrix of the cosines of the vectors before it")
                out.append(Candidate("gram", says, holes, [Check("g", f"[{rows}]", False)]))
                break
    return out
