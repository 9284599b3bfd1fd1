"""The set-up number behind a first output that departs (verifiers/programs/setting.py): an
edited initialisation is named at its line; a wrong printed value, a setting that acts only
through the updates and two lines that act alike name none."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from verifiers.programs import setting
from verifiers.programs.setting import run_variants, setup_literals, setup_setting

PROGRAM = """import random
rng = random.Random(0)
w = [rng.gauss(0.0, 1.0) for _ in range(4)]
lr = 0.25
for step in range(3):
    loss = sum(x * x for x in w)
    print(step, round(loss, 4))
    w = [x - lr * 2 * x for x in w]
"""
HEADER = 5  # the loop's line


def _run(programs: list[str]) -> list[str | None]:
    """The programs run one after another by one plain interpreter, with the jail's harness
    (the tests' own programs, not a note's)."""
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i, p in enumerate(programs):
            (Path(tmp) / f"variant_{i}.py").write_text(p, encoding="utf-8")
            names.append(f"variant_{i}.py")
        harness = setting._HARNESS.format(names=names, mark="@@")
        done = subprocess.run([sys.executable, "-I", "-c", harness], capture_output=True,
                              text=True, timeout=120, check=True, cwd=tmp)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("@@"))
    return json.loads(line[2:])


def _printed(program: str) -> list[tuple[int, str]]:
    stdout = _run([program])[0]
    assert stdout is not None
    return [(int(a), b) for a, b in (ln.split() for ln in stdout.splitlines())]


PRINTED = _printed(PROGRAM)  # what the unedited program prints (its comment would say so)


def test_the_set_up_literals_are_read() -> None:
    lits = setup_literals(PROGRAM, HEADER)
    assert [(x.line, x.text) for x in lits] == [(3, "0.0"), (3, "1.0"), (4, "0.25")]


def test_an_edited_initialisation_is_named_at_its_line() -> None:
    edited = PROGRAM.replace("gauss(0.0, 1.0)", "gauss(0.0, 0.1)")
    found = setup_setting(edited, HEADER, PRINTED, _run)
    assert found is not None and found.line == 3
    assert "with 1.0 for 0.1 on this line" in found.message


def test_a_wrong_printed_value_names_no_line() -> None:
    # only the first printed loss is edited: a σ that gives it breaks the later ones
    (s0, l0), *rest = PRINTED
    wrong = [(s0, f"{float(l0) + 0.5:.4f}"), *rest]
    assert setup_setting(PROGRAM, HEADER, wrong, _run) is None


def test_a_setting_that_acts_through_the_updates_is_not_solved_here() -> None:
    # lr changes no loss before the first update: nothing to solve from the first output
    edited = PROGRAM.replace("lr = 0.25", "lr = 0.35")
    assert setup_setting(edited, HEADER, PRINTED, _run) is None


def test_two_lines_that_act_alike_name_none() -> None:
    twin = PROGRAM.replace("lr = 0.25\n", "lr = 0.25\nw = [x * 1.0 for x in w]\n")
    printed = _printed(twin)
    edited = twin.replace("gauss(0.0, 1.0)", "gauss(0.0, 0.5)")
    # σ on line 3 and the factor on line 5 each restore every output: a tie
    assert setup_setting(edited, HEADER + 1, printed, _run) is None


def test_the_variants_run_in_the_jail() -> None:
    outs = run_variants([PROGRAM, PROGRAM.replace("1.0", "0.1", 1), "raise SystemExit(3)\n"])
    assert outs[0] is not None and outs[0].split()[:2] == [str(PRINTED[0][0]), PRINTED[0][1]]
    assert outs[1] is not None and outs[1] != outs[0]
    assert outs[2] is None


def test_a_last_digit_of_a_printed_loss_is_no_setting() -> None:
    # the first printed loss one unit off: σ = 1.0 would need a finer digit (1.00x) to give
    # it, which is a fit, not a slip; the printed value keeps the verdict
    (s0, l0), *rest = PRINTED
    off = [(s0, f"{float(l0) + 0.0001:.4f}"), *rest]
    assert setup_setting(PROGRAM, HEADER, off, _run) is None
