"""notecheck fix: values whose own step is wrong are rewritten; inherited ones are listed."""

from __future__ import annotations

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
