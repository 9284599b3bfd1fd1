"""Comparison, count and condition words read as laws (laws8, issue 12 item 1).

``RELATION_MUTANTS`` joins test_properties.MUTANTS (every law catches a planted bug at the
parameters the claims search). Each changed word of an invented note, Chinese and English, is
judged at its line: a false comparison, count or condition fails with its counterexample,
a word outside the vocabulary is ``unparsed``, and the true sentences verify.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.note_edits import check_in
from verifiers import words
from verifiers.cli import main
from verifiers.properties import laws_components as lc
from verifiers.properties import laws_relations as lr
from verifiers.properties.runner import search
from verifiers.properties.specs_relations import specs
from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED


def lowered(name: str, s: torch.Tensor, y: int) -> torch.Tensor:
    """Every quantity one lower: exp(0) - 1 = 0 is no longer > 0, softmax may go negative."""
    return lr.quantity_values(name, s, y) - 1.0


def broadcasting(operation: str, a: int, b: int) -> bool:
    """An operation that pads the shorter operand: defined whatever the sizes."""
    return True


def peeking(name: str, x: torch.Tensor) -> torch.Tensor:
    """Every component also reads the last row: nothing is causal any more."""
    return lc.component_output(name, x) + 0.5 * x[-1:, :]


RELATION_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "quantity-compare": ({}, lowered, " not "),
    "shapes-agree": ({}, broadcasting, "is defined"),
    "component-condition": ({}, peeking, " is not "),
    "component-cause": ({}, peeking, " is not "),
}

RELATION_FLIPS = [
    ("quantity-compare", {"relation": "less"}),  # exp(0) = 1 is not < 0
    ("quantity-compare", {"relation": "much_greater"}),  # exp(-30) is not 10x above 0
    ("quantity-compare", {"quantity": "softmax", "relation": "less", "bound": "one"}),  # n = 1
    ("quantity-compare", {"quantity": "tanh", "relation": "greater"}),
    ("shapes-agree", {"count": "different"}),  # (2 x 2)(3 x 3) is undefined
    ("component-condition", {"contrast": "softmax"}),  # softmax is causal too: not necessary
    ("component-condition", {"component": "attention", "condition": "sufficient"}),
    ("component-condition", {"trait": "per_position"}),  # masked attention reads the past
    ("component-cause", {"so": "scale_invariant"}),  # a cancelled factor is no reason for it
    ("component-cause", {"component": "relu"}),  # the cause does not hold on ReLU
    ("component-cause", {"component": "layernorm", "because": "mean_removed",
                         "so": "unit_variance"}),  # subtracting the mean explains no spread
]


def test_the_laws8_laws_are_in_the_catalog_with_a_mutant() -> None:
    assert {s.name for s in specs()} == set(RELATION_MUTANTS)


@pytest.mark.parametrize("name", sorted(RELATION_MUTANTS))
def test_the_true_law_verifies(name: str) -> None:
    assert search(name, profile="ci").status == VERIFIED


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(RELATION_MUTANTS))
def test_a_planted_bug_is_caught(name: str) -> None:
    params, mutant, fragment = RELATION_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.status == DISCREPANCY and fragment in outcome.text, outcome.text


@pytest.mark.usefixtures("first_counterexample")
@pytest.mark.parametrize(("name", "flip"), RELATION_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY and outcome.found, outcome.text


@pytest.mark.parametrize(("relation", "a", "b", "holds"), [
    ("less", 1.0, 2.0, True), ("less", 2.0, 2.0, False), ("greater", 0.1, 0.0, True),
    ("approx", 1.04, 1.0, True), ("approx", 1.2, 1.0, False), ("approx", 0.04, 0.0, True),
    ("much_less", 0.05, 1.0, True), ("much_less", 0.5, 1.0, False),
    ("much_greater", 10.0, 1.0, True), ("much_greater", 5.0, 1.0, False),
    ("much_greater", 9.0, 0.0, True), ("much_greater", 3.0, 0.0, False),
    ("much_less", -1.0, 0.0, True), ("much_less", -0.5, 0.0, False),
])
def test_each_relation_means_what_it_says(relation: str, a: float, b: float,
                                          holds: bool) -> None:
    assert (lr.compare_problem(torch.tensor([a], dtype=torch.float64), relation, b) is None) \
        == holds


@pytest.mark.parametrize(("cls", "word", "meaning"), [
    ("comparison", "远小于", "much_less"), ("comparison", "大于", "greater"),
    ("comparison", "约等于", "approx"), ("comparison", "much greater than", "much_greater"),
    ("count", "必须相等", "same"), ("count", "一样长", "same"), ("count", "可以不同", "different"),
    ("count", "must be equal", "same"), ("count", "may differ", "different"),
    ("condition", "只有当", "necessary"), ("condition", "只要", "sufficient"),
    ("condition", "当且仅当", "iff"), ("condition", "only if", "necessary"),
    ("reason", "公共指数因子会约去", "common_factor"), ("reason", "减去了均值", "mean_removed"),
    ("reason", "the mask hides the future", "future_masked"),
])
def test_the_words_mean_what_they_say(cls: str, word: str, meaning: str) -> None:
    assert words.meaning(cls, word) == meaning


NOTE = textwrap.dedent("""\
    第 1 章
    1.1 指数
    对任何实数，指数结果始终{rel} 0。
    1.2 形状
    矩阵相乘时，中间的两个维度{count}，否则乘法没有定义。
    1.3 掩码
    在解码器里，{cond}使用掩码注意力，输出才是因果的。
    1.4 English
    The sigmoid of any score is always {rel_en} 0.
    1.5 原因
    这里{comp}的输出{so}，因为它{why}。
    """)
CLAIMS = """\
note: n.txt
claims:
  - id: exp
    kind: property
    section: "1.1"
    says: exp is positive
    text: 对任何实数，指数结果始终⟦relation⟧ ⟦bound⟧。
    property: quantity-compare
  - id: inner
    kind: property
    section: "1.2"
    says: the inner sizes of a product must agree
    text: 矩阵相乘时，中间的两个维度⟦count⟧，否则
    property: shapes-agree
  - id: mask
    kind: property
    section: "1.3"
    says: the output is causal iff the attention is masked (unmasked attention is not causal)
    text: 在解码器里，⟦condition⟧使用⟦component⟧，输出才是⟦trait⟧的。
    property: component-condition
    params: {contrast: attention, condition: necessary}
  - id: english
    kind: property
    section: "1.4"
    says: sigmoid is positive
    text: The sigmoid of any score is always ⟦relation⟧ ⟦bound⟧.
    property: quantity-compare
    params: {quantity: sigmoid}
  - id: cause
    kind: property
    section: "1.5"
    says: LayerNorm is shift invariant because it subtracts the mean
    text: 这里⟦component⟧的输出⟦so⟧，因为它⟦because⟧。
    property: component-cause
"""
TRUE = {"rel": "大于", "count": "必须相等", "cond": "只有当", "rel_en": "greater than",
        "comp": "LayerNorm", "so": "平移不变", "why": "减去了均值"}


def run_note(tmp_path: Path, capsys: pytest.CaptureFixture[str], **said: str
             ) -> dict[str, dict]:
    return check_in(tmp_path, capsys, NOTE.format(**{**TRUE, **said}), CLAIMS)


def test_the_invented_sentences_verify(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    claims = run_note(tmp_path, capsys)
    assert {k: c["status"] for k, c in claims.items()} == dict.fromkeys(claims, VERIFIED)


@pytest.mark.parametrize(("said", "claim", "status", "line", "fragment"), [
    ({"rel": "小于"}, "exp", DISCREPANCY, 3, "not less than 0"),
    ({"rel": "远大于"}, "exp", DISCREPANCY, 3, "not much greater than 0"),
    ({"rel": "约等于"}, "exp", DISCREPANCY, 3, "not about equal to 0"),
    ({"rel": "不输于"}, "exp", UNPARSED, 3, "not in the vocabulary"),
    ({"count": "可以不同"}, "inner", DISCREPANCY, 5, "may differ"),
    ({"count": "不必相等"}, "inner", DISCREPANCY, 5, "may differ"),
    ({"cond": "只要"}, "mask", VERIFIED, 7, ""),  # sufficiency alone: still true
    ({"rel_en": "less than"}, "english", DISCREPANCY, 9, "not less than 0"),
    ({"so": "缩放不变"}, "cause", DISCREPANCY, 11, "no known reason"),  # the reason is wrong
    ({"comp": "Softmax"}, "cause", DISCREPANCY, 11, "the cause"),  # softmax keeps no mean 0
    ({"why": "经过了训练"}, "cause", UNPARSED, 11, "not in the vocabulary"),  # no known cause
])
def test_an_edited_relation_word_is_judged_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], said: dict[str, str], claim: str,
        status: str, line: int, fragment: str) -> None:
    got = run_note(tmp_path, capsys, **said)[claim]
    assert got["status"] == status, got
    if status != VERIFIED:
        hit = [v for v in got["values"] if v["status"] == status]
        assert hit and hit[0]["start"]["line"] == line, got
        assert fragment in hit[0]["message"], got


def test_a_condition_that_is_not_necessary_fails(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """只有当 … 才: the contrast (unmasked attention) must lack the trait; with 逐位置 as the
    trait neither attention has it, so the component named fails its sufficiency."""
    claims = CLAIMS.replace("params: {contrast: attention, condition: necessary}",
                            "params: {contrast: softmax, condition: necessary}")
    for sub in ("notes", "claims"):
        (tmp_path / sub).mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE.format(**TRUE), encoding="utf-8")
    (tmp_path / "claims" / "c.yaml").write_text(claims, encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    got = {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}["mask"]
    assert got["status"] == DISCREPANCY and "not necessary" in json.dumps(got), got


def own_row_only(name: str, x: torch.Tensor) -> torch.Tensor:
    """Attention that attends to its own position only: it mixes nothing."""
    return x.clone()


def test_mixing_is_looked_for_on_seeded_inputs() -> None:
    """`mixes` (attention exchanges information between positions) holds for both attentions,
    fails on a per-position component, and catches an attention that reads its own row only."""
    assert search("component-trait", {"component": "attention", "trait": "mixes"},
                  profile="ci").status == VERIFIED
    outcome = search("component-trait", {"component": "attention", "trait": "mixes"},
                     impl=own_row_only, profile="ci")
    assert outcome.status == DISCREPANCY and "is not mixing positions" in outcome.text
    assert words.meaning("trait", "信息交换") == "mixes"
    assert words.meaning("trait", "对每一行单独做") == "per_position"


def test_source_words_and_the_identity_path() -> None:
    """来自 is read from fixed text (class source: 不来自 is another meaning, so a claim quoting
    it judges the edit instead of going stale); 恒等 (identity) is no 恒 (always) cue."""
    from verifiers.meaning.statements import states_law

    assert words.meaning("source", "来自") == "from"
    assert words.meaning("source", "不来自") == "notfrom"
    assert words.meaning("source", "comes from") == "from"
    assert not states_law("所以梯度有一条恒等路径")
    assert states_law("第一位置只能读自己，权重恒为1")
