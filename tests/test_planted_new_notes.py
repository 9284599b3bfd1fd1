"""The planted corpus over new notes checked by inferred claims (heldout-notes-*.yaml) is
well-formed, and the runner infers their claims in a temporary folder."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmarks.planted.survey import KINDS, REAL, CorpusError, Edit, load_corpus, survey
from tests.test_planted import CORPUS  # the corpus, read once per process

ROOT = Path(__file__).resolve().parent.parent
NEW = [e for e in CORPUS if e.inferred]
NUMERIC = {"arithmetic", "copied-entries", "rounding", "restatement", "unit-scale"}


def test_new_notes_corpus_size_and_kinds():
    counts = Counter(e.kind for e in NEW)
    # every numeric kind; a later round (heldout-notes-round2) adds formula and prose-law edits
    assert len(NEW) >= 20 and NUMERIC <= set(counts) <= set(KINDS), counts
    assert len({e.id for e in CORPUS}) == len(CORPUS), "duplicate ids"


def test_round4_counts():
    """Round 4 (heldout-notes-round4.yaml): 12 edits of the plain-text note label-smoothing.txt,
    every kind at least once."""
    round4 = [e for e in NEW if e.source == "heldout-notes-round4.yaml"]
    assert len(round4) == 12 and {e.note for e in round4} == {"label-smoothing.txt"}
    assert set(Counter(e.kind for e in round4)) == set(KINDS)


def test_round5_counts():
    """Round 5 (heldout-notes-round5.yaml): 12 edits of the Chinese Markdown note lora-int8.md,
    every kind at least once."""
    round5 = [e for e in NEW if e.source == "heldout-notes-round5.yaml"]
    assert len(round5) == 12 and {e.note for e in round5} == {"lora-int8.md"}
    assert set(Counter(e.kind for e in round5)) == set(KINDS)


def test_round6_counts():
    """Round 6 (heldout-notes-round6.yaml): 12 edits of the plain-text Chinese note
    clip-accum-scaling.txt, every kind at least once."""
    round6 = [e for e in NEW if e.source == "heldout-notes-round6.yaml"]
    assert len(round6) == 12 and {e.note for e in round6} == {"clip-accum-scaling.txt"}
    assert set(Counter(e.kind for e in round6)) == set(KINDS)


@pytest.mark.parametrize("edit", NEW, ids=[e.id for e in NEW])
def test_new_notes_edit_is_well_formed(edit: Edit):
    text = (ROOT / edit.notes_dir / edit.note).read_bytes().decode("utf-8")
    assert edit.source.startswith("heldout-notes-")  # held_out or not: --held-out skips it
    assert text.count(edit.find) == 1 and edit.replace != edit.find
    edited, lines = edit.apply(text)
    assert edited != text and lines


def test_a_notes_folder_needs_inferred_claims(tmp_path):
    (tmp_path / "bad.yaml").write_text("notes: benchmarks/heldout\nedits: []\n", encoding="utf-8")
    with pytest.raises(CorpusError, match="claims: inferred"):
        load_corpus(tmp_path)
    (tmp_path / "bad.yaml").write_text("notes: ../..\nclaims: inferred\nedits: []\n",
                                       encoding="utf-8")
    with pytest.raises(CorpusError, match="not a folder of the project"):
        load_corpus(tmp_path)


def test_end_to_end_one_edit_with_inferred_claims():
    """An addition slip in a new note is caught at its line by the claims inferred from the
    clean note; the unedited notes give no false alarm."""
    edit = next(e for e in NEW if e.id == "n-ar-kv-bytes-per-token")
    result = survey([edit])
    assert result.false_alarms == []
    assert result.outcomes[0].outcome == REAL, result.outcomes[0].detail
