"""15.3's backward rules read from the note: an edited rule, or edited code, fails at that rule."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tinygpt import backward as bw
from tinygpt.examples.backward_rules import rules_findings
from verifiers.backward_rules import RuleError, evaluate, read_rules

NOTE = Path(__file__).resolve().parent.parent / "notes" / "architecture-and-training.txt"


def block() -> str:
    text = NOTE.read_text(encoding="utf-8")
    start = text.index("对输出 $ℓ = h U + b$")
    end = text.index("\n", text.index(r"\bar{X} = \bar{R} +"))
    return text[start:end]


def statuses(text: str) -> dict[str, str]:
    return {f.name: f.status for f in rules_findings(text, "", 1)}


def test_every_printed_rule_is_read_and_agrees_with_autograd_and_the_code():
    got = statuses(block())
    assert len(got) == 13 and set(got.values()) == {"verified"}, got
    skipped = [r for r in read_rules(block()) if isinstance(r, tuple)]
    assert [r[3].split(" =")[0] for r in skipped] == [r"{\bar{S}}_{i j}"]  # entry-wise


@pytest.mark.parametrize("printed, edited, lhs", [
    (r"\bar{V} = A^{T} \bar{Z}", r"\bar{V} = A \bar{Z}", r"\bar{V}"),  # a transpose dropped
    (r"\bar{R} + \bar{Q} W_{Q}^{T}", r"\bar{R} - \bar{Q} W_{Q}^{T}", r"\bar{X}"),  # a sign
    (r"\bar{K} = {\bar{S}}^{T} Q / \sqrt{d_{k}}", r"\bar{K} = {\bar{S}}^{T} Q", r"\bar{K}"),
    (r"\bar{h} = \bar{ℓ} U^{T}", r"\bar{h} = \bar{ℓ} U^{T} U^{T}", r"\bar{h}"),  # shapes
])
def test_an_edited_rule_fails_at_that_rule(printed, edited, lhs):
    text = block()
    assert printed in text
    got = statuses(text.replace(printed, edited))
    bad = {k: v for k, v in got.items() if v != "verified"}
    assert len(bad) == 1, bad
    (name, status), = bad.items()
    assert name.startswith(f"rule {lhs} =")
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
    with pytest.raises(RuleError, match="cannot read"):
        evaluate(r"\sum_{r} A", env)
    assert torch.equal(evaluate("A B^{T} / 2", env), torch.full((2, 2), 1.5))
