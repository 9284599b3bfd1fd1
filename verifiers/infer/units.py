"""Pattern family: a value restated in another unit or scale right after it is printed.

``201326592 bytes = 192 MiB``, ``3211264 字节，约 3.06 MB``, ``1638400000 tokens (about
1.64B)``, ``924844032，约 0.92 G``, ``$16 \\times 353453056$ bytes $\\approx 5.27$ GiB``:
the second value is the first (or the product printed before the unit) divided by the
ratio of the two units. A unit is read only from a short fixed list (bytes, KB … TB,
KiB … TiB, K/M/B/G/T, thousand/million/billion); ``MB`` is read as 10^6 or 2^20,
whichever the printed digits agree with (authors write MB for MiB), ``B`` as bytes after
a byte count and as a billion after a plain count.

A unit is a reading of words, so the check is ambiguous: kept only when the engine
verifies it, never pinned.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.parse import parse_segment
from verifiers.infer.tokens import CONST, FRAC, FUNC, LP, NUM, OP, RP, Token, printed_value

__all__ = ["UnitPair", "unit_candidates", "unit_pairs"]

_UNIT_RE = re.compile(
    r"(?:[ \t]|\$|\\[,;:! ]|\\text\{|\\mathrm\{|\\,)*"
    r"((?:KiB|MiB|GiB|TiB|KB|kB|MB|GB|TB|bytes|byte|字节|thousand|million|billion)"
    r"(?![A-Za-z])|[KMGT](?=FLOP)|[KkMBGT](?![A-Za-z]))(?:FLOPs?|FLOPS)?\}?")
_CONNECT_RE = re.compile(
    r"^[\s$,，;；(（]*(?:[A-Za-z\u4e00-\u9fff-]{1,12}[\s$,，;；(（)）]*)?"
    r"(?:about|approximately|roughly|around|exactly|i\.e\.|that is|which is|≈|~|\\approx|=|"
    r"约为|约合|大约|约|即|"
    r"也就是|合)[\s$]*$")
MAX_GAP = 40  # characters between the first value's end and the second value
# `| **total** | | 68719476736 |` then, after a blank line, `About 68.7 GFLOPs per layer`: a
# sentence that opens with "about" restates the number that ends the line(s) just above
_NEXT_SENTENCE_RE = re.compile(r"[\s|*$]*\n[\s|*$]*(?:About|Roughly|Approximately|约|大约|约为)"
                               r"[\s$]*\Z")

#: unit -> (dimension, factors to try, in order)
_BYTES = {"bytes": 1, "byte": 1, "字节": 1, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30,
          "TiB": 2 ** 40}
_DECIMAL_BYTES = {"KB": 1, "kB": 1, "MB": 2, "GB": 3, "TB": 4}
_COUNTS = {"K": 10 ** 3, "k": 10 ** 3, "thousand": 10 ** 3, "M": 10 ** 6, "million": 10 ** 6,
           "B": 10 ** 9, "G": 10 ** 9, "billion": 10 ** 9, "T": 10 ** 12}


def _unit(text: str, at: int, line_end: int) -> tuple[str, int, int, int] | None:
    """(unit, end, word start, word end) of a unit printed right after ``at``, else None."""
    m = _UNIT_RE.match(text, at, line_end)
    return (m.group(1), m.end(), m.start(1), m.end(1)) if m else None


def _factors(unit: str | None, dim: str | None) -> list[tuple[str, int]]:
    """(dimension, factor) readings of ``unit`` (``dim``: the other value's, to pick ``B``)."""
    if unit is None:
        return [("count", 1)]
    if unit in _BYTES:
        return [("bytes", _BYTES[unit])]
    if unit in _DECIMAL_BYTES:
        k = _DECIMAL_BYTES[unit]
        return [("bytes", 1000 ** k), ("bytes", 1024 ** k)]
    if unit == "B" and dim == "bytes":
        return [("bytes", 1)]
    return [("count", _COUNTS[unit])]


def _left_expression(tokens: list[Token], k: int) -> tuple[list[Token], int]:
    """The product or quotient printed right before token ``k`` (``16 \\times 353453056``):
    the tokens from the start of that expression to ``k``, and where it starts."""
    a = k
    while a > 0 and tokens[a - 1].kind in (NUM, OP, LP, RP, FRAC, FUNC, CONST) \
            and tokens[a - 1].text not in ("+", "-"):
        a -= 1
    seg = tokens[a:k + 1]
    while seg and seg[0].kind in (OP, RP):
        seg = seg[1:]
    return seg, (seg[0].start if seg else tokens[k].start)


@dataclass(frozen=True)
class UnitPair:
    """``<expression> <u1> … ≈ <r> <u2>``: what :func:`unit_pairs` found, for the families that
    check the value (:func:`unit_candidates`) and read the unit word (:mod:`.unitwords`)."""

    seg: list[Token]  # the tokens of the first value (a product, or one number)
    names: dict[int, str]  # start -> hole name of each number of ``seg`` (v1, v2, …)
    expr: str  # ``seg`` in the grammar, over ``names``
    ops: int  # its operations (0: one printed number)
    result: Token  # the restated value
    u1: tuple[str, int, int] | None  # (word, start, end) of the first unit
    u2: tuple[str, int, int] | None  # … of the second
    ratio: tuple[int, int]  # (numerator, denominator): result = expr * num / den


def unit_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``<value> <unit> … ≈ <value> <unit>`` on one line, units of one dimension."""
    out = []
    for pair in unit_pairs(text, tokens, uncovered):
        hole = f"v{len(pair.names) + 1}"
        holes = {pair.names[t.start]: t for t in pair.seg if t.kind == NUM}
        holes[hole] = pair.result
        body = pair.expr if pair.ops == 0 else f"({pair.expr})"
        check = f"{body} * {pair.ratio[0]} / {pair.ratio[1]}" if pair.ratio != (1, 1) else body
        out.append(Candidate("units", "inferred: the value restated in another unit", holes,
                             [Check(hole, check, False)]))
    return out


def unit_pairs(text: str, tokens: list[Token], uncovered: set[int]) -> list[UnitPair]:
    """Each value restated in another unit of its dimension that the printed digits agree
    with (a sieve: the engine decides exactly)."""
    index = {t.start: k for k, t in enumerate(tokens)}
    nums = [t for t in tokens if t.kind == NUM]
    out = []
    for prev, r in zip(nums, nums[1:], strict=False):
        k = index[prev.start]
        while k + 2 < len(tokens) and tokens[k + 1].text == "^" \
                and tokens[k + 1].start == tokens[k + 1].end and tokens[k + 2].kind == CONST:
            k += 2  # `1.8 × 10¹⁰ 字节`: the superscript power belongs to the value
        prev_end = tokens[k].end
        if r.start not in uncovered or r.start - prev_end > MAX_GAP:
            continue
        line_end = text.find("\n", prev_end)
        line_end = len(text) if line_end < 0 else line_end
        if r.start > line_end and not _NEXT_SENTENCE_RE.match(text, prev_end, r.start):
            continue
        line_end = text.find("\n", r.start)
        line_end = len(text) if line_end < 0 else line_end
        u1 = _unit(text, prev_end, r.start)
        u2 = _unit(text, r.end, line_end)
        if u2 is None and u1 is None:
            continue  # no unit on either side: a plain restatement (restate.py)
        after = u1[1] if u1 else prev_end
        if not (_CONNECT_RE.match(text[after:r.start])
                or _NEXT_SENTENCE_RE.match(text, after, r.start)):
            continue
        seg, _ = _left_expression(tokens, k)
        names = {t.start: f"v{k}" for k, t in enumerate(
            [t for t in seg if t.kind == NUM], start=1)}
        expr = parse_segment(seg, names)
        if expr is None or expr.shape != "scalar":
            continue
        got = _evaluate_float(seg, expr.text, names)
        printed = printed_value(r)
        if got is None or printed is None:
            continue
        choice = _pick(got, printed, u1[0] if u1 else None, u2[0] if u2 else None)
        if choice is None:
            continue
        out.append(UnitPair(seg, names, expr.text, expr.ops, r,
                            (u1[0], u1[2], u1[3]) if u1 else None,
                            (u2[0], u2[2], u2[3]) if u2 else None, choice))
    return out


def _evaluate_float(seg: list[Token], expr: str, names: dict[int, str]) -> float | None:
    """The expression at the printed values (a sieve: the engine decides exactly)."""
    from verifiers import expr as ex
    from verifiers.engine import POINT

    scope = {}
    for t in seg:
        if t.kind == NUM:
            v = printed_value(t)
            if v is None:
                return None
            scope[names[t.start]] = v[0]
    try:
        return float(ex.evaluate(ex.parse(expr), scope, POINT))
    except Exception:  # noqa: BLE001 - not a number here: nothing to propose
        return None


def _pick(got: float, printed: tuple[float, float], u1: str | None,
          u2: str | None) -> tuple[int, int] | None:
    """(numerator, denominator) of the unit ratio the printed digits agree with, else None."""
    for d1, f1 in _factors(u1, None):
        for d2, f2 in _factors(u2, d1):
            if d1 != d2 or (f1 == f2 and u1 is not None and u2 is not None and u1 == u2):
                continue
            want = got * f1 / f2
            slack = max(2 * printed[1], 1e-9 * abs(printed[0]))
            if math.isfinite(want) and abs(want - printed[0]) <= slack:
                g = math.gcd(f1, f2)
                return f1 // g, f2 // g
    return None
