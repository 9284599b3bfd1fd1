"""Pattern family: a formula in named quantities, read on the note's own numbers.

A note prints a formula over names it defines elsewhere, then its value with the note's numbers::

    Δ* = ln((1 − ε + ε/K) / (ε/K)) = ln(1 + K(1 − ε)/ε)
    K = 5，ε = 0.1：Δ* = ln(0.92 / 0.02) = ln 46 = 3.8286。

and often a table whose column is that formula (or whose header *is* a formula) over the other
columns::

    ε       q_y     ε/K     最优间隔 Δ*
    0.05    0.96    0.01    4.5643

Two readings, plain text and Markdown alike:

* :func:`named_instance_candidates` -- ``N = rhs`` then, within :data:`MAX_LINES` lines,
  ``N = … = value``: the right side (every printing of it in the chain) is a formula hole
  ``⟪F⟫`` read with ``computes:`` (:mod:`verifiers.formulas.inline`), each name bound to the
  latest value the note defines for it before the instance (``K = 5``, read through a
  definition claim), compared with the printed value to half a unit of its last digit. An
  edit of the formula (a ratio turned upside down, a sign) is a ``discrepancy`` at the formula.
* :func:`named_table_candidates` -- a table column whose header is a formula over other
  columns' symbols (``ε/K``), or whose header names a quantity with a printed formula (``Δ*``):
  each row's value is checked against that formula over the row's cells and the defined values
  (an arithmetic check on the cell, so an edited cell is a ``discrepancy`` at the cell).

Names are a reading: kept only when the engine verifies them, never pinned.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.chains import _definitions, _runs
from verifiers.infer.headers import _header
from verifiers.infer.instances import _result
from verifiers.infer.parse import parse_segment
from verifiers.infer.tables import _cell, _rows, _text_cells, _text_tables, table_definitions
from verifiers.infer.tokens import FUNC, LP, NAME, NUM, OP, OTHER, REL, RP, Token
from verifiers.notes import lines_at

__all__ = ["named_instance_candidates", "named_table_candidates", "prose_formula_candidates"]

MAX_LINES = 8  # lines from a formula to its worked instance
MAX_INSTANCES = 2  # instances read per formula
_DECOR = ("*", "'")  # `Δ*`, `f'`: a mark glued to a name is part of it
_NUMBER_RE = re.compile(r"[-−+]?\d[\d.,]*%?")
_PLAIN_FUNCS = ("ln", "log", "exp", "sqrt", "sin", "cos", "tan")


@dataclass(frozen=True)
class Formula:
    """``N = rhs``: the defined name, where it is printed, the right side's tokens and span
    (all printings of the chain that use a name), and the names the right side reads."""

    name: str
    at: int
    rhs: list[Token]  # the first printing
    span: tuple[int, int]  # every printing (``A = B`` read as one formula hole)
    names: tuple[str, ...]


def _name_at(text: str, tokens: list[Token], k: int) -> tuple[str, int] | None:
    """(name text, index after it) of a name at token ``k`` with its glued mark (``Δ*``)."""
    t = tokens[k]
    if t.kind != NAME:
        return None
    end, j = t.end, k + 1
    if j < len(tokens) and tokens[j].kind == OP and tokens[j].text in _DECOR \
            and tokens[j].start == end and text[end:tokens[j].end] in _DECOR:
        end, j = tokens[j].end, j + 1
    return text[t.start:end], j


def _side(tokens: list[Token], j: int, line_end: int) -> int:
    """Index after the side that starts at ``j``: up to a relation, a word or the line end."""
    depth = 0
    while j < len(tokens) and tokens[j].start < line_end:
        t = tokens[j]
        if t.kind == REL or (t.kind == OTHER and depth <= 0):
            break
        depth += 1 if t.kind == LP else -1 if t.kind == RP else 0
        j += 1
    return j


def formulas(text: str, tokens: list[Token]) -> list[Formula]:
    """Every ``N = rhs`` whose right side is an operation over names (not ``N`` itself)."""
    out = []
    for k in range(len(tokens)):
        got = _name_at(text, tokens, k)
        if got is None:
            continue
        name, j = got
        if k and tokens[k - 1].kind in (NAME, NUM, OP, RP) \
                and text[tokens[k - 1].end:tokens[k].start].strip() == "":
            continue  # inside an expression, not its start
        if j >= len(tokens) or tokens[j].kind != REL or tokens[j].text != "=":
            continue
        line_end = text.find("\n", tokens[j].end)
        line_end = len(text) if line_end < 0 else line_end
        a = j + 1
        b = _side(tokens, a, line_end)
        rhs = tokens[a:b]
        names = tuple(dict.fromkeys(t.text for t in rhs if t.kind == NAME))
        if not names or name in names or not any(t.kind in (OP, FUNC) for t in rhs) \
                or any(t.kind == OTHER for t in rhs):
            continue
        end = b
        while end < len(tokens) and tokens[end].kind == REL and tokens[end].text == "=":
            nxt = _side(tokens, end + 1, line_end)
            side = tokens[end + 1:nxt]
            if not side or not any(t.kind == NAME for t in side) \
                    or any(t.kind == OTHER for t in side):
                break
            b, end = nxt, nxt
        out.append(Formula(name, tokens[k].start, rhs, (rhs[0].start, tokens[b - 1].end),
                           names))
    return out


Definitions = list[tuple[str, int, Token]]


def _scalar_definitions(text: str, tokens: list[Token],
                        section_of: Callable[[int], int]) -> Definitions:
    runs = [[t for t in tokens[a:b] if t.kind != OTHER] for a, b in _runs(tokens)]
    defs = [(n, at, v) for n, _, at, v in _definitions(runs, section_of) if v.kind == NUM]
    defs += [d for d in table_definitions(text, tokens) if d[2].kind == NUM]
    return sorted(defs, key=lambda d: d[1])


def _latest(defs: Definitions, name: str, before: int) -> Token | None:
    found = [d for d in defs if d[0] == name and d[1] < before]
    return found[-1][2] if found else None


def _yaml_key(name: str) -> str:
    import json

    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else json.dumps(
        name, ensure_ascii=False)


def named_instance_candidates(text: str, tokens: list[Token], uncovered: set[int],
                              section_of: Callable[[int], int]) -> list[Candidate]:
    """A formula hole per (formula, worked instance) with every name bound to a definition."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    defs = _scalar_definitions(text, tokens, section_of)
    out: list[Candidate] = []
    for f in formulas(text, tokens):
        limit = f.span[1]
        for _ in range(MAX_LINES):
            nxt = text.find("\n", limit + 1)
            limit = len(text) if nxt < 0 else nxt
        pat = re.compile(rf"(?<![A-Za-z0-9_\\]){re.escape(f.name)}(?![A-Za-z0-9_{{*'])")
        found = 0
        for m in pat.finditer(text, f.span[1], limit):
            result = _result(text, nums, m.end())
            if result is None or result.start not in uncovered:
                continue
            bound = {n: _latest(defs, n, result.start) for n in f.names}
            if any(v is None for v in bound.values()):
                continue
            out.append(_computes(text, f.span, result, bound, "inferred: the formula, on "
                                 "the values the note defines, gives the printed result"))
            found += 1
            if found == MAX_INSTANCES:
                break
    return out


_COLON_END = re.compile(r"[ \t$]*[:：][ \t]*$")


def prose_formula_candidates(text: str, tokens: list[Token], uncovered: set[int],
                             section_of: Callable[[int], int]) -> list[Candidate]:
    """``每轮期望产出的 token 数是 (1 − α^(γ+1)) / (1 − α)：`` then, on the next line, a worked
    chain ending ``= 3.3616``: a formula with no name of its own, introduced by a colon, read
    as a formula hole on the values the note defines and compared with the line's last result.
    """
    nums = {t.start: t for t in tokens if t.kind == NUM}
    defs = _scalar_definitions(text, tokens, section_of)
    out: list[Candidate] = []
    pos = 0
    lines = text.split("\n")
    for k, line in enumerate(lines[:-1]):
        start, pos = pos, pos + len(line) + 1
        colon = _COLON_END.search(line)
        if colon is None:
            continue
        end = start + colon.start()
        run = [t for t in tokens if start <= t.start < end]
        a = len(run)
        while a > 0 and run[a - 1].kind != OTHER and run[a - 1].kind != REL:
            a -= 1
        body = run[a:]
        names = tuple(dict.fromkeys(t.text for t in body if t.kind == NAME))
        if not names or not any(t.kind in (OP, FUNC) for t in body):
            continue
        result = _last_result(text, nums, pos, pos + len(lines[k + 1]))
        if result is None or result.start not in uncovered:
            continue
        bound = {n: _latest(defs, n, body[0].start) for n in names}
        if any(v is None for v in bound.values()):
            continue
        cand = _computes(text, (body[0].start, body[-1].end), result, bound,
                         "inferred: the formula the prose introduces, on the values the note "
                         "defines, gives the worked result")
        out.append(cand)
    return out


def _last_result(text: str, nums: dict[int, Token], a: int, b: int) -> Token | None:
    """The lone number after the line's last ``=``/``≈`` that ends it (``… = 3.3616。``)."""
    rels = [m for m in re.finditer(r"=|≈|\\approx", text[a:b])]
    if not rels:
        return None
    at = a + rels[-1].end()
    while at < b and text[at] in " \t$":
        at += 1
    tok = nums.get(at)
    if tok is None or text[tok.end:b].strip(" \t$。.，,；;") != "":
        return None
    return tok


def _computes(text: str, span: tuple[int, int], result: Token,
              bound: dict[str, Token | None], says: str) -> Candidate:
    """A ``computes:`` candidate: formula hole F over ``span``, names bound to definitions."""
    uses = {f"u{v.start}": v for v in bound.values() if v is not None}
    names = ", ".join(f"{_yaml_key(n)}: u{v.start}" for n, v in bound.items() if v is not None)
    spec = [f"value: r, rounded: r, names: {{{names}}}"]
    body = text[span[0]:span[1]]
    funcs = [fn for fn in _PLAIN_FUNCS if "\\" not in body
             and re.search(rf"(?<![A-Za-z]){fn}(?![A-Za-z])", body)]
    if funcs:
        spec.append(f"functions: [{', '.join(funcs)}]")
    cand = Candidate("named", says, {"r": result}, [], uses,
                     ["    computes:", f"      F: {{{', '.join(spec)}}}"])
    cand.formulas = {"F": span}
    return cand


def _tables(text: str) -> list[tuple[list[tuple[int, int]], list[list[tuple[int, int]]]]]:
    """(header cells, data rows) of every Markdown and plain-text table with a header."""
    out = []
    for rows in _rows(text):
        header = _header(text, rows[0][0][0]) if rows and rows[0] else None
        if header is not None:
            out.append((header, rows))
    for rows, _ in _text_tables(text):
        if any(not _NUMBER_RE.fullmatch(text[a:b]) for a, b in rows[0]) and len(rows) > 2:
            out.append((rows[0], rows[1:]))  # `τ  1/τ  G`: a header with a digit stays a row
            continue
        start = text.rfind("\n", 0, rows[0][0][0]) + 1
        if start == 0:
            continue
        h_start = text.rfind("\n", 0, start - 1) + 1
        line = text[h_start:start - 1]
        header = _text_cells(line, h_start)
        if len(header) == len(rows[0]) and not any(ch.isdigit() for ch in line):
            out.append((header, rows))
    return out + _two_column_tables(text)


MIN_PAIR_ROWS = 3  # rows of a two-column plain-text table (a header above them)


def _two_column_tables(text: str) -> list[tuple[list[tuple[int, int]],
                                                list[list[tuple[int, int]]]]]:
    """``概率 $p$<TAB>损失 $- \\ln p$`` over rows ``0.01<TAB>4.605``: two cells split by one tab
    (plain-text tables of three or more columns are :func:`tables._text_tables`'), a header
    of words above at least :data:`MIN_PAIR_ROWS` rows of numbers."""
    out = []
    lines = lines_at(text)
    k = 0
    while k < len(lines):
        a, line = lines[k]
        if line.count("\t") != 1 or any(ch.isdigit() for ch in line):
            k += 1
            continue
        rows = []
        j = k + 1
        while j < len(lines) and lines[j][1].count("\t") == 1:
            b, row = lines[j]
            cells = _text_cells(row, b)
            if len(cells) != 2 or not all(_NUMBER_RE.fullmatch(text[c:d]) for c, d in cells):
                break
            rows.append(cells)
            j += 1
        header = _text_cells(line, a)
        if len(rows) >= MIN_PAIR_ROWS and len(header) == 2:
            out.append((header, rows))
        k = max(j, k + 1)
    return out


def _head(text: str, tokens: list[Token], span: tuple[int, int]) -> list[Token]:
    """A header cell's tokens after its leading words (``最优间隔 Δ*`` → ``Δ *``)."""
    inside = [t for t in tokens if span[0] <= t.start < span[1] and t.text != "$"]
    k = len(inside)
    while k > 0 and inside[k - 1].kind != OTHER:
        k -= 1
    return inside[k:]


def named_table_candidates(text: str, tokens: list[Token], uncovered: set[int],
                           section_of: Callable[[int], int]) -> list[Candidate]:
    """One candidate per table: every column computed by its header's formula, or by the
    printed formula of the quantity its header names."""
    defs = _scalar_definitions(text, tokens, section_of)
    printed = formulas(text, tokens)
    out = []
    for header, rows in _tables(text):
        heads = [_head(text, tokens, span) for span in header]
        symbols: dict[str, int] = {}
        for j, head in enumerate(heads):
            got = _name_at(text, head, 0) if head else None
            if got is not None and got[1] == len(head):
                symbols[got[0]] = j
        at = header[0][0]
        cand = Candidate("named table", "inferred: a column computed by a formula over the "
                         "other columns")
        for j, head in enumerate(heads):
            exprs = []
            if len(head) > 1 and j not in symbols.values():
                exprs.append(head)  # `ε/K`: the header is the formula
            sym = next((s for s, i in symbols.items() if i == j), None)
            if sym is not None:
                exprs += [f.rhs for f in printed if f.name == sym and f.at < at][-1:]
            for row in rows:
                if j >= len(row) or len(row) != len(header):
                    continue
                res = _cell(tokens, row[j])
                if res is None or res[0].start not in uncovered:
                    continue
                check = _row_check(exprs, row, j, tokens, symbols, defs, at)
                if check is None:
                    continue
                expr, holes, uses = check
                cand.holes.update(holes)
                cand.holes[f"t{res[0].start}"] = res[0]
                cand.uses.update(uses)
                cand.checks.append(Check(f"t{res[0].start}", expr, False))
        if cand.checks:
            out.append(cand)
    return out


def _row_check(exprs: list[list[Token]], row: list[tuple[int, int]], j: int,
               tokens: list[Token], symbols: dict[str, int], defs: Definitions, at: int
               ) -> tuple[str, dict[str, Token], dict[str, Token]] | None:
    """(expression, holes, uses) of the first formula that reads in this row, else None."""
    cells: dict[int, Token] = {}

    def bind(tok: Token) -> Token | None:
        i = symbols.get(tok.text)
        if i is not None and i != j and i < len(row):
            cell = _cell(tokens, row[i])
            if cell is not None:
                cells[cell[0].start] = cell[0]
                return cell[0]
            return None
        return _latest(defs, tok.text, at)

    for head in exprs:
        consts = {t.start: f"k{t.start}" for t in head if t.kind == NUM}
        e = parse_segment(head, consts, bind)
        if e is None or e.ops == 0 or not e.uses or e.shape != "scalar":
            continue
        text = e.text
        for t in head:
            if t.kind == NUM:
                text = re.sub(rf"(?<![A-Za-z0-9_])k{t.start}(?![A-Za-z0-9_])",
                              t.text.replace("−", "-"), text)
        holes, uses = {}, {}
        for local, tok in e.uses.items():
            if tok.start in cells:
                text = re.sub(rf"(?<![A-Za-z0-9_]){local}(?![A-Za-z0-9_])",
                              f"t{tok.start}", text)
                holes[f"t{tok.start}"] = tok
            else:
                uses[local] = tok
        if holes:
            return text, holes, uses
    return None
