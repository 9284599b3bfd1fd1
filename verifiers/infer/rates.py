"""Pattern family: a rate, ``<c> <things> per <unit>``, from the two counts before it.

``a 6000-character file came out at 1500 tokens, 4 characters per token``: earlier on the
line a count of *characters* (6000) and a count of *tokens* (1500), then the rate, so
``4 = 6000 / 1500``. The words are matched by their singular form (``characters`` and
``character``, ``tokens`` and ``token``); the latest count of each before the rate wins.
A reading of words, so the check is ambiguous: kept only when verified, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, Token

__all__ = ["rate_candidates"]

_PER_RE = re.compile(r"[\s$]*(?:\\text\{\s*)?([A-Za-z][A-Za-z/-]*)\}?\s+per\s+([A-Za-z][A-Za-z-]*)")
_WORD_RE = re.compile(r"[\s$]*(?:-|\\text\{\s*)?\s*([A-Za-z][A-Za-z/-]*)")


def _stem(word: str) -> str:
    """The singular, lower-case form: ``Tokens`` -> ``token``, ``GPUs`` -> ``gpu``."""
    w = word.lower().rstrip("-")
    for suffix in ("ches", "shes", "sses", "xes"):
        if w.endswith(suffix):
            return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 2 else w


def rate_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    nums = [t for t in tokens if t.kind == NUM]
    out = []
    for k, c in enumerate(nums):
        if c.start not in uncovered:
            continue
        m = _PER_RE.match(text, c.end)
        if m is None or "\n" in m.group():
            continue
        top, bottom = _stem(m.group(1)), _stem(m.group(2))
        if top == bottom:
            continue
        line_start = text.rfind("\n", 0, c.start) + 1
        found: dict[str, Token] = {}
        for t in nums[:k]:
            if t.start < line_start:
                continue
            w = _WORD_RE.match(text, t.end)
            if w is not None and "\n" not in w.group():
                stem = _stem(w.group(1))
                if stem in (top, bottom):
                    found[stem] = t
        if top in found and bottom in found:
            out.append(Candidate("rate", "inferred: a rate from the two counts before it",
                                 {"a": found[top], "b": found[bottom], "c": c},
                                 [Check("c", "a / b", False)]))
    return out
