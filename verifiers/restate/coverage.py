"""Coverage of count words: each is read by a claim, waived with a reason, or uncovered.

A count word (:mod:`.countwords`) is

* ``covered`` when it lies inside a value hole of a claim that checks something (the
  numbers' rule: ``⟨n⟩个分数`` read and compared with the scores printed after it);
* ``waived`` when its class says it is no count (an idiom of the vocabulary such as 一点 or
  one-hot, or the article reading of 一 with a measure word), with that reason, or when a
  waiver that names ``count_words`` in its ``waives:`` marks it (its holes, or its whole quote);
* ``uncovered`` otherwise.

Ordinals (第三个) are excluded and counted apart, as section numbers are for the digits. The
count is reported, not gated: most count words of prose (三个 Token, 两个问题) count nothing the
note prints, and a gate on them would only teach waiving.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from verifiers.restate.countwords import COUNT, ORDINAL, CountWord, find_count_words

__all__ = ["CountCoverage", "classify_count_words", "count_words_json"]

COVERED, WAIVED, UNCOVERED = "covered", "waived", "uncovered"


@dataclass
class CountCoverage:
    """The count words of one note (ordinals apart), each with its status (same order)."""

    words: list[CountWord] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)  # index -> why waived
    excluded: dict[str, int] = field(default_factory=dict)  # "ordinal" -> count

    def count(self, status: str) -> int:
        return self.status.count(status)


def _inside(spans: list[tuple[int, int]], word: CountWord) -> bool:
    return any(a <= word.start and word.end <= b for a, b in spans)


def classify_count_words(text: str, holes: list[tuple[int, int]],
                         waived: list[tuple[tuple[int, int], str]]) -> CountCoverage:
    """Classify every count word of ``text``: ``holes`` are the value holes of checking
    claims, ``waived`` the spans of waivers of count words with their reasons."""
    out = CountCoverage(excluded={ORDINAL: 0})
    for word in find_count_words(text):
        if word.cls == ORDINAL:
            out.excluded[ORDINAL] += 1
            continue
        k = len(out.words)
        out.words.append(word)
        if _inside(holes, word):
            out.status.append(COVERED)
        elif word.cls != COUNT:
            out.status.append(WAIVED)
            out.reasons[k] = word.reason
        else:
            reason = next((r for span, r in waived if _inside([span], word)), None)
            out.status.append(UNCOVERED if reason is None else WAIVED)
            if reason is not None:
                out.reasons[k] = reason
    return out


def count_words_json(cov: CountCoverage, place: object) -> dict[str, object]:
    """``{total, covered, waived, uncovered: [{text, line, col}], excluded, waived_by}``;
    ``place(text, start)`` gives a word's ``{text, line, col}``."""
    by = Counter(w.cls if w.cls != COUNT else "waiver"
                 for w, s in zip(cov.words, cov.status, strict=True) if s == WAIVED)
    return {
        "total": len(cov.words),
        "covered": cov.count(COVERED),
        "waived": cov.count(WAIVED),
        "uncovered": [place(w.word, w.start)  # type: ignore[operator]
                      for w, s in zip(cov.words, cov.status, strict=True) if s == UNCOVERED],
        "excluded": dict(cov.excluded),
        "waived_by": dict(sorted(by.items())),
    }
