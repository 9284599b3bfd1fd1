"""Declared conventions read as word holes (notation/conventions.py): an edited log base
recomputes the values computed with it and fails at the declaration."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import ROOT
from verifiers.notation.conventions import conventions, meaning_of

L1 = "lesson1-text-to-distribution.txt"
CLAIM = "l1-n-0-log-base"
USED = ("l1-6-uniform-loss", "l1-6-example-y0-loss", "l1-6-example-y2", "l1-7-panel",
        "l1-5-overflow-thresholds")


@pytest.mark.parametrize(("word", "meaning"), [
    ("自然对数", "e"), (r"\ln", "e"), ("natural log", "e"), ("以 10 为底的对数", "10"),
    (r"\log_{10}", "10"), ("log₁₀", "10"), ("常用对数", "10"), ("以 2 为底的对数", "2"),
    (r"\log_2", "2"), ("log₂", "2"), ("bits", "2")])
def test_log_base_words(word: str, meaning: str) -> None:
    found = meaning_of("log-base", word)
    assert found is not None and found.name == meaning


def test_unknown_word_and_percent() -> None:
    assert meaning_of("log-base", "对数") is None
    assert meaning_of("number-form", "百分比").scale == 100
    assert set(conventions()) >= {"log-base", "number-form"}


def _run(tmp_path: Path, find: str | None, replace: str = "") -> tuple[object, int]:
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    path = notes / L1
    text = path.read_text(encoding="utf-8")
    line = 0
    if find is not None:
        assert text.count(find) == 1, find
        line = text[:text.index(find)].count("\n") + 1
        path.write_text(text.replace(find, replace), encoding="utf-8")
    result = run(notes, ROOT / "claims", select=lambda c: c.id in (CLAIM, *USED))
    (verdict,) = [v for v in result.verdicts if v.id == CLAIM]
    return verdict, line


def test_the_declared_natural_log_verifies(tmp_path: Path) -> None:
    verdict, _ = _run(tmp_path, None)
    assert verdict.status == "verified", verdict.message
    assert "agrees with 7 printed value(s)" in verdict.message


@pytest.mark.parametrize(("find", "replace", "status"), [
    ("一律指自然对数 $\\ln$", "一律指以 10 为底的对数 $\\log_{10}$", "discrepancy"),
    ("一律指自然对数 $\\ln$", "一律指以 2 为底的对数 $\\log_2$", "discrepancy"),
    ("一律指自然对数 $\\ln$", "一律指常用对数 $\\ln$", "discrepancy"),
    ("一律指自然对数 $\\ln$", "一律指对数 $\\ln$", "unparsed"),
])
def test_edited_convention_fails_at_its_line(tmp_path: Path, find: str, replace: str,
                                             status: str) -> None:
    verdict, line = _run(tmp_path, find, replace)
    assert verdict.status == status, verdict.message
    assert verdict.where[0] == line
    if status == "discrepancy":
        assert "10.825" in verdict.message and "232:" in verdict.message


def test_convention_needs_a_known_kind(tmp_path: Path) -> None:
    from verifiers.run import load_claims

    folder = tmp_path / "lesson1-text-to-distribution"
    folder.mkdir()
    (folder / "x.yaml").write_text(
        "note: lesson1-text-to-distribution.txt\nclaims:\n  - id: x-1\n    kind: given\n"
        "    says: s\n    text: '一律指⟦b⟧ $'\n"
        "    convention: {b: {kind: nonsense, values: [a.b]}}\n", encoding="utf-8")
    claims, problems = load_claims(tmp_path, {L1}, [])
    messages = [p.message for c in claims for p in c.problems] + [p.message for p in problems]
    assert any("convention: b" in m and "log-base" in m for m in messages), messages
