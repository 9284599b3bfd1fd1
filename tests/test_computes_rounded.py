"""``computes: {F: {value: r, rounded: r}}`` (verifiers/formulas/inline.py): a side may differ
from a printed, rounded value by half a unit of its last digit -- no more -- and a ``rounded``
that names no printed number is ``unparsed``, never a pass."""

from __future__ import annotations

import pytest

from tests.test_infer import project
from verifiers.cli import main

NOTE = "1.1\nThe curve $g(t) = 3 e^{t/2} + 1$, so $g(2) = 9.15$.\n"


def claims(spec: str) -> str:
    return ("note: n.txt\nclaims:\n  - id: c\n"
            "    text: \"$g(t) = ⟪F⟫$, so $g(⟨a⟩) = ⟨r⟩$\"\n"
            f"    computes:\n      F: {spec}\n")


@pytest.mark.parametrize("note, spec, code, word", [
    (NOTE, "{value: r, rounded: r, names: {t: a}}", 0, "verified"),  # 9.1548… prints 9.15
    (NOTE, "{value: r, names: {t: a}}", 1, "discrepancy"),  # exact comparison: 9.1548 ≠ 9.15
    (NOTE.replace("9.15", "9.16"), "{value: r, rounded: r, names: {t: a}}", 1,
     "discrepancy"),  # 9.1548… is not 9.16 to half a unit
    (NOTE, "{value: r, rounded: q, names: {t: a}}", 1, "unparsed"),  # no hole q
    # an integer of two digits or more rounds to units (11.0048… prints 11), a one-digit
    # integer is the value itself (8.0048… is not 8: engine.rounds_to's rule)
    (NOTE.replace("+ 1$", "+ 2.85$").replace("9.15", "11"),
     "{value: r, rounded: r, names: {t: a}}", 0, "verified"),
    (NOTE.replace("+ 1$", "- 0.15$").replace("9.15", "8"),
     "{value: r, rounded: r, names: {t: a}}", 1, "discrepancy"),
])
def test_rounded(tmp_path, monkeypatch, capsys, note, spec, code, word):
    monkeypatch.chdir(project(tmp_path, note, claims(spec)))
    assert main(["check", "--no-cache", "-j", "1"]) == code
    assert word in capsys.readouterr().out


def test_rounded_must_name_a_hole(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(project(tmp_path, NOTE, claims("{value: r, rounded: [r], names: {t: a}}")))
    assert main(["check", "--no-cache", "-j", "1"]) != 0
    assert "'rounded' names one value hole" in capsys.readouterr().out
