"""Pattern family: numbers that reuse a list printed above them -- the coefficients of a
weighted sum, and a running total written with arrows.

Worked attention examples print the weights, then use them::

    我们现在只有 0.1、0.1、0.6、0.2 这四个数字。        probabilities [0.50, 0.25, 0.15, 0.10]
    …                                                 …
    z = 0.1 v_{1} + 0.1 v_{2} + 0.6 v_{3} + 0.2 v_{4}  累积：0.50 → 0.75 → 0.90

* the coefficients of a sum of named terms (``c₁ x₁ + c₂ x₂ + …``, three terms or more) whose
  printed numbers are, in order, exactly those of the latest list printed up to
  :data:`MAX_LINES` lines above (numbers separated by ``、``/commas, or a printed vector) are
  that list again: each coefficient is checked against its element;
* three or more numbers joined by arrows (``→``, ``->``) that are the running totals of the
  first elements of such a list are checked as those sums.

The list is read through a definition claim, so an edit of either side is flagged. A reading
of numbers (the order of three or more is what makes it one): kept only when verified, never
pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.listed import _elements, _key, _lists
from verifiers.infer.tokens import NAME, NUM, OP, Token, printed_value

__all__ = ["coefficient_candidates"]

MIN_TERMS = 3
MAX_LINES = 40
_ARROW_RE = re.compile(r"[\s$]*(?:→|->|⟶|\\to|\\rightarrow)[\s$]*\Z")

Source = tuple[int, list[Token], Token | None, list[object]]


def _terms(tokens: list[Token], k: int) -> tuple[list[Token], int]:
    """The coefficients of ``c x + c y + …`` starting at token ``k``, and where it ends."""
    out, j = [], k
    while j + 1 < len(tokens) and tokens[j].kind == NUM and tokens[j + 1].kind == NAME:
        out.append(tokens[j])
        j += 2
        if not (j < len(tokens) and tokens[j].kind == OP and tokens[j].text == "+"):
            break
        j += 1
    return out, j


def _source(text: str, lists: list[Source], before: int,
            want: list[object] | None = None) -> list[Source]:
    """Lists printed above ``before`` within :data:`MAX_LINES`, latest first (``want``: only
    those whose elements are exactly these)."""
    return [s for s in reversed(lists) if s[0] < before
            and text.count("\n", s[0], before) <= MAX_LINES and (want is None or s[3] == want)]


def _element(src: Source, i: int) -> tuple[str, str, Token]:
    """(local name, expression, token) reading element ``i`` of a list."""
    _, items, vec, _ = src
    tok = vec if vec is not None else items[i]
    local = f"u{tok.start}"
    return local, (f"{local}[{i}]" if vec is not None else local), tok


def coefficient_candidates(text: str, tokens: list[Token], uncovered: set[int]
                           ) -> list[Candidate]:
    joined: dict[int, Token] = {}
    lists: list[Source] = [(at, items, vec, keys) for at, items, vec in
                           _lists(text, tokens, joined)
                           if (keys := _elements(items, vec)) is not None]
    lists = [s for s in lists if not any(t.start in joined for t in s[1])]  # signs: not here
    out: list[Candidate] = []
    k = 0
    while k < len(tokens):
        terms, end = _terms(tokens, k)
        if len(terms) >= MIN_TERMS and any(t.start in uncovered for t in terms):
            keys = [_key(t) for t in terms]
            found = _source(text, lists, terms[0].start, keys)  # type: ignore[arg-type]
            if found:
                out.append(_copies(found[0], terms, uncovered))
        k = max(end, k + 1)
    out += _arrows(text, tokens, lists, uncovered)
    return out


def _copies(src: Source, terms: list[Token], uncovered: set[int]) -> Candidate:
    cand = Candidate("restate", "inferred: the coefficients are the list printed above")
    for i, tok in enumerate(terms):
        if tok.start in uncovered:
            local, expr, value = _element(src, i)
            cand.holes[f"c{i}"] = tok
            cand.uses[local] = value
            cand.checks.append(Check(f"c{i}", expr, False))
    return cand


def _arrows(text: str, tokens: list[Token], lists: list[Source], uncovered: set[int]
            ) -> list[Candidate]:
    """``0.50 → 0.75 → 0.90``: the running totals of a list printed above."""
    nums = [t for t in tokens if t.kind == NUM]
    out = []
    k = 0
    while k < len(nums):
        run = [nums[k]]
        while k + len(run) < len(nums) and _ARROW_RE.match(
                text, run[-1].end, nums[k + len(run)].start):
            run.append(nums[k + len(run)])
        k += len(run)
        values = [printed_value(t) for t in run]
        if len(run) < MIN_TERMS or any(v is None for v in values) \
                or not any(t.start in uncovered for t in run):
            continue
        for src in _source(text, lists, run[0].start):
            vals = [float(x[0]) for x in src[3]]  # type: ignore[index]
            if len(vals) < len(run):
                continue
            totals = [sum(vals[:i + 1]) for i in range(len(run))]
            if not all(abs(t - v[0]) <= v[1] + 1e-9  # type: ignore[index]
                       for t, v in zip(totals, values, strict=True)):
                continue
            cand = Candidate("restate", "inferred: the running totals of the list above")
            for i, tok in enumerate(run):
                parts = [_element(src, j) for j in range(i + 1)]
                cand.uses.update({local: value for local, _, value in parts})
                cand.holes[f"r{i}"] = tok
                cand.checks.append(Check(f"r{i}", " + ".join(e for _, e, _ in parts), False))
            out.append(cand)
            break
    return out
