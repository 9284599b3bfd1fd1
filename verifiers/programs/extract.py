"""Cut a program and the losses its comments print out of a note's text.

This stage only *reads*: it parses and compiles (never executes) the text, so it
can run in the gate's process. Running the program is :mod:`verifiers.programs.jail`.
"""

from __future__ import annotations

import io
import re
import textwrap
import tokenize
from dataclasses import dataclass
from decimal import Decimal

__all__ = ["PROGRAM_NAME", "PrintedLoss", "extract_program", "printed_losses"]

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
    lines = note_text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().startswith(start_marker)), None)
    if start is None:
        raise ValueError(f"start marker not found in note: {start_marker!r}")
    if end_marker is not None:
        end = next((i for i in range(start, len(lines)) if end_marker in lines[i]), None)
        if end is None:
            raise ValueError(f"end marker not found after line {start + 1}: {end_marker!r}")
        block = textwrap.dedent("\n".join(lines[start : end + 1])) + "\n"
        if not _compiles(block):
            raise ValueError(f"program at lines {start + 1}-{end + 1} does not compile")
        return block
    stop = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("§")),
        len(lines),
    )
    for end in range(stop - 1, start - 1, -1):
        if not lines[end].strip():
            continue
        block = textwrap.dedent("\n".join(lines[start : end + 1])) + "\n"
        if _compiles(block):
            return block
    raise ValueError(f"no compiling program starts at line {start + 1}")


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
