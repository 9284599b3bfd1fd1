"""The component law (laws7): a trait is searched on the component the sentence names, so a
property moved to the wrong component fails with a counterexample at the word; a component
outside the vocabulary is ``unparsed``. The comparison, condition and count classes are read
as law words of a quote's fixed text.

``COMPONENT_MUTANTS`` joins test_properties.MUTANTS and ``COMPONENT_FLIPS`` joins
test_words.FLIPS.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.note_edits import check_in
from verifiers import words
from verifiers.properties import laws_components as lc
from verifiers.properties import laws_necessity as ln
from verifiers.properties.params import COMPONENT, TRAIT
from verifiers.properties.runner import search
from verifiers.properties.specs_components import specs as component_specs
from verifiers.properties.specs_necessity import specs as necessity_specs
from verifiers.verdicts import DISCREPANCY, VERIFIED


def leaky(name: str, x: torch.Tensor) -> torch.Tensor:
    """Every component offset by -1 and half the last input row: rows no longer sum to 1,
    outputs go negative, a shift leaks through, and every row reads the last position (so
    per-position and causal fail too: the traits the claims state, at their parameters);
    the last output row is the last input row (laws8: it reads no other row, so `mixes`
    fails too)."""
    y = lc.component_output(name, x) - 1.0 + 0.5 * x[-1:, :]
    y[-1] = x[-1]
    return y


def values_are_keys(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
                    ) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention that passes the keys on as values (K and V tied)."""
    return ln.attend(q, k, k)


COMPONENT_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "component-trait": ({}, leaky, " is not "),
    "component-two-traits": ({}, leaky, " is not "),
    "kv-may-differ": ({}, values_are_keys, "not A V"),
}

COMPONENT_FLIPS = [
    ("component-trait", {"component": "layernorm"}),  # LayerNorm rows sum to 0, not 1
    ("component-trait", {"trait": "mean_zero"}),  # softmax rows have mean 1/d
    ("component-two-traits", {"component": "layernorm"}),  # LayerNorm rows go negative
    ("component-two-traits", {"trait": "mean_zero"}),
    ("component-two-traits", {"trait2": "unit_variance"}),  # and not variance 1
    ("kv-may-differ", {"must": "needed"}),  # 必须一致: attention works with K and V apart
]


def specs() -> tuple:
    return (*component_specs(), *necessity_specs())


def test_the_laws7_laws_are_in_the_catalog_with_a_mutant_and_flips() -> None:
    names = {s.name for s in specs()}
    assert names == set(COMPONENT_MUTANTS)
    slots = {(s.name, p.name) for s in specs() for p in s.slots}
    assert slots == {(n, k) for n, flip in COMPONENT_FLIPS for k in flip}


@pytest.mark.parametrize("name", sorted(COMPONENT_MUTANTS))
def test_the_true_law_verifies(name: str) -> None:
    assert search(name, profile="ci").status == VERIFIED


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(COMPONENT_MUTANTS))
def test_a_planted_bug_is_caught(name: str) -> None:
    params, mutant, fragment = COMPONENT_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.status == DISCREPANCY and fragment in outcome.text, outcome.text


@pytest.mark.usefixtures("first_counterexample")
@pytest.mark.parametrize(("name", "flip"), COMPONENT_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    assert search(name, flip, profile="ci").status == DISCREPANCY


# Each trait moved to a component that has it verifies, and to one that lacks it fails: the
# law distinguishes components (textbook facts, not read from the notes).
TRUE_FALSE = [
    ("layernorm", "mean_zero", "softmax"), ("layernorm", "unit_variance", "rmsnorm"),
    ("softmax", "nonneg", "layernorm"), ("softmax", "positive", "relu"),
    ("sigmoid", "unit_interval", "tanh"), ("layernorm", "shift_invariant", "rmsnorm"),
    ("rmsnorm", "scale_invariant", "softmax"), ("relu", "monotone", "gelu"),
    ("tanh", "bounded", "relu"), ("attention", "equivariant", "masked_attention"),
    ("masked_attention", "causal", "attention"), ("ffn", "per_position", "masked_attention"),
    ("masked_attention", "mixes", "ffn"),  # laws8: an existence, on seeded inputs
]


@pytest.mark.usefixtures("first_counterexample")
@pytest.mark.parametrize(("has", "trait", "lacks"), TRUE_FALSE)
def test_a_trait_is_searched_on_the_component_named(has: str, trait: str, lacks: str) -> None:
    assert search("component-trait", {"component": has, "trait": trait},
                  profile="ci").status == VERIFIED
    assert search("component-trait", {"component": lacks, "trait": trait},
                  profile="ci").status == DISCREPANCY


def test_every_component_and_trait_is_checked_and_has_words() -> None:
    assert set(lc.COMPONENTS) == set(COMPONENT)
    assert {t for _, t, _ in TRUE_FALSE} | {"sums_to_one"} == set(TRAIT)
    for cls in ("component", "trait", "comparison", "condition", "count", "reason"):
        for meaning, ws in words.words_of(cls).items():
            assert any(any("\u4e00" <= ch <= "\u9fff" for ch in w) for w in ws), (cls, meaning)
            assert any(w.isascii() and w[:1].isalpha() for w in ws), (cls, meaning)
    assert tuple(words.words_of("component")) == COMPONENT
    assert tuple(words.words_of("trait")) == TRAIT


@pytest.mark.parametrize(("cls", "word", "meaning"), [
    ("component", "LayerNorm", "layernorm"), ("component", "Softmax", "softmax"),
    ("component", "残差", "residual"), ("trait", "和为 1", "sums_to_one"),
    ("trait", "均值为0", "mean_zero"), ("comparison", r"\ll", "much_less"),
    ("comparison", "远大于", "much_greater"), ("condition", "只有当", "necessary"),
    ("condition", "只要", "sufficient"), ("condition", "当且仅当", "iff"),
    ("count", "个数相同", "same"), ("count", "个数不同", "different"),
])
def test_the_new_words_mean_what_they_say(cls: str, word: str, meaning: str) -> None:
    assert words.meaning(cls, word) == meaning


# -- end to end, invented sentences (not the notes'): each read at its word ----------------------

NOTE = textwrap.dedent("""\
    第 1 章：组件
    1.1 归一化
    注意它的几何含义：
    {c1}：把每一行变成非负且和为 1 的系数。
    1.2 平移
    所有分数可先减去最大值，{c2}的输出保持{t2}。
    1.3 English
    Note that {c3} makes every row sum to 1.
    """)
CLAIMS = """\
note: n.txt
claims:
  - id: rows
    kind: property
    section: "1.1"
    says: softmax makes each row non-negative with sum 1
    text: |
      注意它的几何含义：
      ⟦component⟧：把每一行变成⟦trait⟧且⟦trait2⟧的系数。
    property: component-two-traits
  - id: shift
    kind: property
    section: "1.2"
    says: softmax is shift invariant
    text: 所有分数可先减去最大值，⟦component⟧的输出保持⟦trait⟧。
    property: component-trait
  - id: english
    kind: property
    section: "1.3"
    says: softmax rows sum to 1
    text: Note that ⟦component⟧ makes every row sum to 1.
    property: component-trait
"""
TRUE = {"c1": "Softmax", "c2": "softmax", "t2": "平移不变", "c3": "softmax"}


def run_note(tmp_path: Path, capsys: pytest.CaptureFixture[str], **said: str
             ) -> dict[str, dict]:
    return check_in(tmp_path, capsys, NOTE.format(**{**TRUE, **said}), CLAIMS)


def test_the_invented_sentences_verify(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    claims = run_note(tmp_path, capsys)
    assert {k: c["status"] for k, c in claims.items()} == dict.fromkeys(claims, VERIFIED)


@pytest.mark.parametrize(("said", "claim", "status", "line"), [
    ({"c1": "LayerNorm"}, "rows", DISCREPANCY, 4),  # fresh6's miss, on an invented note
    ({"c1": "ReLU"}, "rows", DISCREPANCY, 4),  # non-negative, but rows do not sum to 1
    ({"c1": "BatchNorm"}, "rows", "unparsed", 4),  # no component of the vocabulary
    ({"c2": "GELU"}, "shift", DISCREPANCY, 6),  # GELU is not shift invariant
    ({"t2": "缩放不变"}, "shift", DISCREPANCY, 6),  # softmax is not scale invariant
    ({"c3": "tanh"}, "english", DISCREPANCY, 8),
])
def test_an_edited_component_is_judged_at_its_line(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   said: dict[str, str], claim: str,
                                                   status: str, line: int) -> None:
    got = run_note(tmp_path, capsys, **said)[claim]
    assert got["status"] == status, got
    assert any(v["status"] == status and v["start"]["line"] == line for v in got["values"]), got


def test_a_true_move_still_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LayerNorm is shift invariant too: the sentence stays true, and so does the verdict."""
    assert run_note(tmp_path, capsys, c2="LayerNorm")["shift"]["status"] == VERIFIED
