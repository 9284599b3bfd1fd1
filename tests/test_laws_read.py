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
    "aat-p-10-2-answer-hidden",
    "aat-p-10-2-one-pass",
    "aat-p-12-5-tied",
    "aat-p-12-6-finite-step",
    "aat-p-13-4-first-row",
    "aat-p-14-3-greedy",
    "aat-p-14-3-greedy-not-joint",
    "aat-p-14-3-sampling",
    "aat-p-14-3-top-k",
    "aat-p-14-3-top-p",
    "aat-p-14-4-kv-cache",
    "aat-p-15-1-saturation",
    "aat-p-15-1-stable",
    "aat-p-15-3-embedding-rows",
    "aat-p-15-4-unused-row",
    "aat-p-15-6-causal-direction",
    "aat-p-15-6-distance",
    "aat-p-15-6-positions",
    "aat-p-15-6-relative",
    "aat-p-15-6-tied-sum",
    "aat-p-15-7-residual-jacobian",
    "aat-p-15-8-tied-qk",
    "aat-p-3-3-no-negatives",
    "aat-p-3-4-convex-hull",
    "aat-p-3-5-subtract-max",
    "aat-p-4-2-variance-64",
    "aat-p-4-8-random-walk",
    "aat-p-4-9-saturation",
    "aat-p-5-1-convex-combination",
    "aat-p-5-11-block-not-held",
    "aat-p-5-11-hull",
    "aat-p-6-2-qk-entry",
    "aat-p-7-1-block-hull",
    "aat-p-7-1-linear-collapses",
    "aat-p-7-1-nonlinear",
    "aat-p-7-2-causal-breaks-permutation",
    "aat-p-7-2-rope",
    "aat-p-7-4-not-linear",
    "aat-p-7-7-layernorm-per-position",
    "aat-p-8-2-future-weights-zero",
    "aat-p-8-2-prefix-only",
    "aat-p-8-3-positive-without-mask",
    "aat-p-8-6-induction",
    "aat-p-8-6-restricted-softmax",
    "aat-p-8-6-underflow",
    "aat-p-9-4-distribution",
    "aat-p-9-6-no-peeking",
    "aat-st-15-identity-path",
    "aat-st-8-row-nonempty",
    "l1-p-2-lookup",
    "l1-p-2-onehot-orthogonal",
    "l1-p-3-cosine",
    "l1-p-5-naive-overflow",
    "l1-p-5-never-zero",
    "l1-p-5-positive",
    "l1-p-5-ratio",
    "l1-p-5-stable",
    "l1-p-5-sum",
    "l1-p-6-bounded",
    "l1-p-6-gradient",
    "l1-p-6-onehot-sum",
    "l1-p-6-sum-zero",
    "l1-p-7-add-at",
    "l1-p-7-batch",
    "l1-p-7-large-step",
    "l1-p-7-rank",
    "l1-p-7-unused-rows",
    "l1-st-0-scores-any-text",
    "l1-st-1-proportional-to-v",
    "l1-st-3-any-dimension",
    "l1-st-8-summary-stable",
    "mbm-p-10-1-top-p",
    "mbm-p-10-4-top-p-covers",
    "mbm-p-3-1-score",
    "mbm-p-3-2-normalised",
    "mbm-p-3-2-variance-64",
    "mbm-p-4-1-row-softmax",
    "mbm-p-9-1-top-k",
    "mbm-p-9-3-k1-greedy",
    "mbm-p-card-top-k",
    "mbm-p-card-top-p",
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
