"""Tests of verifiers.programs.extract: cutting the note's program and its printed losses out.

The last test runs lesson 1 §7's NumPy program as printed in the note (in the jail)
and compares what it prints with what its comments say it prints. The jail itself
is tested in tests/test_jail.py.
"""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from verifiers.programs import extract_program, printed_losses, run_program

REPO = Path(__file__).resolve().parents[1]
NOTE = REPO / "notes" / "lesson1-text-to-distribution.txt"
START = "import numpy as np"


# --------------------------------------------------------------------------- extraction


SYNTHETIC_NOTE = textwrap.dedent(
    """\
    §3 标题
    正文。
    import math

    x = math.sqrt(2)
    print(round(x, 3))   # 1.414

    注意：这里是正文，不是代码。
    §4 下一节
    """
)


def test_extract_program_stops_before_prose() -> None:
    program = extract_program(SYNTHETIC_NOTE, "import math")
    assert program == "import math\n\nx = math.sqrt(2)\nprint(round(x, 3))   # 1.414\n"
    assert extract_program(SYNTHETIC_NOTE, "import math", "print(") == program


def test_extract_program_errors() -> None:
    with pytest.raises(ValueError, match="start marker"):
        extract_program(SYNTHETIC_NOTE, "import numpy")
    with pytest.raises(ValueError, match="end marker"):
        extract_program(SYNTHETIC_NOTE, "import math", "never there")
    with pytest.raises(ValueError, match="compile"):
        extract_program(SYNTHETIC_NOTE, "import math", "注意")


def test_printed_losses_formats() -> None:
    source = textwrap.dedent(
        """\
        V, d, B = 15, 8, 36    # 15, 8, 36
        s = "# 0 9.999"
        print(s)  # step 0: loss 4.3012 … step 10, loss=0.50
        """
    )
    got = [(p.step, p.text, p.decimals, p.line) for p in printed_losses(source)]
    assert got == [(0, "4.3012", 4, 3), (10, "0.50", 2, 3)]
    first = printed_losses(source)[0]
    assert source.splitlines()[first.line - 1][first.col :].startswith("4.3012")


# --------------------------------------------------------------------------- the note's program


@pytest.fixture(scope="module")
def note_program() -> str:
    return extract_program(NOTE.read_text(encoding="utf-8"), START)


def test_note_program_extracted_whole(note_program: str) -> None:
    lines = note_program.splitlines()
    assert lines[0] == START
    assert lines[-1].lstrip().startswith("print(step, round(float(loss), 4))")
    note_lines = NOTE.read_text(encoding="utf-8").splitlines()
    first = note_lines.index(START)
    assert note_lines[first : first + len(lines)] == lines


def test_note_program_output_matches_its_comments(note_program: str) -> None:
    """Each ``step loss`` in the comments agrees with what the program prints.

    The program prints ``round(loss, 4)``; a comment with k decimals claims the loss
    rounds to it, so the printed value may differ from it by at most
    ½·10⁻ᵏ + ½·10⁻⁴ (the comment's rounding plus the print's). The exact check
    against the unrounded loss is in tests/test_bigram.py.
    """
    result = run_program(note_program, timeout=30)
    assert result.returncode == 0 and not result.timed_out, result.stderr
    printed = {int(s): Decimal(v) for s, v in (ln.split() for ln in result.stdout.splitlines())}
    assert sorted(printed) == list(range(0, 501, 100))
    claims = printed_losses(note_program)
    assert claims, "the note's program comments no longer print losses"
    assert {c.step for c in claims} <= set(printed), "a comment names a step never printed"
    for c in claims:
        tol = Decimal(5) * Decimal(10) ** -(c.decimals + 1) + Decimal("0.00005")
        assert abs(printed[c.step] - c.value) <= tol, (c, printed[c.step])
