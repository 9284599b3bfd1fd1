"""Pattern family: a sentence that states a law of the catalog in the law's own words.

``T → 0 时分布趋向 one-hot，T → ∞ 时趋向均匀分布``, ``as T → 0 the distribution becomes
one-hot``: a sentence the cue words find (:func:`verifiers.meaning.statements.find_statements`)
that holds, for every word slot of a catalog law, a word of the law vocabulary
(``verifiers/properties/vocabulary.yaml``, read only) with the slot's meaning, becomes a
``kind: property`` claim naming that law with a word hole ``⟦slot⟧`` on each word. The law
Hypothesis searches is then built from the words the sentence says: an edit of a word (``T → 0``
→ ``T → ∞``) is searched as the law it now states, and fails when that law is false.

A sentence is read as a law only when the words cannot be an accident of prose: the law has
two slots or more, and every slot's class is one of :data:`DISTINCTIVE` (words that name the
law's own objects -- a limit of the temperature, a one-hot or uniform outcome -- rather than
``same`` or ``more``, which any sentence may hold). The engine decides, as for every inferred
claim: kept only when Hypothesis finds no counterexample, never pinned.
"""

from __future__ import annotations

import functools
import re

from verifiers.infer.candidate import Candidate
from verifiers.meaning.statements import find_statements
from verifiers.properties.catalog import CATALOG
from verifiers.words import normal, words_of

__all__ = ["DISTINCTIVE", "law_candidates", "readable_laws"]

#: vocabulary classes whose words name a law's own objects (not generic prose)
DISTINCTIVE = frozenset({"limit", "outcome", "symmetry", "position", "proportion", "growth",
                         "renormalise", "orientation", "matrix", "perplexity"})
MIN_SLOTS = 2


@functools.cache
def readable_laws() -> tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...]:
    """(law, ((slot, class, meaning), ...)) of every law a sentence may be read as."""
    out = []
    for name, spec in sorted(CATALOG.items()):
        slots = tuple((p.name, p.vocab, str(p.default)) for p in spec.slots)
        if len(slots) >= MIN_SLOTS and all(c in DISTINCTIVE for _, c, _ in slots):
            out.append((name, slots))
    return tuple(out)


@functools.cache
def _pattern(cls: str, meaning: str) -> re.Pattern[str] | None:
    """The words of ``meaning`` in ``cls``, longest first, whitespace inside ignored."""
    words = sorted({normal(w) for w in words_of(cls).get(meaning, ())}, key=lambda w: -len(w))
    if not words:
        return None
    parts = []
    for w in words:
        body = r"\s*".join(re.escape(ch) for ch in w)
        parts.append(rf"(?<![A-Za-z]){body}(?![A-Za-z])" if w.isascii() else body)
    return re.compile("|".join(parts), re.IGNORECASE)


def law_candidates(text: str, open_statements: set[int]) -> list[Candidate]:
    """A property claim per (uncovered law sentence, law whose every slot word it says)."""
    out = []
    for item in find_statements(text):
        if item.start not in open_statements:
            continue
        for name, slots in readable_laws():
            words: dict[str, tuple[int, int]] = {}
            for slot, cls, meaning in slots:
                pattern = _pattern(cls, meaning)
                hit = None if pattern is None else next(
                    (m for m in pattern.finditer(text, item.start, item.end)
                     if not any(a < m.end() and m.start() < b for a, b in words.values())),
                    None)
                if hit is None:
                    break
                words[slot] = hit.span()
            else:
                cand = Candidate("law", f"inferred: the sentence states the law {name}",
                                 extra=["    kind: property", f"    property: {name}"])
                cand.words = words
                out.append(cand)
    return out
