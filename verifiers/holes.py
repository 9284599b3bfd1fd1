"""Find a claim's quoted text in its note and read the values its holes print.

The quote becomes one regular expression: literal text is escaped with
whitespace made optional, and each hole ``⟨name⟩`` becomes a named group that
matches one printed value (a LaTeX matrix, a nested list, a list, a fraction
or a number). The note therefore stays the only place where numbers are
written; the claim says where they are.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field
from fractions import Fraction

from verifiers.numbers import (
    MANTISSA_PATTERN,
    NUMBER_PATTERN,
    UNSIGNED_NUMBER_PATTERN,
    PrintedNumber,
    parse_printed,
)
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

    def __init__(self, message: str, stale: bool = True, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.stale = stale
        self.hint = hint


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


@functools.lru_cache(maxsize=4096)
def compile_quote(text: str) -> Quote:
    """Split a quote at its holes; each literal chunk becomes a small regex.

    Values are matched by precompiled patterns, one alternative at a time, so
    a quote with thirty holes costs thirty small matches, not one huge regex.
    """
    parts: list[re.Pattern[str] | HoleRef] = []
    pos = 0
    for m in HOLE_RE.finditer(text):
        _add_literal(parts, text[pos:m.start()])
        parts.append(HoleRef.from_match(m))
        pos = m.end()
    _add_literal(parts, text[pos:])
    return Quote(tuple(parts), tuple(p for p in parts if isinstance(p, HoleRef)))


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

    def __init__(self, text: str, quote: Quote, limit: int) -> None:
        self.text, self.quote, self.limit = text, quote, limit
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

        The last part of a quote takes the rest of the line; otherwise every end is
        tried, shortest first, and the following literal decides.
        """
        eol = self.line_end(pos)
        if eol <= pos or pos >= self.dead.get((i, eol), eol + 1):
            return range(0)
        return range(eol, eol + 1) if i == len(self.quote.parts) - 1 else range(pos + 1, eol + 1)

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
                if part.formula and ends:
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


def find(text: str, quote: str, scopes: list[tuple[int, int]]) -> Match:
    """Find the quote exactly once within the scopes and read its holes."""
    if len(quote) > MAX_QUOTE:
        raise ResolveError(f"quote longer than {MAX_QUOTE} characters", stale=False)
    compiled = compile_quote(quote)
    if not compiled.parts:
        raise ResolveError("empty quote", stale=False)
    first = compiled.parts[0]
    if isinstance(first, HoleRef):
        # A quote that opens with a value starts at a value; with a formula, at a line.
        opener = _LINE_START if first.formula else _value_start()
    else:
        opener = first
    found: dict[int, tuple[list[tuple[int, int]], int]] = {}
    for lo, hi in scopes:
        search = _Search(text, compiled, hi)
        for candidate in opener.finditer(text, lo, hi):
            at = candidate.end() if opener is _LINE_START else candidate.start()
            result = search.match_at(at)
            if result is not None:
                # Key by where the match really begins (a hole may skip leading blank lines).
                begins = result[0][0][0] if isinstance(first, HoleRef) else at
                found.setdefault(begins, result)
    if not found:
        hint = closest_line(text, quote, scopes)
        raise ResolveError("quoted text not found in the note", hint=hint)
    if len(found) > 1:
        raise ResolveError(f"quoted text found {len(found)} times; it must be unique")
    start, (spans, end) = next(iter(found.items()))
    values = {
        ref.key: read_value(text[a:b], a)
        for ref, (a, b) in zip(compiled.refs, spans, strict=True)
        if not (ref.formula or ref.word)
    }
    formulas = {
        ref.name: Printed(text[a:b], a, b, (), ())
        for ref, (a, b) in zip(compiled.refs, spans, strict=True) if ref.formula
    }
    words = {
        ref.name: Printed(text[a:b], a, b, (), ())
        for ref, (a, b) in zip(compiled.refs, spans, strict=True) if ref.word
    }
    return Match(start, end, values, formulas, words)


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
