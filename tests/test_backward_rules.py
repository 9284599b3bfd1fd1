"""15.3's backward rules read from the note: an edited rule, or edited code, fails at that rule."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tinygpt import backward as bw
from tinygpt.examples.backward_rules import rules_findings
from verifiers.backward.grammar import RuleError, evaluate

NOTE = Path(__file__).resolve().parent.parent / "notes" / "architecture-and-training.txt"


def block() -> str:
    text = NOTE.read_text(encoding="utf-8")
    start = text.index("用上横线表示")
    end = text.index("\n", text.index(r"\bar{X} = \bar{R} +"))
    return text[start:end]


def statuses(text: str) -> dict[str, str]:
    return {f.name: f.status for f in rules_findings(text, "", 1)}


def test_every_printed_rule_is_read_and_agrees_with_autograd_and_the_code():
    got = statuses(block())
    # dL = Σ X̄ dX, 13 matrix rules, the inline ∂L/∂U_rj, the entry-wise S̄ rule, the forbidden 0
    assert len(got) == 17 and set(got.values()) == {"verified"}, got
    assert any(name.startswith(r"rule {\bar{S}}_{i j} = a_{i j}") for name in got)


@pytest.mark.parametrize("printed, edited, lhs", [
    (r"\bar{V} = A^{T} \bar{Z}", r"\bar{V} = A \bar{Z}", r"\bar{V}"),  # a transpose dropped
    (r"\bar{R} + \bar{Q} W_{Q}^{T}", r"\bar{R} - \bar{Q} W_{Q}^{T}", r"\bar{X}"),  # a sign
    (r"\bar{K} = {\bar{S}}^{T} Q / \sqrt{d_{k}}", r"\bar{K} = {\bar{S}}^{T} Q", r"\bar{K}"),
    (r"\bar{h} = \bar{ℓ} U^{T}", r"\bar{h} = \bar{ℓ} U^{T} U^{T}", r"\bar{h}"),  # shapes
    # the entry-wise softmax rule: a sign, a swapped index, a dropped term, a dropped factor
    (r"- \sum_{r \in J_{i}}", r"+ \sum_{r \in J_{i}}", r"{\bar{S}}_{i j}"),
    (r"a_{i r} {\bar{A}}_{i r})", r"a_{r i} {\bar{A}}_{i r})", r"{\bar{S}}_{i j}"),
    (r"({\bar{A}}_{i j} - \sum_{r \in J_{i}} a_{i r} {\bar{A}}_{i r})", r"{\bar{A}}_{i j}",
     r"{\bar{S}}_{i j}"),
    (r"= a_{i j} ({\bar{A}}", r"= ({\bar{A}}", r"{\bar{S}}_{i j}"),
    (r"J_{i}}", r"J_{j}}", r"{\bar{S}}_{i j}"),
    (r"d X_{i r}", r"d X_{r i}", "d L"),  # the bar's definition: an index swapped
    (r"{\bar{X}}_{i r} d X", r"- {\bar{X}}_{i r} d X", "d L"),  # a sign
])
def test_an_edited_rule_fails_at_that_rule(printed, edited, lhs):
    text = block()
    assert printed in text
    got = statuses(text.replace(printed, edited))
    bad = {k: v for k, v in got.items() if v != "verified"}
    assert len(bad) == 1, bad
    (name, status), = bad.items()
    assert name.startswith(f"rule {lhs} =")
    line = next(f.line for f in rules_findings(text.replace(printed, edited), "", 1)
                if f.name == name)
    assert edited.split(" =")[0].split("(")[0].strip() in text.replace(
        printed, edited).splitlines()[line - 1]  # the finding sits on the edited rule's line
    assert status in ("discrepancy", "unparsed")


def test_code_that_departs_from_the_printed_rule_fails_at_that_rule(monkeypatch):
    real = bw.attention_module_backward

    def planted(*args, **kwargs):
        out = real(*args, **kwargs)
        out["W_O"] = out["W_O"] * 1.01  # a slip in {\bar{W}}_{O}
        return out

    monkeypatch.setattr(bw, "attention_module_backward", planted)
    findings = {f.name: f for f in rules_findings(block(), "", 1)}
    wrong = findings[r"rule {\bar{W}}_{O} = Z^{T} \bar{R}"]
    assert wrong.status == "discrepancy" and "tinygpt/backward.py computes another" in \
        wrong.message
    assert sum(f.status != "verified" for f in findings.values()) == 1


def test_a_softmax_backward_bug_in_the_code_fails_at_the_s_rule(monkeypatch):
    real = bw.softmax_rows_backward

    def planted(A, A_bar, allowed=None):  # the row sum taken over the column instead
        out = real(A, A_bar, allowed)
        inner = (A * A_bar).sum(dim=0, keepdim=True)
        return (A * (A_bar - inner)).masked_fill(~allowed, 0.0) if allowed is not None else out

    monkeypatch.setattr(bw, "softmax_rows_backward", planted)
    bad = {f.name: f for f in rules_findings(block(), "", 1) if f.status != "verified"}
    s_rule = next(n for n in bad if n.startswith(r"rule {\bar{S}}_{i j}"))
    assert "tinygpt/backward.py computes another" in bad[s_rule].message


def test_the_forbidden_zero_is_read():
    got = statuses(block().replace("被禁止位置梯度为0", "被禁止位置梯度为1"))
    assert got["rule Sbar_forbidden = 1"] == "discrepancy"


def test_a_rule_the_note_no_longer_prints_is_an_error():
    text = block().replace(r", \bar{b} = \bar{ℓ}", "")
    got = statuses(text)
    assert got["rule bbar"] == "error"


def test_the_reader_refuses_what_it_cannot_read():
    env = {"A": torch.ones(2, 3), "B": torch.ones(2, 3)}
    with pytest.raises(RuleError, match="do not multiply"):
        evaluate("A B", env)
    with pytest.raises(RuleError, match="unknown name"):
        evaluate("A C^{T}", env)
    with pytest.raises(RuleError, match="indexes nothing"):
        evaluate(r"\sum_{r} A", env)
    with pytest.raises(RuleError, match="cannot read"):
        evaluate(r"A \int B", env)
    assert torch.equal(evaluate("A B^{T} / 2", env), torch.full((2, 2), 1.5))
