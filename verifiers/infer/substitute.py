"""Pattern family: a symbolic row and the same row with the defined values put in.

Worked examples write a formula in names, then the same formula with numbers::

    net_{h1} &= w_1 i_1 + w_2 i_2 + b_1 \\
             &= 0.2 \times 0.1 + 0.3 \times 0.5 + 0.25

When the two neighbouring segments of a chain have the same shape -- the same
operators in the same places (a product written ``\\times``, ``\\cdot`` or by
juxtaposition counts the same), a name on the left wherever a printed number is on
the right -- each number put in for a name the note defined earlier (``i_1 = 0.1``,
or a table row ``| $w_1$ | … | 0.2 |``) is checked against that definition. The
latest definition before the row wins, in any section. A guess about names, so
ambiguous: kept only when verified, never pinned.
"""

from __future__ import annotations

from collections.abc import Callable

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.chains import _definitions, _runs
from verifiers.infer.tables import table_definitions as _table_definitions
from verifiers.infer.tokens import NAME, NUM, OP, OTHER, REL, VAL, Token

__all__ = ["substitution_candidates"]

Definition = tuple[str, int, Token]  # name, offset, the defined value


def _shape(seg: list[Token]) -> list[Token]:
    """The segment without its product signs (``a \\times b`` and ``a b`` read alike)."""
    return [t for t in seg if not (t.kind == OP and t.text == "*")]


def substitution_candidates(text: str, tokens: list[Token], uncovered: set[int],
                            section_of: Callable[[int], int]) -> list[Candidate]:
    runs = [[t for t in tokens[a:b] if t.kind != OTHER] for a, b in _runs(tokens)]
    defs: list[Definition] = [(n, at, v) for n, _, at, v in _definitions(runs, section_of)]
    defs += _table_definitions(text, tokens)
    defs.sort(key=lambda d: d[1])
    out = []
    for run in runs:
        segs: list[list[Token]] = [[]]
        for t in run:
            if t.kind == REL:
                segs.append([])
            else:
                segs[-1].append(t)
        cand = Candidate("substitute", "inferred: the defined values put into the formula")
        for left, right in zip(segs, segs[1:], strict=False):
            lhs, rhs = _shape(left), _shape(right)
            if len(lhs) != len(rhs) or not any(t.kind == NAME for t in lhs):
                continue
            pairs = []
            for lt, rt in zip(lhs, rhs, strict=True):
                if lt.kind == NAME and rt.kind in (NUM, VAL):
                    pairs.append((lt, rt))
                elif lt.kind != rt.kind or (lt.kind == OP and lt.text != rt.text) \
                        or lt.kind in (NUM, VAL) and lt.text != rt.text:
                    break
            else:
                for name, value in pairs:
                    bound = [d for d in defs if d[0] == name.text and d[1] < name.start]
                    if not bound or bound[-1][2].start == value.start \
                            or value.start not in uncovered:
                        continue
                    local = f"u{bound[-1][2].start}"
                    hole = f"s{value.start}"
                    cand.holes[hole] = value
                    cand.uses[local] = bound[-1][2]
                    cand.checks.append(Check(hole, local, False))
        if cand.checks:
            out.append(cand)
    return out
