"""Pattern family: a printed program whose output the note writes as comments or after it.

Markdown and plain notes show a small program with what it prints as comments::

    ```python
    top = np.argsort(p)[::-1][:2]
    print(top, np.round(w, 4))
    # [0 1] [0.7311 0.2689]
    ```

Its numbers are program text, not literals, so no hole can read them and the output-block
family (:mod:`verifiers.infer.programs`) proposes nothing. This family proposes one model
claim per such program: a code hole (``code: {from: FIRST LINE}``, read as the note is now)
run by ``program_comments`` (``tinygpt/examples/commented_programs.py``), whose locator runs
it in the jail and compares each commented output with what its ``print`` prints. The quote
is an anchor, the prose line before the program (never program text, so an edit of the
program is judged, not ``stale``). The claim is written only when it evaluates ``verified``
on the note as it is.

A plain-text note prints its program unfenced (``import numpy as np`` … ``print(…)``) and
its output after a marker line (``输出：``); that block is read the same way: the code hole
runs from the program's first line to the first prose line after the output (``to:``).
"""

from __future__ import annotations

import json

from verifiers.infer.evaluate import Inferred, _evaluate, _head, claim_id
from verifiers.infer.programs import program_blocks
from verifiers.notes import Note

__all__ = ["fenced_program_claims"]

SAYS = "inferred: the printed program prints what its comments show (run in the jail)"
_UNSTABLE = ("random", "randn", "shuffle", "time.", "datetime", "uuid", "input(")


def _anchor(note: Note, start_line: int, end_line: int, scope: tuple[int, int]) -> str | None:
    """The nearest prose line above the program (else below it, at most 4 lines away) that is
    unique in scope; never a heading, a fence or program text."""
    lines = note.text.split("\n")
    above = range(start_line - 1, max(-1, start_line - 5), -1)
    below = range(end_line, min(len(lines), end_line + 5))
    for k in [*above, *below]:
        body = lines[k].strip()
        if not body or body.startswith(("```", "#")):
            continue
        at = note.offset(k + 1, 1)
        if scope[0] <= at < scope[1] and note.text.count(body, scope[0], scope[1]) == 1:
            return body
    return None


def _to_marker(lines: list[str], start: int, end: int) -> str | None:
    """``to:`` for a program followed by an output block: the first prose line after the
    block (the block ends at the first line containing it), or None when there is none."""
    from tinygpt.examples.commented_programs import split_block

    window = lines[start:min(len(lines), end + 60)]
    _, shown = split_block("\n".join(window))
    if not shown:
        return None
    k = start + shown[-1][0]  # index of the line after the last output line
    while k < len(lines) and (not lines[k].strip() or lines[k].strip().startswith("```")):
        k += 1
    if k >= len(lines) or lines[k].strip().startswith("#"):
        return None
    marker = lines[k].strip()
    if any(marker in ln for ln in lines[start:k]):
        return None
    return marker


def _marked_output(text: str, end: int) -> bool:
    """An unfenced program (a plain-text note) followed, within a few lines, by an output
    marker (``输出：``) and its output lines."""
    from verifiers.infer.programs import _output_block
    from verifiers.notes import lines_at

    return bool(_output_block(lines_at(text), end))


def fenced_program_claims(notes: dict[str, Note], note_name: str, stem: str,
                          existing: set[str]) -> list[Inferred]:
    """One verified ``program_comments`` claim per program with commented outputs."""
    from tinygpt.examples.commented_programs import commented_outputs

    note = notes[note_name]
    lines = note.text.split("\n")
    out: list[Inferred] = []
    for start, end, offset in program_blocks(note.text):
        program = "\n".join(lines[start:end])
        if any(w in program for w in _UNSTABLE):
            continue
        fenced = end < len(lines) and lines[end].strip().startswith("```")
        to = _to_marker(lines, start, end) if fenced or _marked_output(note.text, end) \
            else None
        if to is None and not commented_outputs(program):
            continue
        section = note.section_at(offset)
        scope = (section.start, section.end) if section else (0, len(note.text))
        first = lines[start].strip()
        # the code hole takes the first line of the scope that starts with ``first``
        if any(ln.strip().startswith(first) for ln in
               note.text[scope[0]:offset].split("\n")[1 if section else 0:]):
            continue
        quote = _anchor(note, start, end, scope)
        if quote is None:
            continue
        label = section.label if section else None
        cid = claim_id(stem, label, quote)
        if cid in existing:
            continue
        entry = "\n".join(_head(cid, label, SAYS, quote) + [
            "    kind: model",
            f"    code: {{from: {json.dumps(first, ensure_ascii=False)}"
            + (f", to: {json.dumps(to, ensure_ascii=False)}" if to else "") + "}",
            "    run:",
            "      example: program_comments",
            "      text: true",
            "      outputs: {n: outputs}"]) + "\n"
        verdict = _evaluate(notes, note_name, cid, entry)
        if verdict is None or getattr(verdict, "status", "") != "verified":
            continue
        existing.add(cid)
        out.append(Inferred(cid, entry, "verified", "program", (), ()))
    return out
