"""Run programs printed in notes, and read what their comments claim they print.

A note may print a whole program together with its output (as comments such as
``# 0 2.732 … 500 0.6557``). Checking those numbers means *running the note's
own text*, which arrives in pull requests like any other note edit. So the
program runs in a child interpreter, never in the gate's process:

* a fresh temporary directory is its cwd (deleted afterwards), so files it
  writes never land in the repository;
* the environment is reduced to ``PATH``, ``LANG`` and ``HOME`` (= the temporary
  directory): no inherited tokens or secrets, no ``PYTHONPATH``;
* ``-I`` (isolated mode) ignores ``PYTHON*`` variables, the user site directory
  and the script's directory on ``sys.path``; ``-X utf8`` makes the Chinese
  comments and output decode the same on every machine;
* it runs in its own session/process group, which is killed as a whole after
  the timeout (a program that forks cannot outlive the check).

This is isolation against accidents (hangs, stray files, leaked environment),
not a security jail: the child runs as the same user and could read files it is
pointed at. The gate only runs programs from notes already under review.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import tokenize
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path, PurePosixPath

__all__ = [
    "PrintedLoss",
    "ProgramResult",
    "extract_program",
    "printed_losses",
    "run_program",
]

#: File name of the program inside the sandbox directory (tracebacks name it).
PROGRAM_NAME = "program.py"


@dataclass(frozen=True)
class ProgramResult:
    """What a sandboxed run produced.

    ``returncode`` is the child's exit status (negative: killed by that signal,
    e.g. ``-9`` after a timeout). ``timed_out`` is set when *we* killed it, so a
    caller can tell a hang from a crash without decoding signals.
    """

    stdout: str
    stderr: str
    returncode: int
    timed_out: bool
    seconds: float


def _kill_group(pgid: int) -> None:
    """SIGKILL a whole process group; a group that is already gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _write_extra_files(root: Path, extra_files: Mapping[str, str | bytes]) -> None:
    """Write ``extra_files`` below ``root``; names must stay inside it.

    Relative POSIX paths only: an absolute name or ``..`` would write outside the
    sandbox directory, which is exactly what the sandbox exists to prevent.
    """
    for name, content in extra_files.items():
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts or name == PROGRAM_NAME:
            raise ValueError(f"extra file name must be a relative path in the sandbox: {name!r}")
        target = root.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def run_program(
    source: str,
    timeout: float = 60,
    extra_files: Mapping[str, str | bytes] | None = None,
) -> ProgramResult:
    """Run Python ``source`` in a child interpreter inside a throw-away directory.

    The program is written to ``program.py`` in the temporary directory (rather
    than passed with ``-c``) so that tracebacks carry line numbers a caller can map
    back to the note. ``extra_files`` (relative name → text or bytes) are placed
    next to it, for programs that read data files. After ``timeout`` seconds the
    whole process group is killed and ``timed_out`` is set; stdout/stderr gathered
    until then are still returned.
    """
    tmp = tempfile.mkdtemp(prefix="notecheck-sandbox-")
    root = Path(tmp)
    start = time.monotonic()
    proc: subprocess.Popen[bytes] | None = None
    try:
        (root / PROGRAM_NAME).write_text(source, encoding="utf-8")
        if extra_files:
            _write_extra_files(root, extra_files)
        env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "LANG": "C.UTF-8",
            "HOME": tmp,
        }
        proc = subprocess.Popen(
            [sys.executable, "-I", "-X", "utf8", PROGRAM_NAME],
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # own process group: killpg reaches its children
        )
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc.pid)
            out, err = proc.communicate()
        # A child that exited normally may have left background processes behind.
        _kill_group(proc.pid)
        return ProgramResult(
            stdout=out.decode("utf-8", errors="replace"),
            stderr=err.decode("utf-8", errors="replace"),
            returncode=proc.returncode,
            timed_out=timed_out,
            seconds=time.monotonic() - start,
        )
    finally:
        if proc is not None and proc.returncode is None:  # interrupted while waiting
            _kill_group(proc.pid)
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


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
