"""Reading a note: decoded text, line/column positions, sections and numeric literals.

Every message of the suite points at a line of a note, and coverage asks which
printed numbers no claim reads, so this module owns the one canonical view of a
note: the text (BOM removed, line ends normalised so offsets are stable), its
headings, and every numeric literal with its span.

Headings
    * ``第 3 章：…`` / ``第3章：…`` -> level 1, label ``第3章``;
    * ``3.3 …`` -> level 2, label ``3.3``;
    * ``§5…`` at line start -> level 1, label ``§5``.

    A heading at line start is always accepted for chapters and ``§N``; a
    ``N.M`` heading is accepted when it continues the numbering (``N.M+1`` of the
    current chapter ``N``, a later ``N.K`` at line start, or ``N+1.1``). The
    export of matrix-by-matrix glues most headings to the end of the previous
    line (``… 假设词表大小为61.2 Token 到索引``), so the *next expected* label is
    also searched anywhere in a line: a glued ``N.M`` must be followed by
    whitespace and a title (a letter or CJK character), a glued chapter by
    ``：``. A heading's title runs to the end of its line.

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
import errno
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from verifiers.files import FileRefused, read_regular
from verifiers.numbers import UNSIGNED_NUMBER_PATTERN, PrintedNumber, parse_printed

__all__ = ["Literal", "Note", "NoteError", "Section", "normalize_text", "read_note"]


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


def normalize_text(text: str) -> str:
    """Drop a leading BOM, turn CRLF / lone CR into LF: positions must not depend on the editor."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


# --- headings -----------------------------------------------------------------

_HSPACE = "[ \t\u3000\u00a0]"
_CHAPTER_RE = re.compile(rf"第{_HSPACE}*([0-9]+){_HSPACE}*章(?={_HSPACE}*[：:])")
_TITLE_START = '(?:[^\\W\\d_]|["“「（(《【])'  # a letter (CJK included) or an opening quote
_SUB_RE = re.compile(rf"([0-9]+)\.([0-9]+)(?![0-9])(?={_HSPACE}+{_TITLE_START})")
_SECTION_SIGN_RE = re.compile(rf"§([0-9]+)(?![0-9])(?={_HSPACE}*{_TITLE_START})")
_TITLE_LEAD = re.compile(rf"{_HSPACE}*[：:]?{_HSPACE}*")


@dataclass
class _Heading:
    label: str
    level: int
    start: int
    label_end: int


def _find_headings(text: str) -> list[_Heading]:
    """Find headings in document order, following the numbering (see module docstring)."""
    found: list[_Heading] = []
    chapter: int | None = None
    sub = 0
    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        lead = len(line) - len(line.lstrip(" \t\u3000"))
        col = lead
        absent: dict[object, int] = {}  # label -> column from which the line has none
        while col < len(line):
            best: tuple[int, _Heading, int | None, int] | None = None
            # line-start forms
            if col == lead:
                m = _CHAPTER_RE.match(line, col)
                if m:
                    n = int(m[1])
                    best = (m.start(), _Heading(f"第{n}章", 1, m.start(), m.end()), n, 0)
                m = _SECTION_SIGN_RE.match(line, col) if best is None else None
                if m:
                    best = (m.start(), _Heading(f"§{m[1]}", 1, m.start(), m.end()), chapter, sub)
                m = _SUB_RE.match(line, col) if best is None else None
                if m:
                    major, minor = int(m[1]), int(m[2])
                    if (chapter is not None and major == chapter and minor > sub) or (
                        minor == 1 and major == (chapter or 0) + 1
                    ):
                        best = (col, _Heading(m[0], 2, col, m.end()), major, minor)
            # glued forms: only the next expected label, anywhere in the line
            if best is None:
                nxt = (chapter or 0) + 1
                cands: list[tuple[int, _Heading, int | None, int]] = []
                # Each search remembers where it found nothing, so a long line with many
                # glued headings is read in linear time.
                for m in _CHAPTER_RE.finditer(line, col) if absent.get(nxt, col + 1) > col else ():
                    if int(m[1]) == nxt:
                        cands.append(
                            (m.start(), _Heading(f"第{nxt}章", 1, m.start(), m.end()), nxt, 0)
                        )
                        break
                else:
                    absent[nxt] = col
                expected = [(nxt, 1)] + ([(chapter, sub + 1)] if chapter is not None else [])
                for major, minor in expected:
                    label = f"{major}.{minor}"
                    k = line.find(label, col) if absent.get(label, col + 1) > col else -1
                    while k >= 0:
                        m = _SUB_RE.match(line, k)
                        if m and m[0] == label and not (k and line[k - 1] == "."):
                            cands.append((k, _Heading(label, 2, k, m.end()), major, minor))
                            break
                        k = line.find(label, k + 1)
                    else:
                        absent[label] = col
                if cands:
                    best = min(cands, key=lambda c: c[0])
            if best is None:
                break
            _, heading, chapter, sub = best
            heading.start += line_start
            heading.label_end += line_start
            found.append(heading)
            col = heading.label_end - line_start
    return found


def _build_sections(text: str, headings: list[_Heading]) -> list[Section]:
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


def _scan_literals(text: str, regions: list[tuple[int, int]]) -> list[Literal]:
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
                line_lo = last_nl + 1
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
    """A decoded note with positions, sections and literals (all offsets into ``text``)."""

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
    @cached_property
    def _headings(self) -> list[_Heading]:
        return _find_headings(self.text)

    @cached_property
    def sections(self) -> list[Section]:
        """Headings in document order, each with its scope."""
        return _build_sections(self.text, self._headings)

    def scopes(self, query: str) -> list[tuple[int, int]]:
        """(start, end) of every section whose heading starts with ``query`` (spaces ignored)."""
        q = re.sub(r"\s+", "", query)
        if not q:
            return []
        result: list[tuple[int, int]] = []
        for s in self.sections:
            header = re.sub(r"\s+", "", self.text[s.start : s.header_end])
            rest = header[len(q) : len(q) + 1]
            if q == s.label or (header.startswith(q) and not (rest.isdigit() or rest == ".")):
                result.append((s.start, s.end))
        return result

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
        regions: list[tuple[int, int]] = []
        pos = 0
        for h in self._headings:
            regions.append((pos, h.start))
            pos = h.label_end
        regions.append((pos, len(self.text)))
        return _scan_literals(self.text, [(a, b) for a, b in regions if b > a])

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


def read_note(path: str | Path) -> Note:
    """Read and decode a note; every failure is a ``NoteError`` with a one-line message.

    Only a regular file of at most 5 MB is read (:func:`verifiers.files.read_regular`):
    a symbolic link, a FIFO, a device or a directory is refused, never followed or read.
    """
    p = Path(path)
    try:
        raw = read_regular(p)
    except FileRefused as exc:
        raise NoteError(path, "is a directory" if exc.errno == errno.EISDIR
                        else exc.strerror) from None
    except FileNotFoundError:
        raise NoteError(path, "no such note") from None
    except IsADirectoryError:
        raise NoteError(path, "is a directory") from None
    except OSError as exc:
        raise NoteError(path, f"cannot read ({exc.strerror or exc.__class__.__name__})") from None
    except (TypeError, ValueError) as exc:  # e.g. an embedded NUL in the path
        raise NoteError(path, f"cannot read ({exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise NoteError(path, f"invalid UTF-8 at byte {exc.start} (line {line})") from None
    nul = raw.find(b"\0")
    if nul >= 0:  # a binary file; a NUL would also cut a printed number short unseen
        line = raw.count(b"\n", 0, nul) + 1
        raise NoteError(path, f"NUL byte at byte {nul} (line {line}): a note is text")
    return Note(p, text)
