"""Markdown notes: ``#`` headings, fenced code, math units, tables, links.

A Markdown lesson says with markup what a plain-text export leaves to guessing,
so this parser reads the markup instead of the numbering:

Headings
    ``#`` … ``######`` at line start (up to three spaces), outside code, are
    sections of levels 1–6, nested by level. A title that opens with a number
    label (``## 3.2 Softmax``, ``# §5 …``, ``# 第 3 章：…``) has that label, so
    ``section: "3.2"`` finds it, and the label is no literal; otherwise the label
    is the whole title (``section: "Forward pass"``) and the title's numbers are
    literals. Numbered plain lines (``3.2 …`` without ``#``) are prose here.

Code
    Fenced blocks (```` ``` ```` or ``~~~``) and inline code spans are a program's
    text: their numbers are not literals of the prose (a program claim reads
    them with its own holes) and no heading or math is found inside them.

Math
    ``$…$`` (one line) is an inline unit; ``$$…$$``, ``\\[…\\]`` and
    ``\\begin{align|align*|aligned|equation|equation*|gather|gather*}…\\end{…}``
    outside ``$$`` are display units that may span lines. A formula hole that
    starts at a unit reads all of it (see :mod:`verifiers.holes`).

Literals
    The shared rules (:mod:`verifiers.parsers.abstract`), minus code, URLs
    (``https://…``, ``<…>`` autolinks), link targets ``](…)`` and heading
    labels. A table cell starts like a line: ``| -0.5 |`` keeps its sign.
"""

from __future__ import annotations

import re
from functools import cached_property

from verifiers.parsers.abstract import Display, Heading, Note

__all__ = ["MarkdownNote"]

_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.MULTILINE)
_LABEL_RE = re.compile(
    r"(?:[0-9]+(?:\.[0-9]+)*\.?|§[0-9]+|第[ \t]*[0-9]+[ \t]*[章节])(?=[ \t:：]|$)")
_INLINE_CODE_RE = re.compile(r"(`+)[^\n]*?(?<!`)\1(?!`)")
_URL_RE = re.compile(r"<?[A-Za-z][A-Za-z0-9+.-]*://[^\s<>)\]]*>?|\]\([^)\n]*\)")
_ENVS = "align|align\\*|aligned|equation|equation\\*|gather|gather\\*"
_MATH_RE = re.compile(
    rf"(?<!\\)\$\$(?P<dd>.*?)(?<!\\)\$\$"
    rf"|\\\[(?P<br>.*?)\\\]"
    rf"|\\begin\{{(?P<env>{_ENVS})\}}.*?\\end\{{(?P=env)\}}"
    rf"|(?<![\\$])\$(?P<in>[^$\n]+?)(?<!\\)\$(?!\$)",
    re.DOTALL,
)
_TABLE_ROW_RE = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Fenced blocks (fence lines included; an unclosed fence runs to the end) and
    inline code spans outside them, in document order."""
    blocks: list[tuple[int, int]] = []
    pos = 0
    while True:
        m = _FENCE_RE.search(text, pos)
        if m is None:
            break
        fence = m[1]
        close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
        line_end = text.find("\n", m.end())
        if line_end < 0:
            blocks.append((m.start(), len(text)))
            break
        c = close.search(text, line_end + 1)
        end = len(text) if c is None else c.end()
        blocks.append((m.start(), end))
        pos = end
    spans = list(blocks)
    for m in _INLINE_CODE_RE.finditer(text):
        if not _inside(blocks, m.start()):
            spans.append((m.start(), m.end()))
    return sorted(spans)


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(a <= offset < b for a, b in spans)


def _subtract(regions: list[tuple[int, int]], holes: list[tuple[int, int]]
              ) -> list[tuple[int, int]]:
    """``regions`` minus ``holes`` (both sorted lists of half-open spans)."""
    out: list[tuple[int, int]] = []
    for lo, hi in regions:
        pos = lo
        for a, b in holes:
            if b <= pos or a >= hi:
                continue
            if a > pos:
                out.append((pos, a))
            pos = max(pos, b)
        if pos < hi:
            out.append((pos, hi))
    return out


class MarkdownNote(Note):
    """A Markdown note (``.md``): headings, code and math read from the markup."""

    suffixes = (".md", ".markdown")
    format = "markdown"
    cell_regions = True

    @cached_property
    def code_spans(self) -> list[tuple[int, int]]:
        """Fenced code blocks and inline code spans (their numbers are not prose)."""
        return _code_spans(self.text)

    def _find_headings(self) -> list[Heading]:
        found: list[Heading] = []
        for m in _HEADING_RE.finditer(self.text):
            if _inside(self.code_spans, m.start()) or not m[2]:
                continue
            title_start = m.start(2)
            label = _LABEL_RE.match(m[2])
            if label:
                text = re.sub(r"[ \t]+", "", label[0]).rstrip(".")
                found.append(Heading(text, len(m[1]), title_start, title_start + label.end()))
            else:
                found.append(Heading(m[2], len(m[1]), title_start, title_start))
        return found

    def _literal_regions(self) -> list[tuple[int, int]]:
        excluded = list(self.code_spans)
        excluded += [(m.start(), m.end()) for m in _URL_RE.finditer(self.text)
                     if not _inside(self.code_spans, m.start())]
        excluded += [(h.start, h.label_end) for h in self._headings if h.label_end > h.start]
        # a table row's cells are regions of their own: a sign after "|" is a sign
        excluded += [(m.start() + k, m.start() + k + 1) for m in _TABLE_ROW_RE.finditer(self.text)
                     for k, ch in enumerate(m[0]) if ch == "|"]
        merged: list[tuple[int, int]] = []
        for a, b in sorted(excluded):
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return _subtract([(0, len(self.text))], merged)

    def _find_displays(self) -> list[Display]:
        displays: list[Display] = []
        for m in _MATH_RE.finditer(self.text):
            if _inside(self.code_spans, m.start()):
                continue
            if m["dd"] is not None:
                displays.append(Display(m.start(), m.end(), m.start("dd"), m.end("dd"), True))
            elif m["br"] is not None:
                displays.append(Display(m.start(), m.end(), m.start("br"), m.end("br"), True))
            elif m["env"] is not None:
                displays.append(Display(m.start(), m.end(), m.start(), m.end(), True))
            else:
                displays.append(Display(m.start(), m.end(), m.start("in"), m.end("in"), False))
        return displays
