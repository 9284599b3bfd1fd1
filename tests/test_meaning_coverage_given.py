"""A formula read by a ``kind: given`` claim is covered only when a checking claim uses the
given's value (the rule of the numbers' coverage)."""

from __future__ import annotations

import json

from tests.test_engine import project
from verifiers.cli import main

NOTE = """1.1 公式
设 $d_{k} = 4$，缩放 $\\sqrt{d_{k}}$ = 2.00
"""

GIVEN = """note: n.txt
claims:
  - id: dk
    kind: given
    text: 设 $d_{k} = ⟨dk⟩$
"""

USER = """  - id: scale
    text: 缩放 $\\sqrt{d_{k}}$ = ⟨s⟩
    uses: {dk: dk.dk}
    check: {s: sqrt(dk)}
"""


def formulas(tmp_path, capsys, monkeypatch, claims: str) -> dict:
    monkeypatch.chdir(project(tmp_path, claims, NOTE))
    main(["coverage", "--json", "cov.json"])
    capsys.readouterr()
    return json.loads((tmp_path / "cov.json").read_text(encoding="utf-8"))["notes"][0][
        "formulas"]


def test_a_given_whose_value_feeds_a_check_covers_its_formula(tmp_path, capsys, monkeypatch):
    got = formulas(tmp_path, capsys, monkeypatch, GIVEN + USER)
    uncovered = [u["text"] for u in got["uncovered"]]
    assert "$d_{k} = 4$" not in uncovered, got


def test_a_given_nobody_uses_covers_nothing(tmp_path, capsys, monkeypatch):
    got = formulas(tmp_path, capsys, monkeypatch, GIVEN)
    assert "$d_{k} = 4$" in [u["text"] for u in got["uncovered"]], got
