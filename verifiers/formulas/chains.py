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
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["ChainError", "check_chain", "read_chain"]


class ChainError(ValueError):
    """A chain this reader cannot read or evaluate (``unparsed``)."""


# The reader of one side and its functions are holes.py's, passed in by its caller (holes.py
# calls this module; importing it back would make a cycle).
ReadSide = Callable[[str], Any]

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


def _value(node: Any, env: dict[str, Any], index: dict[str, int], at: int, n: int,
           funcs: Mapping[str, Callable[[float], float]]) -> float:
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "name":
        if node[1] in index:
            return float(index[node[1]])
        if node[1] not in env:
            raise ChainError(f"{node[1]!r} is not an input of the reference "
                               f"({', '.join(sorted(env))})")
        value = env[node[1]]
        return float(value[at]) if hasattr(value, "__len__") else float(value)
    if kind == "entry":
        if node[1] not in env:
            raise ChainError(f"{node[1]!r} is not an input of the reference")
        try:
            return float(env[node[1]][tuple(index[i] for i in node[2])])
        except KeyError as err:
            raise ChainError(f"index {err.args[0]!r} is not bound here") from None
    if kind == "neg":
        return -_value(node[1], env, index, at, n, funcs)
    if kind == "sum":
        return math.fsum(_value(node[2], env, {**index, node[1]: k}, at, n, funcs)
                         for k in range(n))
    if kind == "call" and node[1] == "softmax":  # of a whole vector: its entry here
        row = [_value(node[2], env, index, k, n, funcs) for k in range(n)]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        return exps[at] / math.fsum(exps)
    if kind == "call":
        x = _value(node[2], env, index, at, n, funcs)
        try:
            return funcs[node[1]](x)
        except (ValueError, OverflowError) as err:
            raise ChainError(f"{node[1]}({x:g}): {err}") from None
    a, b = _value(node[2], env, index, at, n, funcs), _value(node[3], env, index, at, n, funcs)
    op = node[1]
    try:
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" \
            else a / b if op == "/" else a ** b
    except (ZeroDivisionError, OverflowError) as err:
        raise ChainError(f"{a:g} {op} {b:g}: {err}") from None


def check_chain(sides: list[Any], env: dict[str, Any], expected: Any,
                funcs: Mapping[str, Callable[[float], float]]) -> str | None:
    """How the first side that differs from the reference's vector differs; None if none."""
    n = len(expected)
    for number, side in enumerate(sides, start=2):
        free = sorted(_free(side))
        if len(free) > 1:
            raise ChainError(f"side {number} has more than one free index ({', '.join(free)})")
        for at in range(n):
            got = _value(side, env, {free[0]: at} if free else {}, at, n, funcs)
            want = float(expected[at])
            if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
                return (f"side {number} of the chain gives entry {at} = {got:.6g}; the "
                        f"reference gives {want:.6g}")
    return None
