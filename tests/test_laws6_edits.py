"""The laws6 edit set (tests/data/laws6_edits/prose-law.yaml): each invented rewrite of a law
sentence is a real verdict (discrepancy or unparsed) at the edited line, from the claim that
reads the sentence's law words. The whole survey (every claim of the note) is
``python -m tests.laws_measure laws6``; here each edit runs only its reading claim."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.planted.survey import load_corpus
from tests.laws_measure import assert_judged_at_line, edit_set

#: edit id -> the claim that reads the edited law word (`python -m tests.laws_measure laws6`)
READER = {
    "l6-dep-1": "l1-rd-8-bigram-current-only", "l6-dep-2": "l1-rd-8-bigram-current-only",
    "l6-dep-3": "l1-rd-8-bigram-current-only", "l6-dep-4": "l1-st-7-bigram-only-previous",
    "l6-dep-5": "l1-rd-8-bigram-sees-hen-only",
    "l6-role-1": "aat-rd-15-9-cross-attention-roles",
    "l6-role-2": "aat-rd-15-9-cross-attention-roles",
    "l6-role-3": "aat-rd-15-9-cross-attention-roles",
    "l6-role-4": "aat-rd-15-9-cross-attention-roles",
    "l6-chg-1": "aat-rd-6-2-attention-varies", "l6-chg-2": "aat-rd-6-2-attention-varies",
    "l6-chg-3": "aat-rd-6-2-weights-fixed", "l6-chg-4": "aat-rd-2-2-qkv-vary",
    "l6-chg-5": "aat-st-14-generation-keeps-parameters",
    "l6-same-1": "aat-rd-5-7-z-differs", "l6-same-2": "aat-rd-5-7-z-differs",
    "l6-same-3": "l1-st-8-bigram-blind", "l6-same-4": "aat-st-8-5-z3-mixes-positions",
    "l6-same-5": "l1-rd-5-shift-derivative",
    "l6-imp-1": "l1-rd-2-ids-not-similar", "l6-imp-2": "l1-rd-2-ids-not-similar",
    "l6-imp-3": "l1-rd-2-ids-not-similar", "l6-imp-4": "aat-st-12-4-step-not-every-sample",
    "l6-sig-1": "aat-rd-13-6-gradient-signs", "l6-hull-1": "aat-rd-5-1-convex-hull",
    "l6-chain-1": "aat-rd-11-7-chain-rule-no-independence",
    "l6-var-1": "aat-rd-4-4-independence-not-necessary", "l6-dims-1": "l1-rd-4-inner-dims",
    "l6-fig-1": "aat-rd-1-figure-same-forward", "l6-mono-1": "l1-p-5-order",
}
EDIT_LIST = load_corpus(edit_set("laws6"))


def test_the_edit_set_is_large_and_each_edit_has_its_reader() -> None:
    assert len(EDIT_LIST) >= 20
    assert {e.id for e in EDIT_LIST} == set(READER)


@pytest.mark.parametrize("edit", EDIT_LIST, ids=[e.id for e in EDIT_LIST])
def test_an_edited_law_sentence_is_judged_at_its_line(tmp_path: Path, edit) -> None:
    assert_judged_at_line(tmp_path, READER[edit.id], edit)
