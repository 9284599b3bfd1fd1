"""The parameter vocabulary: which value a word of a procedure step states (most/least,
descending/ascending, reaches/exceeds, rows/columns).

A step's operation word says *what* is done; a parameter word says *how*: the pair BPE
merges is the most frequent one, top-p walks the probabilities from high to low and stops
where the running sum reaches P. These words are holes of their own (``⟦order⟧``), read here
in ``parameters.yaml`` (safe loader; light, no torch).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from verifiers.words import normal
from verifiers.yamlload import load

__all__ = ["ParametersError", "class_of", "classes", "value_of", "words_of"]

PARAMETERS = Path(__file__).resolve().parent / "parameters.yaml"
_NAME = re.compile(r"([a-z]+)_?\d*$")


class ParametersError(ValueError):
    """The parameter file is malformed (a test keeps it well-formed)."""


def _key(word: str) -> str:
    return normal(word).casefold()


@functools.cache
def _tables() -> dict[str, dict[str, tuple[str, ...]]]:
    """class -> value -> words, checked: no word states two values of one class."""
    root = load(PARAMETERS.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    if not isinstance(data, dict) or not isinstance(data.get("classes"), dict):
        raise ParametersError(f"{PARAMETERS.name}: expected a mapping 'classes'")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for cls, values in data["classes"].items():
        if not isinstance(values, dict):
            raise ParametersError(f"{PARAMETERS.name}: {cls}: a mapping value -> words")
        seen: dict[str, str] = {}
        out[str(cls)] = {}
        for value, words in values.items():
            if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
                raise ParametersError(f"{PARAMETERS.name}: {cls}.{value}: a list of words")
            for word in words:
                if seen.setdefault(_key(word), str(value)) != str(value):
                    raise ParametersError(f"{PARAMETERS.name}: {word!r} states two values of "
                                          f"{cls}")
            out[str(cls)][str(value)] = tuple(str(w) for w in words)
    return out


def classes() -> tuple[str, ...]:
    """The parameter classes (also the names a parameter hole starts with)."""
    return tuple(_tables())


def class_of(hole: str) -> str | None:
    """The class a hole name reads (``order``, ``order2``, ``select_3``), or None: a step."""
    m = _NAME.fullmatch(hole)
    return m.group(1) if m and m.group(1) in _tables() else None


def value_of(cls: str, word: str) -> str | None:
    """The value ``word`` states in ``cls``, or None when the vocabulary lacks it."""
    key = _key(word)
    for value, words in _tables()[cls].items():
        if any(_key(w) == key for w in words):
            return value
    return None


def words_of(cls: str) -> list[str]:
    """Every word of ``cls``, longest first (a hole's pattern tries them before any text)."""
    return sorted({w for ws in _tables()[cls].values() for w in ws}, key=len, reverse=True)
