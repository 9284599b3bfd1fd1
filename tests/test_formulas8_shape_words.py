"""Shapes stated in words are read as shape formulas (verifiers/formulas/shape_words.py).

「输入嵌入E为N×d，输出U为d×N」 was waived ("the shapes of E and U in words"); a swapped size
there went unseen. A ``reference:`` hole over the phrase now reads it as ``E \\in R^{N \\times
d}`` and checks it against tinygpt; wrong sizes fail at the phrase, in the real note and in
invented notes (Chinese and English), and a phrase that is no shape is never a pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import check_project, run_edited
from verifiers.formulas.shape_words import read_shape_words

AAT = "architecture-and-training.txt"


@pytest.mark.parametrize(("text", "formula"), [
    ("E为N×d", r"E \in R^{N \times d}"),
    ("U为d×N", r"U \in R^{d \times N}"),
    ("E 的形状是 (N, d)", r"E \in R^{N \times d}"),
    ("W_E 形状为 N \\times d_model", r"W_E \in R^{N \times d_{model}}"),
    ("E:   V×d", r"E \in R^{V \times d}"),
    ("W_U has shape d×V", r"W_U \in R^{d \times V}"),
    ("h is d_model", r"h \in R^{d_{model}}"),
    ("x_{i} 是 d 维向量", r"x_{i} \in R^{d}"),
])
def test_a_shape_in_words_is_its_formula(text: str, formula: str) -> None:
    assert read_shape_words(text) == formula


@pytest.mark.parametrize("text", ["写成矩阵", "E为N×d，输出", "E = N d", "权重共享",
                                  "E 为 N×d×k", "the matrix E"])
def test_other_words_are_not_a_shape(text: str) -> None:
    assert read_shape_words(text) is None


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("find", "replace"), [
    ("输入嵌入E为N×d", "输入嵌入E为d×N"),
    ("输出U为d×N", "输出U为d×d"),
    ("输入嵌入E为N×d", "输入嵌入E为N×N"),
])
def test_a_wrong_size_in_words_fails_at_the_phrase(tmp_path: Path, real_verdict, find: str,
                                                   replace: str) -> None:
    cid = "aat-f8-15-6-shape-words"
    assert real_verdict(cid).status == "verified"
    edited, line = run_edited(tmp_path, cid, AAT, find, replace)
    assert edited.status == "discrepancy", edited.message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited.values)


_CLAIMS = """note: n.txt
claims:
  - id: shapes
    kind: symbolic
    says: the embedding table is vocabulary × width
    text: |
      {lead}⟪S⟫{tail}
    reference: {{S: tinygpt-shapes}}
"""


@pytest.mark.parametrize(("sentence", "lead", "tail", "status"), [
    ("嵌入矩阵 E 的形状是 (N, d)。\n", "嵌入矩阵 ", "。", "verified"),
    ("嵌入矩阵 E 的形状是 (d, N)。\n", "嵌入矩阵 ", "。", "discrepancy"),
    ("The table E has shape N×d here.\n", "The table ", " here.", "verified"),
    ("The table E has shape N×N here.\n", "The table ", " here.", "discrepancy"),
    ("The table E has many rows here.\n", "The table ", " here.", "unparsed"),
])
def test_invented_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys,
                        sentence: str, lead: str, tail: str, status: str) -> None:
    _, claims = check_project(tmp_path, sentence, _CLAIMS.format(lead=lead, tail=tail),
                              monkeypatch, capsys)
    assert claims["shapes"]["status"] == status, claims["shapes"]
