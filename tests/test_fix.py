"""notecheck fix: values whose own step is wrong are rewritten; inherited ones are listed."""

from __future__ import annotations

import stat

import verifiers.fix as fix_module
from tests.test_engine import CHAIN, NOTE, project
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
