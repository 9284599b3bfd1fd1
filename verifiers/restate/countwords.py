"""Count words: numbers written as words (三个 Token, 两类, 十二层, 一半, six heads).

Coverage of digits alone misses them: an author who edits 三个 to 四个 changes a number the
note prints, and no claim read it. This module finds them (:func:`find_count_words`) and reads
one as a value (:func:`read_count`); the vocabulary is data (``countwords.yaml``):

* a Chinese count is a numeral (一 … 十, 两, compounds such as 十二, 二十四) before a measure
  word (个, 类, 步, 层 …), or a prefix word (单, 双, 半) before one of a few nouns (单头,
  双向, 半精度), or a word that is a count on its own (一半);
* an English count is a number word (one … twelve, twenty, single, both, half, double, twice)
  before a word (``three tokens``, ``two-layer``), as a whole word, ignoring case.

Each found word has a class: ``count`` (a number the note states), ``idiom`` (the word is part
of a listed idiom such as 一点 or one-hot: waived with the idiom's reason), ``article`` (一 with
a measure word, 一个向量 "a vector", 一次 "once": waived by one rule with its reason) or
``ordinal`` (after 第: a position, not a count; excluded like a section number).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from verifiers.yamlload import load

__all__ = ["COUNT_PATTERN", "CountWord", "Vocabulary", "find_count_words", "load_vocabulary",
           "read_count", "word_for_count"]

VOCABULARY_FILE = Path(__file__).with_name("countwords.yaml")
COUNT, IDIOM, ARTICLE, ORDINAL = "count", "idiom", "article", "ordinal"


@dataclass(frozen=True)
class CountWord:
    """One count word of a note: ``text`` is the number part (三, 十二, two), ``word`` the
    whole matched word (三个), ``start``/``end`` index the number part in the note's text."""

    text: str
    word: str
    value: Fraction
    start: int
    end: int
    cls: str  # COUNT, IDIOM, ARTICLE or ORDINAL
    reason: str = ""  # why an idiom or an article is no count


@dataclass(frozen=True, eq=False)
class Vocabulary:
    chinese: dict[str, int]
    english: dict[str, Fraction]
    measures: tuple[str, ...]
    words: dict[str, Fraction]
    prefixes: dict[str, Fraction]
    prefix_nouns: tuple[str, ...]
    idioms: dict[str, str]
    article: str
    ordinal_prefixes: tuple[str, ...]


def _fraction(value: object, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{VOCABULARY_FILE.name}: {where}: a number is expected")
    return Fraction(value).limit_denominator(100)


@functools.cache
def load_vocabulary(path: Path = VOCABULARY_FILE) -> Vocabulary:
    """The count-word vocabulary, read with the project's safe YAML loader."""
    root = load(path.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else {}
    keys = {"numerals", "measures", "words", "prefixes", "prefix_nouns", "idioms", "article",
            "ordinal_prefixes"}
    if not isinstance(data, dict) or set(data) != keys:
        raise ValueError(f"{path.name}: expected the keys {', '.join(sorted(keys))}")
    numerals = data["numerals"]
    return Vocabulary(
        chinese={k: int(_fraction(v, k)) for k, v in numerals["chinese"].items()},
        english={k.lower(): _fraction(v, k) for k, v in numerals["english"].items()},
        measures=tuple(sorted(data["measures"], key=len, reverse=True)),
        words={k: _fraction(v, k) for k, v in data["words"].items()},
        prefixes={k: _fraction(v, k) for k, v in data["prefixes"].items()},
        prefix_nouns=tuple(sorted(data["prefix_nouns"], key=len, reverse=True)),
        idioms={str(k): str(v) for k, v in data["idioms"].items()},
        article=str(data["article"]),
        ordinal_prefixes=tuple(data["ordinal_prefixes"]),
    )


_DIGITS = "一二两俩三仨四五六七八九"
_UNITS = "一二三四五六七八九"
# 十二, 二十, 二十四, 十 -- or one numeral
CHINESE_NUMBER = f"(?:[{_UNITS[1:]}]?十[{_UNITS}]?|[{_DIGITS}])"
_ENGLISH_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
                  "|single|both|half|double|twice")
#: What a hole reads as a count word (never scanned for: only where a quote puts a hole).
COUNT_PATTERN = (f"(?:{CHINESE_NUMBER}(?![{_DIGITS}十])|一半|[单双半]"
                 rf"|(?i:\b(?:{_ENGLISH_WORDS})\b))")
_CHINESE_RE = re.compile(CHINESE_NUMBER)


def chinese_value(text: str, vocab: Vocabulary | None = None) -> int | None:
    """二十四 -> 24, 两 -> 2, 十 -> 10 (None: not a Chinese number)."""
    vocab = vocab or load_vocabulary()
    if _CHINESE_RE.fullmatch(text) is None:
        return None
    if "十" not in text:
        return vocab.chinese.get(text)
    tens, _, ones = text.partition("十")
    return (vocab.chinese[tens] if tens else 1) * 10 + (vocab.chinese[ones] if ones else 0)


def read_count(raw: str) -> Fraction | None:
    """A whole hole's text as the number its count word says (三 -> 3, 一半 -> 1/2, six -> 6,
    单 -> 1), else None."""
    vocab = load_vocabulary()
    text = raw.strip()
    value = chinese_value(text, vocab)
    if value is not None:
        return Fraction(value)
    if text in vocab.words:
        return vocab.words[text]
    if text in vocab.prefixes:
        return vocab.prefixes[text]
    return vocab.english.get(text.lower())


_CHINESE_OUT = {1: "一", 2: "两", 3: "三", 4: "四", 5: "五", 6: "六", 7: "七", 8: "八", 9: "九"}
_ENGLISH_OUT = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 20: "twenty"}


def word_for_count(printed: str, value: Fraction) -> str | None:
    """``value`` written as a count word like ``printed`` (Chinese or English, its case; 二
    stays 二 where the note wrote 二): the suggestion for a wrong count word."""
    if value.denominator != 1 or value < 1:
        return "一半" if value == Fraction(1, 2) and not printed.isascii() else None
    n = int(value)
    if printed in ("单", "双"):  # a prefix word: 单头 <-> 双头
        return {1: "单", 2: "双"}.get(n)
    if printed.isascii():
        word = _ENGLISH_OUT.get(n)
        if word is None:
            return None
        return word.capitalize() if printed[:1].isupper() else word
    if n < 10:
        return "二" if n == 2 and printed == "二" else _CHINESE_OUT[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return ("" if tens == 1 else _CHINESE_OUT[tens].replace("两", "二")) + "十" \
            + (_CHINESE_OUT[ones].replace("两", "二") if ones else "")
    return None


@functools.cache
def _scanner(vocab: Vocabulary) -> re.Pattern[str]:
    measures = "|".join(re.escape(m) for m in vocab.measures)
    nouns = "|".join(re.escape(n) for n in vocab.prefix_nouns)
    words = "|".join(re.escape(w) for w in sorted(vocab.words, key=len, reverse=True))
    prefixes = "".join(vocab.prefixes)
    english = "|".join(sorted(vocab.english, key=len, reverse=True))
    return re.compile(
        f"(?P<zh>{CHINESE_NUMBER})(?![{_DIGITS}十])(?=[ \\t]*(?P<m>{measures}))"
        f"|(?P<w>{words})"
        f"|(?P<p>[{prefixes}])(?=[ \\t]*(?:{nouns}))"
        rf"|(?i:(?<![\w-])(?P<en>{english})(?=[ \t-]+[A-Za-z]))")


def _idiom(text: str, start: int, end: int, vocab: Vocabulary) -> str | None:
    """The reason of a listed idiom that spans the word at [start, end), or None."""
    for idiom, reason in vocab.idioms.items():
        lo = max(0, start - len(idiom))
        window = text[lo:end + len(idiom)]
        for m in re.finditer(re.escape(idiom), window, re.IGNORECASE):
            if lo + m.start() <= start and end <= lo + m.end():
                return reason
    return None


def find_count_words(text: str, vocab: Vocabulary | None = None) -> list[CountWord]:
    """Every count word of ``text``, in order, each classified (see the module docstring)."""
    vocab = vocab or load_vocabulary()
    out = []
    for m in _scanner(vocab).finditer(text):
        start, end = m.start(), m.end()
        number = m.group(0)
        word = number + (m.group("m") or "")
        if m.group("zh"):
            value = Fraction(chinese_value(number, vocab) or 0)
            if value == 0:
                continue
        else:
            value = read_count(number)
            if value is None:
                continue
        before = text[max(0, start - 2):start].rstrip(" \t")
        if before[-1:] and before[-1] in "".join(vocab.ordinal_prefixes):
            out.append(CountWord(number, word, value, start, end, ORDINAL))
            continue
        if m.group("zh") and before[-1:] and (before[-1] in _DIGITS + "十百千万几数多"):
            continue  # inside a longer or vague number (一百二十个, 几十层)
        reason = _idiom(text, start, end, vocab)
        if reason is not None:
            out.append(CountWord(number, word, value, start, end, IDIOM, reason))
        elif number == "一" and m.group("m"):
            out.append(CountWord(number, word, value, start, end, ARTICLE, vocab.article))
        else:
            out.append(CountWord(number, word, value, start, end, COUNT))
    return out
