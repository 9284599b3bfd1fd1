"""Definitions printed once, checked against tinygpt (verifiers/formulacode.py): each
reference verifies the note's formula and fails a planted edit of it (a flipped sign, a
dropped or swapped factor, a wrong condition), and a claim reports it at the formula."""

from __future__ import annotations

import pytest

from tests.test_engine import check, project
from verifiers.formulacode import REFERENCES, _check, _Unread
from verifiers.latex import split_chains

# reference: (the note's formula, a planted wrong one)
FORMULAS = {
    "tinygpt-ffn": (r"FFN (x) = σ (x W_{1} + b_{1}) W_{2} + b_{2}",
                    r"FFN (x) = σ (x W_{1}) W_{2} + b_{2}"),
    "tinygpt-causal-mask": (
        r"M_{i j} = {\begin{cases} 0, & j \leq i \\ - \infty, & j > i \end{cases}",
        r"M_{i j} = {\begin{cases} 0, & j < i \\ - \infty, & j \geq i \end{cases}"),
    "tinygpt-sgd-old": (r"W_{Q}^{new} = W_{Q}^{old} - η \frac{\partial L}{\partial W_{Q}}",
                        r"W_{Q}^{new} = W_{Q}^{old} + η \frac{\partial L}{\partial W_{Q}}"),
    "tinygpt-sgd": (
        r"\begin{aligned} W_{Q}^{new} & = W_{Q} - η \frac{\partial L}{\partial W_{Q}} \\ "
        r"W_{out}^{new} & = W_{out} - η \frac{\partial L}{\partial W_{out}} \end{aligned}",
        r"\begin{aligned} W_{Q}^{new} & = W_{Q} - η \frac{\partial L}{\partial W_{Q}} \\ "
        r"W_{out}^{new} & = W_{out} - η \frac{\partial L}{\partial W_{Q}} \end{aligned}"),
    "tinygpt-sgd-scalar": (r"w_{new} = w_{old} - η \frac{d L}{d w}",
                           r"w_{new} = w_{old} - \frac{d L}{d w}"),
    "tinygpt-residual": (r"x_{new} = x + F (x)", r"x_{new} = x - F (x)"),
    "tinygpt-output-last": (r"ℓ = h_{n} W_{out} + b", r"ℓ = W_{out} h_{n} + b"),
    "tinygpt-output-rows": (r"ℓ_{i} = h_{i} U + b, p_{i} = softmax (ℓ_{i}) .",
                            r"ℓ_{i} = h_{i} U + b, p_{i} = softmax (- ℓ_{i}) ."),
    "tinygpt-positions": (r"{\tilde{x}}_{i} = x_{i} + p_{i}", r"{\tilde{x}}_{i} = x_{i}"),
}


def test_every_reference_has_a_planted_edit():
    assert set(FORMULAS) == set(REFERENCES)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_the_formula_agrees_with_tinygpt_and_its_edit_does_not(name):
    good, bad = FORMULAS[name]
    ref = REFERENCES[name]
    for seed in (0, 1):
        assert _check(split_chains(good), ref, ref.make(seed)) is None, name
    found = _check(split_chains(bad), ref, ref.make(0))
    assert found is not None and found[1], (name, found)


def test_a_formula_about_something_else_is_not_read():
    ref = REFERENCES["tinygpt-ffn"]
    with pytest.raises(_Unread):  # y is not what tinygpt's ffn computes
        _check(split_chains(r"y = σ (x W_{1} + b_{1}) W_{2} + b_{2}"), ref, ref.make(0))
    with pytest.raises(_Unread):  # an input the reference does not have
        _check(split_chains(r"FFN (x) = σ (x W_{1} + b_{1}) W_{3} + b_{2}"), ref, ref.make(0))


def test_a_claim_reports_the_edited_formula_at_its_line(tmp_path, capsys):
    good, bad = FORMULAS["tinygpt-ffn"]
    note = f"第一个 FFN 可以写成：\n{good}\n另一个 FFN 可以写成：\n{bad}\n"
    claims = "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {cid}\n    kind: symbolic\n    text: |\n      {lead} FFN 可以写成：\n"
        f"      ⟪F⟫\n    reference: {{F: tinygpt-ffn}}\n"
        for cid, lead in (("ok", "第一个"), ("bad", "另一个")))
    _, out, data = check(project(tmp_path, claims, note), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["ok"]["status"] == "verified", out
    assert by_id["bad"]["status"] == "discrepancy", out
    assert "n.txt:4:1: discrepancy" in out and "tinygpt.model.ffn" in out, out
