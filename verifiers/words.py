"""Word holes ``⟦slot⟧``: a property claim reads the words that carry its law from the note.

A sentence such as "给所有 logit ⟦op⟧同一个常数 $c$，结果⟦effect⟧" states a different law when
an author writes 乘以 for 加上 or 变化 for 不变. Quoting the sentence literally would only make
the claim stale, and re-quoting it would pin the false law. A word hole instead matches any
word of the vocabulary (``verifiers/properties/vocabulary.yaml``) at its place, and the law
is built from the meaning of the word read there; a word the vocabulary does not know still
matches (up to the next literal text, within :data:`MAX_WORD` characters of one line) so that
the claim can say *which* word it cannot read (``unparsed``) instead of going stale.

This module is light (the safe YAML loader only): quotes are matched with it on every run.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from verifiers.yamlload import load

VOCABULARY = Path(__file__).resolve().parent / "properties" / "vocabulary.yaml"
MAX_WORD = 16  # characters a word outside the vocabulary may take (a short phrase)
_STOP = "\n。；;，,：:！!？?（）()「」“”\"'"  # a word never spans a clause boundary


class VocabularyError(ValueError):
    """The vocabulary file is malformed (a test keeps it well-formed)."""


def normal(word: str) -> str:
    """A word without whitespace: ``j ≤ i`` and ``j≤i`` are the same word."""
    return "".join(word.split())


@functools.cache
def classes() -> dict[str, dict[str, tuple[str, ...]]]:
    """{class: {meaning: words}} from the vocabulary file (read once per process)."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    table = data.get("classes") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise VocabularyError(f"{VOCABULARY.name}: expected a mapping 'classes'")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for cls, meanings in table.items():
        if not isinstance(meanings, dict):
            raise VocabularyError(f"{VOCABULARY.name}: class {cls!r} is not a mapping")
        out[cls] = {}
        for meaning, words in meanings.items():
            if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
                raise VocabularyError(f"{VOCABULARY.name}: {cls}.{meaning}: a list of words")
            out[cls][str(meaning)] = tuple(words)
    return out


def meaning(cls: str, word: str) -> str | None:
    """The meaning of ``word`` in vocabulary class ``cls``, or None if the class lacks it."""
    key = normal(word)
    for value, words in classes().get(cls, {}).items():
        if any(normal(w) == key for w in words):
            return value
    return None


def words_of(cls: str) -> dict[str, tuple[str, ...]]:
    return classes().get(cls, {})


@functools.cache
def _word_patterns() -> tuple[re.Pattern[str], ...]:
    """Every vocabulary word as a whitespace-tolerant regex, longest first."""
    every = {normal(w) for meanings in classes().values() for ws in meanings.values()
             for w in ws}
    ordered = sorted(every, key=lambda w: (-len(w), w))
    return tuple(re.compile(r"\s*".join(re.escape(ch) for ch in w)) for w in ordered)


def word_ends(text: str, pos: int, limit: int) -> list[int]:
    """Where a word hole starting at ``pos`` may end, most preferred first.

    Vocabulary words first (longest first), then any other short run of text within the
    clause, shortest first: the literal text after the hole decides which one fits, and a
    word outside the vocabulary is reported as such by the property claim.
    """
    ends: list[int] = []
    for pattern in _word_patterns():
        m = pattern.match(text, pos, limit)
        if m and m.end() > pos and m.end() not in ends:
            ends.append(m.end())
    stop = min(limit, pos + MAX_WORD)
    for end in range(pos + 1, stop + 1):  # a word of a space-separated row ("<PAD> 老鼠")
        if text[end - 1] in _STOP or text[end - 1].isspace():
            break  # is tried whole before any cut inside it ("<", "<P")
        if end < limit and text[end] in " \t\u3000":
            if end not in ends:
                ends.append(end)
            break
    for end in range(pos + 1, stop + 1):
        if text[end - 1] in _STOP:
            break
        if end not in ends:
            ends.append(end)
    return ends
