"""An edited input is the discrepancy, not its consumers (verifiers/arithmetic/suspects.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifiers.cli import main

NOTE = """第 1 章
1.1 更新
梯度 G = [0.3, -0.2]，学习率 η = 0.1 。
更新量 u = [-0.03, 0.02]
1.2 文字
第一个参数减小 0.03，第二个增加 0.02。
1.3 根
只有 4 维，标准差 √4 = 2
1.4 表
权重 W = [[0.3, -0.2], [-0.5, 0.1]]
步长 0.1，更新 [[-0.03, 0.02], [0.05, -0.01]]
各行之和 [-0.01, 0.04]
1.5 链
输入 x = 1.20
y = 2x = 2.40
z = y + 1 = 3.40
"""

CLAIMS = """note: n.txt
claims:
  - id: upd
    says: the update -eta G
    section: "1.1"
    text: |
      梯度 G = ⟨G⟩，学习率 η = ⟨eta⟩ 。
      更新量 u = ⟨u⟩
    check:
      u: -eta * G
  - id: words
    says: the update in words
    section: "1.2"
    text: 第一个参数减小 ⟨d0⟩，第二个增加 ⟨i1⟩。
    uses: {G: upd.G, eta: upd.eta}
    where:
      step: -eta * G
    check:
      d0: -step[0]
      i1: step[1]
  - id: root
    says: with n dimensions of variance 1 the standard deviation is sqrt(n)
    section: "1.3"
    text: 只有 ⟨n⟩ 维，标准差 √⟨vs⟩ = ⟨sd⟩
    check:
      vs: n * 1
      sd: sqrt(n)
  - id: chain
    says: y = 2x and z = y + 1
    section: "1.5"
    text: |
      输入 x = ⟨x⟩
      y = 2x = ⟨y⟩
      z = y + 1 = ⟨z⟩
    check:
      y: 2 * x
      z: y + 1
  - id: table
    says: the update of a 2x2 block
    section: "1.4"
    text: |
      权重 W = ⟨W⟩
      步长 ⟨h⟩，更新 ⟨U⟩
      各行之和 ⟨s⟩
    check:
      U: -h * W
      s: "[-h * (W[0, 0] + W[0, 1]), -h * (W[1, 0] + W[1, 1])]"
"""


def _project(tmp_path: Path, note: str) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict]]:
    code = main(["check", "--no-cache", "-j", "1", "--json", "out.json"])
    capsys.readouterr()
    data = json.loads(Path("out.json").read_text(encoding="utf-8"))
    return code, {c["id"]: c for c in data["claims"]}


def _value(claim: dict, name: str) -> dict:
    return next(v for v in claim["values"] if v["name"] == name)


def test_the_unedited_note_verifies(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, NOTE))
    code, by_id = _check(capsys)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


def test_an_edited_input_is_the_discrepancy_and_its_consumers_secondary(
        tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("η = 0.1 ", "η = 0.01 ")))
    code, by_id = _check(capsys)
    assert code == 1
    eta = _value(by_id["upd"], "eta")
    assert eta["status"] == "discrepancy" and eta["start"] == {"line": 3, "col": 28}
    assert eta["suggestion"] == "0.1"
    assert eta["message"] == ("eta: 0.01 at n.txt:3:28 is inconsistent with the 4 value(s) "
                              "computed from it (4:9, 6:9, 6:20); 0.1 makes them verify")
    for claim, name in (("upd", "u"), ("words", "d0"), ("words", "i1")):
        x = _value(by_id[claim], name)
        assert x["status"] == "discrepancy" and x["suggestion"] is None, x
        assert "secondary: computed from eta at n.txt:3:28 (upd)" in x["message"]
    assert by_id["words"]["root_cause"] == "upd"
    assert _value(by_id["upd"], "G")["status"] == "given"  # G would need 2 changes, eta 1


def test_fix_rewrites_the_input_not_its_consumers(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("η = 0.1 ", "η = 0.01 ")))
    assert main(["fix"]) == 0
    diff = capsys.readouterr().out
    assert [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")
            ] == ["-梯度 G = [0.3, -0.2]，学习率 η = 0.01 。",
                  "+梯度 G = [0.3, -0.2]，学习率 η = 0.1 。"]


def test_a_wrong_consumer_keeps_the_verdict(tmp_path, capsys, monkeypatch):
    # one consumer edited: solving eta for it would break the other consumers
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("更新量 u = [-0.03, 0.02]",
                                                      "更新量 u = [-0.05, 0.02]")))
    code, by_id = _check(capsys)
    assert code == 1
    assert _value(by_id["upd"], "eta")["status"] == "given"
    u = _value(by_id["upd"], "u")
    assert u["status"] == "discrepancy" and u["suggestion"] == "[-0.03, 0.02]"
    assert u["local"] == "wrong" and u["start"]["line"] == 4
    assert "secondary" not in u["message"]
    assert by_id["words"]["status"] == "verified"


def test_a_single_failing_consumer_names_no_suspect(tmp_path, capsys, monkeypatch):
    # √9 = 2: only vs fails (sd = √n = 2), and n or vs could equally be wrong
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("√4 = 2", "√9 = 2")))
    code, by_id = _check(capsys)
    assert code == 1
    assert _value(by_id["root"], "n")["status"] == "given"
    vs = _value(by_id["root"], "vs")
    assert vs["status"] == "discrepancy" and vs["suggestion"] == "4"


def test_an_input_under_a_root_is_solved_in_log_log(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("只有 4 维", "只有 16 维")))
    code, by_id = _check(capsys)
    assert code == 1
    n = _value(by_id["root"], "n")
    assert n["status"] == "discrepancy" and n["suggestion"] == "4"
    assert _value(by_id["root"], "sd")["suggestion"] is None


def test_transposed_entries_of_a_given_matrix(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("W = [[0.3, -0.2], [-0.5, 0.1]]",
                                                      "W = [[0.3, -0.5], [-0.2, 0.1]]")))
    code, by_id = _check(capsys)
    assert code == 1
    w = _value(by_id["table"], "W")
    assert w["status"] == "discrepancy" and w["start"]["line"] == 10
    assert w["suggestion"] == "[[0.3, -0.2], [-0.5, 0.1]]"
    assert _value(by_id["table"], "h")["status"] == "given"


def test_as_many_changes_as_failures_names_no_suspect(tmp_path, capsys, monkeypatch):
    # two entries of U transposed: fixing W would take two changes for two failures
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("[[-0.03, 0.02], [0.05, -0.01]]",
                                                      "[[-0.03, 0.05], [0.02, -0.01]]")))
    code, by_id = _check(capsys)
    assert code == 1
    assert _value(by_id["table"], "W")["status"] == "given"
    u = _value(by_id["table"], "U")
    assert u["status"] == "discrepancy" and u["local"] == "wrong"


def test_an_inherited_failure_is_no_evidence(tmp_path, capsys, monkeypatch):
    # x edited: y's own step fails, z = y + 1 is right from the printed y. x (one change,
    # two failures) and y (its own step) are both explanations: the step keeps the verdict.
    monkeypatch.chdir(_project(tmp_path, NOTE.replace("输入 x = 1.20", "输入 x = 1.25")))
    code, by_id = _check(capsys)
    assert code == 1
    assert _value(by_id["chain"], "x")["status"] == "given"
    y = _value(by_id["chain"], "y")
    assert y["status"] == "discrepancy" and y["local"] == "wrong"


def test_the_trials_keep_the_run_s_budget(tmp_path):
    """The trials re-evaluate claims within the run's budget: with none left, no input is
    put on trial (the consumers keep their own verdicts); with the default, eta is named."""
    from verifiers.arithmetic.suspects import attribute
    from verifiers.budget import Budget
    from verifiers.engine import Engine
    from verifiers.run import load_claims, load_notes

    root = _project(tmp_path, NOTE.replace("η = 0.1 ", "η = 0.01 "))
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))

    def eta_status(budget: Budget) -> str:
        engine = Engine(notes, claims)
        verdicts = [engine.verdict(c.id) for c in claims]
        upd = next(v for v in attribute(verdicts, claims, notes, budget) if v.id == "upd")
        return next(x.status for x in upd.values if x.name == "eta")

    assert eta_status(Budget()) == "discrepancy"
    assert eta_status(Budget(run_seconds=0.0)) != "discrepancy"
