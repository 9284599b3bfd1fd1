"""The operation vocabulary: which operation(s) a word of a procedure names.

Data in ``vocabulary.yaml`` (safe loader). Light: no torch; the schema and the matcher use it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from verifiers.words import normal
from verifiers.yamlload import load

__all__ = ["VocabularyError", "broader", "known_keys", "known_words", "operations", "ops_of",
           "prefix",
           "scan"]

VOCABULARY = Path(__file__).resolve().parent / "vocabulary.yaml"


class VocabularyError(ValueError):
    """The vocabulary file is malformed (a test keeps it well-formed)."""


def _key(word: str) -> str:
    return normal(word).casefold()


@functools.cache
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]],
                       dict[str, str]]:
    """(word key -> ops, op -> words, narrow op -> broader op) from the file."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    if not isinstance(data, dict) or not isinstance(data.get("operations"), dict):
        raise VocabularyError(f"{VOCABULARY.name}: expected a mapping 'operations'")
    by_word: dict[str, tuple[str, ...]] = {}
    by_op: dict[str, tuple[str, ...]] = {}
    for ops, words in data["operations"].items():
        if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
            raise VocabularyError(f"{VOCABULARY.name}: {ops}: a list of words")
        names = tuple(str(ops).split())
        by_op[str(ops)] = tuple(words)
        for word in words:
            if by_word.get(_key(word), names) != names:
                raise VocabularyError(f"{VOCABULARY.name}: {word!r} names two operations")
            by_word[_key(word)] = names
    wider: dict[str, str] = {}
    for wide, narrow in (data.get("broader") or {}).items():
        for op in narrow:
            wider[str(op)] = str(wide)
    return by_word, by_op, wider


def ops_of(word: str) -> tuple[str, ...] | None:
    """The operations ``word`` names (usually one), or None when the vocabulary lacks it."""
    return _tables()[0].get(_key(word))


def known_keys() -> tuple[str, ...]:
    """Every word of the vocabulary, as compared (no spaces, case folded)."""
    return tuple(_tables()[0])


def operations() -> set[str]:
    """Every operation name the vocabulary knows."""
    return {op for ops in _tables()[1] for op in ops.split()}


def broader(op: str) -> str | None:
    """The operation that stands for ``op`` among others (sample -> choose), if any."""
    return _tables()[2].get(op)


def scan(text: str) -> tuple[str, int, int] | None:
    """The longest vocabulary word inside ``text`` (word, start, end), leftmost on ties."""
    best: tuple[str, int, int] | None = None
    folded = text.casefold()
    for key in _tables()[0]:
        k = folded.find(key)
        if k >= 0 and (best is None or len(key) > best[2] - best[1]
                       or (len(key) == best[2] - best[1] and k < best[1])):
            best = (text[k:k + len(key)], k, k + len(key))
    return best


def prefix(text: str) -> tuple[str, int, int] | None:
    """The longest vocabulary word ``text`` starts with (a last step glued to a heading:
    ``采样10.2 具体示例``), as (word, 0, end); None when it starts with none or the text
    goes on with a letter (``采样器`` is not ``采样``)."""
    folded = normal(text).casefold()
    best = max((k for k in _tables()[0] if folded.startswith(k)), key=len, default=None)
    if best is None:
        return None
    end, seen = 0, 0  # the end in ``text``, whose spaces ``normal`` dropped
    while seen < len(best):
        if not text[end].isspace():
            seen += 1
        end += 1
    if text[end:end + 1].isalpha():
        return None  # the word goes on: another word that merely starts the same way
    return text[:end], 0, end


def known_words(limit: int = 12) -> str:
    """A few operations with a word each, for an ``unparsed`` message."""
    ops = sorted(_tables()[1].items())
    shown = [f"{op}: {words[0]}" for op, words in ops[:limit]]
    return "; ".join(shown) + ("; …" if len(ops) > limit else "")
