"""A law sentence rewritten whole, found at its place and read as a whole (issue 12 item 1).

The word holes, the relaxed law words and the rephrased spans of :mod:`verifiers.words` all
need half of a quote's fixed text to stay as written. An author who rewrites a law sentence
(方差并不总是平方的期望，只有均值为 0 时，二者才相等 -> 方差总是等于平方的期望，无论均值是
多少，二者都相等) keeps far less, and the claim only went ``stale``: the new sentence was never
judged. This module finds the sentence the quote's law line became and hands it back as one
*sentence hole* (``⟦_phrase_sentence1⟧``, a phrase hole that reads the whole sentence), which
the property claim then reads with the law vocabulary like any rewritten phrase
(verifiers/properties/fixedwords.py).

Where the sentence is:

- **anchored**: the quote's other lines (hole-free) are found as written right before and after
  the law line's place; the note line between them is the rewritten one (x_{i} ⟶ x_{i} W /
  只依赖于 $x_{i}$ 。 -> 依赖于所有 $x_{j}$ 。);
- **alone**: a one-line quote is compared with every sentence of the claim's scopes by what it
  is about (:func:`verifiers.words.content`: the text without law words, modifiers and
  particles); the most alike sentence is taken when it is alike enough and clearly the most
  alike (a tie, or a weak likeness, leaves the claim ``stale``: no sentence is guessed).

Only quotes without value and formula holes are read this way: a sentence hole takes the whole
sentence, and a value read from inside it could not be told apart. On an unedited note nothing
here runs (the quote is found as written). Pure text: no torch, no Hypothesis.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from difflib import SequenceMatcher

from verifiers.words import (
    AUTO_PREFIX,
    MAX_WORD,
    PHRASE_PREFIX,
    Relaxed,
    Rephrased,
    auto_words,
    content,
    normal,
    phrase_words,
    relax,
)

#: a sentence hole's name starts with this (it starts with PHRASE_PREFIX: it is read as a phrase)
SENTENCE_PREFIX = f"{PHRASE_PREFIX}_sentence"
_ENDS = "。！？!?"  # a sentence ends here (or at a line break, or at ". ")
ALONE = 0.4  # an unanchored sentence shares at least this much of the quote's content
MARGIN = 0.15  # and beats every other sentence of the scopes by at least this much
ANCHORED = 0.3  # an anchored line shares at least this much (it is at the quote's place)


@dataclass(frozen=True)
class Found:
    """The quote with its law line as a sentence hole, where the match is and the sentence."""

    rephrased: Rephrased
    start: int
    end: int
    span: tuple[int, int]  # the note's sentence the hole reads


def _content(text: str) -> str:
    """What a sentence is about (:func:`verifiers.words.content`), without the box-drawing
    characters a framed line is printed with (│ … │)."""
    return "".join(ch for ch in content(text) if not "\u2500" <= ch <= "\u257f")


def _likeness(quoted: str, printed: str, hole_re: re.Pattern[str]) -> float:
    """How much the two say about the same thing (their content, law words left out): the
    mean of the share of the quote's content the sentence keeps, in order, and the likeness
    of the two (a rewrite adds words of its own, so both count)."""
    a, b = _content(hole_re.sub(" ", quoted)), _content(printed)
    if not a or not b:
        return 1.0 if a == b else 0.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks()) / len(a)
    return (kept + matcher.ratio()) / 2


def clause_of(quote: str, hole: str, printed: str, hole_re: re.Pattern[str]) -> str | None:
    """The clause of a rewritten sentence that stands where the quote's clause holding the
    word hole ``hole`` stood (the most alike clause, when it is clearly so), or None.

    Why: a whole sentence can state two words of one class (哪怕 η 取得再小，损失还是会上升:
    小 is the condition, 上升 the outcome); the slot reads the clause of its hole."""
    mark = f"⟦{hole}⟧"
    mine = next((c for c in _split_clauses(quote) if mark in c), None)
    if mine is None:
        return None
    scored = sorted(((_likeness(mine, c, hole_re), c) for c in _split_clauses(printed)),
                    key=lambda x: -x[0])
    if not scored or scored[0][0] <= 0 or (len(scored) > 1 and scored[1][0] >= scored[0][0]):
        return None
    return scored[0][1]


def _split_clauses(text: str) -> list[str]:
    return [c for c in re.split(r"[\n。；;，,：:！!？?]", text) if c.strip()]


def _is_law_line(line: str, hole_re: re.Pattern[str]) -> bool:
    """A line with a word hole or a law word of the vocabulary (the line a rewrite hits)."""
    return any(m.group(0).startswith("⟦") for m in hole_re.finditer(line)) or bool(
        phrase_words(hole_re.sub(" ", line)))


def _lines(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """(start, end) of each non-blank line of text[lo:hi], stripped."""
    out, pos = [], lo
    for raw in text[lo:hi].split("\n"):
        a, b = pos, pos + len(raw)
        pos = b + 1
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            out.append((a, b))
    return out


def _sentences(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """(start, end) of each sentence of one line text[a:b], its closing stop included."""
    out, start = [], a
    for k in range(a, b):
        ch = text[k]
        if ch in _ENDS or (ch == "." and (k + 1 == b or text[k + 1].isspace())):
            out.append((start, k + 1))
            start = k + 1
    out.append((start, b))
    trimmed = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        if e > s:
            trimmed.append((s, e))
    return trimmed


def _count_sentences(line: str) -> int:
    return max(1, len(_sentences(line, 0, len(line))))


def _hole_free(line: str, hole_re: re.Pattern[str]) -> bool:
    return hole_re.search(line) is None


def find_sentence(quote: str, text: str, scopes: list[tuple[int, int]],
                  hole_re: re.Pattern[str]) -> Found | None:
    """The quote with its law line read as the sentence the note now prints at its place, or
    None (no word hole in the quote, a value or formula hole, no law line, no sentence clearly
    at its place). A quote without word holes (a waiver, an arithmetic line) is never re-read:
    its sentence rewritten must not keep it matching.
    """
    holes = [m.group(0) for m in hole_re.finditer(quote)]
    if not holes or any(not h.startswith("⟦") for h in holes):
        return None  # only a law's quote, whose words are holes: never a waiver's or a number's
    qlines = [ln.strip() for ln in quote.split("\n") if ln.strip()]
    for k, line in enumerate(qlines):
        if not _is_law_line(line, hole_re):
            continue
        before, after = qlines[:k], qlines[k + 1:]
        if not all(_hole_free(x, hole_re) for x in (*before, *after)):
            continue
        hit = (_anchored(text, scopes, before, line, after, hole_re) if before or after
               else _alone(text, scopes, line, hole_re))
        if hit is not None:
            start, end, span = hit
            name = f"{SENTENCE_PREFIX}1"
            holes = tuple(m.group(0)[1:-1].strip() for m in hole_re.finditer(line))
            made = "\n".join([*before, f"⟦{name}⟧", *after])
            return Found(Rephrased(made, {name: line}, {name: holes}), start, end, span)
    return None


def _anchored(text: str, scopes: list[tuple[int, int]], before: list[str], line: str,
              after: list[str], hole_re: re.Pattern[str]
              ) -> tuple[int, int, tuple[int, int]] | None:
    """The note line between the quote's anchor lines, found as written (the only such place
    in the scopes), if it still says something about the same thing."""
    hits = []
    for lo, hi in scopes:
        lines = _lines(text, lo, hi)
        keys = [normal(text[a:b]) for a, b in lines]
        want_before, want_after = [normal(x) for x in before], [normal(x) for x in after]
        n = len(before)
        for i in range(n, len(lines) - len(after)):
            if keys[i - n:i] != want_before or keys[i + 1:i + 1 + len(after)] != want_after:
                continue
            a, b = lines[i]
            if _likeness(line, text[a:b], hole_re) >= ANCHORED:
                start = lines[i - n][0] if n else a
                end = lines[i + len(after)][1] if after else b
                hits.append((start, end, (a, b)))
    return hits[0] if len(hits) == 1 else None


def _alone(text: str, scopes: list[tuple[int, int]], line: str, hole_re: re.Pattern[str]
           ) -> tuple[int, int, tuple[int, int]] | None:
    """The sentence (as many as the quote line holds) of the scopes most alike the quote
    line, when it is alike enough and clearly ahead of the next one."""
    size = _count_sentences(hole_re.sub(" ", line))
    scored: list[tuple[float, int, int]] = []
    for lo, hi in scopes:
        for a, b in _lines(text, lo, hi):
            units = _sentences(text, a, b)
            for i in range(len(units) - size + 1):
                s, e = units[i][0], units[i + size - 1][1]
                scored.append((_likeness(line, text[s:e], hole_re), s, e))
    scored = list({(s, e): (r, s, e) for r, s, e in scored}.values())  # scopes may overlap
    if not scored:
        return None
    scored.sort(key=lambda x: (-x[0], x[1]))
    best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    if best[0] < ALONE or best[0] - runner_up < MARGIN:
        return None
    _, s, e = best
    return s, e, (s, e)


# -- a quote's opening law word (laws7) ----------------------------------------------------------
#
# ``relax`` reads every law word of a quote's fixed text except the first: a quote cannot start
# with a hole, since the literal it opens with is where it is looked for. A quote that opens
# with its law word ("Softmax：把每一行…", "如果所有分数都相等") then only went
# ``stale`` when that word changed (Softmax -> LayerNorm). :func:`find_opening` finds the rest
# of the quote (as written, or relaxed) and reads the word the note prints right before it, up
# to a clause stop or a line start, as the opening word's auto hole ``⟦_law0⟧``.

OPENING = f"{AUTO_PREFIX}0"
_BEFORE_STOP = "\n。；;，,：:！!？?（）()「」“”\"'│"  # the printed word never reaches past these


@dataclass(frozen=True)
class Opening:
    """The quote with its opening law word as an auto hole, and where it is."""

    relaxed: Relaxed
    found: dict[int, tuple[list[tuple[int, int]], int]]


def opening_word(quote: str, hole_re: re.Pattern[str]) -> tuple[str, str] | None:
    """(the opening law word, the rest of the quote), or None: no law word opens it, or the
    rest opens with a hole or is blank."""
    lead = len(quote) - len(quote.lstrip())
    m = auto_words().match(quote, lead)
    if m is None:
        return None
    rest = quote[m.end():]
    if not rest.strip() or hole_re.match(rest.lstrip()) is not None:
        return None
    return m.group(), rest


def word_before(text: str, start: int) -> int:
    """Where the word the note prints right before ``start`` begins (up to MAX_WORD characters
    back, never past a clause stop or a line start); ``start`` when there is none."""
    k = start
    while k > 0 and start - k < MAX_WORD and text[k - 1] not in _BEFORE_STOP:
        k -= 1
    while k < start and text[k].isspace():
        k += 1
    return k


def find_opening(quote: str, text: str, hole_re: re.Pattern[str],
                 candidates: Callable[[str], dict[int, tuple[list[tuple[int, int]], int]]]
                 ) -> Opening | None:
    """The quote found with its opening law word read from the note (``candidates``: every
    match of a quote text by where it begins), or None (no opening law word, the rest not
    found exactly once, or nothing printed before it)."""
    opened = opening_word(quote, hole_re)
    if opened is None:
        return None
    word, rest = opened
    relaxed_rest = None
    found = candidates(rest)
    if len(found) != 1:
        relaxed_rest = relax(rest, hole_re)
        found = candidates(relaxed_rest.text) if relaxed_rest is not None else {}
    if len(found) != 1:
        return None
    (start, (spans, end)), = found.items()
    begin = word_before(text, start)
    if begin == start:
        return None
    quoted = {OPENING: normal(word), **(relaxed_rest.quoted if relaxed_rest else {})}
    body = relaxed_rest.text if relaxed_rest is not None else rest
    return Opening(Relaxed(f"⟦{OPENING}⟧{body}", quoted),
                   {begin: ([(begin, start), *spans], end)})
