"""An enumeration as a hole reads it: ``k_{1}, k_{2}, k_{3}``, ``Q、K、V``, “患者、服用、华法林”.

A count word often counts items the note names rather than numbers it prints (三个 Key
``k_{1}, k_{2}, k_{3}``; 前五块“患者、服用、华法林、后、出现”). A value hole whose name starts
with :data:`ITEMS_PREFIX` (``⟨items⟩``, ``⟨items2⟩``) reads such an enumeration: two or more
items joined by ``,``, ``，`` or ``、`` (an item is a name with an optional subscript, a named
value ``k_{1} = (0, 1)``, or a word of at most :data:`MAX_ITEM` characters with no space or
punctuation), optionally inside “…” or 「…」; a table (a header line, then rows, each line
holding a tab), whose items are its rows; an ordinal run (第一步 … 第二步 … 第三步, or 第一，…
第二，), whose items are its ordinals; two or more short lines ending a paragraph; a bullet
list (lines opening with the same •, · or -); or, for a hole that starts a line, a run of
ordinals or labels ((a) … (b) …) opening one of the next :data:`MAX_BELOW` lines. It reads
as a vector with one entry per item: the item's integer subscript where every item has one
(``k_{1}, k_{2}, k_{3}`` -> (1, 2, 3)), else its position (1, 2, …). ``len(items)`` is then
the number of items, and a claim compares a count word with it.

Only holes so named read enumerations (an ordinary value hole never matches words), so no
existing quote can match in a new place.
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.numbers import PrintedNumber

__all__ = ["ITEMS_PREFIX", "below_start", "find_enumeration", "item_ends", "read_items"]

ITEMS_PREFIX = "items"
MAX_ITEM = 12
_SUB = r"(?:_\{[^{}\s]{1,8}\}|_[A-Za-z0-9])"
_NAME = rf"(?:\\?[A-Za-zα-ωΑ-Ω]+{_SUB}?)"
_WORD = rf"(?:[^\s、,，。；;：:！!？?“”「」()（）\[\]{{}}$\\]{{1,{MAX_ITEM}}})"
_SEP = r"[ \t]*[,，、][ \t]*"
_NAMES = rf"{_NAME}(?:{_SEP}{_NAME})+"
# named values: k_{1} = (\ln 2, 0), k_{2} = (0, 1) -- a name, "=", a bracketed or plain value
_ASSIGN = (rf"(?P<name>{_NAME})[ \t]*=[ \t]*(?:\([^()\n]{{0,60}}\)|\[[^\[\]\n]{{0,60}}\]"
           r"|[^\s,，、]{1,20})")
_ASSIGNS = rf"{_ASSIGN}(?:{_SEP}{_ASSIGN})+".replace("(?P<name>", "(?:")
_ASSIGN_RE = re.compile(_ASSIGN)
# a table: a header line and one or more rows, each line holding a tab (its items: the rows)
_TABLE = r"(?<![^\n])[^\n\t]+\t[^\n]*(?:\n[^\n\t]+\t[^\n]*)+"
_WORDS = rf"{_WORD}(?:[ \t]*、[ \t]*{_WORD})+"
# a plain run of words starts after a space or a punctuation mark (never inside a sentence's
# words: 列依次给A、B、C is no enumeration of 列依次给A)
_ENUMERATION = re.compile(rf"{_TABLE}|“(?:{_WORDS})”|「(?:{_WORDS})」|(?<![A-Za-z\\]){_ASSIGNS}"
                          rf"|(?<![A-Za-z\\]){_NAMES}(?![A-Za-z_{{=]|[ \t]*=)|(?<!\w){_WORDS}")
_INT_SUB = re.compile(r"_\{?(\d{1,3})\}?\Z")


# lines: two or more short lines of a paragraph (使用点积…。 / 使用 Softmax…。 / …)
_LINES = re.compile(r"(?<![^\n])[^\n\t]{2,60}(?:\n[^\n\t]{2,60})+(?=\n[ \t]*\n|\n?\Z)")
# an ordinal run: 第一步 … 第二步 … 第三步 (or 第一， … 第二，), each next one within MAX_GAP
_ORDINAL = re.compile(r"第([一二三四五六七八九十])(阶段|[步块点类个项条种章节层轮次]?)")
_ORDINALS = "一二三四五六七八九十"
MAX_GAP = 1200


def _ordinal_end(text: str, pos: int, limit: int) -> int | None:
    """Where an ordinal run starting at ``pos`` (at 第一) ends: after its last 第N."""
    m = _ORDINAL.match(text, pos, limit)
    if m is None or m.group(1) != "一":
        return None
    measure, end, k = m.group(2), m.end(), 1
    while k < len(_ORDINALS):
        nxt = f"第{_ORDINALS[k]}{measure}"
        at = text.find(nxt, end, min(limit, end + MAX_GAP))
        if at < 0 or (not measure and text[at + len(nxt):at + len(nxt) + 1] not in "，,、:："):
            break
        end, k = at + len(nxt), k + 1
    return end if k >= 2 else None


# a label run: (a) … (b) … (c) or (1) … (2), each label opening a line
_LABEL = re.compile(r"(?<![^\n])\(([a-z]|[1-9])\)(?![^ \t])")
MAX_BELOW = 8  # lines between a sentence and a run of ordinals or labels below it


def _label_end(text: str, pos: int, limit: int) -> int | None:
    """Where a label run starting at ``pos`` (at ``(a)`` or ``(1)``) ends: after its last
    label."""
    m = _LABEL.match(text, pos, limit)
    if m is None or m.group(1) not in ("a", "1"):
        return None
    end, k, label = m.end(), 1, m.group(1)
    while True:
        label = chr(ord(label) + 1)
        nxt = re.compile(rf"(?<![^\n])\({re.escape(label)}\)(?![^ \t])")
        found = nxt.search(text, end, min(limit, end + MAX_GAP))
        if found is None:
            break
        end, k = found.end(), k + 1
    return end if k >= 2 else None


def _run_end(text: str, pos: int, limit: int) -> int | None:
    """Where a run of ordinals (第一步 … 第二步) or of labels ((a) … (b)) at ``pos`` ends."""
    end = _ordinal_end(text, pos, limit)
    return end if end is not None else _label_end(text, pos, limit)


def below_start(text: str, pos: int, limit: int) -> int | None:
    """The start of a run of ordinals or labels that opens one of the :data:`MAX_BELOW` lines
    after the line at ``pos`` (a sentence or heading, then its steps: "分成两个步骤" …
    第一步 … 第二步; "三个梯度" … (a) … (b) … (c)), or None. ``pos`` must start a line."""
    if pos > 0 and text[pos - 1] != "\n":
        return None
    at = pos
    for _ in range(MAX_BELOW):
        at = text.find("\n", at, limit)
        if at < 0:
            return None
        at += 1
        if _run_end(text, at, limit) is not None:
            return at
    return None


# a bullet list: two or more lines opening with the same bullet (• 太大。… / • 没有相似度。…)
_BULLETS = re.compile(r"(?<![^\n])([•·\-])[ \t][^\n]{1,400}(?:\n\1[ \t][^\n]{1,400})+")


def _direct_ends(text: str, pos: int, limit: int) -> list[int]:
    m = _ENUMERATION.match(text, pos, limit)
    if m:
        return [m.end()]
    end = _ordinal_end(text, pos, limit)
    if end is not None:
        return [end]
    m = _LINES.match(text, pos, limit) or _BULLETS.match(text, pos, limit)
    return [m.end()] if m else []


def item_ends(text: str, pos: int, limit: int) -> list[int]:
    """Where an enumeration starting at ``pos`` ends (the longest one), or none; then where a
    run of ordinals or labels a few lines below ends (:func:`below_start`)."""
    ends = _direct_ends(text, pos, limit)
    at = below_start(text, pos, limit)
    end = _run_end(text, at, limit) if at is not None else None
    return ends + [end] if end is not None and end not in ends else ends


def find_enumeration(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The first enumeration that starts within [start, end) (its span), or None."""
    found = []
    m = _ENUMERATION.search(text, start, end)
    if m:
        found.append((m.start(), m.end()))
    at = text.find("第一", start, end)
    ordinal = _ordinal_end(text, at, len(text)) if at >= 0 else None
    if ordinal is not None:
        found.append((at, ordinal))
    m = _LINES.search(text, start, end)
    if m:
        found.append((m.start(), m.end()))
    m = _BULLETS.search(text, start, end)
    if m:
        found.append((m.start(), m.end()))
    return min(found) if found else None


def split_items(raw: str) -> list[str]:
    """The items of an enumeration: its names (``k_{1} = …, k_{2} = …``: the names)."""
    body = raw.strip()
    at = below_start(body, 0, len(body))
    if at is not None and len(body) not in _direct_ends(body, 0, len(body)):
        body = body[at:]  # a run below a sentence: its ordinals or labels
    label = _LABEL.match(body)
    if label is not None and label.group(1) in ("a", "1"):  # a label run: its labels
        return [f"({m.group(1)})" for m in _LABEL.finditer(body)]
    if "\t" in body and "\n" in body:  # a table: its rows after the header
        return [row for row in body.split("\n")[1:] if row.strip()]
    first = _ORDINAL.match(body)
    if first is not None and first.group(1) == "一":  # an ordinal run: its ordinals in order
        items, pos = [], 0
        for k in _ORDINALS:
            at = body.find(f"第{k}{first.group(2)}", pos)
            if at < 0:
                break
            items.append(f"第{k}{first.group(2)}")
            pos = at + 1
        return items
    if "\n" in body:  # lines
        return [line for line in body.split("\n") if line.strip()]
    if "=" in body:
        return [m.group("name") for m in _ASSIGN_RE.finditer(body)]
    if body[:1] in "“「":
        body = body[1:-1]
    return [p.strip() for p in re.split(r"[,，、]", body)]


def read_items(raw: str) -> tuple[tuple[int, ...], tuple[PrintedNumber, ...]]:
    """(shape, entries) of an enumeration: the subscripts, or the positions 1, 2, …"""
    items = split_items(raw)
    subs = [_INT_SUB.search(it) for it in items]
    values = [int(m.group(1)) for m in subs] if all(subs) else list(range(1, len(items) + 1))
    numbers = tuple(PrintedNumber(str(v), Fraction(v), Fraction(0), True, "integer")
                    for v in values)
    return (len(numbers),), numbers
