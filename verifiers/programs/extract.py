"""Cut a program and the losses its comments print out of a note's text.

This stage only *reads*: it parses and compiles (never executes) the text, so it
can run in the gate's process. Running the program is :mod:`verifiers.programs.jail`.
"""

from __future__ import annotations

import functools
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["PROGRAM_NAME", "Block", "PrintedLoss", "extract_program", "locate_block",
           "printed_losses"]

#: File name of the program in the jail (tracebacks name it, so lines map back to the note).
PROGRAM_NAME = "program.py"


# --------------------------------------------------------------------------- extraction


def _compiles(text: str) -> bool:
    try:
        compile(text, PROGRAM_NAME, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def extract_program(note_text: str, start_marker: str, end_marker: str | None = None) -> str:
    """Cut the program printed in a note out of the note's text.

    The note export carries code as plain lines (no fences), so the block is found
    by content:

    * it **starts** at the first line whose stripped text begins with
      ``start_marker`` (e.g. ``"import numpy as np"``);
    * with ``end_marker``, it **ends** at the first line at or after the start that
      contains ``end_marker`` (inclusive);
    * without one, it ends at the last line of the *longest prefix that compiles*,
      scanning no further than the next section heading (a line starting with
      ``§``). Prose that follows the program (Chinese text, full-width punctuation)
      is not valid Python, so the first prose line ends the block; trailing blank
      lines are dropped.

    The result is dedented and ends with a newline. Raises ``ValueError`` if the
    start marker is missing, the end marker is not found after it, or the block
    does not compile — a note edit that breaks the program must fail loudly, not
    extract a shorter program that happens to compile.
    """
    block = locate_block(note_text, 0, len(note_text), start_marker, end_marker)
    if end_marker is not None and not _compiles(block.text):
        last = block.first_line + len(block.line_offsets) - 1
        raise ValueError(f"program at lines {block.first_line}-{last} does not compile")
    return block.text


@dataclass(frozen=True)
class Block:
    """A block of a note: its dedented text, the note offset of each of its lines, its indent."""

    text: str
    line_offsets: tuple[int, ...]  # note offset where block line i+1 starts (after the indent)
    first_line: int  # 1-based line of the note where the block starts

    def offset(self, line: int, col: int = 0) -> int:
        """Note offset of ``(line, col)`` in the block (1-based line, 0-based column)."""
        line = min(max(line, 1), len(self.line_offsets))
        return self.line_offsets[line - 1] + max(col, 0)


@functools.lru_cache(maxsize=64)
def locate_block(text: str, scope_start: int, scope_end: int, start: str,
                 end: str | None) -> Block:
    """Find the block in ``text[scope_start:scope_end]``; ``ValueError`` if it is not there.

    With ``end``, the block ends at the first line containing it; without, it is a
    program: the longest prefix (up to the next ``§`` heading or the scope's end) that
    compiles.
    """
    starts: list[int] = []
    pos = scope_start
    while pos < scope_end:
        nl = text.find("\n", pos, scope_end)
        stop = scope_end if nl < 0 else nl
        starts.append(pos)
        pos = stop + 1
    lines = [text[s:text.find("\n", s, scope_end) if text.find("\n", s, scope_end) >= 0
                  else scope_end] for s in starts]
    first = next((i for i, ln in enumerate(lines) if ln.strip().startswith(start)), None)
    if first is None:
        raise ValueError(f"start marker not found: no line starts with {start!r}")
    if end is not None:
        last = next((i for i in range(first, len(lines)) if end in lines[i]), None)
        if last is None:
            raise ValueError(f"end marker not found: no line at or after line {first + 1} "
                             f"contains {end!r}")
    else:
        stop = next((i for i in range(first + 1, len(lines)) if lines[i].lstrip().startswith("§")),
                    len(lines))
        last = None
        for j in range(stop - 1, first - 1, -1):
            if lines[j].strip() and _compiles(textwrap.dedent("\n".join(lines[first:j + 1]))):
                last = j
                break
        if last is None:
            raise ValueError(f"no compiling program starts at {start!r}")
    chunk = lines[first:last + 1]
    body = [ln for ln in chunk if ln.strip()]
    indent = min((len(ln) - len(ln.lstrip()) for ln in body), default=0)
    dedented = "\n".join(ln[indent:] if ln.strip() else "" for ln in chunk) + "\n"
    offsets = tuple(starts[first + k] + (indent if chunk[k].strip() else 0)
                    for k in range(len(chunk)))
    return Block(dedented, offsets, text.count("\n", 0, starts[first]) + 1)


# --------------------------------------------------------------------------- printed losses


@dataclass(frozen=True)
class PrintedLoss:
    """One ``step loss`` pair written in a program comment.

    ``value`` is kept as the printed ``Decimal`` and ``decimals`` as its printed
    precision, because the claim is "the true loss rounds to this", not "equals".
    ``line`` is 1-based within the program text, ``col`` 0-based in that line.
    """

    step: int
    value: Decimal
    text: str
    decimals: int
    line: int
    col: int


# "0 2.732", "step 0: loss 2.732", "step 100, loss=0.68"; the loss must carry a
# decimal point so that shape comments such as "# 15, 8, 36" are not read as losses.
_PAIR = re.compile(
    r"(?:\bstep\s*)?(?<![\w.])(?P<step>\d+)\s*[:：,，]?\s*"
    r"(?:loss\s*[:=：]?\s*)?(?P<loss>-?\d+\.\d+)(?![\w.])",
    re.IGNORECASE,
)


def printed_losses(source: str) -> list[PrintedLoss]:
    """Parse the ``step loss`` pairs that a program's comments say it prints.

    Comments are found with :mod:`tokenize`, so a ``#`` inside a string literal is
    not mistaken for one. Within a comment, every integer followed by a decimal
    number (optionally ``step``/``loss`` words, ``:``/``,`` between) is a pair;
    ``…`` and other separators between pairs are ignored. Returned in source order.
    """
    out: list[PrintedLoss] = []
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        row, col = tok.start
        for m in _PAIR.finditer(tok.string):
            text = m.group("loss")
            out.append(
                PrintedLoss(
                    step=int(m.group("step")),
                    value=Decimal(text),
                    text=text,
                    decimals=len(text.split(".")[1]),
                    line=row,
                    col=col + m.start("loss"),
                )
            )
    return out
