"""A formula followed by a worked instance (verifiers/infer/instances.py): the inferred claim
reads the formula as a formula hole (``computes:`` with ``rounded:``), so an edit of the
formula -- an exponent, a coefficient, cos written as sin -- is a discrepancy at the formula,
and the clean note verifies."""

from __future__ import annotations

import pytest

from tests.test_infer import assert_edit_flagged, infer
from verifiers.cli import main

NOTE = """第 1 章
1.1 Growth
The growth curve is $g(t) = 3 e^{t/2} + 1$ for a time t.

At the second step, $g(2) = 9.15$.
Plain text: h(x, y) = x^2 + 2*y, so h(3, 1) = 11.
1.2 Frequencies
The frequencies are $\\theta_{i} = 10000^{-i/4}$ for the pairs, so $\\theta_{1} = 0.1$.
Plain: w(pos, i) = cos(pos * 10000^(-i/4)), so w(2, 1) = 0.9801.
"""


def test_the_clean_note_verifies_with_formula_holes(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, NOTE)
    assert text.count("computes:") == 4, text
    for quoted in ("$g(t) = ⟪F⟫$", "h(x, y) = ⟪F⟫", "\\\\theta_{i} = ⟪F⟫$", "w(pos, i) = ⟪F⟫"):
        assert quoted in text, (quoted, text)
    assert "3 e^{t/2}" not in text  # the formula is read, never quoted as text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("e^{t/2}", "e^{t/3}", 3),  # an exponent of a LaTeX formula
    ("2*y", "3*y", 6),  # a coefficient of a plain-text formula
    ("10000^{-i/4}$", "10000^{-i/2}$", 8),  # a subscripted definition, read at θ_1
    ("= cos(pos", "= sin(pos", 9),  # a function written as another
])
def test_a_formula_edit_is_a_discrepancy_at_the_formula(tmp_path, monkeypatch, capsys,
                                                       old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, old, new, line)


def test_an_edited_instance_result_is_flagged(tmp_path, monkeypatch, capsys):
    # reported at the formula the claim reads (nothing tells whether formula or result moved)
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, "g(2) = 9.15", "g(2) = 9.51", 3)


def test_every_printing_of_a_chained_definition_is_read(tmp_path, monkeypatch, capsys):
    note = "1.1\n$\\omega_i = 10000^{-2i/8} = 10000^{-i/4}$, so $\\omega_1 = 0.1$.\n"
    for sub in ("clean", "edit"):
        (tmp_path / sub).mkdir()
    text = infer(tmp_path / "clean", monkeypatch, note)
    assert "\\\\omega_i = ⟪F⟫$" in text, text
    assert_edit_flagged(tmp_path / "edit", monkeypatch, capsys, note, "{-i/4}", "{-i/2}", 2)


TABLE = """1.1 Table
The frequencies are $\\theta_{i} = 10000^{-i/4}$ for each pair:

| i | $\\theta_i$ |
|---|---|
| 1 | 0.1 |
| 2 | 0.01 |
"""


def test_rows_of_a_table_under_the_definition_are_instances(tmp_path, monkeypatch, capsys):
    for sub in ("clean", "edit"):
        (tmp_path / sub).mkdir()
    text = infer(tmp_path / "clean", monkeypatch, TABLE)
    assert text.count("computes:") == 2 and "| ⟨a1⟩ | ⟨r⟩ |" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    assert_edit_flagged(tmp_path / "edit", monkeypatch, capsys, TABLE, "{-i/4}", "{-i/3}", 2)


def test_a_formula_the_instance_does_not_fit_writes_nothing(tmp_path, monkeypatch):
    # the printed result is not the formula's value: a reading that fails is never written
    text = infer(tmp_path, monkeypatch, "1.1\n$f(x) = x^2 + 1$，例如 $f(3) = 11$。\n")
    assert "computes:" not in text


def test_no_instance_no_claim(tmp_path, monkeypatch):
    # a definition with no worked instance nearby, and a call of a built-in function
    text = infer(tmp_path, monkeypatch,
                 "1.1\n$f(x) = x^2 + 1$ is a parabola.\n$\\exp(2) = 7.389$.\n")
    assert "computes:" not in text
