"""Property claims read the word that carries their law (issue 12 item 1).

``LITERAL_BASELINE`` lists the property claims that still quote their law word literally (an
edit of it only makes them ``stale``). It can only shrink: a new literal claim fails, and a
converted claim left in the list fails too, so the count of claims reading their law only
goes up (``python -m verifiers.properties.reading`` prints it).
"""

from __future__ import annotations

from pathlib import Path

from verifiers.properties.reading import literal_ids, property_claims

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"

LITERAL_BASELINE = frozenset({
    "aat-p-15-7-residual-jacobian",
    "aat-p-4-2-variance-64",
    "l1-p-2-onehot-orthogonal",
    "l1-p-5-naive-overflow",
    "l1-p-5-positive",
    "l1-p-5-ratio",
    "l1-p-5-sum",
    "l1-p-6-sum-zero",
    "mbm-p-10-4-top-p-covers",
    "mbm-p-3-2-variance-64",
})


def test_no_new_property_claim_quotes_its_law_word() -> None:
    new = sorted(set(literal_ids(CLAIMS)) - LITERAL_BASELINE)
    assert not new, f"property claims quoting their law word literally (use a word hole): {new}"


def test_literal_baseline_only_shrinks() -> None:
    converted = sorted(LITERAL_BASELINE - set(literal_ids(CLAIMS)))
    assert not converted, f"remove from LITERAL_BASELINE, they read their law word: {converted}"


def test_the_count_reads_word_holes() -> None:
    claims = property_claims(CLAIMS)
    assert len(claims) - len(LITERAL_BASELINE) >= 51  # the count before issue 12 item 1
