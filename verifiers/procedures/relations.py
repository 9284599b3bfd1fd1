"""Orders stated in a sentence: two operation words joined by a relation word.

A note states an order in prose as often as in a diagram: "Temperature 是在 Softmax 之前对
Logits 进行缩放", "FFN 之前先做注意力", "A 的输出进入 B", "masking before the softmax".
Each relation word of ``relations.yaml`` between two words of the operation vocabulary
(``vocabulary.yaml``) in one sentence is read as an ordered pair (which comes first), and
:mod:`verifiers.procedures.orders` checks the pair against tinygpt's recorded runs, so a
swapped pair is a discrepancy at its word.

A sentence part with a negation or a condition (``不能先…再…``, ``if``) is not read, nor
words too common in prose to name an operation (``prose_excluded``); a relation whose
neighbours are not both operation words reads nothing (never a pass).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from verifiers.procedures import read
from verifiers.procedures.sequences import Item, Sequence
from verifiers.yamlload import load

__all__ = ["Word", "listed_orders", "negated", "op_words", "relation_pairs"]

RELATIONS = Path(__file__).resolve().parent / "relations.yaml"
_SENTENCE = re.compile(r"[^。；;！？!?\n]+")
_CLAUSE = re.compile(r"[，,：:、（）()“”「」\"]")
NEAR = 14  # how many characters may lie between a relation word and an operation word
_LOOP = {"repeat", "stop"}
_AT = re.compile(r"(?:是|要|就|都|会|应该|必须|需要)?在\s*$")  # "A 是在 B 之前": A is the subject


@dataclass(frozen=True)
class Word:
    """An operation word in a line: its place (columns), text and operation."""

    start: int
    end: int
    text: str
    op: str


def _fold(text: str) -> tuple[str, list[int]]:
    """The text without whitespace, case folded, with each kept character's column."""
    cols = [k for k, c in enumerate(text) if not c.isspace()]
    return "".join(text[k] for k in cols).casefold(), cols


def _alone(text: str, a: int, b: int, key: str) -> bool:
    """A Latin word counts only where no letter or digit touches it."""
    left = key[0].isascii() and key[0].isalnum() and a > 0 and text[a - 1].isascii() \
        and text[a - 1].isalnum()
    right = key[-1].isascii() and key[-1].isalnum() and b < len(text) \
        and text[b].isascii() and text[b].isalnum()
    return not (left or right)


def _find(text: str, keys: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """Every non-overlapping occurrence of ``keys`` (longest first), as (start, end, key)."""
    folded, cols = _fold(text)
    hits: list[tuple[int, int, str]] = []
    for key in sorted(keys, key=len, reverse=True):
        k = folded.find(key)
        while k >= 0:
            a, b = cols[k], cols[k + len(key) - 1] + 1
            if _alone(text, a, b, key) and not any(a < y and x < b for x, y, _ in hits):
                hits.append((a, b, key))
            k = folded.find(key, k + 1)
    return sorted(hits)


@functools.cache
def _data() -> tuple[dict[str, str], tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """(relation word key -> kind, negation keys, excluded word keys, list cue keys) from
    the file."""
    root = load(RELATIONS.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    if not isinstance(data, dict) or not isinstance(data.get("relations"), dict):
        raise ValueError(f"{RELATIONS.name}: expected a mapping 'relations'")

    def key(word: object) -> str:
        return "".join(str(word).split()).casefold()

    kinds = {key(w): str(kind) for kind, words in data["relations"].items() for w in words}
    if set(kinds.values()) - {"before", "after", "then", "into"}:
        raise ValueError(f"{RELATIONS.name}: kinds are before, after, then, into")
    negations = tuple(key(w) for w in data.get("negations") or ())
    excluded = frozenset(key(w) for w in data.get("prose_excluded") or ())
    cues = tuple(key(w) for w in data.get("lists") or ())
    return kinds, negations, excluded, cues


def op_words(text: str) -> list[Word]:
    """The operation words of a line that may stand for an operation in prose."""
    excluded = _data()[2]
    keys = tuple(k for k in read.known_keys() if k not in excluded)
    out = []
    for a, b, key in _find(text, keys):
        ops = [o for o in (read.ops_of(key) or ()) if o not in _LOOP]
        if ops:
            out.append(Word(a, b, text[a:b], ops[0]))
    return out


def _negated(text: str, a: int, b: int) -> bool:
    """A negation or condition in the clause that holds ``a`` .. ``b`` (from the clause's
    start before ``a``)."""
    cut = [m.end() for m in _CLAUSE.finditer(text, 0, a)]
    start = cut[-1] if cut else 0
    return bool(_find(text[start:b], _data()[1]))


def negated(block: str, seq: Sequence) -> bool:
    """Whether a sentence's order (``先…再…``) is said under a negation or a condition
    (``不能先…再…``, ``如果先…``, before its first step): then it states no order."""
    first = seq.items[0]  # the words that lead into its first step, in their clause
    return _negated(block.split("\n")[first.line], first.col, first.col)


def _pair(text: str, words: list[Word], kind: str, r0: int, r1: int,
          lo: int, hi: int) -> tuple[Word, Word] | None:
    """The ordered pair a relation word at ``r0``..``r1`` states, or None."""
    left = [w for w in words if lo <= w.start and w.end <= r0 and r0 - w.end <= NEAR]
    right = [w for w in words if r1 <= w.start and w.end <= hi and w.start - r1 <= NEAR]
    before_left = left[-1] if left else None
    after_right = right[0] if right else None
    if kind in ("then", "into"):
        if before_left is None or after_right is None:
            return None
        if _CLAUSE.search(text, before_left.end, r0) and kind == "into":
            return None
        return before_left, after_right
    # before / after: the anchor B is the word just before the relation ("B 之前"), or
    # after it when the relation opens its clause ("before B, A" / "After B, A")
    if before_left is not None and not _CLAUSE.search(text, before_left.end, r0):
        anchor = before_left
        lead = text[lo:anchor.start]
        subject = None
        at = _AT.search(lead)
        if at is not None:  # "A 在 B 之前": A is the subject, left of 在; else after it
            cand = [w for w in words if lo <= w.start and w.end <= lo + at.start()]
            subject = cand[-1] if cand else after_right
        elif text[r1:r1 + 1].isascii() and after_right is not None:
            subject = before_left  # "A before B": the anchor is the second word
            anchor = after_right
        else:
            subject = after_right  # "B 之前先做 A"
        if subject is None or subject is anchor:
            return None
        return (subject, anchor) if kind == "before" else (anchor, subject)
    if after_right is None or not text[r0:r1].isascii():
        return None  # only English opens a clause with its relation ("Before B, A")
    rest = [w for w in words if w.start >= after_right.end and w.end <= hi]
    if not rest or not _CLAUSE.search(text, after_right.end, rest[0].start):
        return None  # "Before B, A": a clause break between B and A
    subject = rest[0]
    return (subject, after_right) if kind == "before" else (after_right, subject)


def relation_pairs(block: str) -> list[Sequence]:
    """Every ordered pair the block's sentences state, as two-item sequences (shape
    ``pair``), in order of the relation word."""
    kinds = _data()[0]
    out: list[Sequence] = []
    for k, line in enumerate(block.split("\n")):
        for sentence in _SENTENCE.finditer(line):
            lo, hi = sentence.start(), sentence.end()
            if line[hi:hi + 1] in ("？", "?"):
                continue  # a question states no order
            found = [(a, b, key) for a, b, key in _find(line[lo:hi], tuple(kinds))]
            if not found:
                continue
            words = op_words(line)
            for a, b, key in found:
                got = _pair(line, words, kinds[key], lo + a, lo + b, lo, hi)
                if got is None or got[0].op == got[1].op:
                    continue
                first, second = got
                span = (min(first.start, second.start), max(first.end, second.end))
                if _negated(line, *span):
                    continue
                out.append(Sequence("pair", (Item(first.text, k, first.start, first.end),
                                             Item(second.text, k, second.start, second.end))))
    return out


_LIST_SEP = re.compile(r"\s*(?:、|以及|和|及|与|,\s*and\b|,|\band\b)\s*", re.IGNORECASE)
_LIST_END = re.compile(r"之后|以后|之前|等|后[，,]|[，。；;！？：:（(]")


def listed_orders(block: str) -> list[Sequence]:
    """Lists after a cue word (``经过 A、B、C 等处理``), as sequences of shape ``list``: each
    item is the last operation word of its piece; the list ends at a piece without one."""
    cues = _data()[3]
    out: list[Sequence] = []
    for k, line in enumerate(block.split("\n")):
        words = op_words(line)
        for _a, b, _ in _find(line, cues):
            stop = _LIST_END.search(line, b)
            end = stop.start() if stop else len(line)
            items: list[Item] = []
            start = b
            for sep in [*_LIST_SEP.finditer(line, b, end), None]:
                piece_end = sep.start() if sep is not None else end
                inside = [w for w in words if start <= w.start and w.end <= piece_end]
                if not inside:
                    break
                w = inside[-1]
                items.append(Item(w.text, k, w.start, w.end))
                if sep is None:
                    break
                start = sep.end()
            if len(items) >= 2 and not _negated(line, items[0].col, items[-1].end):
                out.append(Sequence("list", tuple(items)))
    return out
