"""A count word before a one-row matrix counts its entries (``三个候选 Token … ℓ =
[\\begin{matrix} 2 & 1 & 0 \\end{matrix}]``; verifiers/restate/counted.py): the inferred claim
checks the columns, and a planted wrong word or an added entry fails at the word."""

from __future__ import annotations

import pytest

from tests.note_edits import check_project

NOTE = """第 1 章
1.1 输出
假设词表只有三个候选 Token，输出层计算得到：

ℓ = [\\begin{matrix} 2 & 1 & 0 \\end{matrix}]

它们分别对应 A、B、C。
"""


def _claims(tmp_path):
    from verifiers.infer.counts import count_claims
    from verifiers.notes import read_note

    (tmp_path / "n.txt").write_text(NOTE, encoding="utf-8")
    found = count_claims({"n.txt": read_note(tmp_path / "n.txt")}, "n.txt", "n", set())
    return found, "note: n.txt\nclaims:\n" + "".join(c.yaml for c in found)


def test_a_one_row_matrix_is_counted_by_its_columns(tmp_path):
    found, _ = _claims(tmp_path)
    assert len(found) == 1 and "len(transpose(v))" in found[0].yaml


@pytest.mark.parametrize(("find", "replace", "suggestion"), [
    ("只有三个", "只有两个", "三"), ("只有三个", "只有四个", "三"),
    ("2 & 1 & 0", "2 & 1 & 0 & 5", "四"),
])
def test_a_planted_wrong_count_fails_at_the_word(tmp_path, capsys, monkeypatch, find, replace,
                                                 suggestion):
    _, claims = _claims(tmp_path)
    work = tmp_path / "p"
    work.mkdir()
    code, by_id = check_project(work, NOTE.replace(find, replace), claims, monkeypatch, capsys)
    assert code == 1
    bad = [v for c in by_id.values() for v in c["values"] if v["status"] == "discrepancy"]
    assert [(v["start"]["line"], v["suggestion"]) for v in bad] == [(3, suggestion)]
