"""The shared note index: decoded text, line/column positions, sections, literals, displays.

Every message of the suite points at a line of a note, and coverage asks which
printed numbers no claim reads, so one class owns the canonical view of a
note whatever its format: the text (BOM removed, line ends normalised so
offsets are stable), its headings, every numeric literal with its span, and its
display-math units. A format's parser (:mod:`verifiers.parsers.text`,
:mod:`verifiers.parsers.markdown`) is a subclass that says where the headings
are, which regions hold prose numbers and where the displays are; everything
else -- positions, scopes, the literal rules below -- is shared here.

``Note(path, text)`` picks the subclass registered for the path's suffix
(``.md`` -> Markdown, anything else -> plain text), so code that builds a note
from text keeps working unchanged.

Literals (numbers that a claim should read, or a waiver should excuse)
    * a sign belongs to the number unless the nearest non-space character
      before it (same line) ends an operand: an ASCII/Greek letter or digit, a
      closing bracket, ``.``, ``%``, a sub/superscript digit or a LaTeX value
      command such as ``\\pi`` (so ``0.10-0.42`` is 0.10 and 0.42, ``d−1`` is 1,
      but ``[0.9093,-0.4161``, ``(- 0.921286)``, ``约为−0.133562`` and
      ``e^{- 1}`` keep their sign); ``-``/``+`` at line start followed by a space
      is a list bullet, not a sign;
    * numbers that are part of a name are not literals: digits directly after a
      letter or ``_`` (``h2``, ``R1``, ``float64``, ``W_q1``, ``x_1``) unless the
      letters are a LaTeX command (``\\gt0``, ``\\ln50257``); everything inside
      a subscript group ``_{…}`` (``x_{1}``, ``x_{t-1}``, ``\\sum_{i=1}``); a
      superscript index ``^{(1)}``; ``-N`` after a word of two or more ASCII
      letters (``GPT-2``); a ``.5``-style number glued to a letter or digit
      (the tail of ``3.11.2``);
    * superscripts are values (exponents): ``0.1^{400}`` gives 0.1 and 400;
      ``V^2`` gives 2; a scientific form is one literal (``4.9\\times10^{-324}``);
    * ``a,bbb`` is one number only if it is not inside a comma list written
      without spaces (``(1000,999,998)`` is three numbers);
    * a heading's label is not a literal and no literal crosses a heading start;
      numbers in a heading's title are literals.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from verifiers.numbers import UNSIGNED_NUMBER_PATTERN, PrintedNumber, parse_printed

__all__ = ["Display", "Heading", "Literal", "Note", "NoteError", "Section", "normalize_text"]


class NoteError(Exception):
    """A note that cannot be read; ``str()`` is one line ``"<path>: <message>"``."""

    def __init__(self, path: str | Path, message: str) -> None:
        self.path = str(path)
        self.message = message
        super().__init__(f"{self.path}: {message}")


@dataclass(frozen=True)
class Section:
    """A heading and its scope (up to the next heading of the same or a higher level)."""

    label: str  # "第3章", "3.3", "§5"
    title: str  # heading text after the label, e.g. "Softmax 分成两个步骤，其实很简单"
    level: int  # 1 for chapters and §N, 2 for N.M
    start: int  # offset of the label
    header_end: int  # end of the heading line (offset of its "\n" or len(text))
    end: int  # start of the next heading of same-or-higher level, or len(text)


@dataclass(frozen=True)
class Literal:
    """One numeric literal of a note, with its span in ``Note.text``."""

    text: str
    start: int
    end: int
    number: PrintedNumber


@dataclass(frozen=True)
class Display:
    """One unit of math: ``$…$`` inline, or a display (``$$…$$``, ``\\[…\\]``,
    ``\\begin{align}…``) that may span lines. A formula hole that starts at ``start``
    reads the whole unit, ``body_start..body_end`` (delimiters dropped, an environment
    kept: the LaTeX reader splits its rows)."""

    start: int
    end: int
    body_start: int
    body_end: int
    block: bool  # a display (True) or inline math (False)


def lines_at(text: str) -> list[tuple[int, str]]:
    """``(offset, line)`` of every line of ``text`` (split at ``\\n``), the offset of its
    first character: the readers that walk a note line by line keep note offsets."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def normalize_text(text: str) -> str:
    """Drop a leading BOM, turn CRLF / lone CR into LF: positions must not depend on the editor."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- headings -----------------------------------------------------------------

_TITLE_LEAD = re.compile(r"[ \t\u3000\u00a0]*[：:]?[ \t\u3000\u00a0]*")


@dataclass
class Heading:
    """A heading as a format's parser finds it: its label and where the label ends.

    ``start`` is where the label starts (so a claim's ``section:`` is matched from
    there); the text from ``start`` to ``label_end`` is no literal (a heading's number
    is its name, not a value); the title runs from ``label_end`` to the end of the line.
    """

    label: str
    level: int
    start: int
    label_end: int


def _build_sections(text: str, headings: list[Heading]) -> list[Section]:
    sections: list[Section] = []
    line_end = -1
    for i, h in enumerate(headings):
        if line_end < h.start:  # headings glued on one long line share its end
            line_end = text.find("\n", h.start)
            line_end = len(text) if line_end < 0 else line_end
        header_end = line_end
        if i + 1 < len(headings) and headings[i + 1].start < header_end:
            header_end = headings[i + 1].start  # two headings glued on one line
        end = len(text)
        for j in range(i + 1, len(headings)):
            if headings[j].level <= h.level:
                end = headings[j].start
                break
        title_start = _TITLE_LEAD.match(text, h.label_end).end()
        title = text[title_start:header_end].strip()
        sections.append(Section(h.label, title, h.level, h.start, header_end, end))
    return sections


# --- literals -----------------------------------------------------------------

_SIGNED_RE = re.compile(rf"(?P<sign>[+\-−][^\S\n]*)?(?P<num>{UNSIGNED_NUMBER_PATTERN})")
_DIGITS = set("0123456789０１２３４５６７８９")
_CLOSERS = set(")]}）】|.%％′'")
_VALUE_COMMANDS = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "rho", "sigma", "tau",
    "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta", "Lambda",
    "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega", "infty", "ell", "hbar", "dots", "ldots",
    "cdots", "top", "prime",
}  # fmt: skip
_THOUSANDS_RE = re.compile(r"[0-9０-９]{1,3},[0-9０-９]{3}")


def _is_wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _letter_run_start(text: str, i: int, lo: int) -> int:
    """Start of the run of letters ending just before ``i``."""
    j = i
    while j > lo and text[j - 1].isalpha() and not _is_wide(text[j - 1]):
        j -= 1
    return j


def _ends_operand(text: str, i: int, lo: int) -> bool:
    """Does the character before ``i`` end an operand (making a following sign an operator)?"""
    ch = text[i - 1]
    if ch in _DIGITS or ch in _CLOSERS or unicodedata.category(ch) == "No":
        return True
    if ch.isalpha() and not _is_wide(ch):
        j = _letter_run_start(text, i, lo)
        if j > lo and text[j - 1] == "\\":
            return text[j:i] in _VALUE_COMMANDS
        return True
    if ch.isalpha():  # CJK: a separator, unless it ends a name such as ``V_猫``
        j = i
        while j > lo and (text[j - 1].isalnum() or text[j - 1] == "_"):
            j -= 1
        return "_" in text[j:i]
    return False


def _subscript_spans(text: str) -> list[tuple[int, int]]:
    """Spans of ``_{…}`` and ``^{(…)}`` groups (balanced braces, one line at most)."""
    spans: list[tuple[int, int]] = []
    for m in re.finditer(r"_\{|\^\{(?=\s*\()", text):
        if spans and m.start() < spans[-1][1]:
            continue  # nested in the previous group, which covers it (and no rescan to EOL)
        depth, j = 0, m.end() - 1
        while j < len(text) and text[j] != "\n":
            if text[j] == "{":
                depth += 1
            elif text[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        spans.append((m.end(), j))
    return spans


def _is_name_part(text: str, i: int, lo: int) -> bool:
    """Is the unsigned number starting at ``i`` part of a name (``h2``, ``GPT-2``, ...)?"""
    if i <= lo:
        return False
    ch = text[i - 1]
    if text[i] == ".":  # ".5" glued to a word or number: the tail of "v3.11.2"
        return ch in _DIGITS or ch == "." or (ch.isalpha() and not _is_wide(ch))
    if ch == "_":
        return True
    if ch.isalpha() and not _is_wide(ch):
        j = _letter_run_start(text, i, lo)
        return not (j > lo and text[j - 1] == "\\")
    if ch == "-" and i - 1 > lo:
        j = _letter_run_start(text, i - 1, lo)
        word = text[j : i - 1]
        return len(word) >= 2 and word.isascii() and not (j > lo and text[j - 1] == "\\")
    return False


def _scan_literals(text: str, regions: list[tuple[int, int]],
                   region_starts_line: bool = False) -> list[Literal]:
    """Literals of the regions; with ``region_starts_line`` a region's start counts as a
    line start for signs (a Markdown table cell: ``| -0.5 |`` keeps its sign)."""
    spans = _subscript_spans(text)
    span_starts = [s for s, _ in spans]
    literals: list[Literal] = []

    def in_subscript(i: int) -> bool:
        k = bisect.bisect_right(span_starts, i) - 1
        return k >= 0 and spans[k][0] <= i < spans[k][1]

    for lo, hi in regions:
        pos = lo
        last_nl, searched = lo - 1, lo  # the last newline in [lo, searched): one pass per line
        while pos < hi:
            m = _SIGNED_RE.search(text, pos, hi)
            if m is None:
                break
            start, end = m.start(), m.end()
            num_start = m.start("num")
            num_text = m["num"]
            pos = end
            # a thousands group inside a space-less comma list is a list, not one number
            if "," in num_text and _THOUSANDS_RE.match(num_text):
                before_list = (
                    num_start - 2 >= lo
                    and text[num_start - 1] == ","
                    and text[num_start - 2] in _DIGITS
                )
                after_list = end + 1 < hi and text[end] == "," and text[end + 1] in _DIGITS
                if before_list or after_list:
                    end = text.index(",", num_start)
                    num_text = text[num_start:end]
                    pos = end
            if m["sign"]:
                last_nl = max(last_nl, text.rfind("\n", searched, start))
                searched = start
                line_lo = max(last_nl + 1, lo) if region_starts_line else last_nl + 1
                k = start
                while k > line_lo and text[k - 1] in " \t\u3000\u00a0":
                    k -= 1
                bullet = k == line_lo and text[start] in "-+" and m["sign"][1:2].isspace()
                if bullet or (k > line_lo and _ends_operand(text, k, line_lo)):
                    start = num_start
            if _is_name_part(text, num_start, lo) or in_subscript(num_start):
                continue
            literal_text = text[start:end]
            try:
                printed = parse_printed(literal_text)
            except ValueError:  # 1e999999999: too large to read; a hole on it says so
                continue
            literals.append(Literal(literal_text, start, end, printed))
    return literals


# --- the note -------------------------------------------------------------------


class Note:
    """A decoded note with positions, sections and literals (all offsets into ``text``).

    The base class finds no headings and reads every character as prose; a format
    subclass overrides :meth:`_find_headings`, :meth:`_literal_regions` and
    :meth:`_find_displays`. ``suffixes`` registers a subclass for file names.
    """

    suffixes: ClassVar[tuple[str, ...]] = ()
    format: ClassVar[str] = "text"
    cell_regions: ClassVar[bool] = False  # does a literal region start like a line (cells)?
    _formats: ClassVar[dict[str, type[Note]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for suffix in cls.suffixes:
            Note._formats[suffix] = cls

    def __new__(cls, *args: Any, **kwargs: Any) -> Note:
        # Note(path, text) keeps its meaning for every caller: the format follows the name.
        if cls is Note and (args or kwargs):
            path = kwargs.get("path", args[0] if args else "")
            name = kwargs.get("name", args[2] if len(args) > 2 else None)
            suffix = Path(name if name is not None else path).suffix.lower()
            cls = Note._formats.get(suffix, Note._formats.get(".txt", Note))
        return super().__new__(cls)

    def __init__(self, path: str | Path, text: str, name: str | None = None) -> None:
        self.path = Path(path)
        self.name = name if name is not None else self.path.name
        self.text = normalize_text(text)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]

    @classmethod
    def from_text(cls, text: str, name: str = "<text>") -> Note:
        """A note not read from disk (tests, scaffolding)."""
        return cls(Path(name), text, name)

    def __repr__(self) -> str:
        return f"Note({self.name!r}, {len(self._line_starts)} lines)"

    # positions
    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column), column counted in code points."""
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"{self.name}: offset {offset} outside 0..{len(self.text)}")
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def offset(self, line: int, col: int) -> int:
        """Inverse of ``position``; column may point just past the line's last character."""
        if not 1 <= line <= len(self._line_starts):
            raise ValueError(f"{self.name}: line {line} outside 1..{len(self._line_starts)}")
        start = self._line_starts[line - 1]
        length = len(self.line_text(line))
        if not 1 <= col <= length + 1:
            raise ValueError(f"{self.name}:{line}: column {col} outside 1..{length + 1}")
        return start + col - 1

    def line_text(self, line: int) -> str:
        """Text of a 1-based line, without its line end."""
        if not 1 <= line <= len(self._line_starts):
            raise ValueError(f"{self.name}: line {line} outside 1..{len(self._line_starts)}")
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[start:end]

    # sections
    def _find_headings(self) -> list[Heading]:
        """The format's headings in document order (none in the base class)."""
        return []

    def _literal_regions(self) -> list[tuple[int, int]]:
        """Regions of prose whose numbers are literals: the text minus heading labels."""
        regions: list[tuple[int, int]] = []
        pos = 0
        for h in self._headings:
            regions.append((pos, h.start))
            pos = h.label_end
        regions.append((pos, len(self.text)))
        return [(a, b) for a, b in regions if b > a]

    def _find_displays(self) -> list[Display]:
        """Math units (none in the base class: a plain-text formula ends with its line)."""
        return []

    @cached_property
    def _headings(self) -> list[Heading]:
        return self._find_headings()

    @cached_property
    def sections(self) -> list[Section]:
        """Headings in document order, each with its scope."""
        return _build_sections(self.text, self._headings)

    @cached_property
    def _scope_index(self) -> tuple[list[str], list[int], dict[str, list[int]]]:
        """The headings without spaces, sorted (with their section numbers), and the
        sections by label: a query looks up its sections instead of scanning them all,
        so a note's claims cost time linear in its size."""
        headers = sorted((re.sub(r"\s+", "", self.text[s.start : s.header_end]), k)
                         for k, s in enumerate(self.sections))
        labels: dict[str, list[int]] = {}
        for k, s in enumerate(self.sections):
            labels.setdefault(s.label, []).append(k)
        return [h for h, _ in headers], [k for _, k in headers], labels

    def scopes(self, query: str) -> list[tuple[int, int]]:
        """(start, end) of every section whose heading starts with ``query`` (spaces ignored)."""
        q = re.sub(r"\s+", "", query)
        if not q:
            return []
        keys, numbers, labels = self._scope_index
        found = set(labels.get(q, ()))
        k = bisect.bisect_left(keys, q)
        while k < len(keys) and keys[k].startswith(q):
            rest = keys[k][len(q) : len(q) + 1]
            if not (rest.isdigit() or rest == "."):
                found.add(numbers[k])
            k += 1
        return [(self.sections[k].start, self.sections[k].end) for k in sorted(found)]

    def section_at(self, offset: int) -> Section | None:
        """Innermost section whose scope contains ``offset``."""
        # Scopes nest, so walking back from the last heading before ``offset``
        # the first scope that contains it is the innermost one.
        k = bisect.bisect_right(self._section_starts, offset) - 1
        while k >= 0:
            s = self.sections[k]
            if s.start <= offset < s.end:
                return s
            k -= 1
        return None

    @cached_property
    def _section_starts(self) -> list[int]:
        return [s.start for s in self.sections]

    # literals
    @cached_property
    def literals(self) -> list[Literal]:
        """Every numeric literal (heading labels and parts of names excluded)."""
        return _scan_literals(self.text, self._literal_regions(), self.cell_regions)

    def literals_in(self, start: int, end: int) -> list[Literal]:
        """Literals lying entirely within ``[start, end)``."""
        starts = [lit.start for lit in self.literals]
        k = bisect.bisect_left(starts, start)
        out: list[Literal] = []
        while k < len(self.literals) and self.literals[k].start < end:
            if self.literals[k].end <= end:
                out.append(self.literals[k])
            k += 1
        return out


    # displays
    @cached_property
    def displays(self) -> list[Display]:
        """Math units in document order (inline and display)."""
        return self._find_displays()

    def display_at(self, offset: int) -> Display | None:
        """The unit that starts at ``offset`` or whose body starts there, if any."""
        for d in self.displays:
            if offset in (d.start, d.body_start):
                return d
            if d.start > offset:
                break
        return None
