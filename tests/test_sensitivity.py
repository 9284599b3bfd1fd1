"""On the real notes: one-digit edits of covered values are caught (a deterministic sample).

The full survey of every covered value is `python benchmarks/bench.py --mutations`.
"""

from __future__ import annotations

from pathlib import Path

from verifiers.mutate import MISSED, survey

ROOT = Path(__file__).resolve().parent.parent


def test_one_digit_edits_of_covered_values_are_caught(real_result) -> None:
    """The unedited run is the session's (tests/conftest.py); each edit is evaluated afresh."""
    results = survey(ROOT / "notes", ROOT / "claims", sample=8, result=real_result)
    assert len(results) == 8
    missed = [f"notes/{m.note}:{m.line}:{m.col} {m.old}->{m.new} ({m.claim_id} {m.hole})"
              for m, outcome in results if outcome == MISSED]
    assert missed == []
