"""Author-like slips of a given vector or matrix: the edits :mod:`suspects` tries when no
least-squares repair of the given is cheap enough.

A least-squares repair of a given counts every number it changes. Two entries swapped, a row
repeated or copied from another printed matrix, a transposition or a lost sign change two or
more numbers but are *one* slip of the author's hand: with two failing values downstream, a
least-squares repair that changes two numbers is no better evidence than the failures
themselves, while a single slip that repairs both is. This module lists those slips,
deterministically and bounded, and ranks them by how well the consumers' linearisation
(the finite differences :mod:`suspects` already measured) predicts they repair the printed
values; :mod:`suspects` evaluates the best few exactly.

Each candidate is the given's number texts after the slip (a permutation of its texts, a
sign toggled, or a row rewritten by the least-squares solution for that row alone), so a
swap writes back exactly what the note printed, just in the other places.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath

__all__ = ["MAX_EVALUATED", "Slip", "rank", "slips"]

MAX_PAIRS = 66  # swaps listed per given (all pairs of a 12-number vector)
MAX_EVALUATED = 6  # slips evaluated exactly per given, best predicted first
_SIGN = ("-", "−", "+")


@dataclass(frozen=True)
class Slip:
    """One author-like slip undone: the given's texts after the repair, and what it was."""

    texts: tuple[str, ...]
    what: str  # "entries 3 and 4 swapped", for the message


def slips(texts: Sequence[str], shape: tuple[int, ...], others: Sequence[tuple[str, ...]],
          solve_row: Callable[[list[int]], tuple[str, ...] | None]) -> list[Slip]:
    """Every slip considered for a given printed as ``texts`` with ``shape``, in a fixed
    order: swaps of two entries in a row or a column (any two, for a vector), the
    transposition of a square matrix, a toggled sign, and a row (of a matrix) or column
    that repeats another row of the given or a row of ``others`` (other printed vectors and
    matrix rows of the note) rewritten by ``solve_row`` (its indices → texts, or None)."""
    texts = tuple(texts)
    n = len(texts)
    rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (1, n)
    if rows * cols != n or n < 2:
        return []
    out: list[Slip] = []
    seen = {texts}

    def add(new: tuple[str, ...] | None, what: str) -> None:
        if new is not None and new not in seen:
            seen.add(new)
            out.append(Slip(new, what))

    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            same_row = i // cols == j // cols
            same_col = i % cols == j % cols
            if (same_row or same_col) and texts[i].strip() != texts[j].strip():
                pairs.append((i, j))
    for i, j in pairs[:MAX_PAIRS]:
        swapped = list(texts)
        swapped[i], swapped[j] = texts[j], texts[i]
        add(tuple(swapped), f"entries {_name(i, cols, rows)} and {_name(j, cols, rows)} swapped")
    if rows == cols and rows > 1:
        add(tuple(texts[(k % cols) * cols + k // cols] for k in range(n)), "transposed")
    for i in range(n):
        add(_toggled(texts, i), f"the sign of entry {_name(i, cols, rows)}")
    # (kind, indices) of every row and column; by kind, not by the step between indices:
    # a one-column matrix's rows are single entries
    lines: list[tuple[str, list[int]]] = []
    if rows > 1:
        lines += [("row", list(range(r * cols, (r + 1) * cols))) for r in range(rows)]
        lines += [("column", list(range(c, n, cols))) for c in range(cols)]
    known = {tuple(t.strip() for t in o) for o in others}
    for kind, idx in lines:
        row = tuple(texts[k].strip() for k in idx)
        repeated = sum(1 for _, other in lines if len(other) == len(idx)
                       and tuple(texts[k].strip() for k in other) == row) > 1
        if repeated or row in known:
            add(solve_row(idx), f"the {kind} {_line(idx, cols, kind)}, a copy of another "
                                f"printed {kind}, rewritten")
    return out


def _name(i: int, cols: int, rows: int) -> str:
    return f"({i // cols + 1},{i % cols + 1})" if rows > 1 else str(i + 1)


def _line(idx: list[int], cols: int, kind: str) -> int:
    return idx[0] // cols + 1 if kind == "row" else idx[0] % cols + 1


def _toggled(texts: tuple[str, ...], i: int) -> tuple[str, ...] | None:
    """``texts`` with entry ``i``'s sign toggled (``-0.2`` ↔ ``0.2``); None for a zero."""
    t = texts[i]
    body = t.lstrip()
    lead = t[:len(t) - len(body)]
    if not any(c.isdigit() and c != "0" for c in body):
        return None
    if body[:1] in _SIGN:
        new = body[1:].lstrip() if body[0] != "+" else "-" + body[1:].lstrip()
    else:
        new = "-" + body
    out = list(texts)
    out[i] = lead + new
    return tuple(out)


def rank(candidates: list[Slip], values: Callable[[tuple[str, ...]], list[Any] | None],
         x: list[Any], jac: list[list[Any]], residual: list[Any]) -> list[Slip]:
    """The slips whose linear prediction removes most of the consumers' misfit, best first
    (ties in listing order): ``values`` reads a slip's texts as numbers, ``jac[k][i]`` is
    the change of consumer printing ``k`` per unit of number ``i`` and ``residual[k]`` its
    printed minus computed value. A slip predicted to leave more than half of the misfit
    (in norm) is dropped; the exact evaluation decides among the rest."""
    base = sum(r * r for r in residual)
    if base == 0:
        return []
    scored = []
    for order, slip in enumerate(candidates):
        new = values(slip.texts)
        if new is None:
            continue
        delta = [a - b for a, b in zip(new, x, strict=True)]
        left = sum((r - sum(row[i] * delta[i] for i in range(len(delta)))) ** 2
                   for r, row in zip(residual, jac, strict=True))
        if left <= base / 4:
            scored.append((mpmath.mpf(left), order, slip))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [s for _, _, s in scored[:MAX_EVALUATED]]
