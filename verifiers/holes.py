"""Find a claim's quoted text in its note and read the values its holes print.

The quote becomes one regular expression: literal text is escaped with
whitespace made optional, and each hole ``⟨name⟩`` becomes a named group that
matches one printed value (a LaTeX matrix, a nested list, a list, a fraction
or a number). The note therefore stays the only place where numbers are
written; the claim says where they are.

A formula hole ``⟪F⟫`` reads LaTeX to the next literal text or the end of its
line, or, when it starts at one of the note's math units (a Markdown ``$$…$$``
or ``aligned`` display), the whole unit across lines. A quote must match once:
a claim's ``near:``/``after:`` context text picks one of several matches, and
every failure says where to look (each candidate's ``line:col``, or the quote
line that stops matching), because a message that only says "not unique" or
"not found" sends the author searching the note by hand.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from verifiers.claimtext import HOLE_RE, HoleRef
from verifiers.lawsentence import find_opening, find_sentence
from verifiers.magnitude_words import VAGUE_PATTERN, read_vague
from verifiers.numbers import (
    MANTISSA_PATTERN,
    NUMBER_PATTERN,
    UNSIGNED_NUMBER_PATTERN,
    PrintedNumber,
    parse_printed,
)
from verifiers.parsers.abstract import Display
from verifiers.restate.countwords import COUNT_PATTERN, read_count
from verifiers.restate.items import ITEMS_PREFIX, item_ends, read_items
from verifiers.words import (
    AUTO_PREFIX,
    PHRASE_PREFIX,
    diff_rephrase,
    judgeable,
    normal,
    phrase_ends,
    relax,
    rephrase,
    word_ends,
)

_WS = r"\s"
_NUM = f"(?:{NUMBER_PATTERN})"
_INT = r"(?:[-+−]?\d+)"
_LATEX_FRAC = rf"\\[dt]?frac\{{{_WS}*{_INT}{_WS}*\}}\{{{_WS}*{_INT}{_WS}*\}}"
_FRAC = rf"(?:{_LATEX_FRAC}|{_INT}{_WS}*/{_WS}*\d+(?![\d.]))"
_ELEM = f"(?:{_FRAC}|{_NUM})"
_LSP = r"(?:\s|\\[ ,;:!])"  # whitespace, or a LaTeX space such as "\ " or "\,"
_SEP = f"{_LSP}*[,，]{_LSP}*"
_BRACKET_LIST = rf"\[{_WS}*{_ELEM}(?:{_SEP}{_ELEM})*{_WS}*,?{_WS}*\]"
_PAREN_LIST = rf"\({_WS}*{_ELEM}(?:{_SEP}{_ELEM})+{_WS}*\)"
_NESTED = rf"\[{_WS}*{_BRACKET_LIST}(?:{_SEP}{_BRACKET_LIST})*{_WS}*,?{_WS}*\]"
MAX_MATRIX = 5_000  # characters of one printed LaTeX matrix (the notes' longest: ~200)
# A matrix ends at the first \end{ and holds no \begin{ (a value has no inner environment), at
# most MAX_MATRIX characters: many unclosed \begin{matrix} cost little each, not the rest of the
# note each.
_LATEX = (rf"\\begin\{{[pbvBV]?matrix\}}(?:(?!\\end\{{|\\begin\{{).){{0,{MAX_MATRIX}}}?"
          r"\\end\{[pbvBV]?matrix\}")
VALUE_PATTERN = f"(?:{_LATEX}|{_NESTED}|{_BRACKET_LIST}|{_PAREN_LIST}|{_FRAC}|{_NUM})"
# Two forms a hole reads that are no number on their own (never scanned for, only read where a
# quote puts a hole): a number whose magnitude word follows its math unit, ``$…\approx25$ 亿``
# (the 亿 is part of the value: an edit to 万 changes it), and a share in tenths, ``三成`` (30%).
_MATH_MAGNITUDE = rf"(?:{MANTISSA_PATTERN})\$[^\S\n]*(?:万亿|万|亿)"
_MATH_MAGNITUDE_RE = re.compile(rf"({MANTISSA_PATTERN})\$[^\S\n]*(万亿|万|亿)")
_TENTHS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
           "九": 9, "十": 10}
_TENTHS_PATTERN = "[一二两三四五六七八九十]成"

_FRAC_PARTS = re.compile(
    r"\\[dt]?frac\{\s*([-+−]?\d+)\s*\}\{\s*([-+−]?\d+)\s*\}|([-+−]?\d+)\s*/\s*(\d+)"
)
_NUMBER_RE = re.compile(UNSIGNED_NUMBER_PATTERN)
MAX_QUOTE = 20_000


class ResolveError(Exception):
    """The quote is not in the note (stale) or a printed value is unreadable."""

    def __init__(self, message: str, stale: bool = True, hint: str | None = None,
                 at: int | None = None, where: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.stale = stale
        self.hint = hint  # a stale quote: how it differs from its closest line
        self.at = at  # where the message points in the note: a candidate, where matching stopped
        self.where = where  # a stale quote: its closest line's first difference (an offset)


@dataclass(frozen=True)
class Printed:
    """A printed value: its text, span, shape and numbers (row-major)."""

    text: str
    start: int
    end: int
    shape: tuple[int, ...]
    numbers: tuple[PrintedNumber, ...]


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    values: dict[str, Printed]  # by HoleRef.key
    formulas: dict[str, Printed] = field(default_factory=dict)  # ⟪name⟫ -> its LaTeX text
    words: dict[str, Printed] = field(default_factory=dict)  # ⟦name⟧ -> the word read there
    # found only with the law words of its fixed text read (verifiers/words.py ``relax``):
    # auto hole -> (the word the quote has, the word the note prints there)
    fixed: dict[str, tuple[str, Printed]] = field(default_factory=dict)
    # found only with a clause's law span read as a phrase (words.rephrase): the claim's word
    # holes that phrase took in (each reads the phrase, in ``words``)
    phrased: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Quote:
    """A compiled quote: literal chunks (small regexes) and holes, in order."""

    parts: tuple[re.Pattern[str] | HoleRef, ...]
    refs: tuple[HoleRef, ...]
    # parts that are formula holes followed by a line break in the quote: each ends with
    # its own line, so two formula holes on consecutive lines never split one line
    line_bound: frozenset[int] = frozenset()
    # value holes right before a name in the quote (``⟨k⟩i``): a coefficient, which the note
    # may leave out (``i/d_model`` is ``1i/d_model``), so the hole then reads an unwritten 1
    coefficient: frozenset[int] = frozenset()


@functools.lru_cache(maxsize=4096)
def compile_quote(text: str) -> Quote:
    """Split a quote at its holes; each literal chunk becomes a small regex.

    Values are matched by precompiled patterns, one alternative at a time, so
    a quote with thirty holes costs thirty small matches, not one huge regex.
    """
    parts: list[re.Pattern[str] | HoleRef] = []
    line_bound: set[int] = set()
    before_name: set[int] = set()  # holes written right before a Latin letter: ⟨k⟩i
    pos = 0
    for m in HOLE_RE.finditer(text):
        chunk = text[pos:m.start()]
        ref = HoleRef.from_match(m)
        if ref.formula and parts and isinstance(parts[-1], HoleRef) and parts[-1].formula \
                and not chunk.strip() and "\n" in chunk:
            line_bound.add(len(parts) - 1)
        _add_literal(parts, chunk)
        parts.append(ref)
        pos = m.end()
        if text[pos:pos + 1].isascii() and text[pos:pos + 1].isalpha():
            before_name.add(len(parts) - 1)
    _add_literal(parts, text[pos:])
    coefficient = {i for i, (hole, nxt) in enumerate(zip(parts, parts[1:], strict=False))
                   if isinstance(hole, HoleRef) and not (hole.formula or hole.word)
                   and isinstance(nxt, re.Pattern) and i in before_name}
    return Quote(tuple(parts), tuple(p for p in parts if isinstance(p, HoleRef)),
                 frozenset(line_bound), frozenset(coefficient))



def _add_literal(parts: list[re.Pattern[str] | HoleRef], chunk: str) -> None:
    body = _literal(chunk)
    if body:
        lead = f"{_WS}*" if parts else ""
        parts.append(re.compile(lead + body, re.DOTALL))


def _literal(chunk: str) -> str:
    """Escape literal text; whitespace is optional except between two word characters."""
    out: list[str] = []
    pending_space = False
    prev = ""
    for ch in chunk:
        if ch.isspace():
            pending_space = True
            continue
        if prev:
            needs = pending_space and prev.isalnum() and ch.isalnum()
            out.append(f"{_WS}+" if needs else f"{_WS}*")
        out.append(re.escape(ch))
        prev = ch
        pending_space = False
    return "".join(out)


@functools.cache
def _value_alternatives() -> tuple[re.Pattern[str], ...]:
    plain = rf"(?:[-+−]{_WS}*)?(?:{MANTISSA_PATTERN})"
    sources = (_LATEX, _NESTED, _BRACKET_LIST, _PAREN_LIST, _FRAC, _MATH_MAGNITUDE, _NUM, plain,
               _TENTHS_PATTERN, VAGUE_PATTERN,  # 几万, millions: verifiers/magnitude_words.py
               COUNT_PATTERN)  # 三, 两, six: a count word (verifiers/restate/countwords.py)
    return tuple(re.compile(src, re.DOTALL) for src in sources)


@functools.cache
def _value_start() -> re.Pattern[str]:
    return re.compile(VALUE_PATTERN, re.DOTALL)


_SPACE_RE = re.compile(f"{_WS}*")
_LINE_START = re.compile(r"^[ \t]*", re.MULTILINE)


def _hole_ends(text: str, pos: int, limit: int) -> list[int]:
    """Where a printed value starting at ``pos`` may end, most preferred first."""
    ends: list[int] = []
    for alternative in _value_alternatives():
        m = alternative.match(text, pos, limit)
        if m and m.end() > pos and m.end() not in ends:
            ends.append(m.end())
    return ends


class _Search:
    """Matching one quote within one scope, from every candidate start.

    Whether the rest of the quote matches from part ``i`` at ``pos`` does not depend
    on where the match started, so failures are remembered across starts; and a
    formula hole that fails from some position fails from every later position of
    the same line (its possible ends are a subset). Both keep a long line with many
    candidate starts linear instead of quadratic.
    """

    def __init__(self, text: str, quote: Quote, limit: int,
                 displays: dict[int, Display] | None = None) -> None:
        self.text, self.quote, self.limit = text, quote, limit
        self.displays = displays or {}  # a math unit by its start: a formula hole reads it
        self.failed: set[tuple[int, int]] = set()
        self.dead: dict[tuple[int, int], int] = {}  # (part, line end) -> fails from here on
        self.line = (0, -1, 0)  # (first pos asked, its newline or limit, trimmed line end)

    def line_end(self, pos: int) -> int:
        """End of ``pos``'s line (or the limit), trailing whitespace dropped, never < pos."""
        first, nl, trimmed = self.line
        if not first <= pos <= nl:
            nl = self.text.find("\n", pos, self.limit)
            nl = self.limit if nl < 0 else nl
            trimmed = nl
            while trimmed > pos and self.text[trimmed - 1].isspace():
                trimmed -= 1
            self.line = (pos, nl, trimmed)
        return max(pos, trimmed)

    def formula_ends(self, i: int, pos: int) -> Sequence[int]:
        """A formula hole takes LaTeX up to the next literal text, within one line.

        The last part of a quote, and a hole followed by a line break in the quote,
        take the rest of the line; otherwise every end is tried, shortest first, and
        the following literal decides -- never an end inside a ``{…}`` group (the
        ``=`` of ``\\sum_{r = 1}`` is no relation the quote can mean). A hole that starts
        at a math unit of the note (``$…$``, ``$$…$$``, ``\\begin{aligned}…``) reads the
        whole unit, across lines.
        """
        unit = self.displays.get(pos)
        if unit is not None and unit.end <= self.limit:
            return range(unit.end, unit.end + 1)
        eol = self.line_end(pos)
        if eol <= pos or pos >= self.dead.get((i, eol), eol + 1):
            return range(0)
        whole = i == len(self.quote.parts) - 1 or i in self.quote.line_bound
        return range(eol, eol + 1) if whole else _outside_groups(self.text, pos, eol)

    def match_at(self, start: int) -> tuple[list[tuple[int, int]], int] | None:
        """Match the quote at ``start`` (with backtracking over hole ends)."""
        text, parts, limit, failed = self.text, self.quote.parts, self.limit, self.failed

        def go(i: int, pos: int) -> tuple[list[tuple[int, int]], int] | None:
            if i == len(parts):
                return [], pos
            if (i, pos) in failed:
                return None
            part = parts[i]
            if isinstance(part, HoleRef):
                begin = _SPACE_RE.match(text, pos, limit).end()
                ends = (self.formula_ends(i, begin) if part.formula
                        else phrase_ends(text, begin, limit, i == len(parts) - 1)
                        if part.word and part.name.startswith(PHRASE_PREFIX)
                        else word_ends(text, begin, limit) if part.word
                        else item_ends(text, begin, limit)  # ⟨items⟩: verifiers/restate
                        if part.name.startswith(ITEMS_PREFIX)
                        else _hole_ends(text, begin, limit))
                if (not ends and i in self.quote.coefficient
                        and _unwritten_coefficient(text, begin)):
                    ends = [begin]  # `i/d_model` where the quote has `⟨k⟩i`: k = 1
                for end in ends:
                    rest = go(i + 1, end)
                    if rest is not None:
                        return [(begin, end), *rest[0]], rest[1]
                if part.formula and ends and begin not in self.displays:
                    eol = ends[-1]
                    self.dead[(i, eol)] = min(begin, self.dead.get((i, eol), begin))
            else:
                m = part.match(text, pos, limit)
                if m:
                    rest = go(i + 1, m.end())
                    if rest is not None:
                        return rest
            failed.add((i, pos))
            return None

        return go(0, start)


def _outside_groups(text: str, pos: int, eol: int) -> Sequence[int]:
    """The ends ``pos + 1 … eol`` of a formula hole at ``pos`` that close every ``{`` it
    opened; every end when the rest of the line is no balanced LaTeX (``exp{score``, or a
    hole inside a group, ``e^{⟪X⟫}``): then the reader says what is wrong, not the quote."""
    ends: list[int] = []
    depth = 0
    for k in range(pos, eol):
        c = text[k]
        if c in "{}" and text[k - 1:k] != "\\":
            depth += 1 if c == "{" else -1
            if depth < 0:
                return range(pos + 1, eol + 1)
        if depth == 0:
            ends.append(k + 1)
    return ends if depth == 0 else range(pos + 1, eol + 1)


def find(text: str, quote: str, scopes: list[tuple[int, int]], *,
         displays: Sequence[Display] = (), near: str | None = None,
         after: str | None = None) -> Match:
    """Find the quote exactly once within the scopes and read its holes.

    ``displays`` are the note's math units (:attr:`verifiers.notes.Note.displays`): a
    formula hole that starts at one reads it whole. When the quote matches more than
    once, ``near`` keeps the match closest to an occurrence of that text and ``after``
    the first match after its first occurrence (both searched within the scopes); a
    quote still ambiguous is an error that lists where each candidate is.
    """
    if len(quote) > MAX_QUOTE:
        raise ResolveError(f"quote longer than {MAX_QUOTE} characters", stale=False)
    compiled = compile_quote(quote)
    if not compiled.parts:
        raise ResolveError("empty quote", stale=False)
    units = {d.start: d for d in displays}
    found = _candidates(text, compiled, scopes, units)
    relaxed = None
    if not found:  # a law word of the fixed text may have changed: read it (words.relax)
        relaxed = relax(quote, HOLE_RE)
        if relaxed is not None:
            compiled = compile_quote(relaxed.text)
            found = _candidates(text, compiled, scopes, units)
        if not found:  # a phrase may have been rewritten: read the clause (words.rephrase)
            for rephrased in rephrase(quote, HOLE_RE):
                again = compile_quote(rephrased.text)
                hits = _candidates(text, again, scopes, units)
                if len(hits) == 1 and _judgeable(text, again, hits, rephrased.quoted):
                    relaxed, compiled, found = rephrased, again, hits
                    break
        if not found:  # or rewritten elsewhere in its line: read where it differs
            found, compiled, relaxed = _by_diff(text, quote, scopes, units, compiled, relaxed)
        if not found:  # or rewritten whole: the sentence at its place (verifiers/lawsentence.py)
            whole = find_sentence(quote, text, scopes, HOLE_RE)
            if whole is not None:
                relaxed, compiled = whole.rephrased, compile_quote(whole.rephrased.text)
                found = {whole.start: ([whole.span], whole.end)}
        if not found:  # or its opening law word changed (verifiers/lawsentence.py, laws7)
            opened = find_opening(quote, text, HOLE_RE, lambda q: _candidates(
                text, compile_quote(q), scopes, units))
            if opened is not None:
                relaxed, compiled, found = (opened.relaxed, compile_quote(opened.relaxed.text),
                                            opened.found)
        if not found:
            raise _not_found(text, quote, scopes, units)
        if len(found) > 1:
            found = _fewest_changed_words(text, found, compiled, relaxed.quoted)
    if len(found) > 1:
        found = _disambiguate(text, found, scopes, near, after)
    start, (spans, end) = next(iter(found.items()))
    values = {
        ref.key: Printed(text[a:b], a, b, *read_items(text[a:b]))
        if ref.name.startswith(ITEMS_PREFIX) else read_value(text[a:b], a)
        for ref, (a, b) in zip(compiled.refs, spans, strict=True)
        if not (ref.formula or ref.word)
    }
    formulas = {
        ref.name: _formula(text, a, b, units)
        for ref, (a, b) in zip(compiled.refs, spans, strict=True) if ref.formula
    }
    words = {
        ref.name: Printed(text[a:b], a, b, (), ())
        for ref, (a, b) in zip(compiled.refs, spans, strict=True) if ref.word
    }
    fixed = {name: (relaxed.quoted[name], words.pop(name)) for name in list(words)
             if relaxed is not None and name.startswith((AUTO_PREFIX, PHRASE_PREFIX))}
    absorbed = getattr(relaxed, "absorbed", {})
    said = " ".join(fixed[name][1].text for name in absorbed)  # every rewritten phrase
    for name, holes in absorbed.items():  # a word hole inside a rewritten phrase reads them
        at = fixed[name][1]
        words.update({hole: Printed(said, at.start, at.end, (), ()) for hole in holes})
    phrased = frozenset(hole for holes in absorbed.values() for hole in holes)
    return Match(start, end, values, formulas, words, fixed, phrased)


_Found = dict[int, tuple[list[tuple[int, int]], int]]


def _by_diff(text: str, quote: str, scopes: list[tuple[int, int]], units: dict[int, Display],
             compiled: Quote, relaxed: object) -> tuple[_Found, Quote, object]:
    """The quote found with the places it differs from its closest line as phrase holes
    (verifiers/words.py ``diff_rephrase``), or nothing found."""
    close = closest_line(text, quote, scopes)
    rephrased = diff_rephrase(quote, close.line, HOLE_RE) if close is not None else None
    if rephrased is not None:
        again = compile_quote(rephrased.text)
        hits = _candidates(text, again, scopes, units)
        if len(hits) == 1 and _judgeable(text, again, hits, rephrased.quoted):
            return hits, again, rephrased
    return {}, compiled, relaxed


def _judgeable(text: str, compiled: Quote, found: _Found, quoted: dict[str, str]) -> bool:
    """Every rewritten phrase of the one match can be judged (verifiers/words.py)."""
    (spans, _), = found.values()
    return all(judgeable(HOLE_RE.sub(" ", quoted[ref.name]), text[a:b])
               for ref, (a, b) in zip(compiled.refs, spans, strict=True) if ref.name in quoted)


def _fewest_changed_words(text: str, found: _Found, compiled: Quote,
                          quoted: dict[str, str]) -> _Found:
    """With its law words read as holes, a quote can match other sentences of its shape
    (``$…$ ：不需要独立。`` also fits ``$…$ ：随机变量与均值的偏差。``). An edit changes a word,
    not all of them: keep the matches where the fewest law words differ from the quote's."""
    def changed(spans: list[tuple[int, int]]) -> int:
        return sum(1 for ref, (a, b) in zip(compiled.refs, spans, strict=True)
                   if ref.word and ref.name in quoted and normal(text[a:b]) != quoted[ref.name])
    score = {start: changed(spans) for start, (spans, _) in found.items()}
    least = min(score.values())
    return {start: hit for start, hit in found.items() if score[start] == least}


def _candidates(text: str, compiled: Quote, scopes: list[tuple[int, int]],
                units: dict[int, Display]) -> _Found:
    """Every match of the quote in the scopes, by where it begins."""
    first = compiled.parts[0]
    if isinstance(first, HoleRef):
        # A quote that opens with a value starts at a value; with a formula, at a line.
        opener = _LINE_START if first.formula else _value_start()
    else:
        opener = first
    found: _Found = {}
    for lo, hi in scopes:
        search = _Search(text, compiled, hi, units)
        for candidate in opener.finditer(text, lo, hi):
            at = candidate.end() if opener is _LINE_START else candidate.start()
            result = search.match_at(at)
            if result is not None:
                # Key by where the match really begins (a hole may skip leading blank lines).
                begins = result[0][0][0] if isinstance(first, HoleRef) else at
                found.setdefault(begins, result)
    return found


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    return f"{line}:{offset - (text.rfind(chr(10), 0, offset) + 1) + 1}"


def _disambiguate(text: str, found: _Found, scopes: list[tuple[int, int]],
                  near: str | None, after: str | None) -> _Found:
    """Keep one candidate by the claim's context text, or say where they all are."""
    starts = sorted(found)
    if after:
        marks = [text.find(after, lo, hi) for lo, hi in scopes]
        first_mark = min((m for m in marks if m >= 0), default=-1)
        if first_mark < 0:
            raise ResolveError(f"after: {after!r} is not in the scope")
        starts = [s for s in starts if s >= first_mark + len(after)][:1]
    if near and len(starts) > 1:
        context = re.compile(re.escape(near))
        marks = [m.start() for lo, hi in scopes for m in context.finditer(text, lo, hi)]
        if not marks:
            raise ResolveError(f"near: {near!r} is not in the scope")

        def distance(s: int) -> int:
            end = found[s][1]
            return min(max(0, m - end, s - (m + len(near))) for m in marks)

        best = min(distance(s) for s in starts)
        starts = [s for s in starts if distance(s) == best]
    if len(starts) == 1:
        return {starts[0]: found[starts[0]]}
    where = ", ".join(_line_col(text, s) for s in (starts or sorted(found)))
    count = len(starts or found)
    how = "add near: or after: with text beside the one you mean"
    raise ResolveError(f"quoted text found {count} times, at {where}; it must be unique "
                       f"({how})" if starts else
                       f"no match of the quoted text comes after {after!r} (matches at {where})",
                       at=(starts or sorted(found))[0])


def _not_found(text: str, quote: str, scopes: list[tuple[int, int]],
               units: dict[int, Display]) -> ResolveError:
    """Which line of the quote stops matching, and the note line most like it."""
    lines = quote.split("\n")
    failing = None
    matched: _Found = {}
    for k in range(1, len(lines)):
        prefix = "\n".join(lines[:k])
        if not prefix.strip():
            continue
        try:
            compiled = compile_quote(prefix)
        except ValueError:
            break
        found = _candidates(text, compiled, scopes, units) if compiled.parts else {}
        if not found:
            failing = k - 1
            break
        matched = found
    else:
        failing = len(lines) - 1
    while failing is not None and failing < len(lines) - 1 and not lines[failing].strip():
        failing += 1
    stop = min(end for _, end in matched.values()) if len(matched) == 1 else None
    close = None
    if stop is not None and failing is not None and lines[failing].strip():
        close = _line_after(text, stop, lines[failing])
    if close is None:
        close = closest_line(text, quote, scopes)
    hint, where = (close.diff, close.offset) if close else (None, None)
    if failing is None or len(lines) == 1 or not lines[failing].strip():
        return ResolveError("quoted text not found in the note", hint=hint, where=where)
    bad = lines[failing].strip()
    return ResolveError(f"quoted text not found in the note: quote line {failing + 1} "
                        f"{bad!r} does not match", hint=hint, where=where, at=stop)


_ROW_JOIN = re.compile(r"((?:&\s*)?(?:=|\\approx|\\le|\\ge|<|>)\s*)(\\\\)")


def _formula(text: str, a: int, b: int, units: dict[int, Display]) -> Printed:
    """A formula hole's LaTeX; a whole math unit gives its body, and a row that ends with
    its relation (``… &= \\\\``) is joined to the next row (the break becomes spaces, so
    every offset still points into the note)."""
    unit = units.get(a)
    if unit is None or unit.end != b:
        return Printed(text[a:b], a, b, (), ())
    body = text[unit.body_start:unit.body_end]
    body = _ROW_JOIN.sub(lambda m: m[1] + "  ", body)
    return Printed(body, unit.body_start, unit.body_end, (), ())


@dataclass(frozen=True)
class Closest:
    """Where a stale quote most likely was: a note line and how the quote differs from it."""

    offset: int  # in the note's text: the first differing character of the line (or its start)
    line: str  # the note line, stripped
    diff: str  # one line: ``… [-quoted-]{+printed+} …``, bounded length


MAX_DIFF = 160  # characters of a stale claim's diff
MAX_LINE = 2_000  # a longer note line (a megabyte of numbers) is never a closest line
SHORT_DIFF = 100  # a diff this short shows the whole line; a longer one, the changes in context
_CONTEXT = 3  # unchanged tokens shown on each side of a change
_CUTOFF = 0.3  # a closest line is at least this alike (difflib's ratio of the skeletons)
_COMPARED = 400  # characters of a line's skeleton compared when aligning
_ALIGN_LIMIT = 2_000_000  # quote lines × note lines beyond which no closest line is looked for
_SCORED = 20_000  # line similarities computed at most, over the most promising windows
_TOKEN_RE = re.compile(
    r"⟨[^⟨⟩\n]*⟩|⟪[^⟪⟫\n]*⟫"  # a hole or a formula hole (quote side)
    r"|\\[A-Za-z]+|\\."  # a LaTeX command or escaped character
    r"|\d+(?:[.,]\d+)*%?"  # a number
    r"|[A-Za-z][A-Za-z0-9_']*"  # a Latin word or a math name (d_k)
    r"|\S",  # anything else, one character (a CJK character, an operator)
)
_HOLE_KEY = "\0value"
_FORMULA_KEY = "\0formula"


def _skeleton(line: str) -> str:
    """A line for comparing: no whitespace, holes and printed numbers alike."""
    return re.sub(r"\s+", "", _NUMBER_RE.sub("…", HOLE_RE.sub("…", line)))


def _lines(text: str, lo: int, hi: int) -> list[tuple[int, str]]:
    """(offset, text) of the non-blank lines that start within [lo, hi)."""
    out = []
    pos = lo
    for raw in text[lo:hi].split("\n"):
        if raw.strip() and len(raw) <= MAX_LINE:
            out.append((pos, raw))
        pos += len(raw) + 1
    return out


def _line_after(text: str, stop: int, quoted: str) -> Closest | None:
    """The note line right after where the quote's matched lines end, compared with the
    quote line that fails there, when the two are alike. Why: a hole that reads several
    note lines (a printed matrix) shifts the quote's lines against the note's, so aligning
    line by line can point at the hole's last row instead of the edited line."""
    start = text.find("\n", stop)
    if start < 0:
        return None
    start += 1
    while start < len(text) and text.startswith("\n", start):  # blank lines, as quotes skip them
        start += 1
    end = text.find("\n", start)
    raw = text[start:end if end >= 0 else len(text)]
    if not raw.strip() or len(raw) > MAX_LINE or _alike(_skeleton(quoted.strip()),
                                                        _skeleton(raw)) < 0.5:
        return None
    diff, first_change = word_diff(quoted.strip(), raw.strip())
    lead = len(raw) - len(raw.lstrip())
    return Closest(start + lead + first_change, raw.strip(), diff)


def closest_line(text: str, quote: str, scopes: list[tuple[int, int]]) -> Closest | None:
    """The note line a stale quote most likely was on, with a word-level diff against it.

    The quote's lines are aligned with the note's lines (consecutive non-blank lines, as
    many as the quote has) within the claim's scopes first, then the whole note when no
    line there is even half alike: the window whose lines are most alike wins (ties: the
    first). Within it, the quote line that differs most is the edited one, and it is
    compared with the note line it is aligned with, not with a neighbour that happens to
    be longer or unchanged.
    """
    qlines = [ln.strip() for ln in quote.splitlines() if ln.strip()]
    if not qlines:
        return None
    best = None
    for area in (scopes, [(0, len(text))]):
        nlines = [ln for lo, hi in area for ln in _lines(text, lo, hi)]
        if not nlines or len(qlines) * len(nlines) > _ALIGN_LIMIT:
            continue
        aligned = _align(qlines, nlines)
        if best is None or aligned[0] > best[0]:
            best = aligned
        if best[0] >= 0.5:
            break
    if best is None or best[0] < _CUTOFF:  # nothing alike: no line is pointed at
        return None
    _, k, window, sims = best
    offset, raw = window[k]
    diff, first_change = word_diff(qlines[k], raw.strip())
    lead = len(raw) - len(raw.lstrip())
    return Closest(offset + lead + first_change, raw.strip(), diff)


def _align(qlines: list[str], nlines: list[tuple[int, str]]
           ) -> tuple[float, int, list[tuple[int, str]], list[float]]:
    """(mean similarity, index of the most changed quote line, the window, similarities)."""
    qskel = [_skeleton(ln) for ln in qlines]
    nskel = [_skeleton(raw) for _, raw in nlines]
    size = min(len(qskel), len(nskel))
    # Windows sharing the most identical lines first: only those are scored in full.
    starts = range(len(nskel) - size + 1)
    where: dict[str, list[int]] = {}
    for j, line in enumerate(nskel):
        where.setdefault(line, []).append(j)
    hits = [0] * len(starts)
    for k in range(size):
        for j in where.get(qskel[k], ()):
            if 0 <= j - k < len(hits):
                hits[j - k] += 1
    most = max(hits)
    chosen = [i for i in starts if hits[i] == most]
    if len(chosen) * size > _SCORED:  # nothing identical: the windows most alike by characters
        bags = [Counter(q[:_COMPARED]) for q in qskel[:size]]
        nbags = [Counter(n[:_COMPARED]) for n in nskel]
        rough = {i: sum((bags[k] & nbags[i + k]).total() for k in range(size)) for i in chosen}
        chosen = sorted(chosen, key=lambda i: (-rough[i], i))[:max(1, _SCORED // size)]
    scored = []
    for i in chosen:
        sims = [_alike(qskel[k], nskel[i + k]) for k in range(size)]
        scored.append((sum(sims) / size, -i, sims))
    mean, neg_i, sims = max(scored)
    i = -neg_i
    # the most changed line, token by token (a literal number edited counts here)
    # (a line of holes only, ⟪S⟫⟨k⟩i⟪S2⟫…, says nothing about where an edit is: alike)
    tokens = [1.0 if len(re.sub(r"\s", "", HOLE_RE.sub("", qlines[k]))) < 3
              else _token_similarity(qlines[k], nlines[i + k][1]) for k in range(size)]
    k = min(range(size), key=lambda k: (tokens[k], sims[k], k))
    return mean, k, nlines[i:i + size], sims


def _alike(quoted: str, printed: str) -> float:
    """Similarity of two skeletons; a quote line that is part of a longer note line (a
    sentence of a paragraph) counts by how much of it the line holds in runs of 3 or more."""
    if quoted == printed:
        return 1.0
    quoted = quoted[:_COMPARED]
    matcher = difflib.SequenceMatcher(None, quoted, printed[:_COMPARED * 5], autojunk=False)
    alike = matcher.ratio()
    if quoted and len(printed) > 1.5 * len(quoted):
        held = sum(b.size for b in matcher.get_matching_blocks() if b.size >= 3)
        alike = max(alike, 0.9 * held / len(quoted))
    return alike


def _token_similarity(quoted: str, printed: str) -> float:
    """How alike two lines are, token by token (a hole is alike to any printed value)."""
    qt, pt = _tokens(quoted), _tokens(printed)
    if not qt and not pt:
        return 1.0
    same = 0
    ops = difflib.SequenceMatcher(None, [t[0] for t in qt], [t[0] for t in pt],
                                  autojunk=False).get_opcodes()
    for tag, a1, a2, b1, b2 in ops:
        if tag == "equal":
            same += a2 - a1
        elif _values_only(qt[a1:a2], pt[b1:b2]):
            same += (a2 - a1 + b2 - b1) / 2
    return 2 * same / (len(qt) + len(pt))


def _tokens(line: str) -> list[tuple[str, int, int]]:
    """(comparison key, start, end) of each token: CJK per character, words and numbers whole."""
    out = []
    for m in _TOKEN_RE.finditer(line):
        tok = m.group()
        key = (_HOLE_KEY if tok.startswith("⟨") and tok.endswith("⟩") else
               _FORMULA_KEY if tok.startswith("⟪") and tok.endswith("⟫") else tok)
        out.append((key, m.start(), m.end()))
    return out


def word_diff(quoted: str, printed: str) -> tuple[str, int]:
    """``… [-quoted-]{+printed+} …`` (one line, at most MAX_DIFF characters), and where in
    ``printed`` the first difference starts. A hole matches any printed value."""
    qt, pt = _tokens(quoted), _tokens(printed)
    ops = _opcodes(qt, pt)
    if qt and all(t[0] != _FORMULA_KEY for t in qt):
        # A quote may be a part of a longer line: compare it with the part of the line that
        # starts where its first matching run does, and is about as long as the quote.
        first = next(((a1, b1) for tag, a1, _, b1, _ in ops if tag == "equal"), None)
        if first is not None and len(pt) > len(qt) + 2:
            lo = max(0, first[1] - first[0])
            hi = min(len(pt), lo + len(qt) + 2)
            window = _opcodes(qt, pt[lo:hi])
            ops = ([("insert", 0, 0, 0, lo)] if lo else []) + [
                (tag, a1, a2, b1 + lo, b2 + lo) for tag, a1, a2, b1, b2 in window] + (
                [("insert", len(qt), len(qt), hi, len(pt))] if hi < len(pt) else [])
    pieces: list[tuple[str, str, bool]] = []  # (kind "=" or "!", text, space after it)
    first = None

    def spaced(line: str, end: int) -> bool:
        return end < len(line) and line[end].isspace()

    def span(tokens: list[tuple[str, int, int]], a: int, b: int, line: str) -> str:
        return " ".join(line[tokens[a][1]:tokens[b - 1][2]].split()) if b > a else ""

    for tag, a1, a2, b1, b2 in ops:
        if tag != "equal" and _values_only(qt[a1:a2], pt[b1:b2]):
            tag = "equal"
        if tag == "insert" and a1 in (0, len(qt)) and qt:  # the line goes on around the quote
            if not pieces or pieces[-1][0] != "~":
                pieces.append(("~", "…", True))
            continue
        if tag == "equal":
            pieces.extend(("=", printed[t[1]:t[2]], spaced(printed, t[2])) for t in pt[b1:b2])
            continue
        if first is None:
            first = pt[b1][1] if b1 < len(pt) else len(printed)
        old, new = span(qt, a1, a2, quoted), span(pt, b1, b2, printed)
        if not new:  # a deletion: spaced as the quote spaces it
            q_before = quoted[qt[a1][1] - 1].isspace() if qt[a1][1] else False
            after = False
            if pieces and pieces[-1][2]:
                if q_before:
                    after = spaced(quoted, qt[a2 - 1][2])
                else:
                    pieces[-1] = (pieces[-1][0], pieces[-1][1], False)
                    after = True
            pieces.append(("!", f"[-{old}-]", after))
            continue
        after = spaced(printed, pt[b2 - 1][2]) if b2 > b1 else spaced(quoted, qt[a2 - 1][2])
        pieces.append(("!", (f"[-{old}-]" if old else "") + (f"{{+{new}+}}" if new else ""),
                       after))
    if first is None:
        return "(no difference within the line: the quote spans other lines)", 0
    return _shorten(pieces), first


def _opcodes(qt: list[tuple[str, int, int]], pt: list[tuple[str, int, int]]
             ) -> list[tuple[str, int, int, int, int]]:
    return difflib.SequenceMatcher(None, [t[0] for t in qt], [t[0] for t in pt],
                                   autojunk=False).get_opcodes()


def _values_only(quoted: list[tuple[str, int, int]], printed: list[tuple[str, int, int]]
                 ) -> bool:
    """A run of holes against a run of printed numbers (and their signs, brackets, commas),
    or a formula hole against any printed run (the LaTeX it stands for)."""
    if quoted and printed and all(t[0] == _FORMULA_KEY for t in quoted):
        return True
    return (bool(quoted) and bool(printed) and all(t[0] == _HOLE_KEY for t in quoted)
            and all(_NUMBER_RE.fullmatch(t[0]) or t[0] in "-−+[](),，.%" for t in printed))


def _shorten(pieces: list[tuple[str, str, bool]]) -> str:
    """Changes with a few unchanged tokens around them; the rest elided as ``…``."""
    whole = "".join(text + (" " if space else "") for _, text, space in pieces).strip()
    if len(whole) <= SHORT_DIFF:
        return whole
    keep = [False] * len(pieces)
    for i, (kind, _, _) in enumerate(pieces):
        if kind == "!":
            for j in range(max(0, i - _CONTEXT), min(len(pieces), i + _CONTEXT + 1)):
                keep[j] = True
    out = ""
    for i, (_, text, space) in enumerate(pieces):
        if keep[i]:
            out += text + (" " if space else "")
        elif not out.endswith("… "):
            out += ("" if not out or out.endswith(" ") else " ") + "… "
    out = out.strip()
    return out if len(out) <= MAX_DIFF else out[:MAX_DIFF - 1] + "…"


def _unwritten_coefficient(text: str, pos: int) -> bool:
    """A name starts at ``pos`` and nothing of a number or a name ends right before it."""
    return (pos < len(text) and text[pos].isascii() and text[pos].isalpha()
            and (pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in "._")))


def read_value(raw: str, start: int) -> Printed:
    """Turn a hole's matched text into numbers with a shape."""
    if raw == "":  # an unwritten coefficient (``⟨k⟩i`` against ``i``): exactly 1
        one = PrintedNumber("", Fraction(1), Fraction(0), True, "integer")
        return Printed(raw, start, start, (), (one,))
    if raw.startswith("\\begin"):
        body = re.sub(r"^\\begin\{\w+\}|\\end\{\w+\}$", "", raw)
        rows = [r for r in re.split(r"\\\\", body) if r.strip()]
        matrix = [[_element(c.strip(), start) for c in r.split("&")] for r in rows]
        return _shaped(raw, start, matrix)
    if raw.startswith("[") and raw[1:].lstrip().startswith("["):
        rows = re.findall(r"\[[^\[\]]*\]", raw[1:-1])
        matrix = [_elements(r[1:-1], start) for r in rows]
        return _shaped(raw, start, matrix)
    if raw[0] in "[(":
        vector = _elements(raw[1:-1], start)
        return Printed(raw, start, start + len(raw), (len(vector),), tuple(vector))
    number = _element(raw, start)
    return Printed(raw, start, start + len(raw), (), (number,))


def _elements(body: str, start: int) -> list[PrintedNumber]:
    """List elements are split at commas first: in ``(1000,999,998)`` a comma separates."""
    body = re.sub(r"\\[ ,;:!]", " ", body)
    pieces = [p.strip() for p in re.split(r"[,，]", body.strip().rstrip(",，"))]
    return [_element(p, start) for p in pieces]


def _shaped(raw: str, start: int, matrix: list[list[PrintedNumber]]) -> Printed:
    widths = {len(r) for r in matrix}
    if len(widths) != 1:
        raise ResolveError(f"matrix rows of different lengths in {raw!r}", stale=False)
    flat = tuple(x for r in matrix for x in r)
    return Printed(raw, start, start + len(raw), (len(matrix), widths.pop()), flat)


def read_number(raw: str) -> PrintedNumber:
    """One number as a hole reads it (``25$ 亿``, ``三成``, ``1/3`` included): for tools that
    write a number back into a hole's place, such as the last-digit survey."""
    return _element(raw, 0)


def _element(raw: str, start: int) -> PrintedNumber:
    special = _special(raw.strip())
    if special is not None:
        return special
    m = _FRAC_PARTS.fullmatch(raw.strip())
    if m:
        num, den = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        num = num.replace("−", "-")
        if int(den) == 0:
            raise ResolveError(f"zero denominator in {raw!r}", stale=False)
        value = Fraction(int(num), int(den))
        return PrintedNumber(raw, value, Fraction(0), True, "fraction")
    try:
        return parse_printed(raw.strip())
    except ValueError as exc:
        raise ResolveError(f"cannot read {raw!r} as a number: {exc}", stale=False) from None


def _special(raw: str) -> PrintedNumber | None:
    """``25$ 亿`` (a magnitude word after the math unit) and ``三成`` (tenths), else None.

    ``25$ 亿`` keeps its text, so a suggestion is written back the same way (``25$ 亿``);
    ``三成`` is 30% rounded to whole tenths (half a unit: 5%), written back as a percentage.
    """
    vague = read_vague(raw)  # a magnitude word (几万, 数十亿): verifiers/magnitude_words.py
    if vague is not None:
        return PrintedNumber(*vague, False, "vague")
    count = read_count(raw)  # a count word (三, 两, six): verifiers/restate/countwords.py
    if count is not None:
        return PrintedNumber(raw.strip(), count, Fraction(0), True, "count")
    m = _MATH_MAGNITUDE_RE.fullmatch(raw)
    if m is not None:
        pn = parse_printed(f"{m.group(1)} {m.group(2)}")
        return dataclasses.replace(pn, text=raw)
    if len(raw) == 2 and raw[1] == "成" and raw[0] in _TENTHS:
        tenths = _TENTHS[raw[0]]
        return PrintedNumber(f"{tenths * 10}%", Fraction(tenths, 10), Fraction(1, 20), False,
                             "percent")
    return None
