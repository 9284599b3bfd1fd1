"""A matrix of the dot products or cosines of the vectors printed before it
(verifiers/infer/grams.py): the clean note verifies, a copied or mistyped entry is a
discrepancy at the matrix, and a matrix that is no Gram matrix writes nothing."""

from __future__ import annotations

import pytest

from tests.test_infer import assert_edit_flagged, infer
from verifiers.cli import main

NOTE = """1.1 Gram
Three embeddings: a = [1, 0, 1], b = [0.5, 0.5, 0], c = [0, 2, 1].

Their dot products: G = [[2, 0.5, 1], [0.5, 0.5, 1], [1, 1, 5]].
1.2 Cosines
Vectors x = [3, 4], y = [4, 3], z = [2, 0]; cosines
[[1, 0.96, 0.6], [0.96, 1, 0.8], [0.6, 0.8, 1]].
"""


def test_the_clean_note_verifies(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, NOTE)
    assert text.count("@") > 9 and "sqrt((" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("[1, 1, 5]]", "[1, 1, 4]]", 4),  # a mistyped dot product
    ("[0.96, 1, 0.8]", "[0.6, 1, 0.8]", 7),  # an entry copied from its neighbour
])
def test_an_edited_entry_is_flagged(tmp_path, monkeypatch, capsys, old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, old, new, line)


def test_a_matrix_that_is_no_gram_matrix_writes_nothing(tmp_path, monkeypatch):
    note = "1.1\nu = [1, 2], v = [3, 4]; W = [[1, 0], [0, 1]].\n"
    assert "@" not in infer(tmp_path, monkeypatch, note)


TABLE = """1.1 Gram table
Three position vectors:

| pos | d0 | d1 | d2 |
|---|---|---|---|
| 0 | 1 | 0 | 1 |
| 1 | 0.5 | 0.5 | 0 |
| 2 | 0 | 2 | 1 |

Their dot products:

| | p0 | p1 | p2 |
|---|---|---|---|
| p0 | 2 | 0.5 | 1 |
| p1 | 0.5 | 0.5 | 1 |
| p2 | 1 | 1 | 5 |
"""


def test_tables_of_vectors_and_of_their_dot_products(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, TABLE)
    assert "| p0 | ⟨g[0,0]⟩ |" in text and "u3 @ u3" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("| p1 | 0.5 | 0.5 | 1 |", "| p1 | 0.5 | 0.5 | 0.5 |", 15),  # a copied entry, at its row
    ("| 2 | 0 | 2 | 1 |", "| 2 | 0 | 3 | 1 |", 8),  # an edited vector: the suspect input
])
def test_an_edited_table_entry_is_flagged(tmp_path, monkeypatch, capsys, old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, TABLE, old, new, line)
