"""Pattern family: a Markdown table column computed from the other columns of its row.

Study notes tabulate a computation (``| p | -ln p |``, ``| x | x - μ | (x - μ)² |``,
``| x | Φ(x) | GELU(x) |``);
the header is prose, so the rule is found from the printed numbers instead: for a
target column, the first of a small fixed list of formulas over one or two other
columns that reproduces the printed value in at least two rows (and in all rows
but at most one). Each such row gets a check ``target = formula(operands)``.

A column-wide rule is tried when no row formula fits: a running total (``| p | 累计 |``)
or the softmax of another column (``| score | weight |``), every row at its printed digits.

A formula found this way is a *reading* of the table, never stated by the note,
so its checks are ambiguous: the engine must verify them; nothing is ever pinned.
A row the formula does not reproduce is left alone (not checked, not flagged).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NAME, NUM, OP, OTHER, Token
from verifiers.notes import lines_at

__all__ = ["table_candidates", "table_definitions"]

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
#: Activations a study note tabulates (``| x | Φ(x) | GELU(x) |``, ``| z | σ(z) |``), tried
#: after the formulas above; a row fits only at its printed digits.
ACTIVATIONS: dict[str, Callable[[float], float]] = {
    "sigmoid(a)": lambda a: 1 / (1 + math.exp(-a)),
    "tanh(a)": math.tanh,
    "(1 + erf(a / sqrt(2))) / 2": lambda a: (1 + math.erf(a / math.sqrt(2))) / 2,
    "a * (1 + erf(a / sqrt(2))) / 2": lambda a: a * (1 + math.erf(a / math.sqrt(2))) / 2,
    "a * sigmoid(a)": lambda a: a / (1 + math.exp(-a)),
}
UNARY += list(ACTIVATIONS.items())
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


_GAP_RE = re.compile(r"[^\s]+(?: [^\s]+)*")
_TOTAL_RE = re.compile(r"^\W*(?:total|sum|all|合计|总计|总和|共计|总数|Σ)\W*$", re.IGNORECASE)
MIN_TEXT_ROWS = 2  # data rows of a plain-text table


def _text_cells(line: str, start: int) -> list[tuple[int, int]]:
    """Cells of a plain-text table row: runs of text separated by tabs or two or more
    spaces."""
    return [(start + m.start(), start + m.end()) for m in _GAP_RE.finditer(line.rstrip())]


def _aligned(cells: list[tuple[int, int]], start: int, cols: list[int], tabbed: bool) -> bool:
    """Same number of cells; space-separated cells also start where the first row's do."""
    return len(cells) == len(cols) and (tabbed or all(
        abs(c[0] - start - x) <= 2 for c, x in zip(cells, cols, strict=True)))


def _text_tables(text: str) -> list[tuple[list[list[tuple[int, int]]], list[tuple[int, int]]]]:
    """Plain-text tables: at least two consecutive lines of three or more cells separated by
    wide gaps, the same number of cells, aligned (each cell starts within two characters of
    the first row's). Returns (data rows, totals row cells by column, or [])."""
    out = []
    lines = lines_at(text)
    k = 0
    while k < len(lines):
        a, line = lines[k]
        first = _text_cells(line, a)
        tabbed = "\t" in line.strip()
        if len(first) < 3 or not (tabbed or "  " in line.strip()):
            k += 1
            continue
        cols = [c[0] - a for c in first]
        rows = [first]
        j = k + 1
        while j < len(lines):
            b, nxt = lines[j]
            cells = _text_cells(nxt, b)
            if ("\t" in nxt.strip()) != tabbed or not _aligned(cells, b, cols, tabbed):
                break
            rows.append(cells)
            j += 1
        totals: list[tuple[int, int]] = []
        if j < len(lines) and len(rows) >= MIN_TEXT_ROWS:
            b, nxt = lines[j]
            cells = _text_cells(nxt, b)
            if cells and _TOTAL_RE.match(text[cells[0][0]:cells[0][1]]):
                totals = [(0, 0)] * len(cols)
                for i, c in enumerate(cells[1:], start=1):
                    near = min(range(len(cols)), key=lambda i: abs(c[0] - b - cols[i]))
                    if tabbed and len(cells) == len(cols):
                        totals[i] = c
                    elif not tabbed and abs(c[0] - b - cols[near]) <= 3:
                        totals[near] = c
        if not any(ch.isdigit() for ch in line) and len(rows) > MIN_TEXT_ROWS:
            rows = rows[1:]  # a header row: words only
        if len(rows) >= MIN_TEXT_ROWS:
            out.append((rows, totals))
        k = max(j, k + 1)
    return out


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
          func: Callable[..., float], tight: bool = False) -> list[int]:
    """Rows where ``func`` reproduces the printed result (``tight``: to its printed digits)."""
    good = []
    for k, (res, arg) in enumerate(zip(results, args, strict=True)):
        try:
            got = func(*[a[1] for a in arg])
        except (ValueError, ZeroDivisionError, OverflowError):
            continue
        if (abs(got - res[1]) <= 2 * res[2] + 1e-12 * abs(res[1])) if tight \
                else _close(got, res):
            good.append(k)
    return good


def _copies(results: list[Cell], args: list[tuple[Cell, ...]], good: list[int]) -> bool:
    """Does an operand already print the result in every fitting row (``tanh`` of small
    values, ``GELU`` of large ones)? Then the column is a copy, not a reading of ``func``."""
    return any(all(_close(arg[j][1], res) for res, arg in
                   ((results[k], args[k]) for k in good)) for j in range(len(args[0])))


def _enough(good: list[int], rows: int) -> bool:
    return len(good) >= 2 and len(good) >= rows - 1


def _md_totals(text: str, rows: list[list[tuple[int, int]]]) -> tuple[
        list[list[tuple[int, int]]], list[tuple[int, int]]]:
    """A Markdown table's last row, when its first cell says total: (data rows, its cells)."""
    if len(rows) >= MIN_TEXT_ROWS + 1 and _TOTAL_RE.match(text[rows[-1][0][0]:rows[-1][0][1]]
                                                          .strip().strip("*")):
        return rows[:-1], rows[-1]
    return rows, []


def table_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """One candidate per table with at least one column another column computes, and the
    sums of a totals row."""
    out = []
    tables = [_md_totals(text, rows) for rows in _rows(text)] + _text_tables(text)
    for rows, totals in tables:
        total = _total_candidate(tokens, rows, totals, uncovered)
        if total is not None:
            out.append(total)
        width = min((len(r) for r in rows), default=0)
        cols: dict[int, list[Cell]] = {}
        for j in range(width):
            cells = [_cell(tokens, r[j]) for r in rows]
            if len(rows) >= 2 and all(c is not None for c in cells):
                col = [c for c in cells if c is not None]
                if not _index_column(col) and len({c[1] for c in col}) > 1:
                    cols[j] = col
        cand = Candidate("table", "inferred: a table column computed from its row")
        targets: set[int] = set()
        operands_used: set[int] = set()
        # results stand right of their operands; a column is a result or an operand, never
        # both (else `C_out = 合计 − 权重` and `合计 = C_out + 权重` check each other in a cycle)
        for target in sorted(cols, reverse=True):
            results = cols[target]
            if target in operands_used or not any(c[0].start in uncovered for c in results):
                continue
            found = _formula({j: c for j, c in cols.items() if j not in targets}, target,
                             results)
            if found is None:
                running = _running(cols, target, results, targets)
                if running is not None:  # `| p | 累计 |`, softmax weights: a column-wide rule
                    targets.add(target)
                    operands_used.add(running[0])
                    _running_checks(cand, cols[running[0]], results, running[1], uncovered)
                    continue
                share = _share(cols, target, results, targets)
                if share is not None:
                    targets.add(target)
                    operands_used.add(share[0])
                    _share_checks(cand, cols[share[0]], results, share[1], uncovered)
                continue
            form, operands, good = found
            targets.add(target)
            operands_used.update(operands)
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
                cand.checks.append(Check(f"t{res.start}", _fill(form, names), False))
        if cand.checks:
            out.append(cand)
    return out


def _fill(form: str, names: dict[str, str]) -> str:
    """The formula over the cells' hole names: whole letters only (the `a` of `tanh` is no
    operand)."""
    return re.sub(r"(?<![A-Za-z])[ab](?![A-Za-z])", lambda m: names[m.group()], form)


def _share(cols: dict[int, list[Cell]], target: int, results: list[Cell],
           targets: set[int]) -> tuple[int, list[int]] | None:
    """``| x | count | P |`` with ``P = count / (sum of counts)``: the column and its rows."""
    for a, col in cols.items():
        if a == target or a in targets:
            continue
        total = sum(c[1] for c in col)
        # every row rounds to its printed digits: a share of a sum is an easy coincidence
        # for short columns (`| 0.4 |`, `| 0.3 |`), so no row may be off
        if total and all(abs(c[0][1] - x[1] / total) <= c[0][2] + 1e-12
                         for c, x in zip([(r,) for r in results], col, strict=True)):
            return a, list(range(len(results)))
    return None


#: Column-wide rules over one column ``a`` (row ``k``): a running total, softmax weights.
RUNNING: list[tuple[str, Callable[[list[float], int], float]]] = [
    ("cumsum", lambda a, k: sum(a[:k + 1])),
    ("softmax", lambda a, k: math.exp(a[k]) / sum(math.exp(x) for x in a)),
]


def _running(cols: dict[int, list[Cell]], target: int, results: list[Cell],
             targets: set[int]) -> tuple[int, str] | None:
    """``| p | cumulative |`` (each row the sum down to it) or ``| score | weight |`` (the
    softmax of the column): the operand column and the rule. Every row must round to its
    printed digits (a column-wide rule is an easy coincidence otherwise)."""
    for a, col in sorted(cols.items()):
        if a == target or a in targets:
            continue
        xs = [c[1] for c in col]
        for rule, func in RUNNING:
            try:
                got = [func(xs, k) for k in range(len(xs))]
            except OverflowError:
                continue
            # inputs kept at a finer precision: a running total inherits each half unit it
            # adds, a softmax weight moves by at most the largest (its slope is below 1)
            slack = [sum(c[2] for c in col[:k + 1]) if rule == "cumsum" else
                     max(c[2] for c in col) for k in range(len(col))]
            if all(abs(g - r[1]) <= r[2] + e + 1e-12
                   for g, r, e in zip(got, results, slack, strict=True)) and got != xs:
                return a, rule
    return None


def _running_checks(cand: Candidate, col: list[Cell], results: list[Cell], rule: str,
                    uncovered: set[int]) -> None:
    names = [f"t{c[0].start}" for c in col]
    cand.holes.update({n: c[0] for n, c in zip(names, col, strict=True)})
    for k, res in enumerate(results):
        if res[0].start not in uncovered:
            continue
        cand.holes[f"t{res[0].start}"] = res[0]
        expr = " + ".join(names[:k + 1]) if rule == "cumsum" else \
            f"exp({names[k]}) / ({' + '.join(f'exp({n})' for n in names)})"
        cand.checks.append(Check(f"t{res[0].start}", expr, False))


def _share_checks(cand: Candidate, col: list[Cell], results: list[Cell], good: list[int],
                  uncovered: set[int]) -> None:
    names = [f"t{c[0].start}" for c in col]
    cand.holes.update({n: c[0] for n, c in zip(names, col, strict=True)})
    for k in good:
        res = results[k][0]
        if res.start in uncovered:
            cand.holes[f"t{res.start}"] = res
            cand.checks.append(Check(f"t{res.start}",
                                     f"{names[k]} / ({' + '.join(names)})", False))


def _total_candidate(tokens: list[Token], rows: list[list[tuple[int, int]]],
                     totals: list[tuple[int, int]], uncovered: set[int]) -> Candidate | None:
    """``合计 … 260160`` under a column of numbers: the total is the column's sum."""
    cand = Candidate("table", "inferred: a totals row is the sum of its column")
    for j, span in enumerate(totals):
        if span == (0, 0) or j == 0:
            continue
        res = _cell(tokens, span)
        cells = [_cell(tokens, r[j]) if j < len(r) else None for r in rows]
        if res is None or res[0].start not in uncovered or any(c is None for c in cells):
            continue
        col = [c for c in cells if c is not None]
        if _index_column(col) or not _close(sum(c[1] for c in col), res):
            continue
        names = [f"t{c[0].start}" for c in col]
        cand.holes.update({n: c[0] for n, c in zip(names, col, strict=True)})
        cand.holes[f"t{res[0].start}"] = res[0]
        cand.checks.append(Check(f"t{res[0].start}", " + ".join(names), False))
    return cand if cand.checks else None


def _formula(cols: dict[int, list[Cell]], target: int,
             results: list[Cell]) -> tuple[str, tuple[int, ...], list[int]] | None:
    """The formula that fits the column in the most rows to its printed digits (ties: unary
    before binary, columns left to right); its rows are those the loose sieve accepts."""
    others = [j for j in cols if j != target]
    tried: list[tuple[str, tuple[int, ...], list[tuple[Cell, ...]], Callable[..., float]]] = []
    for form, func in UNARY:
        tried += [(form, (a,), [(c,) for c in cols[a]], func) for a in others]
    for form, func2 in BINARY:
        tried += [(form, (a, b), list(zip(cols[a], cols[b], strict=True)), func2)
                  for a in others for b in others if a != b]
    best: tuple[int, str, tuple[int, ...], list[int]] | None = None
    for form, operands, args, func in tried:
        # an activation is near a line over much of its range: only its printed digits count
        good = _fits(results, args, func, tight=form in ACTIVATIONS)
        if not _enough(good, len(results)) or _copies(results, args, good):
            continue
        tight = len(_fits(results, args, func, tight=True))
        if best is None or tight > best[0]:
            best = (tight, form, operands, good)
    return None if best is None else best[1:]


def cell_tokens(tokens: list[Token], cells: list[tuple[int, int]]) -> list[list[Token]]:
    """The tokens of each table cell, the ``$`` of its inline math left out."""
    return [[t for t in tokens if a <= t.start < b and not (t.kind == OTHER and t.text == "$")]
            for a, b in cells]


def table_definitions(text: str, tokens: list[Token]) -> list[tuple[str, int, Token]]:
    """``| $w_1$ | … | 0.2 |``, ``| model width | $d$ | 1024 |``: a row with exactly one cell
    that is a lone printed number, and a first cell that is a lone name (else exactly one
    such cell)."""
    out = []
    for rows in _rows(text):
        for cells in rows:
            inside = cell_tokens(tokens, cells)
            names = [c[0] for c in inside if len(c) == 1 and c[0].kind == NAME]
            if inside and len(inside[0]) == 1 and inside[0][0].kind == NAME:
                names = names[:1]  # `| $w_1$ | $i_1$ | $h_1$ | 0.2 |`: the row's own name first
            numbers = [c[0] for c in inside if len(c) == 1 and c[0].kind == NUM]
            if len(names) == 1 and len(numbers) == 1:
                out.append((names[0].text, names[0].start, numbers[0]))
    return out
