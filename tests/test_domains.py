"""Ranges and typical values checked against their quantity's domain (issue 12 item 3):
planted out-of-domain edits of the real note are a discrepancy at the edited value."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from tests.note_edits import run_edited
from verifiers.notation.domains import Domain, domains, outside, value_of

MBM = "matrix-by-matrix.txt"


def test_domains_yaml_is_well_formed_with_chinese_and_english_names() -> None:
    table = domains()
    assert {"probability", "top-p", "top-k", "temperature", "dropout", "cosine"} <= set(table)
    for d in table.values():
        assert any(re.search(r"[\u4e00-\u9fff]", n) for n in d.names), d.id
        assert any(re.fullmatch(r"[A-Za-z _\-]+", n) for n in d.names), d.id


@pytest.mark.parametrize(("domain", "value", "out"), [
    ("probability", 1.0, False), ("probability", 1.5, True), ("probability", -0.1, True),
    ("top-p", 100.0, True), ("top-k", 2.5, True), ("top-k", 0.0, True), ("top-k", 40.0, False),
    ("temperature", 0.0, True), ("temperature", 0.7, False), ("temperature-setting", 0.0, False),
    ("dropout", 1.0, True), ("dropout", 0.1, False), ("cosine", -1.2, True),
    ("learning-rate", 0.0, True), ("learning-rate", 0.1, False)])
def test_outside(domain: str, value: float, out: bool) -> None:
    assert outside(domains()[domain], value) is out


def test_value_of_reads_percentages_as_fractions() -> None:
    assert value_of("90%") == pytest.approx(0.9)
    assert value_of(" 0.95 ") == 0.95
    assert value_of("−0.5") == -0.5
    assert value_of("1 / 2") is None
    assert Domain("x", ("x",), 0, math.inf, lo_open=True).text() == "(0, ∞)"


def test_unknown_domain_is_a_claim_error(tmp_path: Path) -> None:
    from verifiers.run import load_claims

    folder = tmp_path / "matrix-by-matrix"
    folder.mkdir()
    (folder / "x.yaml").write_text(
        "note: matrix-by-matrix.txt\nclaims:\n  - id: x-1\n    kind: given\n"
        "    says: s\n    text: 'TopP=⟨p⟩ 会继续'\n    domain: {p: nonsense}\n", encoding="utf-8")
    claims, problems = load_claims(tmp_path, {MBM}, [])
    messages = [p.message for c in claims for p in c.problems] + [p.message for p in problems]
    assert any("domain: p" in m and "top-p" in m for m in messages), messages


# (claim, find, replace, whether the edit leaves the note in the domain)
EDITS = [
    ("mbm-87-11-1-common-ranges", "1 ~ 100 │ 0.0 ~ 1.0", "1 ~ 100 │ 0 ~ 100", False),
    ("mbm-87-11-1-common-ranges", "1 ~ 100 │ 0.0 ~ 1.0", "1 ~ 100 │ 0% ~ 100%", True),
    ("mbm-87-11-1-common-ranges", "│ 0.0 ~ 2.0 │", "│ -1.0 ~ 2.0 │", False),
    ("mbm-87-11-1-common-ranges", "│ 0.0 ~ 2.0 │ 1 ~ 100", "│ 0.0 ~ 2.0 │ 0 ~ 100", False),
    ("mbm-87-11-1-defaults", "0.9 / 0.95 │", "0.9 / 95 │", False),
    ("mbm-87-11-1-defaults", "│ 1 (贪婪) │", "│ 1.5 (贪婪) │", False),
    ("mbm-87-11-1-defaults", "│ 默认值 │ 1.0 │", "│ 默认值 │ 0 │", False),
    ("mbm-87-11-2-scenarios", "│ 代码生成 │ 0.0~0.3 │ 1.0 │", "│ 代码生成 │ 0.0~0.3 │ 10 │", False),
    ("mbm-87-11-2-scenarios", "│ 正式邮件 │ 0.3~0.5 │ 0.9 │ 50 │",
     "│ 正式邮件 │ 0.3~0.5 │ 0.9 │ 0 │", False),
    ("mbm-87-9-3-k-ranges", "- K=10~50：", "- K=0~50：", False),
    ("mbm-87-quiz-4-temperature", "当 Temperature = 0.5 时", "当 Temperature = -0.5 时", False),
    ("mbm-87-10-4-topp", "- TopP=0.9 会继续往下选", "- TopP=9 会继续往下选", False),
    ("mbm-87-10-4-topp", "直到覆盖90%", "直到覆盖190%", False),
    ("mbm-87-10-2-topp", "TopP = 0.9（累积90%）", "TopP = 90（累积90%）", False),
]


@pytest.mark.parametrize(("claim", "find", "replace", "fine"), EDITS,
                         ids=[f"{c}:{r}" for c, _, r, _ in EDITS])
def test_planted_out_of_domain_value_is_a_discrepancy_at_its_line(
        tmp_path: Path, claim: str, find: str, replace: str, fine: bool) -> None:
    verdict, line = run_edited(tmp_path, claim, MBM, find, replace)
    if fine:
        assert verdict.status == "verified", verdict.message
        return
    assert verdict.status == "discrepancy", verdict.message
    assert verdict.where is not None and verdict.where[0] == line
    assert "outside the domain" in verdict.message and "domains.yaml" in verdict.message
