"""The planted-error corpus (benchmarks/planted) is well-formed, and its classifier works.

The whole survey is too slow for the test suite (``python -m benchmarks.planted`` runs it);
here the corpus is checked as data and the runner is run end to end on two edits.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.planted.survey import (
    ELSEWHERE,
    KINDS,
    MISSED,
    REAL,
    STALE,
    CorpusError,
    Edit,
    Outcome,
    Survey,
    _key,
    classify,
    from_sources,
    load_corpus,
    survey,
    table,
)
from verifiers.verdicts import ValueVerdict, Verdict

ROOT = Path(__file__).resolve().parent.parent
CORPUS = load_corpus()  # read once per process (test_planted_new_notes reads it from here)
EDITS = [e for e in CORPUS if not e.inferred]  # new notes: tests/test_planted_new_notes.py


def test_corpus_size_and_kinds():
    counts = Counter(e.kind for e in EDITS)
    assert set(counts) <= set(KINDS), set(counts) - set(KINDS)
    assert all(counts[k] >= 10 for k in KINDS), counts
    assert len(EDITS) >= 80
    assert len({e.id for e in EDITS}) == len(EDITS), "duplicate ids"
    assert {e.note for e in EDITS} == {p.name for p in (ROOT / "notes").glob("*.txt")}


@pytest.mark.parametrize("edit", EDITS, ids=[e.id for e in EDITS])
def test_edit_is_well_formed(edit: Edit):
    text = (ROOT / "notes" / edit.note).read_bytes().decode("utf-8")
    assert edit.replace != edit.find
    assert edit.why.strip() and "\n" not in edit.why.strip()
    # fresh-KIND.yaml, fresh2-KIND.yaml, …: held-out corpora, each written before its first run
    assert re.fullmatch(rf"(fresh\d*-)?{re.escape(edit.kind)}\.yaml", edit.source), edit.source
    assert edit.held_out == bool(re.match(r"fresh\d*-", edit.source))
    if edit.line is None:
        assert text.count(edit.find) == 1, "find must occur exactly once (or give line:)"
    else:
        assert text.count(edit.find) > 1, "line: only where find occurs more than once"
    edited, lines = edit.apply(text)  # raises CorpusError unless it resolves to one place
    assert edited != text and lines


def test_from_sources_selects_one_round():
    """`--source fresh5-*` runs one held-out round alone: the fifth round's 48 edits, 6 per
    kind; a glob that matches no corpus file is an error before anything runs."""
    from benchmarks.planted.__main__ import main

    fresh5 = from_sources(CORPUS, ["fresh5-*"])
    assert Counter(e.kind for e in fresh5) == dict.fromkeys(KINDS, 6)
    assert all(e.held_out and e.source == f"fresh5-{e.kind}.yaml" for e in fresh5)
    both = from_sources(CORPUS, ["fresh5-*", "fresh4-*"])
    assert len(both) == len(fresh5) + len(from_sources(CORPUS, ["fresh4-*"])) > 48
    assert from_sources(CORPUS, ["fresh5"]) == []  # a glob matches the whole name
    with pytest.raises(SystemExit):
        main(["--source", "no-such-round-*"])


def test_sixth_round_counts():
    """The sixth held-out round (fresh6) has 6 edits per kind, every one held out."""
    fresh6 = from_sources(load_corpus(), ["fresh6-*"])
    assert Counter(e.kind for e in fresh6) == dict.fromkeys(KINDS, 6)
    assert all(e.held_out and e.id.startswith("h6-") for e in fresh6)


def test_seventh_round_counts():
    """The seventh held-out round (fresh7) has 6 edits per kind over all three notes, every one
    held out."""
    fresh7 = from_sources(load_corpus(), ["fresh7-*"])
    assert Counter(e.kind for e in fresh7) == dict.fromkeys(KINDS, 6)
    assert all(e.held_out and e.id.startswith("h7-") for e in fresh7)
    assert len({e.note for e in fresh7}) == 3


def test_eighth_round_counts():
    """The eighth held-out round (fresh8) has 6 edits per kind over all three notes, every one
    held out."""
    fresh8 = from_sources(load_corpus(), ["fresh8-*"])
    assert Counter(e.kind for e in fresh8) == dict.fromkeys(KINDS, 6)
    assert all(e.held_out and e.id.startswith("h8-") for e in fresh8)
    assert len({e.note for e in fresh8}) == 3


def test_apply_reports_the_edited_lines():
    edit = Edit("x", "arithmetic", "n.txt", "b\nc", "B\nC\nD", "why")
    edited, lines = edit.apply("a\nb\nc\nd\n")
    assert edited == "a\nB\nC\nD\nd\n" and lines == {2, 3, 4}
    with pytest.raises(CorpusError):
        Edit("y", "arithmetic", "n.txt", "a", "A", "why").apply("a a")
    assert Edit("z", "arithmetic", "n.txt", "a", "A", "why", line=2).apply("a\na") == ("a\nA", {2})


def test_end_to_end_two_edits():
    """An arithmetic slip is a real verdict at its line; so is a prose law edit, read through
    the claim's word holes. The notes and claims folders are not written, and the temp folder
    is removed."""
    by_id = {e.id: e for e in EDITS}
    chosen = [by_id["ar-mbm-q00-sum"], by_id["pl-mbm-quiz4-smaller"]]
    before = {p: p.read_bytes() for p in (ROOT / "notes").iterdir()}
    result = survey(chosen)
    assert {p: p.read_bytes() for p in (ROOT / "notes").iterdir()} == before
    assert result.false_alarms == []
    outcome = {o.edit.id: o for o in result.outcomes}
    assert outcome["ar-mbm-q00-sum"].outcome == REAL
    assert "line 121" in outcome["ar-mbm-q00-sum"].detail
    # The quiz's law claim reads 变大/放大 through word holes: 变小/缩小 states a law that
    # flattens at T < 1, which Hypothesis refutes at the edited line.
    assert outcome["pl-mbm-quiz4-smaller"].outcome == REAL
    assert "line 803" in outcome["pl-mbm-quiz4-smaller"].detail
    printed = table(result)
    assert "arithmetic" in printed and "total" in printed and "false alarms" in printed


def test_held_out_files_are_marked_and_counted_apart(tmp_path: Path):
    """A file marked ``held_out: true`` marks its edits, the table prints them in a table of
    their own, and a malformed mark is refused."""
    (tmp_path / "a.yaml").write_text(
        "edits:\n- {id: s, kind: arithmetic, note: n.txt, find: a, replace: b, why: w}\n")
    (tmp_path / "fresh-a.yaml").write_text(
        "held_out: true\nedits:\n- {id: h, kind: rounding, note: n.txt, find: a, replace: b,"
        " why: w}\n")
    edits = {e.id: e for e in load_corpus(tmp_path)}
    assert not edits["s"].held_out and edits["h"].held_out
    result = Survey([Outcome(edits["s"], REAL, "x"), Outcome(edits["h"], MISSED, "y")], [])
    seen, held = table(result).split("held out")
    assert "arithmetic" in seen and "rounding" not in seen.split("false alarms")[0]
    assert "rounding" in held and "arithmetic" not in held.split("false alarms")[0]
    # a missed edit that the changed-lines gate reports as uncovered is counted apart
    gated = Outcome(edits["h"], MISSED, "y", gate=["n.txt:1:1: uncovered formula: a"])
    text = table(Survey([gated], []))
    assert text.splitlines()[2].split()[-1] == "1" and "gate: 1 uncovered" in text
    (tmp_path / "fresh-a.yaml").write_text("held_out: yes please\nedits: []\n")
    with pytest.raises(CorpusError):
        load_corpus(tmp_path)
    (tmp_path / "fresh-a.yaml").write_text("hold_out: true\nedits: []\n")
    with pytest.raises(CorpusError):
        load_corpus(tmp_path)


def _verdict(cid: str, status: str, line: int | None = None, message: str = "") -> Verdict:
    values = [] if line is None else [
        ValueVerdict("x", "1", "2", status, (line, 3), (line, 6))]
    return Verdict(cid, "c.yaml", 1, "n.txt", "arithmetic", "says", status, message,
                   values=values)


def test_classify_each_outcome():
    edit = Edit("e", "arithmetic", "n.txt", "a", "b", "why")
    ok = _verdict("ok", "verified")
    assert classify(edit, {5}, [ok, _verdict("d", "discrepancy", 5)], {}).outcome == REAL
    assert classify(edit, {5}, [ok, _verdict("d", "discrepancy", 9)], {}).outcome == ELSEWHERE
    assert classify(edit, {5}, [ok], {}).outcome == MISSED
    stale = _verdict("s", "stale")
    cascade = _verdict("u", "blocked", message="blocked by s, which is stale")
    assert classify(edit, {5}, [stale, cascade], {}).outcome == STALE
    broken = _verdict("b", "error", message="value of 'p': value is not finite: nan")
    out = classify(edit, {5}, [stale, broken], {})
    assert out.outcome == ELSEWHERE and "no note position" in out.detail
    # a claim that already fails on the unedited notes is not credited to the edit
    old = _verdict("d", "discrepancy", 5)
    assert classify(edit, {5}, [old], {"d": _key(old)}).outcome == MISSED
    # a known pin that now verifies is a real verdict
    assert classify(edit, {5}, [_verdict("k", "fixed", 5)], {}).outcome == REAL
