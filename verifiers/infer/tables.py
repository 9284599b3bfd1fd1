"""Pattern family: a Markdown table column computed from the other columns of its row.

Study notes tabulate a computation (``| p | -ln p |``, ``| x | x - μ | (x - μ)² |``);
the header is prose, so the rule is found from the printed numbers instead: for a
target column, the first of a small fixed list of formulas over one or two other
columns that reproduces the printed value in at least two rows (and in all rows
but at most one). Each such row gets a check ``target = formula(operands)``.

A formula found this way is a *reading* of the table, never stated by the note,
so its checks are ambiguous: the engine must verify them; nothing is ever pinned.
A row the formula does not reproduce is left alone (not checked, not flagged).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, OP, OTHER, Token

__all__ = ["table_candidates"]

#: One-column formulas: (grammar text with ``a``, float function), simplest first.
UNARY: list[tuple[str, Callable[[float], float]]] = [
    ("a ^ 2", lambda a: a * a),
    ("exp(a)", math.exp),
    ("ln(a)", math.log),
    ("(-ln(a))", lambda a: -math.log(a)),
    ("sqrt(a)", math.sqrt),
    ("1 / a", lambda a: 1 / a),
    ("1 - a", lambda a: 1 - a),
    ("a * (1 - a)", lambda a: a * (1 - a)),
]
#: Two-column formulas over ``a`` and ``b`` (ordered pairs of distinct columns).
BINARY: list[tuple[str, Callable[[float, float], float]]] = [
    ("a + b", lambda a, b: a + b),
    ("a - b", lambda a, b: a - b),
    ("a * b", lambda a, b: a * b),
    ("a / b", lambda a, b: a / b),
]

Cell = tuple[Token, float, float]  # the value token, its value, half a unit of its last digit


def _rows(text: str) -> list[list[tuple[int, int]]]:
    """Tables as lists of data rows, each a list of (start, end) cell spans."""
    tables: list[list[list[tuple[int, int]]]] = []
    current: list[list[tuple[int, int]]] | None = None
    pos = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        body = line.strip()
        if not (body.startswith("|") and body.count("|") >= 3):
            current = None
            continue
        if set(body) <= set("|-: "):
            continue  # the separator row
        if current is None:
            current = []
            tables.append(current)
            continue  # the header row: prose
        bars = [start + k for k, ch in enumerate(line) if ch == "|"]
        current.append([(a + 1, b) for a, b in zip(bars, bars[1:], strict=False)])
    return tables


def _cell(tokens: list[Token], span: tuple[int, int]) -> Cell | None:
    """The cell's one printed number (``$…$`` around it allowed), else None."""
    inside = [t for t in tokens if span[0] <= t.start < span[1]
              and not (t.kind == OTHER and t.text == "$")]
    if len(inside) == 2 and inside[0].kind == OP and inside[0].text == "-" \
            and inside[0].end == inside[1].start and inside[1].kind == NUM:
        # ``-3.0``: the sign is the cell's, so the hole reads it too
        inside = [Token(NUM, "-" + inside[1].text, inside[0].start, inside[1].end)]
    if len(inside) != 1 or inside[0].kind != NUM:
        return None
    tok = inside[0]
    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a plain number: not a table value
        return None
    if len(p.numbers) != 1:
        return None
    n = p.numbers[0]
    half = Fraction(0) if n.exact else n.half_unit
    return tok, float(n.value), float(half)


def _close(got: float, cell: Cell) -> bool:
    """A loose first sieve (the engine decides exactly): printed digits, 1% slack for inputs."""
    return math.isfinite(got) and abs(got - cell[1]) <= max(2 * cell[2], 0.01 * abs(cell[1]))


def _index_column(cells: list[Cell]) -> bool:
    """``1, 2, 3, …``: a row number, never an operand or a result."""
    return [c[1] for c in cells] == [float(k) for k in range(1, len(cells) + 1)] or \
        [c[1] for c in cells] == [float(k) for k in range(len(cells))]


def _fits(results: list[Cell], args: list[tuple[Cell, ...]],
          func: Callable[..., float]) -> list[int]:
    """Rows where ``func`` reproduces the printed result."""
    good = []
    for k, (res, arg) in enumerate(zip(results, args, strict=True)):
        try:
            got = func(*[a[1] for a in arg])
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if _close(got, res):
            good.append(k)
    return good


def _enough(good: list[int], rows: int) -> bool:
    return len(good) >= 2 and len(good) >= rows - 1


def table_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """One candidate per table with at least one column another column computes."""
    out = []
    for rows in _rows(text):
        width = min((len(r) for r in rows), default=0)
        cols: dict[int, list[Cell]] = {}
        for j in range(width):
            cells = [_cell(tokens, r[j]) for r in rows]
            if len(rows) >= 2 and all(c is not None for c in cells):
                col = [c for c in cells if c is not None]
                if not _index_column(col) and len({c[1] for c in col}) > 1:
                    cols[j] = col
        cand = Candidate("table", "inferred: a table column computed from its row")
        for target, results in cols.items():
            if not any(c[0].start in uncovered for c in results):
                continue
            found = _formula(cols, target, results)
            if found is None:
                continue
            form, operands, good = found
            for k in good:
                res = results[k][0]
                if res.start not in uncovered:
                    continue
                names = {}
                for letter, j in zip("ab", operands, strict=False):
                    tok = cols[j][k][0]
                    names[letter] = f"t{tok.start}"
                    cand.holes[names[letter]] = tok
                cand.holes[f"t{res.start}"] = res
                expr = form.replace("a", names["a"]) if len(operands) == 1 else \
                    form.replace("a", "\0").replace("b", names["b"]).replace("\0", names["a"])
                cand.checks.append(Check(f"t{res.start}", expr, False))
        if cand.checks:
            out.append(cand)
    return out


def _formula(cols: dict[int, list[Cell]], target: int,
             results: list[Cell]) -> tuple[str, tuple[int, ...], list[int]] | None:
    """The first formula (unary before binary, columns left to right) that fits the column."""
    others = [j for j in cols if j != target]
    for form, func in UNARY:
        for a in others:
            good = _fits(results, [(c,) for c in cols[a]], func)
            if _enough(good, len(results)):
                return form, (a,), good
    for form, func2 in BINARY:
        for a in others:
            for b in others:
                if a == b:
                    continue
                good = _fits(results, list(zip(cols[a], cols[b], strict=True)), func2)
                if _enough(good, len(results)):
                    return form, (a, b), good
    return None
