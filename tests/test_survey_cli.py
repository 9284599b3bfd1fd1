"""The command line the scripted surveys share (benchmarks.planted.survey.edits_main): the
edits a script makes, dumped as JSON and read back, are the same edits (the figure before a
change runs them on an older tree)."""

from __future__ import annotations

import json
from dataclasses import asdict

from benchmarks.planted.survey import Edit, edits_main


def _edits() -> list[Edit]:
    return [Edit("e-1", "program", "n.txt", "a = 1", "a = 2", "1 → 2", line=3),
            Edit("e-2", "program", "n.txt", "b", "c", "b → c")]


def test_dumped_edits_read_back_the_same(tmp_path, capsys):
    dump = tmp_path / "edits.json"
    assert edits_main("p", ["--dump", str(dump)], _edits) is None
    assert json.loads(dump.read_text(encoding="utf-8")) == [asdict(e) for e in _edits()]
    assert edits_main("p", ["--edits", str(dump), "--list"], lambda: []) is None
    assert capsys.readouterr().out.splitlines() == ["e-1: 1 → 2", "e-2: b → c"]
    assert edits_main("p", ["--list"], _edits) is None
    assert capsys.readouterr().out.splitlines() == ["e-1: 1 → 2", "e-2: b → c"]
