"""Tests of verifiers.sandbox: isolation of runs, and reading the note's program.

The last tests run lesson 1 §7's NumPy program as printed in the note and compare
what it prints with what its comments say it prints.
"""

from __future__ import annotations

import json
import os
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from verifiers.sandbox import extract_program, printed_losses, run_program

REPO = Path(__file__).resolve().parents[1]
NOTE = REPO / "notes" / "lesson1-text-to-distribution.txt"
START = "import numpy as np"


# --------------------------------------------------------------------------- isolation


def test_infinite_loop_is_killed_after_timeout() -> None:
    result = run_program("while True:\n    pass\n", timeout=2)
    assert result.timed_out
    assert result.returncode < 0  # killed by a signal
    assert 1.5 < result.seconds < 10


def test_timeout_kills_children_too() -> None:
    """A forked child sleeping past the timeout dies with the process group."""
    source = textwrap.dedent(
        """
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print(child.pid, flush=True)
        time.sleep(60)
        """
    )
    result = run_program(source, timeout=2)
    assert result.timed_out
    pid = int(result.stdout.split()[0])
    status = Path(f"/proc/{pid}/status")
    if status.exists():  # may linger only as a zombie awaiting its reaper
        state = next(ln for ln in status.read_text().splitlines() if ln.startswith("State:"))
        assert "Z" in state.split()[1]


def test_failing_program_reports_stderr_and_returncode() -> None:
    result = run_program("import sys\nprint('out')\nsys.stderr.write('boom\\n')\nsys.exit(3)\n")
    assert (result.returncode, result.stdout, result.stderr, result.timed_out) == (
        3,
        "out\n",
        "boom\n",
        False,
    )
    crash = run_program("x = 1\n1 / 0\n")
    assert crash.returncode == 1
    assert "ZeroDivisionError" in crash.stderr
    assert 'program.py", line 2' in crash.stderr  # traceback line maps back to the source


def test_runs_in_a_temporary_cwd_that_is_removed() -> None:
    source = "import os\nopen('leak.txt', 'w').write('x')\nprint(os.getcwd())\n"
    before = set(os.listdir(REPO))
    result = run_program(source)
    assert result.returncode == 0, result.stderr
    cwd = Path(result.stdout.strip())
    assert REPO not in cwd.parents and cwd != REPO
    assert not cwd.exists()
    assert set(os.listdir(REPO)) == before
    assert not (REPO / "leak.txt").exists() and not Path("leak.txt").exists()


def test_environment_is_reduced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_SECRET", "s3cret")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    source = (
        "import json, os, sys\n"
        "print(json.dumps([dict(os.environ), sys.path, sys.flags.isolated]))\n"
    )
    result = run_program(source)
    env, path, isolated = json.loads(result.stdout)
    assert "NOTECHECK_SECRET" not in env and "s3cret" not in result.stdout
    assert set(env) <= {"PATH", "LANG", "HOME", "LC_CTYPE"}
    assert isolated == 1
    assert str(REPO) not in path
    assert env["HOME"] != os.environ.get("HOME")


def test_extra_files_are_placed_in_the_sandbox() -> None:
    result = run_program(
        "print(open('data/in.txt', encoding='utf-8').read())",
        extra_files={"data/in.txt": "学习 10"},
    )
    assert result.stdout == "学习 10\n"
    with pytest.raises(ValueError):
        run_program("pass", extra_files={"../escape.txt": "x"})
    with pytest.raises(ValueError):
        run_program("pass", extra_files={"/tmp/abs.txt": "x"})


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
    assert result.seconds < 20
    printed = {int(s): Decimal(v) for s, v in (ln.split() for ln in result.stdout.splitlines())}
    assert sorted(printed) == list(range(0, 501, 100))
    claims = printed_losses(note_program)
    assert claims, "the note's program comments no longer print losses"
    assert {c.step for c in claims} <= set(printed), "a comment names a step never printed"
    for c in claims:
        tol = Decimal(5) * Decimal(10) ** -(c.decimals + 1) + Decimal("0.00005")
        assert abs(printed[c.step] - c.value) <= tol, (c, printed[c.step])
