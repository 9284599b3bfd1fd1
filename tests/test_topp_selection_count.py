"""A top-p question whose threshold now keeps another number of tokens (issue 12 item 3, the
held-out edit h-pg-mbm-quiz-topp-threshold): the answer's printed selection is judged entry by
entry, never a shape ``error`` of the claim, so the copies of the threshold are compared too
and the edited question is flagged at its line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
MBM = "matrix-by-matrix.txt"


def _run(tmp_path: Path, find: str, replace: str, prefix: str) -> dict:
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "notes", notes)
    path = notes / MBM
    text = path.read_text(encoding="utf-8")
    assert text.count(find) == 1
    path.write_text(text.replace(find, replace), encoding="utf-8")
    with profiles.default("ci"):
        result = run(notes, ROOT / "claims", lambda c: c.id.startswith(prefix))
    return {v.id: v for v in result.verdicts}


def _line(find: str) -> int:
    text = (ROOT / "notes" / MBM).read_text(encoding="utf-8")
    return text[:text.index(find)].count("\n") + 1


def test_a_threshold_that_keeps_fewer_tokens_is_a_discrepancy_at_the_question(
        tmp_path: Path) -> None:
    find = "[0.50, 0.25, 0.15, 0.10]，TopP=0.8"
    verdicts = _run(tmp_path, find, "[0.50, 0.25, 0.15, 0.10]，TopP=0.7", "mbm-quiz-5")
    assert all(v.status != "error" for v in verdicts.values())
    answer = {v.name: v for v in verdicts["mbm-quiz-5-answer"].values}
    assert answer["n"].status == "discrepancy" and float(answer["n"].expected) == 2
    assert answer["sel[2]"].status == "discrepancy"
    question = verdicts["mbm-quiz-5-question"]
    assert question.status == "discrepancy" and question.where[0] == _line(find)


@pytest.mark.parametrize(("find", "replace", "claim", "hole"), [
    ("TopP = 0.9（累积90%）", "TopP = 0.8（累积80%）", "mbm-10-2-topp", "n"),
    ("设定 TopK = 3：", "设定 TopK = 2：", "mbm-9-2-topk", "K"),
])
def test_another_count_is_a_discrepancy_not_a_shape_error(tmp_path: Path, find: str,
                                                         replace: str, claim: str,
                                                         hole: str) -> None:
    verdict = _run(tmp_path, find, replace, claim)[claim]
    assert verdict.status == "discrepancy", verdict.message
    assert any(v.name == hole and v.status == "discrepancy" for v in verdict.values), \
        [(v.name, v.status) for v in verdict.values]
