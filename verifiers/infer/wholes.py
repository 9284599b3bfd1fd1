"""Pattern family: percentages that split a whole add up to 100%.

A distribution printed as percentages is everywhere in ML notes, as a column or a sentence::

    呼吸困难	45%
    黑便	30%
    呕血	15%
    其他	10%

    「从第一个 Token 获取 60% 的权重，从第二个获取 30%，从第三个获取 10%。」
    即 A 约 33.97%，B 约 58.16%，C 只有约 7.87%。

A group is either the percentages of one sentence (two or more, nothing else printed between
them but words), or a run of consecutive lines that each print exactly one number, a
percentage (a column of a table or a list, three or more). When the printed values add up to
100% within their rounding, each entry is checked as ``1`` minus the others (one claim per
entry, never merged: a check that read a value another check of the same claim checks would be
circular), so an edit of any entry is a ``discrepancy`` at that entry (and, since the whole no
longer adds up, at the others). Which percentages make a whole is a reading: kept only when
the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token, printed_value

__all__ = ["whole_candidates"]

MIN_SENTENCE = 2
MIN_COLUMN = 3
MAX_ENTRIES = 24
_PERCENT = ("%", "％", "\\%")
_END = re.compile(r"[。；;\n]|\.(?:\s|$)|[!?！？]")


def _is_pct(t: Token) -> bool:
    return t.kind == NUM and t.text.rstrip().endswith(_PERCENT)


def _adds_up(group: list[Token]) -> bool:
    values = [printed_value(t) for t in group]
    if any(v is None for v in values):
        return False
    total = sum(v[0] for v in values if v is not None)
    slack = sum(v[1] for v in values if v is not None) + 1e-9
    return abs(total - 1.0) <= slack  # a percentage reads as its fraction (45% -> 0.45)


def _groups(text: str, nums: list[Token]) -> list[list[Token]]:
    out: list[list[Token]] = []
    # one sentence: only percentages printed in it
    start = 0
    bounds = [(m.start(), m.end()) for m in _END.finditer(text)] + [(len(text), len(text))]
    k = 0
    for end, nxt in bounds:
        inside = []
        while k < len(nums) and nums[k].start < end:
            if nums[k].start >= start:
                inside.append(nums[k])
            k += 1
        if len(inside) >= MIN_SENTENCE and all(_is_pct(t) for t in inside):
            out.append(inside)
        start = nxt
    # a column: consecutive lines each printing one number, a percentage
    by_line: dict[int, list[Token]] = {}
    for t in nums:
        by_line.setdefault(text.count("\n", 0, t.start), []).append(t)
    run: list[Token] = []
    last = -2
    for line in sorted(by_line):
        toks = by_line[line]
        if len(toks) == 1 and _is_pct(toks[0]) and line == last + 1 and run:
            run.append(toks[0])
        else:
            if len(run) >= MIN_COLUMN:
                out.append(run)
            run = [toks[0]] if len(toks) == 1 and _is_pct(toks[0]) else []
        last = line
    if len(run) >= MIN_COLUMN:
        out.append(run)
    return out


def whole_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``v_i = 1 − Σ others`` for each entry of a group of percentages that make 100%."""
    nums = sorted((t for t in tokens if t.kind in (NUM, VAL)), key=lambda t: t.start)
    out: list[Candidate] = []
    for group in _groups(text, nums):
        if len(group) > MAX_ENTRIES or not any(t.start in uncovered for t in group) \
                or not _adds_up(group):
            continue
        for k, entry in enumerate(group):  # one claim per entry, its checked hole named p
            others = {f"s{j}": t for j, t in enumerate(group) if j != k}
            out.append(Candidate("whole", "inferred: the percentages of one whole add up to "
                                 "100%", {"p": entry, **others},
                                 [Check("p", f"1 - ({' + '.join(others)})", False)]))
    return out
