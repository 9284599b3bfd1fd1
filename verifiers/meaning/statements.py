"""Sentences that state a law, found by the cue words of ``cues.yaml``.

A sentence is the text between separators: ``。！？；;`` (a ``;`` after ``\\`` is LaTeX
spacing, not a separator), a line end, and ``. `` after a Latin letter or a closing
bracket (English prose). It *states a law* when it holds a cue (see ``cues.yaml``:
Chinese cues anywhere, English cues as whole words ignoring case, a pair ``[A, B]`` as
A followed later by B) that is not inside one of the ``except`` phrases. The item is the
sentence without its surrounding spaces, separator excluded.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from verifiers.meaning.items import Item
from verifiers.yamlload import load

__all__ = ["CUES_FILE", "Cues", "cue_spans", "find_statements", "load_cues", "states_law"]

CUES_FILE = Path(__file__).with_name("cues.yaml")
_SEPARATOR = re.compile(r"[。！？；\n]|(?<!\\);|(?<=[A-Za-z)\]])\.(?=\s)")


@dataclass(frozen=True)
class Cues:
    words: re.Pattern[str]  # single cues, one alternation
    pairs: tuple[tuple[str, str], ...]
    exceptions: re.Pattern[str] | None


def _strings(data: dict[str, object], key: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{CUES_FILE.name}: {key!r} must be a list of non-empty strings")
    return value


@functools.cache
def load_cues(path: Path = CUES_FILE) -> Cues:
    """The cue words, read with the project's safe YAML loader (a bad file is an error)."""
    root = load(path.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else {}
    if not isinstance(data, dict) or set(data) - {"chinese", "english", "pairs", "except"}:
        raise ValueError(f"{path.name}: expected the keys chinese, english, pairs, except")
    chinese = _strings(data, "chinese")
    english = _strings(data, "english")
    pairs = data.get("pairs", [])
    if not isinstance(pairs, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(w, str) and w for w in p)
            for p in pairs):
        raise ValueError(f"{path.name}: 'pairs' must be a list of [first, second] words")
    alternatives = [re.escape(w) for w in sorted(chinese, key=len, reverse=True)]
    alternatives += [rf"\b{re.escape(w)}\b" for w in sorted(english, key=len, reverse=True)]
    exceptions = _strings(data, "except")
    return Cues(
        re.compile("|".join(alternatives) or r"(?!)", re.IGNORECASE),
        tuple((a, b) for a, b in pairs),
        re.compile("|".join(map(re.escape, exceptions)), re.IGNORECASE) if exceptions else None,
    )


def _pair_in(sentence: str, first: str, second: str) -> bool:
    lowered = sentence.lower()
    k = lowered.find(first.lower())
    return k >= 0 and lowered.find(second.lower(), k + len(first)) >= 0


def cue_spans(sentence: str, cues: Cues | None = None) -> list[tuple[int, int]]:
    """(start, end) of each single cue of the sentence outside the ``except`` phrases: the
    words that carry its law (coverage asks whether a claim reads them)."""
    cues = cues or load_cues()
    hidden = [m.span() for m in cues.exceptions.finditer(sentence)] if cues.exceptions else []
    out = []
    k = 0  # both in order: one walk over the hidden spans (linear, however many)
    for m in cues.words.finditer(sentence):
        while k < len(hidden) and hidden[k][1] <= m.start():
            k += 1
        if not (k < len(hidden) and hidden[k][0] <= m.start() and m.end() <= hidden[k][1]):
            out.append(m.span())
    return out


def states_law(sentence: str, cues: Cues | None = None) -> bool:
    """Does this sentence hold a cue (outside the ``except`` phrases)?"""
    cues = cues or load_cues()
    return bool(cue_spans(sentence, cues)) or any(_pair_in(sentence, a, b)
                                                  for a, b in cues.pairs)


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of every sentence, surrounding spaces excluded."""
    out = []
    start = 0
    for m in [*_SEPARATOR.finditer(text), None]:
        end = m.start() if m is not None else len(text)
        a, b = start, end
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
        start = m.end() if m is not None else len(text)
    return out


def find_statements(text: str) -> list[Item]:
    """Every sentence of a note's text that states a law, in order."""
    cues = load_cues()
    return [Item("statement", text[a:b], a, b) for a, b in sentences(text)
            if states_law(text[a:b], cues)]
