"""Pattern family: a printed matrix that is the product of two matrices printed above it.

Worked attention and projection examples print the inputs, then the result some lines
below, with the step named in words or names only (``MultiHead_output = Z_concat · W_o``,
``Q = X · W_q``, ``scores = Q K^T``)::

    Z_concat (3 × 4)： [[1.32, 1.65, 1.40, 1.75], …]
    W_o (4 × 4)：      [[0.1, 0.2, 0.3, 0.4], …]
    最终 Output (3 × 4)： [[2.130, 2.665, 3.195, 3.728], …]

so the step is found from the numbers: for a printed matrix (or vector) whose values are
uncovered, each ordered pair of the matrices and vectors printed up to :data:`MAX_LINES`
lines above it whose shapes fit is tried with ``A @ B``, ``A @ transpose(B)`` and
``A @ transpose(B) / sqrt(k)`` (scaled scores, ``k`` the inner size); the first that
reproduces every printed entry gives the check, the inputs read through ``uses:``.

A reading of numbers, not of a stated formula: kept only when the engine verifies it, never
pinned. At least four entries (or two, each a sum of three products or more), so a product
cannot agree by chance.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import VAL, Token

__all__ = ["product_candidates"]

MAX_LINES = 40  # lines between the first input and the result
MAX_BACK = 10  # earlier arrays tried
MIN_ENTRIES = 4
MIN_INNER = 3

Grid = list[list[float]]
Printed = tuple[Grid, Grid]  # values and half units, as rows (a vector is one row)


def _grid(tok: Token) -> Printed | None:
    """The token's entries as rows of (value) and rows of (half unit), else None."""
    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a printed array
        return None
    shape = p.shape if len(p.shape) == 2 else (1, len(p.numbers)) if len(p.shape) == 1 \
        else None
    if shape is None or shape[0] * shape[1] != len(p.numbers) or not p.numbers:
        return None
    vals = [float(n.value) for n in p.numbers]
    halves = [float(n.half_unit) for n in p.numbers]
    cols = shape[1]
    return ([vals[r * cols:(r + 1) * cols] for r in range(shape[0])],
            [halves[r * cols:(r + 1) * cols] for r in range(shape[0])])


def _matmul(a: Grid, b: Grid) -> Grid:
    return [[sum(x * b[k][j] for k, x in enumerate(row)) for j in range(len(b[0]))]
            for row in a]


def _t(b: Grid) -> Grid:
    return [list(col) for col in zip(*b, strict=True)]


#: (grammar text over ``{a}`` and ``{b}``, the product), in the order tried.
STEPS: list[tuple[str, Callable[[Grid, Grid], Grid | None]]] = [
    ("{a} @ {b}", lambda a, b: _matmul(a, b) if len(a[0]) == len(b) else None),
    ("{a} @ transpose({b})",
     lambda a, b: _matmul(a, _t(b)) if len(a[0]) == len(b[0]) else None),
    ("{a} @ transpose({b}) / sqrt(len(transpose({b})))",
     lambda a, b: [[x / math.sqrt(len(b[0])) for x in row] for row in _matmul(a, _t(b))]
     if len(a[0]) == len(b[0]) else None),
]


def _fits(got: Grid, want: Printed) -> bool:
    """Every entry at its printed digits (the inputs' rounding allowed for: twice the half
    unit, and a relative 1e-9)."""
    vals, halves = want
    return len(got) == len(vals) and all(
        len(g) == len(v) and all(abs(x - y) <= 2 * h + 1e-9 * abs(y)
                                 for x, y, h in zip(g, v, hs, strict=True))
        for g, v, hs in zip(got, vals, halves, strict=True))


def product_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``r = a @ b`` (or with ``b`` transposed, or scaled) for arrays printed above ``r``."""
    arrays = [t for t in tokens if t.kind == VAL and t.shape in ("vector", "matrix")]
    out = []
    for k, cur in enumerate(arrays):
        want = _grid(cur)
        if cur.start not in uncovered or want is None or sum(len(r) for r in want[0]) < 2:
            continue
        earlier = []
        for prev in reversed(arrays[max(0, k - MAX_BACK):k]):
            if text.count("\n", prev.end, cur.start) > MAX_LINES:
                break
            got = _grid(prev)
            if got is not None:
                earlier.append((prev, got[0]))
        found = _find(earlier, want, cur)
        if found is not None:
            (ta, tb), form = found
            a, b = f"u{ta.start}", f"u{tb.start}"
            out.append(Candidate("product", "inferred: a printed array that is the product of "
                                 "two arrays printed above it", {"r": cur},
                                 [Check("r", form.format(a=a, b=b), False)],
                                 uses={a: ta, b: tb}))
    return out


def _find(earlier: list[tuple[Token, Grid]], want: Printed,
          cur: Token) -> tuple[tuple[Token, Token], str] | None:
    """The first (a, b) pair and step that reproduce ``want``: ``a`` above ``b`` or not,
    nearest pairs first; never the result itself (``r = r @ I``)."""
    for ta, a in earlier:
        for tb, b in earlier:
            if ta is tb or cur.text in (ta.text, tb.text):
                continue
            for form, func in STEPS:
                try:
                    got = func(a, b)
                except (ValueError, ZeroDivisionError, OverflowError):
                    continue
                if got is not None and _fits(got, want) and not _identity(a, b) \
                        and _enough(got, len(b if form.endswith("{b}") else b[0])):
                    return (ta, tb), form
    return None


def _enough(got: Grid, inner: int) -> bool:
    """At least :data:`MIN_ENTRIES` entries, or two whose sums run over three products or
    more (``[1, 0, 1, 0] @ W = [2, 0]``): fewer agree by chance too easily."""
    entries = sum(len(r) for r in got)
    return entries >= MIN_ENTRIES or (entries >= 2 and inner >= MIN_INNER)


def _identity(a: Grid, b: Grid) -> bool:
    """A factor that is an identity matrix makes the product a copy, and an all-zero one a
    row of zeros: neither is a computation (nor are index pairs such as ``Q[0, 0]``)."""
    return any(len(m) == len(m[0]) and all(m[i][j] == (1.0 if i == j else 0.0)
                                           for i in range(len(m)) for j in range(len(m)))
               or all(x == 0 for row in m for x in row) for m in (a, b))
