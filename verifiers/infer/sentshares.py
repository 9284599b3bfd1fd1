"""Pattern family: a percentage in a sentence with two counts is the smaller's share of the larger.

Shares are stated in words in every note, in either order and many phrasings::

    Dropout keeps 90% of 250 units, that is 225 units.
    Of 400 tokens, 100 are padding, a share of 25%.
    训练集１０００条，其中验证集２００条，占２０％。

No phrase is read: a sentence (up to ``。``, ``. ``, ``;``, ``；`` or the line end) that prints
exactly one percentage and exactly two other numbers, the larger ``n`` and the smaller ``m``,
gives the check ``p = m / n``. Which words tie them is not read, so the check is ambiguous:
kept only when the engine verifies it to the printed digits (a coincidence at two or more
significant digits is rare), never pinned; an edit of any of the three is then a
``discrepancy`` at its line.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token, printed_value

__all__ = ["sentence_share_candidates"]

_END = re.compile(r"[。；;\n]|\.(?:\s|$)|[!?！？]")
_PERCENT = ("%", "％", "\\%")


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in _END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    out.append((start, len(text)))
    return out


def sentence_share_candidates(text: str, tokens: list[Token], uncovered: set[int]
                              ) -> list[Candidate]:
    """``p = m / n`` per sentence of one percentage and two other printed numbers."""
    nums = sorted((t for t in tokens if t.kind in (NUM, VAL)), key=lambda t: t.start)
    out: list[Candidate] = []
    k = 0
    for a, b in _sentences(text):
        inside = []
        while k < len(nums) and nums[k].start < b:
            if nums[k].start >= a:
                inside.append(nums[k])
            k += 1
        if any(t.kind == VAL for t in inside):
            continue
        pcts = [t for t in inside if t.text.rstrip().endswith(_PERCENT)]
        counts = [t for t in inside if t not in pcts]
        if len(pcts) != 1 or len(counts) != 2 or pcts[0].start not in uncovered:
            continue
        values = [printed_value(t) for t in counts]
        if any(v is None or v[0] <= 0 for v in values):
            continue
        first, second = (v[0] for v in values if v is not None)
        if first == second:
            continue
        small, large = (counts[0], counts[1]) if first < second else (counts[1], counts[0])
        out.append(Candidate("share", "inferred: the percentage is the smaller count's share "
                             "of the larger", {"n": large, "m": small, "p": pcts[0]},
                             [Check("p", "m / n", False)]))
    return out
