"""15.2, 15.5 and lesson1 §7: each printed backward rule is read from the note, so a planted
edit of a rule (a sign, a transpose, a factor, an index, a term) fails at that rule's line,
and a bug planted in tinygpt/backward.py fails at the rule the code departs from."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tinygpt import backward as bw
from tinygpt.examples import backward_read as br

NOTES = Path(__file__).resolve().parent.parent / "notes"
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
AAT = (NOTES / "architecture-and-training.txt").read_text(encoding="utf-8")
L1 = (NOTES / "lesson1-text-to-distribution.txt").read_text(encoding="utf-8")


def _block(text: str, start: str, end: str) -> str:
    """The lines from the one holding ``start`` to the first one holding ``end`` (the code
    hole's block)."""
    a = text.rindex("\n", 0, text.index(start)) + 1
    return text[a:text.index("\n", text.index(end, a))]


BLOCKS = {
    "15.2": (br.softmax_ce_findings, _block(AAT, "对第j个分数求导", "因此即使输出")),
    "ffn": (br.ffn_findings, _block(AAT, "FFN可设", "符号")),
    "ln": (br.layer_norm_findings, _block(AAT, "LayerNorm也可逐步求导", "mean沿这一个位置")),
    "l1": (br.bigram_findings, _block(L1, "反向：三个梯度", "就累加几次")),
    "chain": (br.chain_rule_findings, _block(L1, "若 $L$ 依赖", "$$")),
}
RULES = {"15.2": 1, "ffn": 8, "ln": 9, "l1": 8, "chain": 1}


def findings(which: str, find: str = "", replace: str = ""):
    fn, text = BLOCKS[which]
    if find:
        assert text.count(find) == 1, find
        text = text.replace(find, replace)
    return text, fn(text, "", 1)


@pytest.mark.parametrize("which", sorted(BLOCKS))
def test_every_printed_rule_is_read_and_agrees(which):
    _, got = findings(which)
    assert len(got) == RULES[which]
    assert {f.status for f in got} == {"verified"}, [(f.name, f.message) for f in got]


# (block, printed, edited): each edit makes the rule false
EDITS = [
    ("15.2", "p_{j} - 1_{j = y}", "p_{j} + 1_{j = y}"),  # sign
    ("15.2", "p_{j} - 1_{j = y}", "p_{y} - 1_{j = y}"),  # swapped index
    ("15.2", "p_{j} - 1_{j = y}", "p_{j} - 2_{j = y}"),  # factor
    ("ffn", r"\bar{B} = \bar{C} ⊙ σ^{'} (B)", r"\bar{B} = \bar{C} ⊙ σ (B)"),  # σ for σ'
    ("ffn", r"{\bar{W}}_{1} = X^{T} \bar{B}", r"{\bar{W}}_{1} = X \bar{B}"),  # transpose
    ("ffn", r"\bar{C} = \bar{Y} W_{2}^{T}", r"\bar{C} = - \bar{Y} W_{2}^{T}"),  # sign
    ("ffn", "C = σ (B)", "C = σ (Y)"),  # a forward definition
    ("ln", r"\frac{1}{s} [", r"\frac{2}{s} ["),  # factor
    ("ln", "mean (u) 1 -", "mean (u) 1 +"),  # sign
    ("ln", r"- \hat{x} mean (u ⊙ \hat{x})]", "]"),  # a dropped term
    ("ln", r"\hat{x} mean (u ⊙ \hat{x})]", r"\hat{x} mean (u)]"),  # a dropped factor
    ("ln", "d v = 2 mean", "d v = mean"),  # factor
    ("ln", "d s = d v / (2 s)", "d s = d v / s"),  # factor
    ("ln", r"\sqrt{v + ε}", r"\sqrt{v}"),  # a dropped term
    ("ln", r"分别为 $g ⊙ \hat{x}$", "分别为 $g ⊙ x$"),  # γ̄ in words
    ("l1", r"p-\mathbf y", r"\mathbf y-p"),  # sign
    ("l1", r"x=e_i^\top E", r"x=e_i E"),  # the lookup's transpose dropped
    ("l1", r"它等于 $gW_U^\top$", "它等于 $gW_U$"),  # transpose
    ("l1", r"各样本 $x^\top g$", r"各样本 $g^\top x$"),  # swapped factors
    ("l1", r"把 $GW_U^\top$", r"把 $G^\top W_U$"),  # transpose moved
    ("l1", r"把 $GW_U^\top$", r"把 $GW_U^\top / 2$"),  # a stray factor
    ("l1", "其余各行梯度为 0", "其余各行梯度为 1"),
    ("l1", r"\frac1B\sum_bL_b", r"\sum_bL_b"),  # the mean's 1/B dropped
    # §0's chain rule: broken copies (swapped Jacobian, dropped sum, dropped factor, sign)
    ("chain", r"\frac{\partial z_i}{\partial x_j}.", r"\frac{\partial x_j}{\partial z_i}."),
    ("chain", r"=\sum_{i}", "="),
    ("chain", r"\,\frac{\partial z_i}{\partial x_j}", ""),
    ("chain", r"=\sum_{i}", r"=-\sum_{i}"),
    ("chain", r"\frac{\partial z_i}{\partial x_j}.", r"\frac{\partial z_j}{\partial x_i}."),
]


@pytest.mark.parametrize("which, printed, edited", EDITS,
                         ids=[f"{w}:{e}" for w, _, e in EDITS])
def test_an_edited_rule_fails_at_its_line(which, printed, edited):
    text, got = findings(which, printed, edited)
    bad = [f for f in got if f.status != "verified"]
    assert len(bad) == 1, [(f.name, f.status) for f in bad]
    (f,) = bad
    assert f.status in ("discrepancy", "unparsed")
    line = text.splitlines()[f.line - 1]
    assert edited.split("$")[-2 if "$" in edited else 0] in line  # at the edited line
    assert line[f.col:f.end_col].strip() and f.printed in line


def test_a_rule_the_block_no_longer_prints_is_an_error():
    _, got = findings("ffn", r", \bar{X} = \bar{B} W_{1}^{T}", "")
    assert [f.status for f in got if f.name == "rule Xbar"] == ["error"]


@pytest.mark.parametrize("which, target, key, slip", [
    ("15.2", "softmax_cross_entropy_grad", None, lambda out: out * 1.01),
    ("ffn", "ffn_backward", "B", lambda out: out.abs()),
    ("ln", "layer_norm_backward", "x", lambda out: out * 0.5),
    ("ln", "layer_norm_backward", "gamma", lambda out: -out),
    ("l1", "bigram_grads_batch", "U", lambda out: out * 2),
    ("l1", "bigram_grads", "z", lambda out: out + 0.1),
])
def test_a_bug_planted_in_the_code_fails_at_its_rule(monkeypatch, which, target, key, slip):
    real = getattr(bw, target)

    def planted(*args, **kwargs):
        out = real(*args, **kwargs)
        if slip is None:
            return out
        if key is None:
            return slip(out)
        return {**out, key: slip(out[key])}

    monkeypatch.setattr(bw, target, planted)
    _, got = findings(which)
    bad = [f for f in got if f.status != "verified"]
    if slip is None:
        assert not bad
        return
    assert bad and all("tinygpt/backward.py computes another" in f.message for f in bad)


def test_dE_without_accumulation_fails_at_the_batch_sentence(monkeypatch):
    """The note's warning: ``dE[cur] += dX`` keeps one contribution per repeated token."""
    real = bw.bigram_grads_batch

    def planted(E, U, b, cur, nxt):
        out = real(E, U, b, cur, nxt)
        dE = torch.zeros_like(out["E"])
        dE[torch.as_tensor(cur)] += out["X"]
        return {**out, "E": dE}

    monkeypatch.setattr(bw, "bigram_grads_batch", planted)
    text, got = findings("l1")
    (bad,) = [f for f in got if f.status != "verified"]
    assert bad.name == r"rule Ebar_batch = GW_U^\top"
    assert "加到第" in text.splitlines()[bad.line - 1]


def test_the_quantities_are_compared_with_independent_autograd():
    env, truth, code = br._layer_norm()
    assert torch.allclose(truth["xbar"], code["xbar"])
    # σ' comes from autograd, not from tinygpt's hand derivative
    env_f, _, _ = br._ffn()
    B = env_f["B"]
    _, hand = bw.activation_and_derivative("gelu", B)
    assert torch.allclose(env_f["σ'"](B), hand) and env_f["σ'"] is not hand


# ---------------------------------------------------------------- end to end, through notecheck

E2E = [  # (note, printed, edited, claim that must fail at the edited line)
    ("architecture-and-training.txt", r"- \sum_{r \in J_{i}} a_{i r}",
     r"+ \sum_{r \in J_{i}} a_{i r}", "aat-15-3-rules-read"),
    ("architecture-and-training.txt", "d v = 2 mean", "d v = mean",
     "aat-15-5-layer-norm-rules-read"),
    ("lesson1-text-to-distribution.txt", r"它等于 $gW_U^\top$", r"它等于 $gW_U^\top / 2$",
     "l1-7-rules-read"),
    ("lesson1-text-to-distribution.txt", r"=\sum_{i}\frac{\partial L}{\partial z_i}",
     r"=\frac{\partial L}{\partial z_i}", "l1-0-chain-rule-read"),
]


@pytest.mark.parametrize("note, printed, edited, cid", E2E, ids=[e[3] for e in E2E])
def test_an_edit_of_the_note_file_is_a_verdict_at_its_line(tmp_path, note, printed, edited, cid):
    """The claim reads the edited note file (no quote goes stale) and fails at the edited
    line; every other rule of its block stays verified."""
    import shutil

    from verifiers.run import run

    shutil.copytree(NOTES, tmp_path / "notes")
    path = tmp_path / "notes" / note
    text = path.read_text(encoding="utf-8")
    assert text.count(printed) == 1
    path.write_text(text.replace(printed, edited), encoding="utf-8")
    line = text[:text.index(printed)].count("\n") + 1
    result = run(tmp_path / "notes", NOTES.parent / "claims", lambda c: c.id == cid)
    (verdict,) = result.verdicts
    assert verdict.status in ("discrepancy", "unparsed"), (verdict.status, verdict.message)
    bad = [v for v in verdict.values if v.status != "verified"]
    assert [v.start[0] for v in bad] == [line], [(v.name, v.status, v.start) for v in bad]


def test_the_benchmark_corpus_of_backward_edits_is_well_formed():
    from benchmarks.backward_edits import load

    edits = load()
    assert len(edits) >= 8 and len({e.id for e in edits}) == len(edits)
    for edit in edits:
        text = (NOTES / edit.note).read_text(encoding="utf-8")
        assert text.count(edit.find) == 1, edit.id
        assert edit.apply(text)[0] != text
