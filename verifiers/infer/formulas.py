"""Pattern family: a table row that prints a formula in named quantities and its value.

Budget tables put the formula in one cell and the number in another::

    | hyperparameter | symbol | value |        | piece          | formula     | FLOPs      |
    | model width    | $d$    | 1024  |        | output proj.   | $2 n d^2$   | 4294967296 |

Each name is read through the latest definition before the row (``$n = 2048$`` in the
text, or a table row with one lone name and one lone number, in any section); the row's
one other lone number is checked against the formula. Names and implicit products are a
reading, so the check is ambiguous: kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

from collections.abc import Callable

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.chains import _definitions, _runs
from verifiers.infer.parse import parse_segment
from verifiers.infer.tables import _rows, cell_tokens, table_definitions
from verifiers.infer.tokens import NAME, NUM, OTHER, Token

__all__ = ["formula_row_candidates"]


def formula_row_candidates(text: str, tokens: list[Token], uncovered: set[int],
                           section_of: Callable[[int], int]) -> list[Candidate]:
    runs = [[t for t in tokens[a:b] if t.kind != OTHER] for a, b in _runs(tokens)]
    defs = [(n, at, v) for n, _, at, v in _definitions(runs, section_of)]
    defs += table_definitions(text, tokens)
    defs.sort(key=lambda d: d[1])
    out = []
    for rows in _rows(text):
        for cells in rows:
            inside = cell_tokens(tokens, cells)
            lone = [c[0] for c in inside if len(c) == 1 and c[0].kind == NUM]
            if len(lone) != 1 or lone[0].start not in uncovered:
                continue
            here = cells[0][0]

            def bind(tok: Token, here: int = here) -> Token | None:
                found = [d for d in defs if d[0] == tok.text and d[1] < here]
                return found[-1][2] if found else None

            for cell in inside:
                if len(cell) < 2 or not any(t.kind == NAME for t in cell) \
                        or any(t.kind == OTHER for t in cell):
                    continue
                nums = [t for t in cell if t.kind == NUM]
                names = {t.start: f"f{k}" for k, t in enumerate(nums, start=1)}
                expr = parse_segment(cell, names, bind)
                if expr is None or not expr.uses or expr.shape != "scalar":
                    continue
                holes = {names[t.start]: t for t in nums}
                holes["r"] = lone[0]
                out.append(Candidate("formula", "inferred: the row's formula in the defined "
                                     "quantities", holes, [Check("r", expr.text, False)],
                                     dict(expr.uses)))
                break
    return out
