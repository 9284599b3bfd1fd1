"""Model claims: a tinygpt example run from note values, with local/global verdicts."""

from __future__ import annotations

import pytest
import torch

from tests.test_engine import check, project
from tinygpt.examples import EXAMPLES


@pytest.fixture(autouse=True)
def softmax_example(monkeypatch: pytest.MonkeyPatch) -> None:
    def softmax_pair(s: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"p": torch.softmax(s, dim=0)}

    monkeypatch.setitem(EXAMPLES, "test-softmax", softmax_pair)


NOTE = "分数 s = (1, 0)\n比例 (0.731059, 0.268941)\n再写一遍 0.7311\n"
CLAIMS = """note: n.txt
claims:
  - id: probs
    kind: model
    text: |
      分数 s = ⟨s⟩
      比例 ⟨p⟩
    run:
      example: test-softmax
      inputs: {s: s}
      outputs: [out]
    check: {p: out}
  - id: again
    text: 再写一遍 ⟨a⟩
    uses: {p: probs.p}
    check: {a: "p[0]"}
"""


def _claims() -> str:
    return CLAIMS.replace("outputs: [out]", "outputs: {probs_out: p}").replace(
        "check: {p: out}", "check: {p: probs_out}")


def test_model_run_verdicts(tmp_path, capsys):
    code, out, data = check(project(tmp_path, _claims(), NOTE), capsys)
    assert code == 0, out
    assert data["claims"][0]["kind"] == "model"


def test_model_run_catches_a_wrong_digit(tmp_path, capsys):
    note = NOTE.replace("0.268941", "0.268942")
    code, out, data = check(project(tmp_path, _claims(), note), capsys)
    assert code == 1 and "printed (0.731059, 0.268942)" in out


def test_local_check_propagates_printed_rounding_through_the_model(tmp_path, capsys):
    # Downstream restates p[0] to 4 digits: 0.7311 is right; 0.7312 is a slip.
    assert check(project(tmp_path, _claims(), NOTE), capsys)[0] == 0
    code, out, _ = check(project(tmp_path / "b", _claims(), NOTE.replace("0.7311", "0.7312")),
                         capsys)
    assert code == 1 and "again" in out


def test_unknown_example_is_an_error(tmp_path, capsys):
    claims = _claims().replace("example: test-softmax", "example: test-softmaks")
    code, out, _ = check(project(tmp_path, claims, NOTE), capsys)
    assert code == 1
    assert "unknown model example 'test-softmaks' (did you mean 'test-softmax'?)" in out


def test_run_needs_kind_model(tmp_path, capsys):
    code, out, _ = check(project(tmp_path, _claims().replace("    kind: model\n", ""), NOTE),
                         capsys)
    assert code == 1 and "'run' needs kind: model" in out


def test_run_can_read_the_quoted_note_text(tmp_path, capsys, monkeypatch):
    def count_lines(text: str) -> dict[str, torch.Tensor]:
        return {"n": torch.tensor(float(len(text.splitlines())), dtype=torch.float64)}

    monkeypatch.setitem(EXAMPLES, "test-lines", count_lines)
    note = "print(1)\nprint(2)\n# 3 lines\n"
    claims = """note: n.txt
claims:
  - id: prog
    kind: model
    text: |
      print(1)
      print(2)
      # ⟨n⟩ lines
    run: {example: test-lines, text: true, outputs: {lines: n}}
    check: {n: lines}
"""
    assert check(project(tmp_path, claims, note), capsys)[0] == 0
    code, out, _ = check(project(tmp_path / "b", claims, note.replace("# 3", "# 4")), capsys)
    assert code == 1


def test_a_run_without_holes_checks_nothing_and_its_failure_is_an_error(tmp_path, capsys,
                                                                   monkeypatch):
    def formula_check(text: str) -> dict[str, torch.Tensor]:
        if "p_j - y_j" not in text:
            raise ValueError("the printed formula disagrees with autograd")
        return {}

    monkeypatch.setitem(EXAMPLES, "test-formula", formula_check)
    claims = """note: n.txt
claims:
  - id: formula
    kind: model
    text: "梯度 g_j = p_j - y_j"
    run: {example: test-formula, text: true, outputs: []}
"""
    note = "梯度 g_j = p_j - y_j\n"
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert code == 1 and data["claims"][0]["message"].startswith("checks nothing")  # it ran
    claims_b = claims.replace("p_j - y_j", "p_j + y_j")
    code, out, _ = check(project(tmp_path / "b", claims_b, note.replace("-", "+")), capsys)
    assert code == 1 and "disagrees with autograd" in out
