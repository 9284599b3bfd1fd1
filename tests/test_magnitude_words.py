"""Magnitude words (几万, 数十亿, millions) are values a hole reads: an edit of the word is a
discrepancy at the word (verifiers/magnitude_words.py)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.note_edits import check_project
from verifiers.holes import read_number
from verifiers.magnitude_words import read_vague, word_for


@pytest.mark.parametrize(("word", "lo", "hi"), [
    ("几万", 10**4, 10**5), ("数十亿", 10**9, 10**10), ("数十万", 10**5, 10**6),
    ("数百万", 10**6, 10**7), ("几千", 10**3, 10**4), ("几万亿", 10**12, 10**13),
    ("tens of thousands", 10**4, 10**5), ("billions", 10**9, 10**10),
])
def test_a_word_reads_as_one_order_of_magnitude(word, lo, hi):
    pn = read_number(word)
    assert pn.kind == "vague"
    assert (pn.value - pn.half_unit, pn.value + pn.half_unit) == (lo, hi)


@pytest.mark.parametrize("text", ["几", "数个", "万", "几十几", "lots", "thousand"])
def test_a_word_outside_the_vocabulary_is_no_value(text):
    assert read_vague(text) is None


def test_a_suggestion_is_the_word_of_the_value_s_order_in_the_printed_style():
    assert word_for("几千", 50257) == "几万"
    assert word_for("数十万", Fraction(5 * 10**9)) == "数十亿"
    assert word_for("thousands", 2 * 10**7) == "tens of millions"


NOTE = """第 1 章
1.1 词表
词表 V = 256 + 50000 + 1 = 50257。
代码里不会真的去乘一个几万维的稀疏向量。
"""

CLAIMS = """note: n.txt
claims:
  - id: vocab
    says: the vocabulary size
    section: "1.1"
    text: 词表 V = ⟨a⟩ + ⟨b⟩ + ⟨c⟩ = ⟨V⟩。
    check:
      V: a + b + c
  - id: words
    says: a one-hot vector has V components, 几万
    section: "1.1"
    text: 代码里不会真的去乘一个⟨dim⟩维的稀疏向量。
    uses: {V1: vocab.V}
    check:
      dim: V1
"""


def test_the_unedited_word_verifies(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


@pytest.mark.parametrize("edited", ["几千", "几十万", "数十亿"])
def test_an_edited_word_is_a_discrepancy_at_the_word(tmp_path, capsys, monkeypatch, edited):
    code, by_id = check_project(tmp_path, NOTE.replace("几万维", edited + "维"), CLAIMS,
                                monkeypatch, capsys)
    assert code == 1
    dim = next(v for v in by_id["words"]["values"] if v["name"] == "dim")
    assert dim["status"] == "discrepancy"
    assert dim["start"] == {"line": 4, "col": 12}
    assert dim["suggestion"] == edited[0] + "万"
