"""verifiers/backward/grammar.py: the subset of LaTeX a backward rule is read in, evaluated."""

from __future__ import annotations

import pytest
import torch

from verifiers.backward.grammar import RuleError, evaluate, split_top
from verifiers.backward.rules import read_rules

F64 = torch.float64


def test_entries_sums_over_a_set_and_indicators():
    A = torch.tensor([[0.5, 0.5], [0.25, 0.75]], dtype=F64)
    J = torch.tensor([[True, False], [True, True]])
    env = {"A": A, "J": J, "y": 1, "p": torch.tensor([0.2, 0.8], dtype=F64)}
    assert evaluate(r"\sum_{r \in J_{i}} a_{i r}", env, {"i": 0}) == 0.5  # only r = 0 allowed
    assert evaluate(r"\sum_{r \in J_{i}} a_{i r}", env, {"i": 1}) == 1.0
    assert evaluate(r"\sum_{r} a_{i r}", env, {"i": 0}) == 1.0
    assert evaluate(r"p_{j} - 1_{j = y}", env, {"j": 1}) == pytest.approx(-0.2)
    assert evaluate(r"p_{j} - 1_{j = y}", env, {"j": 0}) == pytest.approx(0.2)
    assert evaluate(r"δ_{j l}", env, {"j": 1, "l": 1}) == 1.0


def test_vectors_hats_means_differentials_and_functions():
    x = torch.tensor([1.0, 2.0, 4.0], dtype=F64)
    env = {"x": x, "xhat": x / 2, "dx": torch.ones(3, dtype=F64), "dμ": torch.tensor(1.0),
           "σ": torch.exp, "σ'": torch.exp, "B": x}
    assert torch.equal(evaluate(r"\hat{x} ⊙ x", env), x * x / 2)
    assert evaluate("mean (x) 1", env).item() == pytest.approx(7 / 3)
    assert evaluate("2 d μ", env).item() == 2.0
    assert evaluate("mean (d x)", env).item() == 1.0
    assert torch.equal(evaluate(r"σ^{'} (B)", env), torch.exp(x))
    assert torch.equal(evaluate(r"\frac{1}{2} [x - 1]", env), (x - 1) / 2)


def test_what_is_not_in_the_subset_is_refused_never_guessed():
    env = {"A": torch.ones(2, 3, dtype=F64), "J": torch.ones(2, 2, dtype=torch.bool)}
    for latex, why in [(r"\int A", "cannot read"), ("A A", "do not multiply"),
                       (r"\sum_{r} A", "indexes nothing"), ("a_{i j}", "unknown name"),
                       (r"\frac{\partial z_i}{\partial x_j}", "no derivative"),
                       ("A ⊙ A^{T}", "⊙ of shapes"), ("(A", "ends too early"),
                       ("A)", "unexpected")]:
        with pytest.raises(RuleError, match=why):
            evaluate(latex, env)


def test_rules_are_split_at_top_level_commas_only():
    assert split_top(r"a, f(b, c), d \, e", ",") == [(0, 1), (2, 10), (11, 18)]
    rules = read_rules(r"\bar{V} = A^{T} \bar{Z}, \bar{Q} = \bar{S} K, R = X + Z",
                       {"Vbar", "Qbar"})
    assert [(r.key, r.sides) for r in rules] == [("Vbar", (r"A^{T} \bar{Z}",)),
                                                 ("Qbar", (r"\bar{S} K",))]
