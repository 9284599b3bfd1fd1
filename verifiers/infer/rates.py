"""Pattern family: a rate, ``<c> <things> per <unit>``, from the two counts before it.

``a 6000-character file came out at 1500 tokens, 4 characters per token``: earlier on the
line a count of *characters* (6000) and a count of *tokens* (1500), then the rate, so
``4 = 6000 / 1500``. The words are matched by their singular form (``characters`` and
``character``, ``tokens`` and ``token``); the latest count of each before the rate wins.
The Chinese spelling, ``1000 个词切出 1300 个 token，即每词 1.3 个 token``: ``每<unit>`` before
the rate and the counted thing after it, each matched against the words after the earlier
counts (a Chinese word by its first characters: ``词`` is ``词切出``'s).
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


_CJK = "\u4e00-\u9fff"
_EACH_RE = re.compile(rf"每(?:个|一个)?\s*([A-Za-z]+|[{_CJK}]{{1,2}})\s*\Z")
_CJK_WORD_RE = re.compile(rf"\s*(?:个)?\s*([A-Za-z]+|[{_CJK}]+)")


def _cjk_rates(text: str, nums: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``… 1000 个词 … 1300 个 token，即每词 1.3 个 token``: the rate of the latest counts."""
    out = []
    for k, c in enumerate(nums):
        line_start = text.rfind("\n", 0, c.start) + 1
        each = _EACH_RE.search(text, line_start, c.start)
        thing = _CJK_WORD_RE.match(text, c.end)
        if c.start not in uncovered or each is None or thing is None:
            continue
        bottom, top = each.group(1).lower(), thing.group(1).lower()
        if top.startswith(bottom) or bottom.startswith(top):
            continue
        found: dict[str, Token] = {}
        for t in nums[:k]:
            w = _CJK_WORD_RE.match(text, t.end)
            if t.start < line_start or w is None:
                continue
            word = w.group(1).lower()
            for unit in (top, bottom):
                if word == unit or (not unit.isascii() and word.startswith(unit)):
                    found[unit] = t
        if top in found and bottom in found:
            out.append(Candidate("rate", "inferred: a rate from the two counts before it",
                                 {"a": found[top], "b": found[bottom], "c": c},
                                 [Check("c", "a / b", False)]))
    return out


def rate_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    nums = [t for t in tokens if t.kind == NUM]
    out = _cjk_rates(text, nums, uncovered)
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
