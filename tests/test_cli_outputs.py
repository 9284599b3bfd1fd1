"""A report is never written over an input: ``coverage --json notes/x.txt`` refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.cli import main


@pytest.mark.parametrize("argv", [
    ["coverage", "--json", "notes/a.txt"],
    ["check", "--json", "claims/a/new.json"],
    ["report", "--out", "notes/index.html"],
])
def test_a_report_over_an_input_is_refused_and_nothing_changes(tmp_path: Path, monkeypatch,
                                                               capsys, argv: list[str]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "claims" / "a").mkdir(parents=True)
    note = tmp_path / "notes" / "a.txt"
    note.write_text("x = 1 + 1 = 2\\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "is inside the" in err and "write the report elsewhere" in err
    assert note.read_text(encoding="utf-8") == "x = 1 + 1 = 2\\n"
    assert sorted(p.name for p in (tmp_path / "notes").iterdir()) == ["a.txt"]
    assert list((tmp_path / "claims" / "a").iterdir()) == []


def test_a_report_elsewhere_is_written(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "claims").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("no numbers here\\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(["coverage", "--json", "out.json"])
    assert (tmp_path / "out.json").read_text(encoding="utf-8").startswith("{")
