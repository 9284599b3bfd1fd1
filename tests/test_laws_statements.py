"""The laws of verifiers/properties/laws_statements.py catch a planted bug, and the notes' words
verify while a flipped word fails (issue 12 item 4).

``STATEMENT_MUTANTS`` joins test_properties.MUTANTS (every property has a mutant) and
``STATEMENT_FLIPS`` joins test_words.FLIPS (every slot has a flip that fails).
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from tinygpt import softmax
from verifiers.properties import laws_statements as ls
from verifiers.properties.catalog import CATALOG
from verifiers.properties.runner import search
from verifiers.properties.specs_statements import specs
from verifiers.verdicts import DISCREPANCY, VERIFIED


def generate_then_learn(model: Any, prompt: list[int], steps: int, strategy: str,
                        use_cache: bool, seed: int) -> list[int]:
    """Generation that also nudges the output layer (as if it trained on what it read)."""
    out = ls.tinygpt_generate(model, prompt, steps, strategy, use_cache, seed)
    with torch.no_grad():
        model.U.add_(1e-6)
    return out


def bpe_with_idle_merge(corpus: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """A BPE that adds a unit for a pair that never occurs: V grows, the text does not shrink."""
    counts = ls.tinygpt_bpe_counts(corpus)
    v, t = counts[-1]
    return [*counts, (v + 1, t)]


def sizes_with_bias(V: int, d: int) -> tuple[int, int]:
    """Counts the output layer with a d-sized extra vector: d V + d, not proportional to V."""
    e, u = ls.tinygpt_vocab_sizes(V, d)
    return e, u + d


def trigram_predict(run: Any, context: list[int]) -> torch.Tensor:
    """Reads the previous token too: a trigram in a bigram's clothes."""
    rows = [run.E[t] for t in context[-2:]]
    x = torch.as_tensor(sum(rows) / len(rows), dtype=torch.float64)
    return softmax(x @ torch.as_tensor(run.WU, dtype=torch.float64))


def unnormalised_next(model: Any, tokens: list[int]) -> torch.Tensor:
    """exp(logits − max) without the division: not a distribution."""
    with torch.no_grad():
        z = model(tokens)[-1]
        return torch.exp(z - z.max())


def linear_loss(probs: list[float]) -> float:
    """Σ (1 − p): a loss that is not the negative log, so it can rank candidates differently."""
    return float(sum(1 - p for p in probs))


def variance_as_mean_square(values: list[float]) -> tuple[float, float, float]:
    """Var X computed as E[X^2] (the (E X)^2 term forgotten): equal at every mean."""
    _, msq, mean = ls.torch_moments(values)
    return msq, msq, mean


STATEMENT_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "generation-keeps-parameters": ({}, generate_then_learn, "parameter U changed"),
    "bpe-merges-shorten-text": ({}, bpe_with_idle_merge, "not fewer"),
    "vocab-proportional-parameters": ({}, sizes_with_bias, "not d V"),
    "bigram-context-blind": ({}, trigram_predict, "both end in"),
    "chain-rule-scores-text": ({}, unnormalised_next, "not 1"),
    "max-likelihood-min-nll": ({}, linear_loss, "smallest negative log-likelihood"),
    "variance-mean-square": ({}, variance_as_mean_square, "equal, though"),
}

STATEMENT_FLIPS = [
    ("generation-keeps-parameters", {"params": "changes"}),
    ("bpe-merges-shorten-text", {"tokens": "increases"}),
    ("bigram-context-blind", {"effect": "changes"}),
    ("max-likelihood-min-nll", {"effect": "changes"}),
    ("variance-mean-square", {"always": "ensures"}),  # 总是: X = [1] has Var 0, E[X^2] 1
    ("variance-mean-square", {"only": "also"}),  # 不只: no other mean gives equality
    ("variance-mean-square", {"mean": "one"}),  # 均值为 1: Var = E[X^2] - 1 there
]


def test_every_statement_law_is_in_the_catalog_with_a_mutant() -> None:
    names = {s.name for s in specs()}
    assert names <= set(CATALOG)
    assert names == set(STATEMENT_MUTANTS)
    slots = {(s.name, p.name) for s in specs() for p in s.slots}
    assert slots == {(n, k) for n, flip in STATEMENT_FLIPS for k in flip}


@pytest.mark.parametrize("name", sorted(STATEMENT_MUTANTS))
def test_the_real_implementation_verifies(name: str) -> None:
    outcome = search(name, profile="ci")
    assert outcome.status == VERIFIED and not outcome.found, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(STATEMENT_MUTANTS))
def test_a_planted_bug_is_a_counterexample(name: str) -> None:
    params, mutant, fragment = STATEMENT_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.found and outcome.status == DISCREPANCY, outcome.text
    assert fragment in outcome.message, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), STATEMENT_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
