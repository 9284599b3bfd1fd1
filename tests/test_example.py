"""The newcomers' walk-through of examples/README.md, run for real in a temporary folder:
``notecheck init``, the note copied in, ``scaffold --infer`` (its claims verify, and they are
the ones committed in examples/), the hand-written claims copied in, ``check`` (exit 0), a
planted one-digit edit (exit 1 at the edited line and column), ``report`` (the HTML page)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tinygpt.examples.printed_programs import printed_lines
from verifiers.cli import main

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "examples" / "lesson"
NOTE = "softmax-attention.md"
STEM = "softmax-attention"
PLANTED = ("  &= 11.107", "  &= 11.108")  # the last row of the Z = e^2 + e^1 + e^0 display


def _claims(report: Path) -> list[dict]:
    return json.loads(report.read_text(encoding="utf-8"))["claims"]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "cache"))
    repo = tmp_path / "repo"
    assert main(["init", str(repo)]) == 0
    monkeypatch.chdir(repo)
    return repo


def test_walkthrough(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 1. init made the folders and the [tool.notecheck] table
    assert (repo / "notes").is_dir() and (repo / "claims").is_dir()
    table = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    assert table["tool"]["notecheck"] == {"notes": "notes", "claims": "claims"}

    # 2. the note, as written
    shutil.copyfile(LESSON / "notes" / NOTE, repo / "notes" / NOTE)

    # 3. scaffold --infer writes claims, and every one of them verifies
    assert main(["scaffold", NOTE, "--infer"]) == 0
    inferred = repo / "claims" / STEM / "90-inferred.yaml"
    assert inferred.is_file()
    # the committed file is what the command writes today (re-run it after editing the note)
    committed = LESSON / "claims" / STEM / "90-inferred.yaml"
    assert inferred.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")
    assert main(["check", "--json", "inferred.json"]) == 0
    claims = _claims(repo / "inferred.json")
    assert len(claims) >= 9 and all(c["inferred"] for c in claims)
    assert {c["status"] for c in claims} == {"verified"}

    # 4. the hand-written claims: one of each kind
    for path in sorted((LESSON / "claims" / STEM).glob("0*.yaml")):
        shutil.copyfile(path, repo / "claims" / STEM / path.name)
    capsys.readouterr()
    assert main(["check", "--json", "all.json"]) == 0
    claims = _claims(repo / "all.json")
    assert {c["status"] for c in claims} == {"verified"}
    hand = [c for c in claims if not c["inferred"]]
    assert {c["kind"] for c in hand} == {"arithmetic", "model", "symbolic", "property",
                                          "given"}
    assert "27 verified" in capsys.readouterr().out

    # 5. a planted error: one digit of the note edited
    note = repo / "notes" / NOTE
    text = note.read_text(encoding="utf-8")
    assert text.count(PLANTED[0] + "\n") == 1
    note.write_text(text.replace(PLANTED[0] + "\n", PLANTED[1] + "\n"), encoding="utf-8")
    before = text[: text.index(PLANTED[0] + "\n")]
    line = before.count("\n") + 1
    col = len(PLANTED[0]) - len("11.107") + 1
    capsys.readouterr()
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"notes/{NOTE}:{line}:{col}: discrepancy: " in out, out
    assert "printed 11.108, expected 11.107" in out
    # two claims read 11.107: the chain that computes it and the copy group of its later
    # printings (7.389 / 11.107, …), which also flags the edited printing (3 of 4 agree)
    assert "2 discrepancy" in out and "agree with each other" in out
    note.write_text(text, encoding="utf-8")

    # 6. the HTML report
    assert main(["report", "--out", "reports/index.html"]) == 0
    html = (repo / "reports" / "index.html").read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html") and NOTE in html


PROGRAM_LINE = "total = sum(exps)"  # section 5's program
OUTPUT_LINE = "[0.665, 0.245, 0.09]"  # the second line of the output it prints


def _line_of(text: str, line: str) -> int:
    """The 1-based number of the one line of ``text`` that is exactly ``line``."""
    found = [k for k, ln in enumerate(text.split("\n"), start=1) if ln == line]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("edit", ["output", "program", "crash"])
def test_code_hole_claim_runs_the_notes_program(repo: Path, capsys: pytest.CaptureFixture[str],
                                                edit: str) -> None:
    """sa-5-program-prints reads the program as the note prints it now and runs it: an edited
    printed output, or a program line whose edit changes what it prints, is a discrepancy at
    the printed value that disagrees; a program that fails is an error naming its line."""
    shutil.copytree(LESSON / "notes", repo / "notes", dirs_exist_ok=True)
    shutil.copytree(LESSON / "claims", repo / "claims", dirs_exist_ok=True)
    note = repo / "notes" / NOTE
    text = note.read_text(encoding="utf-8")
    assert main(["check", "-k", "program"]) == 0
    assert "1 verified" in capsys.readouterr().out
    if edit == "output":  # one digit of the printed output
        edited = text.replace(OUTPUT_LINE + "\n", "[0.665, 0.254, 0.09]\n")
        where, printed, expected = _line_of(text, OUTPUT_LINE), "0.254", "0.245"
    elif edit == "program":  # the program computes another total: both printed lines change
        edited = text.replace(PROGRAM_LINE + "\n", "total = sum(exps) + 1\n")
        where, printed, expected = _line_of(text, "11.107"), "11.107", "12.107"
    else:  # a typo that makes the program fail at its line 4
        edited = text.replace("math.exp(s)", "math.expo(s)")
        where, printed, expected = 0, "", ""
    note.write_text(edited, encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "-k", "program"]) == 1
    out = capsys.readouterr().out
    if edit == "crash":
        assert "error: sa-5-program-prints" in out, out
        assert "the program stops at its line 4: AttributeError" in out, out
    else:
        assert f"notes/{NOTE}:{where}:1: discrepancy: sa-5-program-prints" in out, out
        assert "printed " in out and printed in out and expected in out, out


def test_printed_lines_reads_numbers_line_by_line() -> None:
    got = printed_lines("11.107\n[0.665, 0.245, 0.09]\ndone\nloss -3e-2\n")
    assert set(got) == {"line1", "line2", "line4"}
    assert got["line1"].shape == () and float(got["line1"]) == 11.107
    assert got["line2"].tolist() == [0.665, 0.245, 0.09]
    assert float(got["line4"]) == -0.03


def test_examples_are_not_the_projects_claims() -> None:
    """The root pyproject's [tool.notecheck] names claims/, so pytest at the root never
    collects the example's claims, even when pointed at them."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert table["tool"]["notecheck"]["claims"] == "claims"
    assert "examples" not in " ".join(table["tool"]["pytest"]["ini_options"]["testpaths"])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q",
         "examples/lesson/claims"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 5, done.stdout + done.stderr  # 5: no tests collected
