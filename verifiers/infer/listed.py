"""Pattern family: a table column that tabulates a list printed before it, in order.

Worked examples list their inputs in prose, then tabulate them next to the results::

    三步的梯度依次为 $0.4$、$-0.2$、$0.3$。        raw scores $[2.0, 1.0, 0.5, 1.5]$
    | 步 | g | m | …                            | key | raw score | bias | …
    | 1 | 0.4 | 0.04 | …                        | 0 | 2.0 | -1.5 | …

A column of at least :data:`MIN_LIST` cells whose printed numbers are, in order, exactly
those of the latest earlier list (numbers on one line separated only by ``、`` / commas /
``and``, or a printed vector) is that list again: each cell is checked against its
element, read through a definition claim, so an edit of either is flagged. The order of
several numbers is what makes it a reading (a row number column never counts); kept only
when verified, never pinned.
"""

from __future__ import annotations

import re

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tables import _cell, _index_column, _rows, _text_tables
from verifiers.infer.tokens import NUM, OP, VAL, Token

__all__ = ["listed_column_candidates"]

MIN_LIST = 3
_SEP_RE = re.compile(r"[\s$]*(?:[、,，]|和|及|and)?[\s$]*\Z")
Key = tuple[object, object]


def _key(tok: Token) -> Key | None:
    try:
        numbers = read_value(tok.text, tok.start).numbers
    except Exception:  # noqa: BLE001 - not one printed number
        return None
    return (numbers[0].value, numbers[0].half_unit) if len(numbers) == 1 else None


def _signed(tokens: list[Token], joined: dict[int, Token]) -> list[Token]:
    """Number tokens, a minus written right before one (``$-0.2$``, ``−0.2``) joined to it
    (``joined``: the joined token's start -> the number's own token)."""
    out = []
    for k, t in enumerate(tokens):
        if t.kind != NUM:
            continue
        before = tokens[k - 1] if k else None
        if before is not None and before.kind == OP and before.text == "-" \
                and before.end == t.start and not t.text.startswith("-"):
            joined[before.start] = t
            t = Token(NUM, "-" + t.text, before.start, t.end)
        out.append(t)
    return out


def _lists(text: str, tokens: list[Token], joined: dict[int, Token]
           ) -> list[tuple[int, list[Token], Token | None]]:
    """(start, element tokens, the vector token or None): prose lists and printed vectors."""
    out: list[tuple[int, list[Token], Token | None]] = []
    run: list[Token] = []
    for t in _signed(tokens, joined) + [Token(NUM, "", len(text), len(text))]:
        if run and "\n" not in text[run[-1].end:t.start] \
                and _SEP_RE.match(text[run[-1].end:t.start]):
            run.append(t)
            continue
        if len(run) >= MIN_LIST:
            out.append((run[0].start, run, None))
        run = [t]
    for t in tokens:
        if t.kind == VAL and t.shape == "vector":
            out.append((t.start, [t], t))
    return sorted(out, key=lambda x: x[0])


def _elements(items: list[Token], vec: Token | None) -> list[Key] | None:
    if vec is None:
        keys = [_key(t) for t in items]
        return None if any(k is None for k in keys) else keys  # type: ignore[return-value]
    try:
        return [(n.value, n.half_unit) for n in read_value(vec.text, vec.start).numbers]
    except Exception:  # noqa: BLE001 - not a printed vector
        return None


def listed_column_candidates(text: str, tokens: list[Token], uncovered: set[int]
                             ) -> list[Candidate]:
    joined: dict[int, Token] = {}
    lists = [(at, items, vec, keys) for at, items, vec in _lists(text, tokens, joined)
             if (keys := _elements(items, vec)) is not None]
    tables = [rows for rows in _rows(text)] + [rows for rows, _ in _text_tables(text)]
    out = []
    for rows in tables:
        if len(rows) < MIN_LIST:
            continue
        for j in range(min(len(r) for r in rows)):
            cells = [_cell(tokens, r[j]) for r in rows]
            if any(c is None for c in cells):
                continue
            col = [c for c in cells if c is not None]
            keys = [_key(c[0]) for c in col]
            if _index_column(col) or len(set(keys)) < 2:
                continue
            source = next((x for x in reversed(lists) if x[0] < rows[0][0][0]
                           and x[3] == keys), None)
            if source is None:
                continue
            _, items, vec, _ = source
            for k, (tok, _, _) in enumerate(col):
                # a cell `-0.2` joins its sign: the number's own token is what is uncovered
                if tok.start not in uncovered and tok.end - len(tok.text) + 1 not in uncovered:
                    continue
                src = vec if vec is not None else items[k]
                negated = vec is None and src.start in joined
                if negated:  # `$-0.2$`: the definition reads the number, the sign is the claim's
                    src = joined[src.start]
                local = f"u{src.start}"
                expr = f"{local}[{k}]" if vec is not None else \
                    (f"(-{local})" if negated else local)
                out.append(Candidate("restate", "inferred: a listed value, tabulated again",
                                     {"r": tok}, [Check("r", expr, False)], {local: src}))
    return out
