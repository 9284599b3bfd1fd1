"""Count words next to the items they count: claims inferred, then kept when they verify.

Why: "于是得到三个分数：s = (1, 0, −1)", "这四个数字 0.1、0.1、0.6、0.2", "三行依次对应 A、B、C"
after a 3-row matrix. The count word is a number the note states and the printed items are
its evidence; an author who edits one and not the other leaves a note that contradicts itself.
A claim reads the word as a hole (``⟨n⟩个分数``, an exact number: :mod:`.countwords`) and the
items as value holes, and checks ``n`` against their number: ``len(v)`` for a vector or the
rows of a matrix, ``len(transpose(v))`` for columns (measure word 列), ``len([a, b, …])`` for
a run of printed scalars. An edited word is then a ``discrepancy`` at the word, with the right
word as its suggestion; an added or dropped item makes the quote stale.

A site is a count word of class ``count`` (value 2 or more) and the items nearest it: printed
after it (at most :data:`AFTER` characters of plain text between: no digit, no math, no
sentence end, no other count word), enumerated after it (names, named values, a table's rows,
an ordinal run 第一步 … 第三步, the short lines of the next paragraph:
:mod:`verifiers.restate.items`; the sentence may end first), or printed before it (a run of
numbers at most :data:`BEFORE` characters before, or a vector or matrix ending the paragraph
before). A word may have several readings; the first that verifies is kept.
The quote is the plain text from the start of the word's clause to the items, so it holds no
formula text. Each candidate is evaluated by the real engine and kept only when it verifies
(a count that matches its items by chance is possible, but a kept claim is true today and
judges every later edit of either side); the rest are dropped. ``write_counts`` writes them
to ``claims/<note>/89-counts-inferred.yaml``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.holes import VALUE_PATTERN
from verifiers.restate.countwords import COUNT, CountWord, find_count_words
from verifiers.restate.items import below_start, find_enumeration, item_ends

__all__ = ["CountSite", "count_sites"]

AFTER = 60  # characters of plain text between a count word and the items after it
BEFORE = 12  # … and between the items and a count word after them
_VALUE_RE = re.compile(VALUE_PATTERN, re.DOTALL)
_SCALAR_SEP = re.compile(r"[ \t]*[、,，][ \t]*")
_PLAIN_STOP = re.compile(r"[0-9$\\^_{}=<>+*/|。？！；;?!（）()\[\]⟨⟩⟪⟫⟦⟧│┌└├]")
# a name and "=" before the items, with the bracket that opens a matrix (``X = [\begin…``)
_NAME_EQ = re.compile(r"[ \t]*[^\s=$]{1,16}[ \t]*(?:=|≈|\\approx)[ \t]*\[?[ \t]*\Z")
MAX_LEAD = 16  # characters of the clause kept before the count word


@dataclass(frozen=True)
class CountSite:
    """A count word and the printed items it counts: ``items`` are (start, end) spans; one
    span is a vector or a matrix, several are scalars. ``columns``: the word counts columns."""

    word: CountWord
    items: tuple[tuple[int, int], ...]
    columns: bool
    named: bool  # the items are an enumeration of names or words (an ⟨items⟩ hole)
    lead: int  # where the quote starts (before the word, or before the items)
    end: int  # where the quote ends


def _plain(text: str) -> bool:
    """Text a quote may hold as fixed words: no digits, math, sentence end or hole marks."""
    return _PLAIN_STOP.search(text) is None and text.count("\n") <= 3


def _is_list(value: str) -> bool:
    return value.lstrip().startswith(("(", "[", "\\begin"))


def _scalars_from(text: str, start: int) -> list[tuple[int, int]]:
    """A run of printed scalars from ``start`` joined by 、 or commas (``0.1、0.1、0.6``)."""
    out: list[tuple[int, int]] = []
    pos = start
    while True:
        m = _VALUE_RE.match(text, pos)
        if m is None or _is_list(m.group(0)):
            break
        out.append((m.start(), m.end()))
        sep = _SCALAR_SEP.match(text, m.end())
        if sep is None:
            break
        pos = sep.end()
    return out


def _enumeration_after(text: str, word: CountWord) -> tuple[int, int] | None:
    """The names or words enumerated after the word (``三个向量：x_{1}, x_{2}, x_{3}``)."""
    end = word.start + len(word.word)
    found = find_enumeration(text, end, min(len(text), end + AFTER + 60))
    if found is None:
        return None
    between = text[end:found[0]].rstrip("$ \t")
    between = between.rstrip("。.：:\n \t")  # the sentence may end before its items
    if len(between) > AFTER or not _plain(between) or find_count_words(between):
        return None
    return found


_RUN_HEAD = re.compile(r"第[一二三四五六七八九十](阶段|[^\s：:，,]?)|\([a1]\)")


def _run_below(text: str, word: CountWord) -> tuple[int, int] | None:
    """The steps below the word's line (``分成两个步骤`` … 第一步 … 第二步; ``三个梯度`` …
    (a) … (b) … (c)): the rest of the line is plain and ends the sentence or heading, and an
    ordinal run names what the word counts (步 for 步骤, 阶段 for 个阶段) or a label run
    follows. Its span starts at the next line (the hole skips the lines before the run)."""
    end = word.start + len(word.word)
    eol = text.find("\n", end)
    rest = text[end:eol if eol >= 0 else len(text)]
    if eol < 0 or len(rest) > AFTER or not _plain(rest) or find_count_words(rest):
        return None
    begin = eol + 1
    while begin < len(text) and text[begin] in " \t\n":
        begin += 1
    at = below_start(text, text.rfind("\n", 0, begin) + 1, len(text))
    if at is None:
        return None
    head = _RUN_HEAD.match(text, at)
    noun, measure = rest.lstrip(" \t"), head.group(1) if head else None
    if head is None or (measure is not None and not (
            measure and (word.word.endswith(measure) or noun.startswith(measure)))):
        return None  # an ordinal run must name what the word counts
    ends = item_ends(text, begin, len(text))
    return (begin, ends[-1]) if ends and ends[-1] > at else None


def _items_after(text: str, word: CountWord) -> tuple[tuple[int, int], ...] | None:
    m = _VALUE_RE.search(text, word.end)
    if m is None or m.start() > word.end + AFTER + 40:
        return None
    between = text[word.end:m.start()]
    eq = _NAME_EQ.search(between)
    fixed = between[:eq.start()] if eq else between
    if len(fixed) > AFTER or not _plain(fixed) or find_count_words(fixed):
        return None
    if _is_list(m.group(0)):
        return ((m.start(), m.end()),)
    run = _scalars_from(text, m.start())
    return tuple(run) if len(run) >= 2 else None


def _items_before(text: str, word: CountWord) -> tuple[tuple[int, int], ...] | None:
    """The scalars printed just before the word (``0.1、0.6、0.2 这三个数字``), or the vector
    or matrix that ends the paragraph before it (``E = [...] .`` then ``三行依次对应``)."""
    lo = max(0, word.start - BEFORE - 2000)
    last = None
    for m in _VALUE_RE.finditer(text, lo, word.start):
        last = m
    if last is None:
        return None
    between = text[last.end():word.start]
    if _is_list(last.group(0)):
        tail = re.match(r"[\])]?[ \t]*[.。,，]?[ \t]*\n(?:[ \t]*\n)?[ \t]*", between)
        if tail is None or tail.end() != len(between):
            return None
        return ((last.start(), last.end()),)
    if len(between) > BEFORE or not _plain(between) or "\n" in between:
        return None
    run = [(last.start(), last.end())]
    pos = last.start()
    while True:  # walk back over 、-joined scalars
        head = text[max(0, pos - 40):pos]
        sep = re.search(r"[、,，][ \t]*\Z", head)
        if sep is None:
            break
        stop = pos - len(sep.group(0))
        prev = None
        for m in _VALUE_RE.finditer(text, max(0, stop - 40), stop):
            if m.end() == stop:
                prev = m
        if prev is None or _is_list(prev.group(0)):
            break
        run.insert(0, (prev.start(), prev.end()))
        pos = prev.start()
    return tuple(run) if len(run) >= 2 else None


def _one_row(value: str) -> bool:
    """A LaTeX matrix of one row: no row break ``\\\\`` in it."""
    return value.lstrip().startswith("\\begin") and "\\\\" not in value


def _lead(text: str, start: int) -> int:
    """Where a quote starts: up to MAX_LEAD characters of plain text on the line before
    ``start`` (a quote opens with fixed text, never with a hole); ``start`` when none."""
    cut = start
    while cut > 0 and start - cut < MAX_LEAD and text[cut - 1] != "\n" \
            and _PLAIN_STOP.match(text[cut - 1]) is None:
        cut -= 1
    while cut < start and text[cut] in " \t\u3000":
        cut += 1
    return cut


def count_sites(text: str) -> list[CountSite]:
    """Every reading of a count word with printed or enumerated items next to it, in note
    order: a word may have several (the vector after it, the names after it, the items before
    it), most likely first; a claim keeps the first that verifies."""
    out = []
    for word in find_count_words(text):
        if word.cls != COUNT or word.value < 2 or word.value.denominator != 1:
            continue
        columns = word.word.endswith("列")
        whole = word.start + len(word.word)  # the quote ends after the measure word
        lead = _lead(text, word.start)
        opens = lead < word.start and _plain(text[lead:word.start])
        items = _items_after(text, word)
        if items is not None and opens:
            # a matrix of one row (ℓ = [\begin{matrix} 2 & 1 & 0 \end{matrix}]): its entries
            row = len(items) == 1 and _one_row(text[items[0][0]:items[0][1]])
            out.append(CountSite(word, items, columns or row, False, lead, items[-1][1]))
        names = None if word.word.endswith("维") else _enumeration_after(text, word)
        if names is not None and opens:  # 二维 is a size: it counts entries, never names
            out.append(CountSite(word, (names,), columns, True, lead, names[1]))
        run = _run_below(text, word) if names is None else None
        if run is not None and opens:
            out.append(CountSite(word, (run,), columns, True, lead, run[1]))
        items = _items_before(text, word)
        if items is not None and len(items) == 1:  # a list ends the paragraph before
            out.append(CountSite(word, items, columns, False, _lead(text, items[0][0]), whole))
        elif items is not None:
            start = _lead(text, items[0][0])
            if start < items[0][0] and _plain(text[start:items[0][0]]):
                out.append(CountSite(word, items, columns, False, start, whole))
    return out
