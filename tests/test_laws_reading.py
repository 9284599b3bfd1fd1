"""The laws of verifiers/properties/laws_reading.py catch a planted bug, a flipped word of their
sentences states a false law, and invented sentences are read at their words end to end: the
dependence, role, change, sameness and implication words of issue 12 (laws6).

``READING_MUTANTS`` joins test_properties.MUTANTS and ``READING_FLIPS`` joins test_words.FLIPS.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.note_edits import check_in
from verifiers import words
from verifiers.properties import laws_reading as lr
from verifiers.properties.catalog import CATALOG
from verifiers.properties.runner import search
from verifiers.properties.specs_reading import specs
from verifiers.verdicts import DISCREPANCY, VERIFIED


def input_blind(model: Any, tokens: list[int], what: str) -> torch.Tensor:
    """Reads the model at a fixed input, whatever the text: A never changes."""
    return lr.tinygpt_intermediate(model, [0] * len(tokens), what)


def swapped_cross(decoder: torch.Tensor, encoder: torch.Tensor, q_side: str,
                  kv_side: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Takes the queries from the side named for K/V and the reverse (the roles swapped)."""
    return lr.cross_attention(decoder, encoder, kv_side, q_side)


def ordered_embedding(vocab: int, seed: int) -> torch.Tensor:
    """Row i at angle i/vocab of a half turn: adjacent ids are the most alike, as if ids meant
    something."""
    angle = torch.arange(vocab, dtype=torch.float64) * (torch.pi / vocab)
    return torch.stack([torch.cos(angle), torch.sin(angle)], dim=1)


def abs_sum_variances(x: list[float], y: list[float]) -> tuple[float, float, float]:
    """Var(|X| + Y) for Var(X + Y): the sign of X lost, so the variances no longer add."""
    vx, vy, _ = lr.population_variances(x, y)
    return vx, vy, lr.population_variances([abs(v) for v in x], y)[2] + vx


def padded_matmul(n: int, d: int, d2: int, m: int) -> tuple[int, ...] | None:
    """A product that pads the shorter inner size with zeros: defined for any d, d'."""
    return (n, m)


READING_MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "input-invariant": ({}, input_blind, ""),  # the note says A changes: a blind A never does
    "cross-attention-roles": ({}, swapped_cross, "not target x source"),
    "adjacent-ids-similar": ({}, ordered_embedding, ""),  # the note says it fails: here it holds
    "variance-additive-only-independent": ({}, abs_sum_variances, ""),  # never adds here
    "matmul-inner-dims": ({}, padded_matmul, "yet the product is defined"),
}

#: flips of the slots added to existing laws' sentences (specs_words.SAID; test_laws_read)
READING_SAID_FLIPS = [
    ("attention-row-own-only", {"differ": "invariant"}),  # 一定相同: another v moves z
    ("chain-rule-scores-text", {"need": "needed"}),  # 要求独立: the chain rule needs none
]

READING_FLIPS = [
    ("input-invariant", {"vary": "invariant"}),  # 固定: two inputs give different A
    ("cross-attention-roles", {"q": "encoder"}),  # Q from the encoder: source x source
    ("cross-attention-roles", {"kv": "decoder"}),  # K/V from the decoder: target x target
    ("adjacent-ids-similar", {"means": "is"}),  # 代表: a random E has a closer far id
    ("variance-additive-only-independent", {"necessary": "is"}),  # 是必要条件: Y = X^2 adds
    ("matmul-inner-dims", {"must": "none"}),  # 不必相等: torch refuses unequal inner sizes
    *READING_SAID_FLIPS,
]


def test_every_reading_law_is_in_the_catalog_with_a_mutant() -> None:
    names = {s.name for s in specs()}
    assert names <= set(CATALOG) and names == set(READING_MUTANTS)
    slots = {(s.name, p.name) for s in specs() for p in s.slots}
    assert slots <= {(n, k) for n, flip in READING_FLIPS for k in flip}


@pytest.mark.parametrize("name", sorted(READING_MUTANTS))
def test_the_real_implementation_verifies(name: str) -> None:
    outcome = search(name, profile="ci")
    assert outcome.status == VERIFIED, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("name", sorted(READING_MUTANTS))
def test_a_planted_bug_is_caught(name: str) -> None:
    params, mutant, fragment = READING_MUTANTS[name]
    outcome = search(name, params, impl=mutant, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
    assert fragment in outcome.text, outcome.text


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), READING_FLIPS)
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text


@pytest.mark.parametrize(("cls", "word", "meaning"), [
    ("dependence", "只看", "only"), ("dependence", "looks only at", "only"),
    ("reach", "当前这一个", "previous"), ("side", "解码端", "decoder"),
    ("side", "the encoder", "encoder"), ("effect", "训练后固定", "invariant"),
    ("effect", "可以不同", "changes"), ("effect", "也一定相同", "invariant"),
    ("effect", "varies", "changes"), ("truth", "不代表", "isnot"), ("truth", "代表", "is"),
    ("truth", "does not imply", "isnot"), ("truth", "implies", "is"),
])
def test_the_new_words_mean_what_they_say(cls: str, word: str, meaning: str) -> None:
    assert words.meaning(cls, word) == meaning


# -- end to end, invented sentences (not the notes'): each read at its word ----------------------

NOTE = textwrap.dedent("""\
    第 1 章：例子
    1.1 交叉注意力
    在翻译模型里，Q 来自{q}，K/V 来自{kv}，注意力矩阵是目标长度乘源长度。
    1.2 权重
    对同一个模型，注意力权重 $A$ 会随输入的句子{vary}。
    1.3 编号
    词表里 7 号和 8 号相邻，{means}两个词的用法接近。
    1.4 English
    In a translation model the queries come from {q_en}, the keys and values from the encoder.
    """)
CLAIMS = """\
note: n.txt
claims:
  - id: roles
    kind: property
    section: "1.1"
    says: cross-attention takes Q from the decoder and K/V from the encoder
    text: 在翻译模型里，Q 来自⟦q⟧，K/V 来自⟦kv⟧，注意力矩阵是目标长度乘源长度。
    property: cross-attention-roles
  - id: varies
    kind: property
    section: "1.2"
    says: A changes with the input
    text: 对同一个模型，注意力权重 $A$ 会随输入的句子⟦vary⟧。
    property: input-invariant
    params: {max_len: 3}
  - id: ids
    kind: property
    section: "1.3"
    says: adjacent ids do not mean similar use
    text: 号相邻，⟦means⟧两个词的用法接近。
    property: adjacent-ids-similar
  - id: roles-en
    kind: property
    section: "1.4"
    says: the queries come from the decoder
    text: In a translation model the queries come from ⟦q⟧, the keys and values from the encoder.
    property: cross-attention-roles
"""
TRUE = {"q": "解码端", "kv": "编码端", "vary": "发生变化", "means": "不代表", "q_en": "the decoder"}


def run_note(tmp_path: Path, capsys: pytest.CaptureFixture[str], **said: str
             ) -> dict[str, dict]:
    return check_in(tmp_path, capsys, NOTE.format(**{**TRUE, **said}), CLAIMS)


def test_the_invented_sentences_verify(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    claims = run_note(tmp_path, capsys)
    assert {k: c["status"] for k, c in claims.items()} == dict.fromkeys(claims, "verified")


@pytest.mark.parametrize(("said", "claim", "status", "line"), [
    ({"q": "编码端", "kv": "解码端"}, "roles", DISCREPANCY, 3),  # roles swapped
    ({"kv": "解码器"}, "roles", DISCREPANCY, 3),  # self-attention's K/V
    ({"q": "月亮"}, "roles", "unparsed", 3),  # no side of the vocabulary
    ({"vary": "保持固定"}, "varies", DISCREPANCY, 5),  # change over inputs -> fixed
    ({"vary": "完全相同"}, "varies", DISCREPANCY, 5),  # sameness
    ({"means": "就代表"}, "ids", DISCREPANCY, 7),  # non-implication -> implication
    ({"means": "暗示"}, "ids", "unparsed", 7),  # a word outside the vocabulary
    ({"q_en": "the encoder"}, "roles-en", DISCREPANCY, 9),
])
def test_an_edited_word_is_judged_at_its_line(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              said: dict[str, str], claim: str, status: str,
                                              line: int) -> None:
    got = run_note(tmp_path, capsys, **said)[claim]
    assert got["status"] == status, got["message"]
    assert any(v["start"]["line"] == line for v in got["values"]), got["values"]
