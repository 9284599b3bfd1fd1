"""The laws7 edit set (tests/data/laws7_edits/prose-law.yaml): each invented rewrite of a law
sentence (a component moved, a trait changed, a necessity negated, a condition or comparison
changed, a quote's opening law word) is a real verdict (discrepancy or unparsed) at the edited
line, from the claim that reads the word. The whole survey (every claim of the note) is
``python -m tests.laws_measure laws7``; here each edit runs only its reading claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.planted.survey import load_corpus
from tests.laws_measure import assert_judged_at_line, edit_set

#: edit id -> the claim that reads the edited law word
READER = {
    "l7-c-1": "aat-cp-6-2-softmax-rows", "l7-c-2": "aat-cp-6-2-softmax-rows",
    "l7-c-3": "aat-cp-3-5-softmax-relative", "l7-c-4": "aat-cp-15-1-softmax-max-shift",
    "l7-c-5": "aat-cp-15-1-softmax-max-shift", "l7-c-6": "aat-cp-7-7-layernorm-per-position",
    "l7-c-7": "aat-cp-7-7-layernorm-same-position", "l7-c-8": "aat-cp-8-3-softmax-positive",
    "l7-c-9": "aat-cp-8-6-ffn-per-position", "l7-c-10": "aat-cp-8-6-ffn-per-position",
    "l7-c-11": "aat-cp-8-6-ffn-per-position", "l7-t-1": "aat-cp-6-2-softmax-rows",
    "l7-t-2": "aat-cp-8-3-softmax-positive", "l7-n-1": "aat-cp-5-4-kv-need-not-coincide",
    "l7-n-2": "aat-cp-5-4-kv-need-not-coincide", "l7-o-1": "aat-3-3-equal-scores",
    "l7-o-2": "aat-p-9-6-no-peeking", "l7-o-3": "aat-p-9-6-no-peeking",
    "l7-cmp-1": "l1-s-2-onehot-orthogonal", "l7-cmp-2": "l1-s-2-onehot-orthogonal",
    "l7-cmp-3": "l1-s-2-onehot-orthogonal",
}
EDIT_LIST = load_corpus(edit_set("laws7"))


def test_the_edit_set_is_large_and_each_edit_has_its_reader() -> None:
    assert len(EDIT_LIST) >= 20
    assert {e.id for e in EDIT_LIST} == set(READER)


@pytest.mark.parametrize("edit", EDIT_LIST, ids=[e.id for e in EDIT_LIST])
def test_an_edited_law_sentence_is_judged_at_its_line(tmp_path: Path, edit) -> None:
    assert_judged_at_line(tmp_path, READER[edit.id], edit)
