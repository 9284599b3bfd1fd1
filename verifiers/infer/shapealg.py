"""Pattern family: the shape printed after a matrix product follows from its factors' shapes.

Notes that work attention by hand print the shape of each product next to it::

    输入 X_input (3 × 4)          W_q (4 × 3)：
    ├─→ X_input · W_q = Q (3 × 3)
    Q₁ = X · W_q1 → 3×2 矩阵
    Z₁ = softmax(Q₁·K₁^T/√2) · V₁ → 3×2 矩阵

The shapes of the names are the ones the note announces (``NAME (r × c)``, and the shape a
product line gives its left side, ``Q₁ = … → 3×2``). The product is read factor by factor
(``·``, ``×``, ``@``; ``^T``/``ᵀ`` swaps; ``softmax(…)`` and a division by a number keep the
shape): its rows are the first factor's, its columns the last factor's, and every inner pair
must agree, else nothing is written. The printed ``r`` and ``c`` are then checked against the
announced rows and columns they come from (read through definition claims), so an edited
shape (``3×2`` → ``2×3``) is a ``discrepancy`` at it. Kept only when verified, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, Token

__all__ = ["shape_algebra_candidates"]

_NAME = r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9\u4e00-\u9fff]+)?[₀-₉]*"
_DIMS = r"[(（]\s*(\d{1,4})\s*[×xX*]\s*(\d{1,4})\s*(?:[,，][^()（）\n]{0,40})?[)）]"
_ANNOUNCE = re.compile(rf"(?<![A-Za-z0-9_])(?P<n>{_NAME})\s*{_DIMS}")
_ARROW = re.compile(rf"(?<![A-Za-z0-9_])(?P<n>{_NAME})\s*=\s*(?P<e>[^=→\n]+?)\s*(?:→|->)\s*"
                    r"(\d{1,4})\s*[×x]\s*(\d{1,4})(?!\d)")
_NAMED = re.compile(rf"(?P<e>[^=\n─→│├└]+?)\s*=\s*(?P<n>{_NAME})\s*[(（]\s*(\d{{1,4}})\s*[×xX*]\s*"
                    r"(\d{1,4})\s*[)）]")
_TOKEN = re.compile(rf"\s*(?:(?P<t>\^\{{?T\}}?|ᵀ)|(?P<op>[·×@*])|(?P<lp>\()|(?P<rp>\))|"
                    rf"(?P<f>softmax)(?=\s*\()|(?P<div>/\s*(?:√\s*)?\d+(?:\.\d+)?)|"
                    rf"(?P<name>{_NAME}))")

Shape = tuple[Token, Token]  # (rows, columns): the printed numbers they are read from


def _tokens(expr: str) -> list[tuple[str, str]] | None:
    out, k = [], 0
    expr = expr.rstrip()
    while k < len(expr):
        m = _TOKEN.match(expr, k)
        if m is None or m.end() == k:
            return None
        kind = next(g for g, v in m.groupdict().items() if v is not None)
        out.append((kind, m.group(kind)))
        k = m.end()
    return out


def _shape(expr: str, shapes: dict[str, Shape]) -> Shape | None:
    """The shape of a product of named matrices, or None when any part is not read."""
    toks = _tokens(expr)
    if not toks:
        return None
    pos = 0

    def factor() -> Shape | None:
        nonlocal pos
        if pos >= len(toks):
            return None
        kind, text = toks[pos]
        got: Shape | None
        if kind == "f":
            pos += 1
            got = factor()  # softmax(…): same shape (its bracket is the next factor)
        elif kind == "lp":
            pos += 1
            got = product()
            if got is None or pos >= len(toks) or toks[pos][0] != "rp":
                return None
            pos += 1
        elif kind == "name":
            pos += 1
            got = shapes.get(text)
        else:
            return None
        while got is not None and pos < len(toks) and toks[pos][0] in ("t", "div"):
            if toks[pos][0] == "t":
                got = (got[1], got[0])
            pos += 1
        return got

    def product() -> Shape | None:
        nonlocal pos
        first = factor()
        if first is None:
            return None
        rows, cols = first
        while pos < len(toks) and toks[pos][0] == "op":
            pos += 1
            nxt = factor()
            if nxt is None or _value(cols) != _value(nxt[0]):
                return None  # the inner sizes must agree
            cols = nxt[1]
        return rows, cols

    got = product()
    return got if got is not None and pos == len(toks) else None


def _tail_shape(expr: str, shapes: dict[str, Shape]) -> Shape | None:
    """The shape of the longest product that ends ``expr`` (prose may come before it: ``The
    hidden state is X @ W``)."""
    starts = [0] + [m.end() for m in re.finditer(r"[\s,，:：;；]+", expr)]
    for k in starts:
        tail = expr[k:]
        if any(op in tail for op in "·×@*"):
            got = _shape(tail, shapes)
            if got is not None:
                return got
    return None


def _value(tok: Token) -> str:
    return tok.text.strip()


def shape_algebra_candidates(text: str, tokens: list[Token], uncovered: set[int]
                             ) -> list[Candidate]:
    """``r = rows(first factor)``, ``c = cols(last factor)`` per product with a printed shape."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    events: list[tuple[int, str, re.Match[str]]] = []
    for m in _ANNOUNCE.finditer(text):
        events.append((m.start(), "announce", m))
    for m in _ARROW.finditer(text):
        events.append((m.start(), "arrow", m))
    for m in _NAMED.finditer(text):
        events.append((m.start(), "named", m))
    shapes: dict[str, Shape] = {}
    out: list[Candidate] = []
    for _, kind, m in sorted(events, key=lambda e: (e[0], e[1])):
        r, c = nums.get(m.start(3 if kind != "announce" else 2)), \
            nums.get(m.start(4 if kind != "announce" else 3))
        if r is None or c is None:
            continue
        if kind == "announce":
            shapes[m.group("n")] = (r, c)  # the latest announcement before a product wins
            continue
        if not any(op in m.group("e") for op in "·×@*"):
            continue
        got = _tail_shape(m.group("e"), shapes)
        shapes[m.group("n")] = (r, c)  # the printed shape of the left side, for later lines
        if got is None or got[0].start in (r.start, c.start) or got[1].start in (r.start,
                                                                                 c.start):
            continue
        if not {r.start, c.start} & uncovered:
            continue
        out.append(Candidate("shape", "inferred: the shape of the product follows from the "
                             "shapes of its factors", {"r": r, "c": c},
                             [Check("r", "a", False), Check("c", "b", False)],
                             uses={"a": got[0], "b": got[1]}))
    return out
