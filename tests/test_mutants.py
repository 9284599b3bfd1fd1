"""The per-class mutation survey (verifiers/mutate.py sites, benchmarks/mutants.py): sites are
found in an invented note, and a mutation is classified as the planted survey classifies an
edit (a checked number edited is real at its line; a quoted number nobody reads, stale)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.mutants import UNTOUCHED, survey
from benchmarks.planted.survey import REAL, STALE
from verifiers import mutate
from verifiers.notes import Note

NOTE = """第 1 章
1.1 注意力
分数 s_{i j} 经过 Softmax 之后，每一行的权重加起来总是等于 1。
流程：Q → Score → Softmax → Output。
1.2 平方
边长 3 的正方形，面积是 9 。
又一个边长 4 的正方形，面积是 16 ，面积 16 出自 4 × 4。
"""

CLAIMS = """note: n.txt
claims:
  - id: square
    says: the area of the square
    section: "1.2"
    text: |
      边长 ⟨s⟩ 的正方形，面积是 ⟨area⟩ 。
    check:
      area: s ** 2
  - id: second
    says: the second square (its restated 16 and 4 are quoted, read by nobody else)
    section: "1.2"
    text: |
      又一个边长 ⟨s⟩ 的正方形，面积是 ⟨area⟩ ，面积 16 出自 4 × 4。
    check:
      area: s ** 2
"""


def _note() -> Note:
    return Note(Path("n.txt"), NOTE, "n.txt")


def test_sites_of_each_class_in_an_invented_note():
    note = _note()
    by = {cls: mutate.sites(note, cls) for cls in mutate.SITE_CLASSES if cls != mutate.QUOTED}
    assert {(s.old, s.new) for s in by[mutate.COMPONENT]} == {("Softmax", "Sigmoid")}
    assert ("Score → Softmax", "Softmax → Score") in {(s.old, s.new)
                                                     for s in by[mutate.PIPELINE]}
    assert ("Q → Score", "Score → Q") in {(s.old, s.new) for s in by[mutate.PIPELINE]}
    assert {(s.old, s.new) for s in by[mutate.SCRIPT]} == {("j", "i")}  # s_{i j}: its last
    assert ("9", "0") in {(s.old, s.new) for s in by[mutate.NUMBER]}
    assert by[mutate.LAW_WORD], "the law sentence's vocabulary words (总是, 每一行 …)"
    for sites in by.values():
        for site in sites:
            edited = site.apply(NOTE)
            assert edited != NOTE and edited[site.start:site.start + len(site.new)] == site.new


def test_quoted_sites_are_the_literal_numbers_of_quotes(tmp_path):
    from verifiers.schema import load_claim_file

    (tmp_path / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    claims = load_claim_file(tmp_path / "c.yaml", "c.yaml", {"n.txt"}).claims
    quoted = mutate.sites(_note(), mutate.QUOTED, claims)
    assert [(s.line, s.old) for s in quoted] == [(7, "6"), (7, "4"), (7, "4")]


def test_the_survey_classifies_mutations(tmp_path, monkeypatch):
    """A checked number edited: real at its line. A number only quoted (16, 4 of line 7,
    read by no other claim): stale. A line no claim quotes: unquoted."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "cache"))
    result = survey(100, 0, (mutate.NUMBER, mutate.QUOTED), tmp_path / "notes",
                    tmp_path / "claims")
    rows, listed = result["rows"], result["listed"]
    assert result["false_alarms"] == []
    assert rows[mutate.QUOTED][STALE] == 3 and rows[mutate.QUOTED][REAL] == 0
    assert rows[mutate.NUMBER][REAL] >= 4  # 3, 9, 4, 16 of the claims' holes
    unquoted = {(x["line"], x["old"]) for x in listed if x["outcome"] == UNTOUCHED}
    assert (3, "1") in unquoted  # 等于 1: no claim quotes line 3
