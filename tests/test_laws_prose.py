"""The laws of verifiers/properties/laws_prose.py catch a planted bug, and a flipped word of their
sentences states a false law (issue 12 items 1 and 4, the comparative and scope sentences).

``PROSE_MUTANTS`` joins test_properties.MUTANTS and ``PROSE_FLIPS`` joins test_words.FLIPS.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from verifiers.properties import laws_prose as lp
from verifiers.properties.catalog import CATALOG
from verifiers.properties.runner import search
from verifiers.properties.specs_prose import specs
from verifiers.verdicts import DISCREPANCY, VERIFIED


def linear_spread(n: int, samples: int, seed: int) -> float:
    """The spread of the sum as if it grew with n (the error 线性 for 平方根)."""
    return float(n) * lp.sample_sum_sd(1, samples, seed)


def root_scaled(n: int, samples: int, seed: int, divisor: str) -> float:
    """Divides by √d where the sentence's step divides by d: the spread stays at 1."""
    return lp.sample_scaled_dot_sd(n, samples, seed, "one") / float(np.sqrt(n))


def cosine(q: Any, k: Any) -> float:
    """A 'dot product' that is the cosine: fixed by the angle alone."""
    return lp.dot(q, k) / float(np.linalg.norm(q) * np.linalg.norm(k))


def flipped_gradient(z: list[float], y: int, j: int, w: float) -> tuple[float, float]:
    """The loss with the sign of its derivative lost (g for -g)."""
    loss, g = lp.ce_of_logit(z, y, j, w)
    return loss, -g


PROSE_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "sum-spread-growth": ({}, linear_spread, "not 2"),
    "scaled-dot-spread": ({}, root_scaled, "does not shrink"),
    "dot-not-angle-only": ({}, cosine, ""),  # the note says "only the angle" fails: it holds here
    "derivative-sign-step": ({}, flipped_gradient, "dL/dw"),
}

PROSE_FLIPS = [
    ("sum-spread-growth", {"growth": "linear"}),
    ("sum-spread-growth", {"growth": "constant"}),
    ("scaled-dot-spread", {"spread": "increases"}),
    ("dot-not-angle-only", {"only": "only"}),
    ("derivative-sign-step", {"sign": "positive"}),
    ("derivative-sign-step", {"sign": "zero"}),
    ("derivative-sign-step", {"move": "decreases"}),
    ("derivative-sign-step", {"loss": "increases"}),
    ("derivative-sign-step", {"fix": "decreases"}),
]


def test_every_prose_law_is_in_the_catalog_with_a_mutant_and_every_slot_a_flip() -> None:
    names = {s.name for s in specs()}
    assert names <= set(CATALOG) and names == set(PROSE_MUTANTS)
    slots = {(s.name, p.name) for s in specs() for p in s.slots}
    assert slots == {(n, k) for n, flip in PROSE_FLIPS for k in flip}


@pytest.mark.parametrize("name", sorted(PROSE_MUTANTS))
def test_the_real_implementation_verifies(name: str) -> None:
    outcome = search(name, profile="ci")
    assert outcome.status == VERIFIED, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(PROSE_MUTANTS))
def test_a_planted_bug_is_caught(name: str) -> None:
    params, mutant, fragment = PROSE_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
    assert fragment in outcome.text, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), PROSE_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
    if outcome.found:  # the shrunk counterexample is in the message
        assert "counterexample" in outcome.text


def test_without_the_division_the_spread_grows() -> None:
    assert search("scaled-dot-spread", {"divisor": "one", "spread": "increases"},
                  profile="ci").status == VERIFIED


def test_two_flipped_words_that_agree_state_a_true_law() -> None:
    """dL/dw > 0: increasing w raises the loss, so decrease w (aat 11.2's first sentence)."""
    said = {"sign": "positive", "loss": "increases", "fix": "decreases"}
    assert search("derivative-sign-step", said, profile="ci").status == VERIFIED
