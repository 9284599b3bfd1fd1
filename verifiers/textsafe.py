"""Text from notes and claim files is untrusted: what we print must show it, not obey it.

* :func:`printable` for the console (and anything else line-oriented): C0 and C1
  control characters (ESC, BEL, CR, LF, NUL, ...), DEL, the line and paragraph
  separators and the bidirectional overrides and isolates are shown as escapes
  (``\\x1b``, ``\\u202e``), so a claim cannot recolour the terminal, move the cursor,
  fake a line of output or reorder what a reviewer reads. A backslash stays itself.
* :func:`markdown_cell` for a GitHub job summary table cell: the printable text with
  whitespace folded, HTML-sensitive characters as entities and Markdown punctuation
  backslash-escaped, so a cell can neither start a link, an image, HTML, code or
  emphasis, nor break out of its column.
"""

from __future__ import annotations

import re

__all__ = ["markdown_cell", "printable", "safe_stem"]

# Cc (C0, DEL, C1), Zl and Zp, and the bidirectional marks, embeddings, overrides, isolates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, separator and bidi character shown as an escape."""
    return _UNSAFE.sub(_escape, text)


_MARKDOWN = set("\\`*_{}[]()#+-.!|~")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def markdown_cell(text: str) -> str:
    """One table cell of GitHub Markdown that shows ``text`` literally, on one line."""
    folded = printable(" ".join(text.split()))
    return "".join(_ENTITIES.get(ch) or ("\\" + ch if ch in _MARKDOWN else ch)
                   for ch in folded)


def safe_stem(stem: str) -> bool:
    """A name from a note that may become one path component: no separators, no ``..``,
    no leading dot, no control characters, not empty."""
    return (bool(stem) and not stem.startswith(".") and ".." not in stem
            and "/" not in stem and "\\" not in stem and "\0" not in stem
            and printable(stem) == stem and stem.strip() == stem)
