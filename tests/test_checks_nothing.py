"""Issue 13 item 3: a claim that checks nothing is an error, unless it is ``kind: given``
(inputs only, covering nothing by itself); nothing is checked against itself."""

from __future__ import annotations

import json

import torch

from tests.test_engine import check, project
from tinygpt.examples import EXAMPLES
from verifiers.cli import main

INPUTS = """note: n.txt
claims:
  - id: ab
    section: "1.1"
    text: a = ⟨a⟩, b = ⟨b⟩
"""


def _claim(data: dict, cid: str) -> dict:
    return next(c for c in data["claims"] if c["id"] == cid)


def test_a_claim_that_checks_nothing_is_an_error(tmp_path, capsys):
    code, out, data = check(project(tmp_path, INPUTS), capsys)
    assert code == 1, out
    claim = _claim(data, "ab")
    assert claim["status"] == "error" and claim["message"].startswith("checks nothing")
    assert "claims/n/c.yaml:3:" in out


def test_kind_given_passes_and_covers_nothing_by_itself(tmp_path, capsys, monkeypatch):
    given = INPUTS.replace('    section: "1.1"\n', '    kind: given\n    section: "1.1"\n')
    code, out, data = check(project(tmp_path, given), capsys)
    assert code == 0, out
    claim = _claim(data, "ab")
    assert claim["status"] == "verified" and "nothing checked" in claim["message"]
    assert [v["status"] for v in claim["values"]] == ["given", "given"]
    monkeypatch.chdir(tmp_path)
    main(["coverage", "--json", "cov.json"])
    capsys.readouterr()
    cov = json.loads((tmp_path / "cov.json").read_text(encoding="utf-8"))["notes"][0]
    uncovered = {u["text"] for u in cov["uncovered"]}
    assert {"0.25", "0.5"} <= uncovered  # no checking claim uses them


def test_kind_given_holes_count_once_a_checking_claim_uses_them(tmp_path, capsys, monkeypatch):
    given = INPUTS.replace('    section: "1.1"\n', '    kind: given\n    section: "1.1"\n') + \
        """  - id: s
    section: "1.1"
    text: sum = 0.25 + 0.5 = ⟨s⟩
    uses: {a: ab.a, b: ab.b}
    check: {s: a + b}
"""
    root = project(tmp_path, given)
    monkeypatch.chdir(root)
    main(["coverage", "--json", "cov.json"])
    capsys.readouterr()
    cov = json.loads((root / "cov.json").read_text(encoding="utf-8"))["notes"][0]
    uncovered = [(u["text"], u["line"]) for u in cov["uncovered"]]
    assert ("0.25", 3) not in uncovered and ("0.5", 3) not in uncovered


def test_kind_given_refuses_a_check(tmp_path, capsys):
    bad = INPUTS.replace('    section: "1.1"\n', '    kind: given\n    section: "1.1"\n') + \
        "    check: {b: a * 2}\n"
    code, out, data = check(project(tmp_path, bad), capsys)
    assert code == 1 and "a claim of kind: given only states inputs" in out


def test_a_check_of_the_hole_itself_is_an_error(tmp_path, capsys):
    claims = INPUTS + "    check: {b: b}\n"
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1, out
    claim = _claim(data, "ab")
    assert claim["status"] == "error" and "checked against itself" in claim["message"]
    assert "claims/n/c.yaml:6:" in out  # the check's line


def test_a_check_through_uses_of_the_same_printed_value_is_an_error(tmp_path, capsys):
    claims = """note: n.txt
claims:
  - id: ab
    kind: given
    section: "1.1"
    text: a = ⟨a⟩, b = ⟨b⟩
  - id: again
    section: "1.1"
    text: a = ⟨x⟩, b = ⟨y⟩
    uses: {A: ab.a}
    check:
      x: A
      y: 2 * A
"""
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1, out
    claim = _claim(data, "again")
    assert claim["status"] == "error" and "'x' is checked against itself" in claim["message"]
    assert "claims/n/c.yaml:12:" in out


def test_a_copy_printed_elsewhere_is_a_real_check(tmp_path, capsys):
    claims = """note: n.txt
claims:
  - id: s
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: copy
    section: "1.1"
    text: a = ⟨x⟩, b = 0.5
    uses: {A: s.a}
    check: {x: A}
"""
    code, out, _ = check(project(tmp_path, claims), capsys)
    assert code == 0, out


def test_a_model_claim_with_no_holes_checks_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(EXAMPLES, "test-softmax",
                        lambda s: {"p": torch.softmax(s, dim=0)})
    claims = """note: n.txt
claims:
  - id: ab
    kind: given
    section: "1.1"
    text: a = ⟨a⟩, b = ⟨b⟩
  - id: runs
    kind: model
    section: "1.1"
    text: a = 0.25
    uses: {a: ab.a, b: ab.b}
    run:
      example: test-softmax
      inputs: {s: "[a, b]"}
      outputs: {p: p}
"""
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1, out
    claim = _claim(data, "runs")
    assert claim["status"] == "error" and claim["message"].startswith("checks nothing")
