"""The laws of sentences once waived as hedges (verifiers/properties/laws_hedges.py) verify on
the notes' words, catch a planted bug, and fail when the word that denies them is flipped.

``HEDGE_MUTANTS`` joins test_properties.MUTANTS; ``HEDGE_FLIPS`` joins test_words.FLIPS.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from verifiers.properties import laws_hedges as lh
from verifiers.properties.runner import search
from verifiers.verdicts import DISCREPANCY, VERIFIED


def no_step(W: torch.Tensor, X: torch.Tensor, y: list[int], lr: float) -> torch.Tensor:
    """An optimiser that never moves: no sample's probability falls (the law 'holds')."""
    return W.clone()


def input_weighted(c: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """Coefficients scaled by the input's size: attention-like, not a fixed average."""
    return lh.fixed_average(c * (1 + float(X.abs().sum())), X)


def inflated_dot(q: torch.Tensor, k: torch.Tensor) -> float:
    """A 'dot product' that adds the dimension: never small."""
    return float(q @ k) + q.shape[0]


def own_row_only(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Each position outputs its own value: no mixing (the law 'holds')."""
    return v.clone()


def invertible_residual(x: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    """Ignores the sublayer: y = x keeps every input apart (the law 'holds')."""
    return x.clone()


def clipped_gradient(z: torch.Tensor, y: int) -> float:
    """A gradient scaled by the softmax derivative: small whenever p_y(1 − p_y) is."""
    p = float(torch.softmax(z, dim=-1)[y])
    return lh.target_gradient(z, y) * p * (1 - p)


HEDGE_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "step-raises-every-sample": ({}, no_step, ""),
    "fixed-average-weights-constant": ({}, input_weighted, "differ"),
    "high-dim-dots-all-large": ({}, inflated_dot, ""),
    "attention-row-own-only": ({}, own_row_only, ""),
    "residual-keeps-information": ({}, invertible_residual, ""),
    "small-softmax-derivative-stalls": ({}, clipped_gradient, ""),
}

#: the slots these sentences' words add (specs_words.SAID), each flipped: test_laws_read
#: checks that every SAID slot has a flip in its READ_FLIPS or here
SAID_FLIPS = [
    ("step-raises-every-sample", {"means": "is"}),
    ("high-dim-dots-all-large", {"means": "is"}),
    ("attention-row-own-only", {"dep": "only"}),
    ("step-raises-every-sample", {"ensure": "ensures"}),
    ("residual-keeps-information", {"ensure": "ensures"}),
    ("small-softmax-derivative-stalls", {"can": "can"}),
    ("bigram-context-blind", {"reach": "all"}),  # 前一个 -> 前面所有 (a rewritten phrase)
    ("generation-keeps-parameters", {"update": "can"}),  # 不会因为本次生成而更新 -> 会
]
HEDGE_FLIPS = [*SAID_FLIPS, ("fixed-average-weights-constant", {"effect": "changes"})]


@pytest.mark.parametrize("name", sorted(HEDGE_MUTANTS))
def test_the_real_implementation_verifies(name: str) -> None:
    outcome = search(name, profile="ci")
    assert outcome.status == VERIFIED, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(HEDGE_MUTANTS))
def test_a_planted_bug_is_a_discrepancy(name: str) -> None:
    params, mutant, fragment = HEDGE_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
    assert fragment in outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), HEDGE_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
