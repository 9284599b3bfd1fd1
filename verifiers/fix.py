"""``notecheck fix``: rewrite the values whose own step is wrong, at the note's precision.

Only a value whose *own* arithmetic is wrong (local ✗) is rewritten, with the
value the engine computed, written the way the note writes that number
(:func:`verifiers.numbers.format_like`: unit word, ``%``, sign, separators, decimals).
A value that is wrong only because an input upstream is wrong is listed, not rewritten: once
its root is fixed it may verify as printed, or show its own error then.
Symbolic steps and model outputs are listed too (their fix is the author's).
The printings of a given value are compared with each other first (:mod:`verifiers.copies`):
only a printing that differs from the majority is rewritten, to the majority's value; a copy
that agrees with the majority verifies, so the majority is never rewritten to a minority.

``--write`` (:func:`write_fixed`) changes nothing but the numbers: each line keeps its
own ending (LF, CRLF or a lone CR, mixed as they are), the BOM and the file's mode stay,
the file is replaced atomically, and a note that changed since it was read (an edit
saved meanwhile) is left alone with a message naming it.
"""

from __future__ import annotations

import difflib
import errno
import re
from dataclasses import dataclass
from pathlib import Path

from verifiers.files import OutputError, read_regular, snapshot, write_output
from verifiers.notes import Note, normalize_text
from verifiers.verdicts import DISCREPANCY, KNOWN, RunResult, ValueVerdict, Verdict

__all__ = ["Edit", "plan", "rewritten", "unified_diff", "write_fixed"]


@dataclass(frozen=True)
class Edit:
    note: str
    start: int  # offsets in the note's text
    end: int
    old: str
    new: str
    claim: str
    value: str


def _rewritable(v: Verdict, x: ValueVerdict) -> bool:
    return (v.kind in ("arithmetic", "given") and x.status in (DISCREPANCY, KNOWN)
            and x.local == "wrong"
            and x.suggestion is not None and x.suggestion != x.printed)


def plan(result: RunResult) -> tuple[list[Edit], list[str]]:
    """(edits to make, lines describing the values left for after their root is fixed)."""
    edits: dict[tuple[str, int, int], Edit] = {}
    waiting: list[str] = []
    for v in result.verdicts:
        if not v.note:
            continue
        note = result.notes[v.note]
        for x in v.values:
            if x.status not in (DISCREPANCY, KNOWN):
                continue
            line, col = x.start
            where = f"{result.note_path(v.note)}:{line}:{col}"
            if _rewritable(v, x):
                start, end = note.offset(*x.start), note.offset(*x.end)
                if note.text[start:end] != x.printed:
                    waiting.append(f"{where}: {v.id} {x.name}: printed text moved; not rewritten")
                    continue
                edits.setdefault((v.note, start, end),
                                 Edit(v.note, start, end, x.printed, x.suggestion or "", v.id,
                                      x.name))
            else:
                why = (f"inherited from {x.root_cause}" if x.root_cause and x.local != "wrong"
                       else f"{v.kind} value: fix it by hand")
                waiting.append(f"{where}: {v.id} {x.name}: {' '.join(x.printed.split())} "
                               f"left as is ({why})")
    return _without_overlaps(sorted(edits.values(), key=lambda e: (e.note, e.start))), waiting


def _without_overlaps(edits: list[Edit]) -> list[Edit]:
    """A whole row and one of its elements may both be wrong: keep the innermost edit."""
    kept: list[Edit] = []
    for e in sorted(edits, key=lambda e: (e.note, e.start, -(e.end - e.start))):
        kept = [k for k in kept if not (k.note == e.note and k.start <= e.start
                                        and e.end <= k.end and k != e)]
        if not any(k.note == e.note and k.start < e.end and e.start < k.end for k in kept):
            kept.append(e)
    return sorted(kept, key=lambda e: (e.note, e.start))


def rewritten(text: str, edits: list[Edit]) -> str:
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.new + text[e.end:]
    return text


_NO_NEWLINE = "\\ No newline at end of file"


def _lines(text: str) -> list[str]:
    """Lines as patch counts them: only ``\\n`` ends one (not U+2028, form feed ...)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def unified_diff(result: RunResult, edits: list[Edit]) -> str:
    out = []
    for name in sorted({e.note for e in edits}):
        text = result.notes[name].text
        new = rewritten(text, [e for e in edits if e.note == name])
        path = result.note_path(name)
        for line in difflib.unified_diff(_lines(text), _lines(new),
                                         fromfile=f"a/{path}", tofile=f"b/{path}"):
            # a last line without its newline: marked as diff and git do, so patch applies it
            out.append(line if line.endswith("\n") else f"{line}\n{_NO_NEWLINE}\n")
    return "".join(out)


_LINE_END = re.compile(r"\r\n|\r|\n")


def write_fixed(path: Path, note: Note, edits: list[Edit]) -> None:
    """Apply ``edits`` (offsets into ``note.text``) to the file ``path``, in place.

    Raises :class:`verifiers.files.OutputError` (one line naming the note) when the file
    is no longer the text that was checked, or changes before it is replaced.
    """
    raw = read_regular(path)
    before = snapshot(path, raw)
    text = raw.decode("utf-8")
    if normalize_text(text) != note.text:
        raise OutputError(path, "changed since it was checked; not rewritten (run fix again)",
                          errno.EAGAIN)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    endings = _LINE_END.findall(text[len(bom):])
    lines = rewritten(note.text, edits).split("\n")
    if len(lines) != len(endings) + 1:  # a replacement never holds a line break
        raise OutputError(path, "a rewrite would change the line count; not rewritten")
    out = bom + "".join(line + end for line, end in zip(lines, [*endings, ""], strict=True))
    write_output(path, out.encode("utf-8"), unchanged=before)
