"""notecheck fix: values whose own step is wrong are rewritten; inherited ones are listed."""

from __future__ import annotations

import shutil
import stat
import subprocess

import pytest

import verifiers.fix as fix_module
from tests.test_engine import CHAIN, NOTE, project
from tests.test_engine import check as check_project
from verifiers.cli import main

CLAIMS = CHAIN.replace('section: "1.3"\n', "")
# y = 2 * 1.20 is printed 2.50 (its own step is wrong); z = y + 1 printed 3.50 is right
# given the printed y, wrong only because of y.
WRONG = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50").replace("= 3.40", "= 3.50")


def test_diff_rewrites_only_the_wrong_step(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, WRONG)
    monkeypatch.chdir(root)
    assert main(["fix", "--diff"]) == 0
    captured = capsys.readouterr()
    assert "-y = 2x = 2.50\n+y = 2x = 2.40\n" in captured.out
    assert "3.50" not in captured.out.replace("z = y + 1 = 3.50\n", "")  # not rewritten
    assert "c-plus z: 3.50 left as is (inherited from c-double)" in captured.err
    assert (root / "notes" / "n.txt").read_text(encoding="utf-8") == WRONG  # untouched


def test_write_applies_the_fix_and_keeps_line_endings(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, WRONG)
    note = root / "notes" / "n.txt"
    note.write_bytes(("\ufeff" + WRONG).replace("\n", "\r\n").encode("utf-8"))
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 0
    raw = note.read_bytes().decode("utf-8")
    assert raw.startswith("\ufeff") and "y = 2x = 2.40\r\n" in raw and "\n" not in raw.replace(
        "\r\n", "")
    capsys.readouterr()
    # after the root is fixed, z's own step is now the wrong one (3.50 ≠ 2.40 + 1): fix again
    assert main(["fix", "--write"]) == 0
    assert "z = y + 1 = 3.40" in note.read_text(encoding="utf-8")
    assert main(["check"]) == 0


def test_nothing_to_fix_prints_nothing(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, NOTE)
    monkeypatch.chdir(root)
    assert main(["fix"]) == 0
    assert capsys.readouterr().out == ""


# --------------------------------------------------------------------------- --write keeps the file


def _fix_write(root, monkeypatch, raw: bytes, mode: int = 0o644) -> bytes:
    note = root / "notes" / "n.txt"
    note.write_bytes(raw)
    note.chmod(mode)
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 0
    assert stat.S_IMODE(note.stat().st_mode) == mode
    return note.read_bytes()


def test_write_keeps_each_lines_own_ending(tmp_path, capsys, monkeypatch):
    """Mixed LF / CRLF / lone CR: byte-identical apart from the rewritten number."""
    root = project(tmp_path, CLAIMS, WRONG)
    lines = WRONG.split("\n")
    ends = ["\r\n", "\n", "\r", "\n", "\r\n", "\r", "\n", "\r\n", "\n", "\r", "\r\n", "\n"]
    assert len(ends) == len(lines) - 1
    raw = "".join(line + end for line, end in zip(lines, [*ends, ""], strict=True)).encode()
    out = _fix_write(root, monkeypatch, raw)
    assert out == raw.replace(b"y = 2x = 2.50", b"y = 2x = 2.40")


def test_write_keeps_lone_cr_and_a_private_mode(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, WRONG)
    raw = WRONG.replace("\n", "\r").encode()
    out = _fix_write(root, monkeypatch, raw, mode=0o600)
    assert out == raw.replace(b"y = 2x = 2.50", b"y = 2x = 2.40")


def test_write_refuses_a_note_edited_while_it_runs(tmp_path, capsys, monkeypatch):
    """An edit saved between the read and the replace is kept; the message names the note."""
    root = project(tmp_path, CLAIMS, WRONG)
    note = root / "notes" / "n.txt"
    concurrent = WRONG.replace("输入 x = 1.20", "输入 x = 1.20  (edited meanwhile)")
    real = fix_module.rewritten

    def edit_meanwhile(text, edits):
        note.write_text(concurrent, encoding="utf-8")  # the author saves, same size or not
        return real(text, edits)
    monkeypatch.setattr(fix_module, "rewritten", edit_meanwhile)
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        "notecheck: error: notes/n.txt: changed since it was read; not rewritten (run again)")
    assert note.read_text(encoding="utf-8") == concurrent
    assert [p.name for p in note.parent.iterdir()] == ["n.txt"]


def test_write_refuses_a_note_that_changed_since_the_check(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, WRONG)
    note = root / "notes" / "n.txt"
    import verifiers.run as run_module

    real = run_module.run

    def then_edit(*args, **kwargs):
        result = real(*args, **kwargs)
        note.write_text(WRONG + "1.4 新\n", encoding="utf-8")
        return result
    monkeypatch.setattr("verifiers.cli.run", then_edit)
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 2
    assert "notes/n.txt: changed since it was checked" in capsys.readouterr().err
    assert note.read_text(encoding="utf-8") == WRONG + "1.4 新\n"


def test_write_refuses_a_symlinked_note(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, WRONG)
    note = root / "notes" / "n.txt"
    (tmp_path / "real.txt").write_text(WRONG, encoding="utf-8")
    note.unlink()
    note.symlink_to(tmp_path / "real.txt")
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert note.is_symlink() and (tmp_path / "real.txt").read_text(encoding="utf-8") == WRONG


# --------------------------------------------------------------------------- the note's format


def _one_claim(text: str, check: str) -> str:
    return f"note: n.txt\nclaims:\n  - id: c\n    text: {text}\n    check:\n      {check}\n"


@pytest.mark.parametrize(
    ("line", "text", "check", "suggestion"),
    [
        # unit word kept (was 3.85974e+7, and fix dropped 万)
        ("总数 3 × 1286.58 万 = 386 万", "总数 ⟨n⟩ × ⟨u⟩ = ⟨t⟩", "t: n * u", "3860 万"),
        ("准确率 55.0% 到 61.0%，提高 5.0%", "准确率 ⟨a⟩ 到 ⟨b⟩，提高 ⟨d⟩", "d: b - a", "6.0%"),
        ("差 0.52 − 0.59 = −0.30", "差 ⟨a⟩ − ⟨b⟩ = ⟨d⟩", "d: a - b", "−0.07"),
        # the wrong value's own decimals are not the note's: its neighbours' are
        ("从 0.52 增加到 0.59，增加 0.2", "从 ⟨a⟩ 增加到 ⟨b⟩，增加 ⟨d⟩", "d: b - a", "0.07"),
        ("从 0.52 增加到 0.59，增加 0.0812", "从 ⟨a⟩ 增加到 ⟨b⟩，增加 ⟨d⟩", "d: b - a", "0.07"),
        # scientific only where the note prints it
        ("3 × 1.5e-6 = 4.0e-6", "⟨n⟩ × ⟨u⟩ = ⟨t⟩", "t: n * u", "4.5e-6"),
        ("3 × 0.0000015 = 0.0000040", "⟨n⟩ × ⟨u⟩ = ⟨t⟩", "t: n * u", "0.0000045"),
        ("2 × 3 \\times 10^{-6} = 5 \\times 10^{-6}", "⟨n⟩ × ⟨u⟩ = ⟨t⟩", "t: n * u",
         "6 \\times 10^{-6}"),
        ("共 1,200 × 1,500 = 1,700,000 个", "共 ⟨n⟩ × ⟨u⟩ = ⟨t⟩ 个", "t: n * u", "1,800,000"),
    ],
)
def test_suggestion_keeps_the_notes_format(tmp_path, capsys, monkeypatch, line, text, check,
                                           suggestion):
    root = project(tmp_path, _one_claim(text, check), line + "\n")
    code, out, data = check_project(root, capsys)
    assert code == 1, out
    [value] = [v for v in data["claims"][0]["values"] if v["status"] == "discrepancy"]
    assert value["suggestion"] == suggestion
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 0
    head, _, tail = line.rpartition(value["printed"])  # the printed result is the last number
    assert (root / "notes" / "n.txt").read_text(encoding="utf-8") == f"{head}{suggestion}{tail}\n"
    assert main(["check"]) == 0


def test_write_keeps_the_unit_word(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, _one_claim("总数 ⟨n⟩ × ⟨u⟩ = ⟨t⟩", "t: n * u"),
                   "总数 3 × 1286.58 万 = 386万，完\n")
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 0
    out = (root / "notes" / "n.txt").read_text(encoding="utf-8")
    assert out == "总数 3 × 1286.58 万 = 3860万，完\n"


# ----------------------------------------------------------------------- a missing final newline


def _patched(root, diff: str, tmp_path) -> str:
    """The note after ``patch`` applied ``diff`` (which must apply without a warning)."""
    (tmp_path / "fix.diff").write_text(diff, encoding="utf-8")
    done = subprocess.run(["patch", "-p1", "-i", str(tmp_path / "fix.diff")], cwd=root,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "warning" not in (done.stdout + done.stderr).lower(), (
        done.stdout + done.stderr)
    return (root / "notes" / "n.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("last_is_wrong", [False, True])
def test_diff_marks_a_missing_final_newline(tmp_path, capsys, monkeypatch, last_is_wrong):
    text = WRONG.rstrip("\n")  # the last line, z = y + 1 = 3.50, is context then
    if last_is_wrong:  # the wrong line y = 2.50 moved last: both sides end without newline
        text = text.replace("y = 2x = 2.50\n", "") + "\ny = 2x = 2.50"
    root = project(tmp_path / "p", CLAIMS, text)
    monkeypatch.chdir(root)
    assert main(["fix", "--diff"]) == 0
    diff = capsys.readouterr().out
    marker = "\\ No newline at end of file\n"
    if last_is_wrong:
        assert f"-y = 2x = 2.50\n{marker}+y = 2x = 2.40\n{marker}" in diff and diff.endswith(marker)
    else:
        assert diff.endswith(f" z = y + 1 = 3.50\n{marker}") and diff.count(marker) == 1
    expected = text.replace("2.50", "2.40")
    assert main(["fix", "--write"]) == 0
    assert (root / "notes" / "n.txt").read_text(encoding="utf-8") == expected
    if shutil.which("patch"):
        (root / "notes" / "n.txt").write_text(text, encoding="utf-8")
        assert _patched(root, diff, tmp_path) == expected
