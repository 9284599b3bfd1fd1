"""Coverage: every literal covered, waived with a reason, or reported; rules on real lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_engine import project
from verifiers.cli import main
from verifiers.coverage.literals import RULES
from verifiers.notes import read_note

NOTES = Path(__file__).resolve().parent.parent / "notes"


def rule_hits(note_name: str, line_no: int) -> list[tuple[str, str | None]]:
    """(literal, the rule that excludes it or None) for one line of a real note."""
    note = read_note(NOTES / note_name)
    out = []
    for lit in note.literals:
        if note.position(lit.start)[0] == line_no:
            rule = next((r for r, f in RULES.items() if f(note, lit)), None)
            out.append((lit.text, rule))
    return out


def test_list_markers_and_step_labels_on_real_lines():
    # "1. (1)矩阵乘法的定义：行向量和 $E$ 的第 $k$ 列做点积。"
    assert rule_hits("lesson1-text-to-distribution.txt", 91) == [
        ("1", "list-marker"), ("1", "step-label")]
    # "3. (3)求和里只有 $m=i$ 那一项不为 0。" -- the 0 is a claim
    assert rule_hits("lesson1-text-to-distribution.txt", 93) == [
        ("3", "list-marker"), ("3", "step-label"), ("0", None)]
    # "4. 重复第 2、3 步，..." -- step numbers in prose are not excluded by a rule
    assert rule_hits("lesson1-text-to-distribution.txt", 58) == [
        ("4", "list-marker"), ("2", None), ("3", None)]


def test_section_references_on_real_lines():
    # "...正比于 $V$（§2、§7 会算到）。"
    assert [r for _, r in rule_hits("lesson1-text-to-distribution.txt", 49)] == [
        "reference", "reference"]


def test_numbers_in_sentences_are_not_excluded():
    # "token id 只是编号：3 号和 4 号挨着" -- ids are claims, not markers
    assert rule_hits("lesson1-text-to-distribution.txt", 74) == [("3", None), ("4", None)]


def test_labels_on_real_lines():
    # "Step 1：两个头..." and "图1：前向预测..." -- names of parts, waived before this rule
    assert rule_hits("matrix-by-matrix.txt", 323) == [("1", "label")]
    assert rule_hits("architecture-and-training.txt", 88)[0] == ("1", "label")
    assert rule_hits("lesson1-text-to-distribution.txt", 314) == [("2", "label")]


@pytest.mark.parametrize("line, expected", [
    ("Step 1: forward pass", [("1", "label")]),
    ("Word 1 is cat, word 2 is sat", [("1", "label"), ("2", "label")]),
    ("Lesson 3 and Example 2", [("3", "label"), ("2", "label")]),
    ("Figure 4 and Table 2", [("4", "label"), ("2", "label")]),
    ("第 3 步：求和，如图 4 所示，见表 2", [("3", "label"), ("4", "label"), ("2", "label")]),
    ("图 4 与 表 2", [("4", "label"), ("2", "label")]),
    # values stay values: a vocabulary size after 词表, a count after "steps", a sign
    ("词表 50257，训练 5 steps，Step 0.1", [("50257", None), ("5", None), ("0.1", None)]),
    ("Table 2.5 mean", [("2.5", None)]),
])
def test_labels_on_example_lines(line, expected):
    from verifiers.notes import Note

    note = Note.from_text(line + "\n", "example.md")
    got = [(lit.text, next((r for r, f in RULES.items() if f(note, lit)), None))
           for lit in note.literals]
    assert got == expected


NOTE = """1.1 例子
1. 第一步：2 + 3 = 5
日期：2024 年
示意：比如 0.7 左右
"""

CLAIMS = """note: n.txt
claims:
  - id: sum
    text: 第一步：⟨a⟩ + ⟨b⟩ = ⟨c⟩
    check: {c: a + b}
waivers:
  - text: 日期：⟨y⟩ 年
    reason: a date, not a claim
"""


def test_covered_waived_uncovered_and_the_json_contract(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, NOTE)
    monkeypatch.chdir(root)
    code = main(["coverage", "--json", "cov.json"])
    out = capsys.readouterr().out
    assert code == 1  # 0.7 is uncovered
    assert "notes/n.txt:4:7: uncovered: 0.7" in out
    data = json.loads((root / "cov.json").read_text(encoding="utf-8"))
    assert data == {"version": 1, "notes": [{
        "note": "n.txt", "literals": 5, "covered": 3, "waived": 1,
        "excluded": {"list-marker": 1, "step-label": 0, "reference": 0, "label": 0},
        "uncovered": [{"text": "0.7", "line": 4, "col": 7}],
        "strength": {"recomputed": 1, "copy": 0, "restated": 0, "given": 2,
                     "copies_of_given": 0, "derived": 1, "recomputed_share": 1.0,
                     "orphan_copies": []},
        "count_words": {"total": 0, "covered": 0, "waived": 0, "uncovered": [],
                        "excluded": {"ordinal": 1}, "waived_by": {}},  # 第一步: an ordinal
        **dict.fromkeys(("formulas", "statements", "procedures"),
                        {"total": 0, "covered": 0, "waived": 0, "uncovered": []})}]}


def test_waiving_the_rest_passes_unless_waivers_exceed_the_limit(tmp_path, capsys, monkeypatch):
    claims = CLAIMS + "  - text: 示意：比如 0.7 左右\n    reason: the note calls it 示意\n"
    root = project(tmp_path, claims, NOTE)
    monkeypatch.chdir(root)
    assert main(["coverage"]) == 1  # 2 of 5 literals waived: 40% > 5%
    assert "over the 5% limit" in capsys.readouterr().out
    labels = [a + b for a in "甲乙丙丁戊" for b in "子丑寅卯辰"]
    many = NOTE + "".join(f"式{labels[k - 2]}：{k} + 1 = {k + 1}\n" for k in range(2, 22))
    extra = "".join(f"  - id: s{k}\n    text: 式{labels[k - 2]}：⟨a⟩ + ⟨b⟩ = ⟨c⟩\n"
                    "    check: {c: a + b}\n" for k in range(2, 22))
    root = project(tmp_path / "more", claims.replace("waivers:", extra + "waivers:"), many)
    monkeypatch.chdir(root)
    code = main(["coverage"])
    out = capsys.readouterr().out
    assert code == 0, out


def test_a_stale_waiver_is_reported(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS.replace("日期：⟨y⟩ 年", "生日：⟨y⟩ 年"), NOTE)
    monkeypatch.chdir(root)
    assert main(["coverage"]) == 1
    out = capsys.readouterr().out
    assert "waiver:" in out and "claims/" in out


@pytest.mark.parametrize("bad, message", [
    ("waivers: 3\n", "'waivers' must be a list"),
    ("waivers:\n  - text: 日期：⟨y⟩ 年\n", "missing key 'reason'"),
    ("waivers:\n  - text: 日期：⟨y⟩ 年\n    reason: x\n    why: y\n", "unknown key 'why'"),
])
def test_bad_waivers_are_located_errors(tmp_path, capsys, monkeypatch, bad, message):
    root = project(tmp_path, CLAIMS.split("waivers:")[0] + bad, NOTE)
    monkeypatch.chdir(root)
    assert main(["check"]) == 1
    assert message in capsys.readouterr().out


def test_the_real_notes_are_classified_without_waiver_problems(real_quote_coverage):
    # coverage is static (it reads the claims, never their verdicts): the session's one
    # classification of the real notes and claims (conftest), not a second one
    _, covs, problems = real_quote_coverage
    assert not problems
    assert {c.note for c in covs} == {p.name for p in NOTES.glob("*.txt")}


@pytest.fixture(scope="module")
def literal_coverage(real_quote_coverage):
    """One classification of the real notes' literals for every note's test (it covers all
    the notes at once; the session's, shared with test_strength_floor: tests/conftest.py)."""
    return real_quote_coverage


@pytest.mark.parametrize("note", sorted(p.name for p in NOTES.glob("*.txt")))
def test_every_literal_of_the_notes_is_covered_or_waived(note, literal_coverage):
    """The gate notices new text: an uncovered number fails, and waivers stay within 15%."""
    result, covs, problems = literal_coverage
    cov = next(c for c in covs if c.note == note)
    uncovered = [f"{note}:{result.notes[note].position(lit.start)[0]}: {lit.text}"
                 for lit in cov.uncovered]
    assert not problems
    assert not uncovered, f"{len(uncovered)} numbers no claim checks: {uncovered[:20]}"
    assert cov.count("waived") <= 0.15 * len(cov.literals)


def test_a_printed_order_covers_no_number_of_its_block(real_quote_coverage, monkeypatch):
    """A printed_order claim reads the order of a block's operations, not the shapes printed
    in it: those numbers stay waived or uncovered. Without the rule its block would cover them."""
    from verifiers.coverage import literals
    from verifiers.coverage.strength import Strengths

    result, _, _ = real_quote_coverage
    name = "matrix-by-matrix.txt"
    orders = {c.id for c in result.claims
              if c.note == name and c.run is not None and c.run.example == "printed_order"}
    assert orders

    def covering() -> set[str]:
        strengths = Strengths({c.id: c for c in result.claims})
        return {s.claim for s in literals._claim_spans(result, result.notes[name], name, strengths)}

    assert not covering() & orders
    from verifiers.programs import codehole

    monkeypatch.setattr(codehole, "WORDS_ONLY", frozenset())
    assert covering() & orders  # the planted error: the rule dropped
