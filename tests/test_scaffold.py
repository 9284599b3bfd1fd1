"""notecheck scaffold: stubs with the quote and holes in place; never duplicated."""

from __future__ import annotations

import pytest

from tests.test_engine import project
from verifiers.cli import main

NOTE = """1.1 例子
第一步：2 + 3 = 5
第二步：5 × 2 = 10
1.2 别的
第三步：10 - 1 = 9
"""

CLAIMS = """note: n.txt
claims:
  - id: sum
    text: 第一步：⟨a⟩ + ⟨b⟩ = ⟨c⟩
    check: {c: a + b}
"""


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = project(tmp_path, CLAIMS, NOTE)
    monkeypatch.chdir(root)
    return root


def test_stubs_quote_the_line_with_holes_and_cover_nothing_yet(root, capsys):
    assert main(["scaffold", "n.txt", "--section", "1.1"]) == 0
    stub_file = root / "claims" / "n" / "99-scaffold.yaml"
    text = stub_file.read_text(encoding="utf-8")
    assert '"第二步：⟨v1⟩ × ⟨v2⟩ = ⟨v3⟩"' in text and "第三步" not in text
    assert "# TODO check: {v2: " in text
    capsys.readouterr()
    assert main(["check"]) == 1  # the stub loads and finds its quote, but checks nothing yet
    assert "checks nothing" in capsys.readouterr().out
    assert main(["coverage"]) == 1  # ...so the numbers stay uncovered
    assert "notes/n.txt:3:5: uncovered: 5" in capsys.readouterr().out


def test_rerunning_adds_only_new_stubs(root, capsys):
    assert main(["scaffold", "n.txt"]) == 0
    first = (root / "claims" / "n" / "99-scaffold.yaml").read_text(encoding="utf-8")
    assert first.count("- id: todo-n-") == 2
    assert main(["scaffold", "n.txt"]) == 0
    assert (root / "claims" / "n" / "99-scaffold.yaml").read_text(encoding="utf-8") == first
    assert "0 stubs added" in capsys.readouterr().out


def test_lines_select_a_range(root, capsys):
    assert main(["scaffold", "n.txt", "--lines", "5-5"]) == 0
    text = (root / "claims" / "n" / "99-scaffold.yaml").read_text(encoding="utf-8")
    assert "第三步" in text and "第二步" not in text


@pytest.mark.parametrize("args, message", [
    (["scaffold", "m.txt"], "no note 'm.txt'"),
    (["scaffold", "n.txt", "--section", "9.9"], "no section '9.9'"),
    (["scaffold", "n.txt", "--lines", "5-"], "expected A-B"),
])
def test_bad_arguments_are_usage_errors(root, capsys, args, message):
    assert main(args) == 2
    assert message in capsys.readouterr().err
    assert not (root / "claims" / "n" / "99-scaffold.yaml").exists()
