"""Pattern family: a printed vector computed from the vector printed just before it.

Worked softmax examples print a pipeline, one vector a line::

    logits/T = [0.33, -1.67, 7.67, 4.00, 2.67, -1.00]
    exp = [1.39, 0.19, 2143, 54.6, 14.4, 0.368]
    概率 = [0.06%, 0.01%, 94.3%, 2.4%, 0.6%, 0.02%]

The labels are words, so the step is found from the numbers instead: for a vector
printed within a few lines after another of the same length, the first of a small
fixed list of element-wise functions (``exp``, ``softmax``, normalising by the sum,
``cumsum``, ``ln``, ``sigmoid``, ``tanh``) that reproduces every printed element (a loose
sieve; the engine decides exactly) gives the check ``next = f(previous)``.

A reading of numbers, not of a stated formula: kept only when the engine verifies it,
never pinned.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import VAL, Token

__all__ = ["vector_candidates"]

MAX_LINES = 4  # lines between the two vectors
MIN_LENGTH = 3  # elements: two numbers agreeing by chance is not a reading


def _softmax(xs: list[float]) -> list[float]:
    top = max(xs)
    es = [math.exp(x - top) for x in xs]
    return [e / sum(es) for e in es]


def _normalise(xs: list[float]) -> list[float]:
    total = sum(xs)
    return [x / total for x in xs]


def _cumsum(xs: list[float]) -> list[float]:
    out, acc = [], 0.0
    for x in xs:
        acc += x
        out.append(acc)
    return out


#: (grammar text with ``a``, function on the element list), in the order tried.
STEPS: list[tuple[str, Callable[[list[float]], list[float]]]] = [
    ("exp(a)", lambda xs: [math.exp(x) for x in xs]),
    ("softmax(a)", _softmax),
    ("a / sum(a)", _normalise),
    ("cumsum(a)", _cumsum),
    ("ln(a)", lambda xs: [math.log(x) for x in xs]),
    ("1 / (1 + exp(-(a)))", lambda xs: [1 / (1 + math.exp(-x)) for x in xs]),
    ("tanh(a)", lambda xs: [math.tanh(x) for x in xs]),
]


def _numbers(tok: Token) -> list[tuple[float, float]] | None:
    """(value, half a unit of its last digit) of each element, or None."""
    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a printed vector
        return None
    return [(float(n.value), float(n.half_unit)) for n in p.numbers]


def _fits(got: list[float], printed: list[tuple[float, float]]) -> bool:
    return all(math.isfinite(g) and abs(g - v) <= max(2 * h, 0.02 * abs(v))
               for g, (v, h) in zip(got, printed, strict=True))


def vector_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``next = f(previous)`` for vectors of one length printed a few lines apart."""
    vectors = [t for t in tokens if t.kind == VAL and t.shape == "vector"]
    out = []
    for k, cur in enumerate(vectors):
        if cur.start not in uncovered:
            continue
        now = _numbers(cur)
        if now is None or len(now) < MIN_LENGTH:
            continue
        for prev in reversed(vectors[max(0, k - 3):k]):
            if text.count("\n", prev.end, cur.start) > MAX_LINES:
                break
            before = _numbers(prev)
            if before is None or len(before) != len(now):
                continue
            step = _step([v for v, _ in before], now)
            if step is not None:
                out.append(Candidate("vector", "inferred: a vector computed from the one before",
                                     {"a": prev, "r": cur},
                                     [Check("r", step, False)]))
                break
    return out


def _step(before: list[float], now: list[tuple[float, float]]) -> str | None:
    for form, func in STEPS:
        try:
            got = func(before)
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if _fits(got, now):
            return form
    return None
