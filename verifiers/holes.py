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

import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from verifiers.numbers import (
    MANTISSA_PATTERN,
    NUMBER_PATTERN,
    UNSIGNED_NUMBER_PATTERN,
    PrintedNumber,
    parse_printed,
)
from verifiers.parsers.abstract import Display
from verifiers.schema import HOLE_RE, HoleRef
from verifiers.words import word_ends

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

_FRAC_PARTS = re.compile(
    r"\\[dt]?frac\{\s*([-+−]?\d+)\s*\}\{\s*([-+−]?\d+)\s*\}|([-+−]?\d+)\s*/\s*(\d+)"
)
_NUMBER_RE = re.compile(UNSIGNED_NUMBER_PATTERN)
MAX_QUOTE = 20_000


class ResolveError(Exception):
    """The quote is not in the note (stale) or a printed value is unreadable."""

    def __init__(self, message: str, stale: bool = True, hint: str | None = None,
                 at: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.stale = stale
        self.hint = hint
        self.at = at  # where the message points in the note: a candidate, where matching stopped


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


@dataclass(frozen=True)
class Quote:
    """A compiled quote: literal chunks (small regexes) and holes, in order."""

    parts: tuple[re.Pattern[str] | HoleRef, ...]
    refs: tuple[HoleRef, ...]
    # parts that are formula holes followed by a line break in the quote: each ends with
    # its own line, so two formula holes on consecutive lines never split one line
    line_bound: frozenset[int] = frozenset()


@functools.lru_cache(maxsize=4096)
def compile_quote(text: str) -> Quote:
    """Split a quote at its holes; each literal chunk becomes a small regex.

    Values are matched by precompiled patterns, one alternative at a time, so
    a quote with thirty holes costs thirty small matches, not one huge regex.
    """
    parts: list[re.Pattern[str] | HoleRef] = []
    line_bound: set[int] = set()
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
    _add_literal(parts, text[pos:])
    return Quote(tuple(parts), tuple(p for p in parts if isinstance(p, HoleRef)),
                 frozenset(line_bound))


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
    sources = (_LATEX, _NESTED, _BRACKET_LIST, _PAREN_LIST, _FRAC, _NUM, plain)
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

    def formula_ends(self, i: int, pos: int) -> range:
        """A formula hole takes LaTeX up to the next literal text, within one line.

        The last part of a quote, and a hole followed by a line break in the quote,
        take the rest of the line; otherwise every end is tried, shortest first, and
        the following literal decides. A hole that starts at a math unit of the note
        (``$…$``, ``$$…$$``, ``\\begin{aligned}…``) reads the whole unit, across lines.
        """
        unit = self.displays.get(pos)
        if unit is not None and unit.end <= self.limit:
            return range(unit.end, unit.end + 1)
        eol = self.line_end(pos)
        if eol <= pos or pos >= self.dead.get((i, eol), eol + 1):
            return range(0)
        whole = i == len(self.quote.parts) - 1 or i in self.quote.line_bound
        return range(eol, eol + 1) if whole else range(pos + 1, eol + 1)

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
                        else word_ends(text, begin, limit) if part.word
                        else _hole_ends(text, begin, limit))
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
    if not found:
        raise _not_found(text, quote, scopes, units)
    if len(found) > 1:
        found = _disambiguate(text, found, scopes, near, after)
    start, (spans, end) = next(iter(found.items()))
    values = {
        ref.key: read_value(text[a:b], a)
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
    return Match(start, end, values, formulas, words)


_Found = dict[int, tuple[list[tuple[int, int]], int]]


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
    if failing is None or len(lines) == 1 or not lines[failing].strip():
        return ResolveError("quoted text not found in the note",
                            hint=closest_line(text, quote, scopes))
    bad = lines[failing].strip()
    stop = min(end for _, end in matched.values()) if len(matched) == 1 else None
    return ResolveError(f"quoted text not found in the note: quote line {failing + 1} "
                        f"{bad!r} does not match", hint=closest_line(text, bad, scopes), at=stop)


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


def closest_line(text: str, quote: str, scopes: list[tuple[int, int]]) -> str | None:
    """The note line most like the quote's most distinctive line (for stale messages)."""
    lines = [ln.strip() for ln in HOLE_RE.sub("…", quote).splitlines() if ln.strip()]
    if not lines:
        return None
    probe = max(lines, key=len)
    candidates: list[str] = []
    for start, end in scopes:
        candidates.extend(ln.strip() for ln in text[start:end].splitlines() if ln.strip())
    skeletons = {_NUMBER_RE.sub("…", c): c for c in reversed(candidates)}
    best = difflib.get_close_matches(_NUMBER_RE.sub("…", probe), list(skeletons), n=1, cutoff=0.3)
    return skeletons[best[0]] if best else None


def read_value(raw: str, start: int) -> Printed:
    """Turn a hole's matched text into numbers with a shape."""
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


def _element(raw: str, start: int) -> PrintedNumber:
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
