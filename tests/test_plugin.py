"""The pytest plugin: claims become items, failures read like the domain, silence elsewhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest_plugins = ["pytester"]

NOTE = "第 1 章：例子\n1.1 求和\nsum = 0.25 + 0.5 = 0.75\nbad = 0.25 + 0.5 = 0.80\n"
CLAIMS = """\
note: n.txt
section: "1.1"
claims:
  - id: good-sum
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: bad-sum
    says: the second sum is wrong
    text: bad = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: pinned-sum
    text: bad = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
    known: {s: {printed: "0.80", expected: "0.75", why: "0.75 misread"}}
"""
TABLE = '[tool.notecheck]\nnotes = "notes"\nclaims = "claims"\n'


def make(pytester: pytest.Pytester, pyproject: str) -> None:
    pytester.makefile(".toml", pyproject=pyproject)
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "c.yaml").write_text(CLAIMS, encoding="utf-8")


def test_claims_are_items_with_domain_failures(pytester: pytest.Pytester) -> None:
    make(pytester, TABLE)
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    text = result.stdout.str()
    assert "claim bad-sum" in text
    assert "n.txt:4:20: discrepancy" in text
    assert "printed 0.80, expected 0.75" in text
    assert "says: the second sum is wrong" in text
    assert "Traceback" not in text and "verifiers/engine.py" not in text


def test_claim_files_that_are_links_or_fifos_fail_as_items(pytester: pytest.Pytester) -> None:
    """pytest collects neither a FIFO nor (here) a link: their errors still show, once."""
    import os

    make(pytester, TABLE)
    os.mkfifo(pytester.path / "claims" / "f.yaml")
    (pytester.path / "claims" / "l.yaml").symlink_to("/etc/passwd")
    (pytester.path / "claims" / "in.yaml").symlink_to("c.yaml")
    # A child process: pytester's in-process runs re-import yaml after the first one, and
    # libyaml's events are then no longer instances of the new yaml's classes.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA")
    result.assert_outcomes(passed=1, failed=4, xfailed=1)
    text = result.stdout.str()
    assert "claims/f.yaml:1:1: error: cannot read: is a FIFO" in text
    assert "claims/l.yaml:1:1: error: cannot read: is a symbolic link" in text
    assert "root:" not in text


def test_plugin_is_silent_without_its_table(pytester: pytest.Pytester) -> None:
    make(pytester, "[tool.other]\nx = 1\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert "collected 0 items" in result.stdout.str()


def test_options_point_at_a_notes_folder_without_a_table(pytester: pytest.Pytester) -> None:
    """A notes repository needs no pyproject.toml: the folders come as options or ini keys."""
    make(pytester, "[tool.other]\nx = 1\n")
    (pytester.path / "notes").rename(pytester.path / "lessons")
    (pytester.path / "claims").rename(pytester.path / "checks")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--notecheck-notes",
                                           "lessons", "--notecheck-claims", "checks", "checks")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    assert "n.txt:4:20: discrepancy" in result.stdout.str()
    pytester.makeini("[pytest]\nnotecheck_notes = lessons\nnotecheck_claims = checks\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "checks")
    result.assert_outcomes(passed=1, failed=1, xfailed=1)


def test_arithmetic_run_imports_neither_torch_nor_sympy(tmp_path) -> None:
    """Arithmetic claims (here: the arithmetic claim files of two notes) start fast."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for pattern in ("architecture-and-training/0*.yaml", "matrix-by-matrix/0*.yaml"):
        for path in root.glob(f"claims/{pattern}"):
            if "kind: model" in path.read_text(encoding="utf-8"):
                continue
            target = tmp_path / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from verifiers.run import run
        result = run(Path({str(root / "notes")!r}), Path({str(tmp_path / "claims")!r}),
                     select=lambda c: not c.computes)  # formula holes: the LaTeX reader, SymPy
        assert len(result.verdicts) > 100 and all(v.passed for v in result.verdicts)
        heavy = sorted(m for m in ("torch", "sympy", "numpy") if m in sys.modules)
        print(",".join(heavy))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
