"""Pattern family: a program printed in the note and the output printed under it.

Notes show a small program and then what it prints::

    def out_size(n, k, p, s):
        ...
    print(n)

    输出：
    112
    56

The program is not quoted (a code hole reads it as it is now: see the claim-format
docs, "Code holes"); the printed output lines are, one hole per line that is a single
printed value, and each is compared with the same line of what the program prints
(``program_prints``, run in the jail). A program is recognised by its first line
(``import``, ``from … import``, ``def``, ``class``, or the first line of a fenced
``python`` block) and must contain ``print(``; its output is the block of lines right
after an output marker (``输出：``, ``Output:``, ``It prints:`` …, or a fenced ``text``
block), up to a blank line or a line that is not a printed value.

Running the note's own program is no reading of words, so a printed line that
disagrees with what the program prints is unambiguous: it may be pinned for review --
unless the program draws random numbers or reads the clock (then verified only).
"""

from __future__ import annotations

import json
import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, OTHER, VAL, Token
from verifiers.notes import lines_at

__all__ = ["program_candidates"]

_START_RE = re.compile(r"(?:import \w|from [\w.]+ import |def \w+\(|class \w)")
_MARKER_RE = re.compile(
    r"(?:输出|运行结果|打印结果|程序输出|output|it prints|this prints|prints|printed|result)"
    r"(?:如下|是)?\s*[：:]?\s*$", re.IGNORECASE)
#: A program that draws random numbers or reads the clock or its environment may print
#: other lines on another run: its outputs are kept only when verified, never pinned.
_UNSTABLE_RE = re.compile(r"random|rand\(|randn|shuffle|time\.|datetime|uuid|input\(|"
                          r"os\.|sys\.|torch\.manual_seed|np\.random")
MAX_PROGRAM_LINES = 80  # a note's small program; a longer block is not read
MAX_GAP = 3  # lines between the program's last line and the output marker


def _program_starts(lines: list[tuple[int, str]]) -> list[int]:
    """Indexes of lines that start a program (its first line of code)."""
    starts = []
    for k, (_, line) in enumerate(lines):
        body = line.strip()
        if body.startswith("```") and body[3:].strip().lower() in ("python", "py", "python3"):
            if k + 1 < len(lines) and lines[k + 1][1].strip():
                starts.append(k + 1)
        elif _START_RE.match(line) and (k == 0 or not _START_RE.match(lines[k - 1][1])
                                        or lines[k - 1][1].strip().startswith("```")):
            if not starts or starts[-1] != k:
                starts.append(k)
    return sorted(set(starts))


def _block_end(lines: list[tuple[int, str]], start: int) -> int | None:
    """The index after the program's last line: a closing fence, or the last line that
    is code (indented, or a statement) before a marker line; None when no ``print(``."""
    end, printed = start, False
    for k in range(start, min(len(lines), start + MAX_PROGRAM_LINES)):
        line = lines[k][1]
        body = line.strip()
        if body.startswith("```"):
            return k if printed else None
        if _MARKER_RE.match(body) and not line.startswith((" ", "\t")):
            break
        if body:
            end = k + 1
            printed = printed or "print(" in body
    return end if printed else None


def _output_block(lines: list[tuple[int, str]], after: int) -> list[int]:
    """Indexes of the printed output lines after a marker (or a fenced text block)."""
    k = after
    while k < len(lines) and k < after + MAX_GAP and not lines[k][1].strip():
        k += 1
    if k >= len(lines):
        return []
    body = lines[k][1].strip()
    if body.startswith("```"):
        k += 1  # the block right after the program's closing fence is its output
    elif _MARKER_RE.search(body) and len(body) <= 40:
        k += 1
        while k < len(lines) and not lines[k][1].strip():
            k += 1
        if k < len(lines) and lines[k][1].strip().startswith("```"):
            k += 1
    else:
        return []
    out = []
    while k < len(lines) and lines[k][1].strip() and not lines[k][1].strip().startswith("```"):
        out.append(k)
        k += 1
    return out


def _value_of_line(tokens: list[Token], a: int, b: int) -> Token | None:
    """The line's one printed value (a number, or a bracketed vector), else None."""
    inside = [t for t in tokens if a <= t.start < b and not (t.kind == OTHER and t.text in "`")]
    if len(inside) == 1 and inside[0].kind in (NUM, VAL):
        return inside[0]
    return None


def program_blocks(text: str) -> list[tuple[int, int, int]]:
    """(first line index, end line index, start offset) of each printed program."""
    lines = lines_at(text)
    out: list[tuple[int, int, int]] = []
    for start in _program_starts(lines):
        if out and start < out[-1][1]:
            continue  # an `import` inside the program before
        end = _block_end(lines, start)
        if end is not None:
            out.append((start, end, lines[start][0]))
    return out


def program_spans(text: str) -> list[tuple[int, int]]:
    """Offsets of the printed programs: their literals are the programs' own inputs, read by
    the code hole, never values for the other families."""
    lines = lines_at(text)
    return [(a, lines[end - 1][0] + len(lines[end - 1][1])) for _, end, a in program_blocks(text)]


def program_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """One candidate per program whose printed output lines are single values."""
    lines = lines_at(text)
    out = []
    for start, end, _ in program_blocks(text):
        after = end + 1 if end < len(lines) and lines[end][1].strip().startswith("```") else end
        output = _output_block(lines, after)
        if not output:
            continue
        cand = Candidate("program", "inferred: the printed program prints the output shown")
        values = [_value_of_line(tokens, lines[k][0], lines[k][0] + len(lines[k][1]))
                  for k in output]
        # pinned only when every output line is one printed value (a prose line in the
        # block, not printed by the program, would shift the lines) and the run is stable
        stable = all(v is not None for v in values) and \
            not _UNSTABLE_RE.search("\n".join(line for _, line in lines[start:end]))
        outputs = {}
        for index, tok in enumerate(values, start=1):
            if tok is None or tok.start not in uncovered:
                continue
            hole = f"v{len(cand.holes) + 1}"
            cand.holes[hole] = tok
            outputs[f"p{index}"] = f"line{index}"
            cand.checks.append(Check(hole, f"p{index}", stable))
        if not cand.checks:
            continue
        first = lines[start][1].strip()
        cand.extra = ["    kind: model",
                      f"    code: {{from: {json.dumps(first, ensure_ascii=False)}}}",
                      "    run:",
                      "      example: program_prints",
                      "      outputs: {" + ", ".join(f"{k}: {v}" for k, v in outputs.items())
                      + "}"]
        out.append(cand)
    return out
