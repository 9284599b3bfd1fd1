"""A program printed in a note and the output the note prints for it (a generic code hole).

* ``program_prints`` — the note's program (``code: {from: FIRST LINE}``, read as it is now)
  runs in the jail (:func:`verifiers.programs.run_program`); ``line1``, ``line2``, … are the
  numbers of each line it prints. The claim's quote reads the note's printed output block
  through holes and compares: an edited printed value is a discrepancy at that value; an
  edited program line that changes what it prints is a discrepancy at the printed value it
  changes. A program that fails (an exception, a timeout) makes the claim an ``error``
  whose message names the program's line that raised and its line in the note.

Nothing here knows a note: no marker, no variable name, no expected number.
"""

from __future__ import annotations

import functools
import re

import torch

from tinygpt.examples import example

F64 = torch.float64
TIMEOUT = 30  # seconds: a note's small program
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])"
                     r"|(?<![A-Za-z])[-+]?(?:nan|inf)(?![A-Za-z])")
_RAISED_AT = re.compile(r'File "[^"]*program\.py", line (\d+)')


@functools.lru_cache(maxsize=16)
def _run(program: str) -> tuple[str, str, int, bool]:
    """(stdout, stderr, exit status, timed out) of one jailed run; cached per program text."""
    from verifiers.programs import run_program

    result = run_program(program, timeout=TIMEOUT)
    return result.stdout, result.stderr, result.returncode, result.timed_out


def printed_lines(stdout: str) -> dict[str, torch.Tensor]:
    """``lineK``: the numbers of the K-th printed line (a scalar when it prints one number
    outside brackets, else a vector); a line without a number has no key."""
    out: dict[str, torch.Tensor] = {}
    for k, line in enumerate(stdout.splitlines(), start=1):
        nums = [float(m.group()) for m in _NUMBER.finditer(line)]
        if not nums:
            continue
        scalar = len(nums) == 1 and "[" not in line and "(" not in line
        out[f"line{k}"] = torch.tensor(nums[0] if scalar else nums, dtype=F64)
    return out


@example("program_prints")
def program_prints(program: str, text: str = "") -> dict[str, torch.Tensor]:
    """A program printed in the note (a code hole), run in the jail: ``lineK`` holds the numbers
    of the K-th line it prints (a scalar, or a vector), for holes on the note's printed output.
    A program that fails is an error naming the line that raised."""
    stdout, stderr, status, timed_out = _run(program)
    if status != 0 or timed_out:
        raise ValueError(_failure(program, stderr, timed_out)[1])
    return printed_lines(stdout)


def _failure(program: str, stderr: str, timed_out: bool) -> tuple[int, str]:
    """(1-based program line, message) of a failed run: the line that raised, else line 1."""
    if timed_out:
        return 1, f"the program did not finish within {TIMEOUT} s"
    lines = program.splitlines()
    raised = [int(m.group(1)) for m in _RAISED_AT.finditer(stderr)]
    at = raised[-1] if raised and 1 <= raised[-1] <= len(lines) else 1
    last = (stderr.strip().splitlines() or ["(no message)"])[-1]
    return at, f"the program stops at its line {at}: {last}"
