"""Definitions of standard quantities read and checked against torch (standard_refs.py), and
plain-text chains ``P(x) = softmax(v / T) = …`` read side by side (chains.py): a planted
dropped root, factor or normaliser is a discrepancy at the formula."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.note_edits import run_edited


class _Note:
    def position(self, offset: int) -> tuple[int, int]:
        return (1, offset + 1)


def _status(module: str, reference: str, text: str) -> str:
    import importlib

    check = importlib.import_module(module).reference_value
    claim = SimpleNamespace(reference={"F": reference})
    printed = SimpleNamespace(text=text, start=0, end=len(text))
    return check(claim, "F", printed, _Note()).status


CODE, HOLES = "verifiers.formulas.code", "verifiers.formulas.holes"
# (module, reference, the correct definition, a planted error of it)
CASES = [
    (CODE, "tinygpt-vector-norm", r"\lVert a\rVert=\sqrt{a\cdot a}", r"\lVert a\rVert=a\cdot a"),
    (CODE, "tinygpt-vector-norm", r"\|a\| = \sqrt{\sum_{i=1}^{d} a_i^2}",
     r"\|a\| = \sum_{i=1}^{d} a_i^2"),
    (CODE, "tinygpt-cosine", r"\cos\theta=\frac{a\cdot b}{\lVert a\rVert\lVert b\rVert}",
     r"\cos\theta=\frac{a\cdot b}{\lVert a\rVert}"),
    (CODE, "tinygpt-dot", r"a\cdot b=\sum_{i=1}^{d} a_i b_i", r"a\cdot b=\sum_{i=1}^{d} a_i a_i"),
    (CODE, "tinygpt-moments", r"\mu=\frac{1}{d}\sum_{i=1}^{d} x_i", r"\mu=\sum_{i=1}^{d} x_i"),
    (CODE, "tinygpt-moments", r"\sigma^2=\frac{1}{d}\sum_{i=1}^{d} (x_i-\mu)^2",
     r"\sigma^2=\frac{1}{d-1}\sum_{i=1}^{d} (x_i-\mu)^2"),
    (HOLES, "softmax-temperature",
     "P(x) = softmax(logits / T) = exp(logits_i / T) / Σ exp(logits_j / T)",
     "P(x) = softmax(logits / T) = exp(logits_i / T) / Σ exp(logits_j)"),
    (HOLES, "softmax-temperature", "P = softmax(logits / T)", "P = softmax(logits * T)"),
    (HOLES, "softmax-temperature", "p_i = exp(logits_i / T) / Σ exp(logits_j / T)",
     "p_i = exp(logits_i) / Σ exp(logits_j / T)"),
]


@pytest.mark.parametrize(("module", "reference", "right", "wrong"), CASES,
                         ids=[w for _, _, _, w in CASES])
def test_planted_error_in_a_definition_is_a_discrepancy(module: str, reference: str, right: str,
                                                        wrong: str) -> None:
    assert _status(module, reference, right) == "verified"
    assert _status(module, reference, wrong) == "discrepancy"


def test_every_standard_reference_has_a_planted_edit() -> None:
    from verifiers.formulas.standard_refs import STANDARD_REFERENCES

    assert {ref for module, ref, *_ in CASES if module == CODE} == set(STANDARD_REFERENCES)


def test_a_chain_it_cannot_read_is_unparsed() -> None:
    assert _status(HOLES, "softmax-temperature", "P(x) = softmax(logits / T) = ∫ p") == "unparsed"
    assert _status(HOLES, "softmax-temperature", "P(x) = logits[i, j]") == "unparsed"


NOTE_EDITS = [
    ("l1-f87-length", "lesson1-text-to-distribution.txt", r"\lVert a\rVert=\sqrt{a\cdot a}",
     r"\lVert a\rVert=a\cdot a"),
    ("mbm-fh-8-1-temperature-chain", "matrix-by-matrix.txt", "/ Σ exp(logits_j / T)",
     "/ Σ exp(logits_j)"),
    ("mbm-fh-8-1-temperature-chain", "matrix-by-matrix.txt", "P(x) = softmax(logits / T)",
     "P(x) = softmax(logits)"),
]


@pytest.mark.parametrize(("claim", "note", "find", "replace"), NOTE_EDITS,
                         ids=[r for *_, r in NOTE_EDITS])
def test_edited_definition_in_the_note_fails_at_its_line(tmp_path: Path, claim: str, note: str,
                                                         find: str, replace: str) -> None:
    verdict, line = run_edited(tmp_path, claim, note, find, replace)
    assert verdict.status == "discrepancy", verdict.message
    assert verdict.where[0] == line
