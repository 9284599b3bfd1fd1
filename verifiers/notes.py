"""Reading a note: the format's parser by file name, one ``Note`` index for the suite.

The index itself (positions, sections, literals, displays) is
:mod:`verifiers.parsers.abstract`; the rules of each format live beside it
(:mod:`verifiers.parsers.text` for ``.txt``, :mod:`verifiers.parsers.markdown`
for ``.md``). This module keeps the public names every other module imports,
and reads files: ``Note(path, text)`` and ``read_note(path)`` choose the parser
from the suffix.
"""

from __future__ import annotations

import errno
from pathlib import Path

from verifiers.files import FileRefused, read_regular
from verifiers.parsers.abstract import (
    Display,
    Heading,
    Literal,
    Note,
    NoteError,
    Section,
    lines_at,
    normalize_text,
)
from verifiers.parsers.markdown import MarkdownNote
from verifiers.parsers.text import TextNote

__all__ = ["Display", "Heading", "Literal", "MarkdownNote", "Note", "NoteError", "Section",
           "TextNote", "lines_at", "normalize_text", "read_note"]


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
