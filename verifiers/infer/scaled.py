"""Pattern family: a printed vector computed from an earlier vector and a scalar set between.

Worked examples of temperature, scaling and normalising print the input once and then one
block per setting, each a few lines below the input::

    原始 Logits = [0.1, -0.5, 2.3, 1.2, 0.8, -0.3]
    T = 0.7
    logits/T = [0.14, -0.71, 3.29, 1.71, 1.14, -0.43]
    概率 = [2.8%, 1.2%, 65.2%, 13.5%, 7.6%, 1.6%]

so the step is found from the numbers: for a vector whose values are uncovered, the
earlier vectors of its length (up to :data:`MAX_LINES` lines above) and the scalars set
between (``T = 0.7``, a name, ``=`` and one value) are tried with a small fixed list of
element-wise steps (:data:`STEPS`: ``a / s``, ``a * s``, ``exp(a / s)``, ``softmax(a / s)``,
``softmax(a * s)``, and without a scalar ``softmax(a)``, ``exp(a)``, ``a / sum(a)``). The
first step that reproduces every printed element gives the check; the vector and the scalar
are read through ``uses:`` (definitions quoting their own lines), so the claim quotes only
the result's line.

A reading of numbers, not of a stated formula: kept only when the engine verifies it, never
pinned.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import COMMA, NAME, NUM, REL, VAL, Token, printed_value
from verifiers.infer.vectors import _numbers, _softmax

__all__ = ["scaled_candidates"]

MAX_LINES = 30  # lines between the input vector and the result
MAX_BACK = 8  # earlier vectors tried, nearest first
MIN_LENGTH = 3  # elements: fewer agree by chance too easily
MIN_SUBSET = 2  # a top-k subset of a longer vector: its order and sum make two enough
NEAR_LINES = 3  # a scalar this many lines above the result is quoted with it

Vec = list[float]
#: (grammar text over ``{a}`` and ``{s}``, the step), in the order tried; ``s`` absent: no scalar.
STEPS: list[tuple[str, Callable[[Vec, float], Vec]]] = [
    ("{a} / {s}", lambda a, s: [x / s for x in a]),
    ("{a} * {s}", lambda a, s: [x * s for x in a]),
    ("exp({a} / {s})", lambda a, s: [math.exp(x / s) for x in a]),
    ("softmax({a} / {s})", lambda a, s: _softmax([x / s for x in a])),
    ("softmax({a} * {s})", lambda a, s: _softmax([x * s for x in a])),
]
#: a shorter vector from a longer one: its top ``k`` entries, kept or renormalised (top-k)
SUBSETS: list[tuple[str, Callable[[Vec, int], Vec]]] = [
    ("rsort({a})[0:{k}]", lambda a, k: sorted(a, reverse=True)[:k]),
    ("rsort({a})[0:{k}] / sum(rsort({a})[0:{k}])",
     lambda a, k: [x / sum(sorted(a, reverse=True)[:k]) for x in sorted(a, reverse=True)[:k]]),
]
PLAIN: list[tuple[str, Callable[[Vec], Vec]]] = [
    ("softmax({a})", _softmax),
    ("exp({a})", lambda a: [math.exp(x) for x in a]),
    ("{a} / sum({a})", lambda a: [x / sum(a) for x in a]),
]


def _fits(got: Vec, printed: list[tuple[float, float]]) -> bool:
    """Every element at its printed digits (twice the half unit: the inputs are rounded too)."""
    return all(math.isfinite(g) and abs(g - v) <= 2 * h + 1e-12 * abs(v)
               for g, (v, h) in zip(got, printed, strict=True))


def _scalars(tokens: list[Token], after: int, before: int) -> list[Token]:
    """``T = 0.7`` between offsets ``after`` and ``before``: the value tokens, nearest first."""
    out = []
    for k in range(len(tokens) - 3, -1, -1):
        name, rel, val = tokens[k], tokens[k + 1], tokens[k + 2]
        if val.start >= before:
            continue
        if name.start < after:
            break
        nxt = tokens[k + 3] if k + 3 < len(tokens) else None
        if name.kind == NAME and rel.kind == REL and rel.text == "=" and val.kind == NUM \
                and (nxt is None or nxt.kind != COMMA and nxt.kind != NUM) \
                and printed_value(val) is not None and printed_value(val)[0] not in (0.0, 1.0):
            out.append(val)
    return out


def _step(before: Vec, now: list[tuple[float, float]], scalars: list[Token]) -> \
        tuple[str, Token] | None:
    """The first step that reproduces ``now`` from ``before`` and one of ``scalars``."""
    for tok in scalars:
        s = printed_value(tok)
        for form, func in STEPS:
            try:
                got = func(before, s[0])  # type: ignore[index]
            except (ValueError, ZeroDivisionError, OverflowError):
                continue
            if got != before and _fits(got, now):
                return form, tok
    return None


def _subset(before: Vec, now: list[tuple[float, float]]) -> str | None:
    """The first top-``k`` step that reproduces ``now`` from the longer ``before``. Whole
    numbers (``Q[0, 0]``, ``(0, 1)``) are indexes, not weights; a kept subset (a copy) needs
    :data:`MIN_LENGTH` entries, a renormalised one two, each strictly between 0 and 1."""
    if all(v == int(v) for v, _ in now):
        return None
    for form, func in SUBSETS:
        if "sum" in form and not all(0 < v < 1 for v, _ in now) \
                or "sum" not in form and len(now) < MIN_LENGTH:
            continue
        try:
            if _fits(func(before, len(now)), now):
                return form
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
    return None


def _plain(before: Vec, now: list[tuple[float, float]]) -> str | None:
    """The first step without a scalar that reproduces ``now`` from ``before``."""
    for form, func in PLAIN:
        try:
            if _fits(func(before), now):
                return form
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
    return None


def scaled_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``r = f(a, s)`` for a vector ``r`` and an earlier vector ``a`` of its length."""
    vectors = [t for t in tokens if t.kind == VAL and t.shape == "vector"]
    out = []
    for k, cur in enumerate(vectors):
        now = _numbers(cur)
        if cur.start not in uncovered or now is None or len(now) < MIN_SUBSET \
                or any(_numbers(v) == now for v in vectors[:k]):
            continue  # a vector printed again is a restatement (restate.py), not a step
        earlier, longer = [], []
        for prev in reversed(vectors[max(0, k - MAX_BACK):k]):
            if text.count("\n", prev.end, cur.start) > MAX_LINES:
                break
            before = _numbers(prev)
            if before is not None and len(before) > len(now):
                longer.append((prev, [v for v, _ in before]))
            elif before is not None and len(before) == len(now) >= MIN_LENGTH \
                    and prev.text != cur.text:
                earlier.append((prev, [v for v, _ in before]))
        subset = next(((p, f) for p, b in longer if (f := _subset(b, now))), None)
        if subset is not None:
            out.append(Candidate("scaled", "inferred: the top entries of a vector printed "
                                 "above (renormalised or kept)", {"r": cur},
                                 [Check("r", subset[1].format(a=f"u{subset[0].start}",
                                                              k=len(now)), False)],
                                 uses={f"u{subset[0].start}": subset[0]}))
            continue
        # without a setting first: a scalar makes more coincidences (`softmax(a / 2)` of a
        # vector that is twice another)
        found = next(((p, f, None) for p, b in earlier if (f := _plain(b, now))), None)
        for prev, before in earlier if found is None else []:
            step = _step(before, now, _scalars(tokens, prev.end, cur.start))
            if step is not None:
                found = (prev, step[0], step[1])
                break
        if found is not None:
            out.append(_candidate(text, cur, *found))
    return out


def _candidate(text: str, cur: Token, prev: Token, form: str, scalar: Token | None) -> Candidate:
    """The check ``r = form``; the input vector read through ``uses:``, the scalar as a hole
    when its line is near enough to quote with the result (an edited setting is then a
    discrepancy, not a stale quote), else through ``uses:`` too."""
    a = f"u{prev.start}"
    holes, uses = {"r": cur}, {a: prev}
    s = ""
    if scalar is not None:
        near = text.count("\n", scalar.end, cur.start) <= NEAR_LINES
        s = "s" if near else f"u{scalar.start}"
        (holes if near else uses)[s] = scalar
    return Candidate("scaled", "inferred: a vector computed from an earlier vector (and the "
                     "scalar set between)", holes, [Check("r", form.format(a=a, s=s), False)],
                     uses=uses)
