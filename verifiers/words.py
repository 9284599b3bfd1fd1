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
from dataclasses import dataclass
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
    bare = strip_modifiers(key)  # 反而越小, 也会变大: the modifiers carry no law
    if bare != key:
        return meaning(cls, bare)
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


# -- law words in a quote's fixed text (issue 12 item 1) -------------------------------------
#
# A claim that quotes a law sentence literally only went `stale` when an author changed a law
# word outside its word holes (也越大 -> 反而越小, 减小 -> 增大). When a quote is not found as
# written, :func:`relax` turns every law word of its fixed text into a word hole of its own
# (an *auto* hole, named ``_lawN``) and lets a run of modifiers (也, 反而, 越, 更, …: words that
# carry no law) before a word hole read as part of the word. If the relaxed quote is found, the
# claim reads each auto word: same meaning, it passes; another meaning of the word's class, the
# law it now states is judged (verifiers/properties/fixedwords.py); no meaning, `unparsed`.

AUTO_PREFIX = "_law"  # ⟦_law1⟧: an auto hole (a claim's own hole names never start with it)
MIN_AUTO = 2  # a law word of one character (是, 有, 会) is too common to read from fixed text,
#: except in the classes of opposites a one-character edit flips (行/列, 大/小, 正/负, 加/减)
ONE_CHARACTER = frozenset({"axis", "direction", "level", "sign", "combine", "operation"})


@functools.cache
def modifiers() -> tuple[str, ...]:
    """Words that carry no law (vocabulary.yaml ``modifiers``), longest first."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    listed = data.get("modifiers", []) if isinstance(data, dict) else []
    if not isinstance(listed, list) or not all(isinstance(w, str) and w for w in listed):
        raise VocabularyError(f"{VOCABULARY.name}: 'modifiers' must be a list of words")
    return tuple(sorted({normal(w) for w in listed}, key=lambda w: (-len(w), w)))


def strip_modifiers(word: str) -> str:
    """``word`` without the modifiers it starts with (反而越小 -> 小), never emptied."""
    key = normal(word)
    changed = True
    while changed:
        changed = False
        for mod in modifiers():
            if key.startswith(mod) and len(key) > len(mod):
                key, changed = key[len(mod):], True
                break
    return key


def meanings(word: str) -> dict[str, str]:
    """{class: meaning} of every class that knows ``word`` (modifiers stripped if need be)."""
    out: dict[str, str] = {}
    for cls in classes():
        found = meaning(cls, word)
        if found is not None:
            out[cls] = found
    return out


@functools.cache
def _auto_words() -> re.Pattern[str]:
    """The law words read from fixed text: two characters or more, longest first."""
    every = {normal(w) for meanings_ in classes().values() for ws in meanings_.values()
             for w in ws}
    single = {normal(w) for cls in ONE_CHARACTER for ws in classes().get(cls, {}).values()
              for w in ws if len(normal(w)) == 1 and not w.isascii()}
    usable = [w for w in every if (len(w) >= MIN_AUTO or w in single) and not w.isdigit()
              and not (w.isascii() and len(w) < 3) and w not in modifiers()]
    ordered = sorted(usable, key=lambda w: (-len(w), w))
    return re.compile("|".join(r"\s*".join(re.escape(ch) for ch in w) for w in ordered))


def _modifier_run_before(chunk: str) -> int:
    """Where the run of modifiers that ends ``chunk`` begins (``len(chunk)``: none)."""
    end = len(chunk.rstrip())
    k = end
    while k > 0:
        for mod in modifiers():
            if chunk[:k].endswith(mod):
                k -= len(mod)
                break
        else:
            break
    return k


@dataclass(frozen=True)
class Relaxed:
    """A quote with the law words of its fixed text as auto holes (``_lawN`` -> quoted word)."""

    text: str
    quoted: dict[str, str]


def relax(quote: str, hole_re: re.Pattern[str]) -> Relaxed | None:
    """The quote with its fixed law words as auto holes and the modifiers before a word hole
    left to the word, or None when it has no law word to read (``hole_re``: the hole syntax).
    The quote's first word stays literal (a quote cannot start with a word hole)."""
    pieces: list[str] = []
    quoted: dict[str, str] = {}
    pos = 0
    holes = [*hole_re.finditer(quote), None]
    for hole in holes:
        chunk = quote[pos:hole.start() if hole else len(quote)]
        out, k = [], 0
        for m in _auto_words().finditer(chunk):
            if pos + m.start() == len(quote) - len(quote.lstrip()):
                continue  # the quote's opening word
            lead = chunk[k:m.start()]
            cut = _modifier_run_before(lead) if lead.strip() else len(lead)
            cut = cut if lead[:cut].strip() else len(lead)  # keep a chunk of modifiers only
            name = f"{AUTO_PREFIX}{len(quoted) + 1}"
            quoted[name] = normal(lead[cut:] + m.group())
            out += [lead[:cut], f"⟦{name}⟧"]
            k = m.end()
        tail = chunk[k:]
        if hole is not None and hole.group(0).startswith("⟦") and tail.strip():
            cut = _modifier_run_before(tail)
            if tail[:cut].strip() and cut < len(tail.rstrip()):
                tail = tail[:cut]
        out.append(tail)
        pieces.append("".join(out))
        if hole is not None:
            pieces.append(hole.group(0))
            pos = hole.end()
    text = "".join(pieces)
    return Relaxed(text, quoted) if quoted or text != quote else None
