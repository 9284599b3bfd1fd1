"""Pattern family: a value restated, rounded or in other units, right after it is printed.

``… = 2362368 个参数，约 236 万``, ``e^{1.1513} ≈ 3.162, about 3 choices``: the second
value is the first, rounded. The reading is a guess (``about 0.5 MB`` after a count in
bytes is another quantity), so the check is ambiguous: kept only when the engine
verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, Token

__all__ = ["restate_candidates"]

_ABOUT_RE = re.compile(r"(?:约为|约合|大约|约|approximately|roughly|about|around|≈|~|\\approx)"
                       r"[\s$]*$")
MAX_GAP = 16  # characters between the value and "about": a few words at most


def restate_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``<value> … 约 <value>`` within one line, the second checked against the first."""
    nums = [t for t in tokens if t.kind == NUM]
    out = []
    for prev, r in zip(nums, nums[1:], strict=False):
        if r.start not in uncovered:
            continue
        between = text[prev.end:r.start]
        m = _ABOUT_RE.search(between)
        if m is None or "\n" in between or m.start() > MAX_GAP:
            continue
        out.append(Candidate("restate", "inferred: a value restated, rounded",
                             {"v": prev, "r": r}, [Check("r", "v", False)]))
    return out
