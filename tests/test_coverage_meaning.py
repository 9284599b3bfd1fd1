"""Coverage of formulas, statements and procedures: JSON, console, waivers, --require,
--changed-since."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.test_changes import git
from tests.test_engine import project
from verifiers.cli import main

NOTE = """1.1 公式
输入 x = 1.20
y = x + x = 2.40
分配律：$(a+b)\\cdot c=a\\cdot c+b\\cdot c$
权重总是非负。
"""

CLAIMS = """note: n.txt
claims:
  - id: double
    text: |
      输入 x = ⟨x⟩
      y = x + x = ⟨y⟩
    check: {y: x + x}
"""

FORMULA_WAIVER = """waivers:
  - text: 分配律：$(a+b)\\cdot c=a\\cdot c+b\\cdot c$
    reason: the distributive law, stated for the reader's reference
    waives: [formulas]
"""

SYMBOLIC = """  - id: distributive
    kind: symbolic
    text: 分配律：⟪F⟫
"""

EMPTY = {"total": 0, "covered": 0, "waived": 0, "uncovered": []}


def coverage(capsys, *args: str) -> tuple[int, str]:
    code = main(["coverage", *args])
    return code, capsys.readouterr().out


def test_the_json_reports_each_kind_next_to_the_numbers(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project(tmp_path, CLAIMS, NOTE))
    code, out = coverage(capsys, "--json", "cov.json")
    assert code == 0, out  # every number is covered; the other kinds are not required
    entry = json.loads((tmp_path / "cov.json").read_text(encoding="utf-8"))["notes"][0]
    assert (entry["literals"], entry["covered"], entry["uncovered"]) == (2, 2, [])
    assert entry["formulas"] == {
        "total": 3, "covered": 2, "waived": 0,  # x = 1.20 and y = x + x = 2.40 by the claim
        "uncovered": [{"text": "$(a+b)\\cdot c=a\\cdot c+b\\cdot c$", "line": 4, "col": 5}]}
    assert entry["statements"] == {"total": 1, "covered": 0, "waived": 0,
                                   "uncovered": [{"text": "权重总是非负", "line": 5, "col": 1}]}
    assert entry["procedures"] == EMPTY
    assert "notes/n.txt:4:5: uncovered formula: $(a+b)\\cdot c=a\\cdot c+b\\cdot c$" in out
    assert "notes/n.txt:5:1: uncovered statement: 权重总是非负" in out
    assert "notes/n.txt: 3 formulas: 2 covered, 0 waived, 1 uncovered" in out


def test_require_fails_on_an_uncovered_formula_until_it_is_waived(tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.chdir(project(tmp_path, CLAIMS, NOTE))
    code, out = coverage(capsys, "--require", "formulas")
    assert code == 1 and "3 formulas (required)" in out
    monkeypatch.chdir(project(tmp_path / "waived", CLAIMS + FORMULA_WAIVER, NOTE))
    code, out = coverage(capsys, "--require", "formulas", "--json", "cov.json")
    assert code == 0, out
    formulas = json.loads((tmp_path / "waived" / "cov.json").read_text(encoding="utf-8"))[
        "notes"][0]["formulas"]
    assert (formulas["covered"], formulas["waived"], formulas["uncovered"]) == (2, 1, [])
    code, out = coverage(capsys, "--require", "formulas,statements")
    assert code == 1  # the statement is still uncovered


def test_require_passes_once_a_claim_covers_the_formula(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project(tmp_path, CLAIMS + SYMBOLIC, NOTE))
    code, out = coverage(capsys, "--require", "formulas")
    assert code == 0, out
    assert "3 formulas (required): 3 covered" in out


def test_a_waiver_of_numbers_does_not_waive_a_formula(tmp_path, capsys, monkeypatch):
    numbers_only = FORMULA_WAIVER.replace("    waives: [formulas]\n", "")
    monkeypatch.chdir(project(tmp_path, CLAIMS + numbers_only, NOTE))
    code, out = coverage(capsys, "--require", "formulas")
    assert code == 1 and "uncovered formula" in out


def test_a_stub_that_checks_nothing_covers_nothing(tmp_path, capsys, monkeypatch):
    stub = "  - id: stub\n    text: 分配律：$(a+b)\\cdot c=a\\cdot c+b\\cdot c$\n"
    monkeypatch.chdir(project(tmp_path, CLAIMS + stub, NOTE))
    assert coverage(capsys, "--require", "formulas")[0] == 1


@pytest.mark.parametrize("bad, message", [
    ("    waives: [formula]\n", "waives: 'formula' is not one of"),
    ("    waives: []\n", "waives: name at least one of"),
])
def test_bad_waives_are_located_errors(tmp_path, capsys, monkeypatch, bad, message):
    waiver = FORMULA_WAIVER.replace("    waives: [formulas]\n", bad)
    monkeypatch.chdir(project(tmp_path, CLAIMS + waiver, NOTE))
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert message in out and "claims/n/c.yaml:" in out


@pytest.mark.parametrize("value", ["formula", "numbers", "formulas,bogus", ""])
def test_require_takes_only_the_new_kinds(tmp_path, capsys, monkeypatch, value):
    monkeypatch.chdir(project(tmp_path, CLAIMS, NOTE))
    assert main(["coverage", "--require", value]) == 2
    assert "expected a comma list of formulas, statements, procedures" in capsys.readouterr().err


def test_control_characters_in_an_uncovered_item_are_escaped(tmp_path, capsys, monkeypatch):
    note = NOTE + "警告 \x1b[31m 恒为零\n"
    monkeypatch.chdir(project(tmp_path, CLAIMS, note))
    out = coverage(capsys)[1]
    assert "\x1b" not in out and "uncovered statement: 警告 \\x1b[31m 恒为零" in out


# --- the gate on changes ------------------------------------------------------------------

@pytest.fixture
def repo(tmp_path, monkeypatch):
    base = "".join(NOTE.splitlines(keepends=True)[:3])  # the numbers only
    root = project(tmp_path, CLAIMS, base)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    monkeypatch.chdir(root)
    return root


def test_a_new_uncovered_formula_on_a_changed_line_fails_the_gate(repo, capsys):
    (repo / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    code = main(["check", "--changed-since", "HEAD"])
    out = capsys.readouterr().out
    assert code == 1
    assert ("notes/n.txt:4:5: uncovered formula: $(a+b)\\cdot c=a\\cdot c+b\\cdot c$ "
            "(new or changed text that no claim checks)") in out
    assert "notes/n.txt:5:1: uncovered statement: 权重总是非负" in out


def test_the_gate_passes_when_a_claim_covers_the_new_formula(repo, capsys):
    note = NOTE.replace("权重总是非负。\n", "")
    (repo / "notes" / "n.txt").write_text(note, encoding="utf-8")
    path = repo / "claims" / "n" / "c.yaml"
    path.write_text(CLAIMS + SYMBOLIC, encoding="utf-8")
    code = main(["check", "--changed-since", "HEAD"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "uncovered" not in out


def test_an_unchanged_uncovered_formula_does_not_fail_the_gate(repo, capsys):
    git(repo, "commit", "-qm", "nothing", "--allow-empty")
    (repo / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the formula, before the gate existed")
    code = main(["check", "--changed-since", "HEAD"])
    assert code == 0 and "uncovered" not in capsys.readouterr().out


# ------------------------------------------------------------------ the gate on the real notes

REAL_NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
              "matrix-by-matrix.txt")
# How many formulas of architecture-and-training no claim reads yet (issue 12 item 4).
# The count can only go down: a new uncovered formula fails, and so does reading one without
# lowering it here. Every other kind, and every other note, has none. (11.2's dL/dw > 0 and
# dL/dw < 0, the last two, are read as conditions by aat-f78-11-2-positive/negative-slope.)
AAT_FORMULAS_NOT_READ_YET = 0


_CLASSIFIED: dict[tuple[int, str], Any] = {}  # (the session result, note) -> its items


def _classified(real_result: Any, note: str) -> Any:
    """A real note's items classified once for its three kinds (the session's one result)."""
    from verifiers.coverage.meaning import classify_items

    key = (id(real_result), note)  # real_result lives for the session
    if key not in _CLASSIFIED:
        _CLASSIFIED[key] = classify_items(real_result, note)
    return _CLASSIFIED[key]


@pytest.mark.parametrize("note", REAL_NOTES)
@pytest.mark.parametrize("kind", ["formulas", "statements", "procedures"])
def test_every_formula_statement_and_procedure_is_covered_or_waived(real_result, note, kind):
    """The gate notices new meaning, not only new numbers: an uncovered formula, law-stating
    sentence or procedure in a real note fails (architecture-and-training's formulas: the
    count left to read, which may only go down)."""
    cov = _classified(real_result, note)[kind]
    where = [f"{note}:{real_result.notes[note].position(it.start)[0]}: {it.text[:60]}"
             for it in cov.uncovered]
    allowed = AAT_FORMULAS_NOT_READ_YET if (note, kind) == (REAL_NOTES[0], "formulas") else 0
    assert len(where) <= allowed, f"{len(where)} uncovered {kind}: {where[:20]}"
    assert len(where) == allowed, (f"{allowed - len(where)} fewer uncovered {kind} than "
                                   "listed: lower AAT_FORMULAS_NOT_READ_YET")
