"""A plain-text chain of definitions of one vector, evaluated side by side.

``P(x) = softmax(logits / T) = exp(logits_i / T) / Σ exp(logits_j / T)`` states the same
distribution three ways: as a name, as softmax of a whole vector and entry by entry. The
entry reader of :mod:`verifiers.formulas.holes` reads one ``name[i] = expression``, so the
chain stayed waived and a dropped ``/ T`` in the normaliser went unseen. Here every side
after the first is read with the same small reader (plus ``softmax(…)`` of a vector) and
evaluated at every entry: a bare vector name stands for its entry at that place, a side with
an index (``logits[i]``) binds it to the entry, ``Σ_j`` runs over the vector. Each side must
equal the reference's vector; the first that does not is a ``discrepancy`` naming the entry.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ChainError", "check_chain", "read_chain"]


class ChainError(ValueError):
    """A chain this reader cannot read or evaluate (``unparsed``)."""


# The reader of one side and its evaluator are holes.py's, passed in by its caller (holes.py
# calls this module; importing it back would make a cycle).
ReadSide = Callable[[str], Any]
EvaluateSide = Callable[[Any, dict[str, int], int], float]

_LEFT = re.compile(r"^\s*[A-Za-z][A-Za-z0-9_]*\s*(?:\(\s*[A-Za-z][A-Za-z0-9_]*\s*\)"
                   r"|\[\s*[ijk]\s*\])?\s*$")  # P, P(x), P[i]


def _split(text: str) -> list[str]:
    """The sides of a chain ``a = b = c`` (an ``=`` inside brackets does not split)."""
    sides, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if ch == "=" and depth == 0:
            sides.append(text[start:k])
            start = k + 1
    return [*sides, text[start:]]


def read_chain(text: str, read_side: ReadSide) -> list[Any]:
    """The read right-hand sides of ``name = side = side …`` (``text`` already in the
    reader's notation, ``logits[i]``); ChainError when it is no chain."""
    sides = _split(text.strip().rstrip("。."))
    if len(sides) < 2 or not _LEFT.match(sides[0]):
        raise ChainError("not a chain 'name = expression = …'")
    return [read_side(side) for side in sides[1:]]


def _free(node: Any, bound: frozenset[str] = frozenset()) -> set[str]:
    """Index names used in entries and not bound by a Σ around them."""
    kind = node[0]
    if kind == "entry":
        return {i for i in node[2] if i not in bound}
    if kind == "sum":
        return _free(node[2], bound | {node[1]})
    if kind in ("neg",):
        return _free(node[1], bound)
    if kind == "call":
        return _free(node[2], bound)
    if kind == "bin":
        return _free(node[2], bound) | _free(node[3], bound)
    return set()


def check_chain(sides: list[Any], expected: Any, value: EvaluateSide) -> str | None:
    """How the first side that differs from the reference's vector differs; None if none.
    ``value(side, index, at)``: the side's entry ``at`` (holes.py's evaluator, passed in)."""
    n = len(expected)
    for number, side in enumerate(sides, start=2):
        free = sorted(_free(side))
        if len(free) > 1:
            raise ChainError(f"side {number} has more than one free index ({', '.join(free)})")
        for at in range(n):
            got = value(side, {free[0]: at} if free else {}, at)
            want = float(expected[at])
            if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
                return (f"side {number} of the chain gives entry {at} = {got:.6g}; the "
                        f"reference gives {want:.6g}")
    return None
