"""Inference reads a number printed again as a copy, quotes only the words around its holes,
reads a computation through a unit printed on both sides, and the terms of a dot product of
two printed vectors (verifiers/infer)."""

from __future__ import annotations

import pytest

from tests.test_infer import INFERRED, assert_edit_flagged, infer
from verifiers.cli import main

NOTE = """第 1 章
1.1 计算
第二步 θ_2 = 0.99 − 0.00266 = 0.98734，继续。
1.2 表
| 步 | θ |
| 1 | 0.99 |
| 2 | 0.98734 |
1.3 向量
查询 q = [1, 2, 0, 1]。
键 k = [2, 1, 0, 0]：和 = 2.5 + 1.25 = 3.75
点积 q · k = 2 + 2 + 0 + 0 = 4
1.4 字节
$$2 \\times 1024 \\text{ bytes} = 2048 \\text{ bytes} = 2 \\text{ KiB}$$
"""


def test_the_clean_note_verifies_and_the_repeat_is_a_copy(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, NOTE)
    assert "inferred: a value printed again" in text or "| 2 | ⟨v1⟩ |" in text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("| 2 | 0.98734 |", "| 2 | 0.98743 |", 7),  # the table restates the result
    ("= 2048 \\text{ bytes}", "= 2049 \\text{ bytes}", 13),  # a product through its unit
    ("= 2 + 2 + 0 + 0 = 4", "= 2 + 1 + 0 + 0 = 3", 11),  # a term of a dot product
])
def test_an_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, old, new, line)


def test_a_number_the_claim_does_not_read_is_not_in_its_quote(tmp_path, monkeypatch, capsys):
    # the sum's claim quotes its holes and the words up to the vector, not the vector: an edit
    # of the vector leaves it intact (it was stale before: the whole line was quoted)
    text = infer(tmp_path, monkeypatch, NOTE)
    assert "[2, 1, 0, 0]" not in (tmp_path / INFERRED).read_text(encoding="utf-8")
    assert "和 = ⟨" in text
    (tmp_path / "notes" / "n.txt").write_text(NOTE.replace("[2, 1, 0, 0]", "[2, 0, 1, 0]"),
                                              encoding="utf-8")
    main(["check", "--no-cache", "-j", "1"])  # the dot product's terms now disagree
    out = capsys.readouterr().out
    assert "stale" not in out, out
