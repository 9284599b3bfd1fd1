"""The floor of the strength of coverage on the real notes: the share of derived literals
that are recomputed may only go up (raise a floor when it does), and the listing of the rest
(``python -m verifiers.coverage.strength_list``) names each with the claim that covers it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_engine import project
from tests.test_strength import CLAIMS, NOTE
from verifiers.coverage.literals import strength_json
from verifiers.coverage.strength_list import main, weak_literals
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent

#: note -> the least recomputed share of its derived literals (issue 13 asks >= 95% in each;
#: lesson1's remaining 14 are restatements, which are the symbolic claims' to read)
FLOOR = {
    "architecture-and-training.txt": 0.998,
    "lesson1-text-to-distribution.txt": 0.920,
    "matrix-by-matrix.txt": 0.983,
}


@pytest.fixture(scope="module")
def real_strength(real_quote_coverage) -> dict[str, dict[str, object]]:
    _, covs, _ = real_quote_coverage  # quotes only, the session's (tests/conftest.py)
    return {cov.note: strength_json(cov) for cov in covs}


@pytest.mark.parametrize("note", sorted(FLOOR))
def test_the_recomputed_share_of_each_note_is_at_its_floor(real_strength, note):
    share = real_strength[note]["recomputed_share"]
    assert share >= FLOOR[note], f"{note}: {share:.1%} of derived literals recomputed, " \
        f"below the floor {FLOOR[note]:.1%}: python -m verifiers.coverage.strength_list"


def test_no_real_copy_is_an_orphan(real_strength):
    assert all(not s["orphan_copies"] for s in real_strength.values())


def test_the_listing_names_each_weak_literal_and_its_claim(tmp_path, capsys):
    root = project(tmp_path, CLAIMS, NOTE)
    lines = weak_literals(run(root / "notes", root / "claims", lambda claim: False))
    assert any("notes/n.txt:4:8: copy: 4.0 (" in line and "c.yaml:17 " in line
               and "summary.s2)" in line for line in lines), lines
    assert any(": restated: 2 (" in line and " twice)" in line for line in lines), lines
    assert len(lines) == 2  # the recomputed sum and the inputs are not listed
    assert main(["--notes", str(root / "notes"), "--claims", str(root / "claims")]) == 0
    assert "2 derived literal(s) not recomputed" in capsys.readouterr().out
