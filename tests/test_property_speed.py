"""Faster property searches must be the same searches (issue 15).

The strategy helpers of :mod:`verifiers.properties.strategies` are shared (built once per
argument list) and the laws build their strategies outside the draw. Hypothesis draws
depend on a strategy's definition, not on the object, so every law must see exactly the
examples it saw with a strategy built afresh at every call: these tests record the
examples a search hands to the law's check, with the shared helpers and with fresh ones,
and compare them one by one. A sharing that conflated two strategies (a cache keyed on too
few arguments) would change the stream, and the planted one below shows the comparison
notices.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import strategies as st

from verifiers.properties import (
    laws_attention,
    laws_decoding,
    laws_model,
    laws_prose,
    laws_softmax,
    laws_statements,
    strategies,
)
from verifiers.properties.laws import LAWS
from verifiers.properties.runner import search

SHARED = ("floats", "vectors", "matrices", "integer_vectors", "token_lists")
MODULES = (strategies, laws_attention, laws_decoding, laws_model, laws_prose, laws_softmax,
           laws_statements)
#: laws that draw through every shared helper (matrices with integer and float entries,
#: vectors, integer vectors, floats, token lists); the first two expect a counterexample,
#: so their shrinking is compared too
LAWS_COMPARED = ("attention-not-linear", "embedding-fancy-index-loses-repeats",
                 "softmax-ratio", "temperature-zero-argmax", "layernorm-per-position",
                 "top-k-keeps-k", "onehot-lookup")


def examples_seen(name: str) -> tuple[list[str], str]:
    """Every example the law's check received, in order, and the outcome's message."""
    seen: list[str] = []
    factory = LAWS[name]

    def recording(params: Any) -> Any:
        law = factory(params)

        def check(case: Any, fn: Any) -> None:
            seen.append(repr(case))
            law.check(case, fn)
        return replace(law, check=check)

    LAWS[name] = recording
    try:
        out = search(name, profile="ci")
    finally:
        LAWS[name] = factory
    return seen, out.text


@contextmanager
def helpers(make: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> Iterator[None]:
    """Replace each shared helper, in every module that imported it, by ``make(name, fresh)``."""
    saved = []
    for name in SHARED:
        shared = getattr(strategies, name)
        replacement = make(name, shared.__wrapped__)
        for module in MODULES:
            if getattr(module, name, None) is shared:
                saved.append((module, name, shared))
                setattr(module, name, replacement)
    try:
        yield
    finally:
        for module, name, shared in saved:
            setattr(module, name, shared)


def test_the_helpers_are_built_once_per_argument_list() -> None:
    assert strategies.matrices(2, 3) is strategies.matrices(2, 3)
    assert strategies.matrices(2, 3, 2.0, True) is not strategies.matrices(2, 3, 2.0)
    assert strategies.floats(-1, 1) is not strategies.floats(-1.0, 1.0)  # typed: no mix-up
    assert strategies.models() is not strategies.models(max_layers=2)


@pytest.mark.parametrize("name", LAWS_COMPARED)
def test_shared_strategies_draw_the_examples_fresh_ones_draw(name: str) -> None:
    shared = examples_seen(name)
    with helpers(lambda _, fresh: fresh):
        fresh = examples_seen(name)
    assert len(shared[0]) > 1
    assert shared == fresh


def test_a_cache_keyed_on_too_few_arguments_changes_the_examples() -> None:
    """Planted: ``token_lists`` shared by length only (the vocabulary size ignored)."""
    by_length: dict[tuple[int, int], st.SearchStrategy[Any]] = {}

    def make(name: str, fresh: Callable[..., Any]) -> Callable[..., Any]:
        if name != "token_lists":
            return fresh

        def token_lists(vocab: int, min_len: int, max_len: int) -> Any:
            return by_length.setdefault((min_len, max_len), fresh(vocab, min_len, max_len))
        return token_lists

    right = examples_seen("onehot-lookup")
    with helpers(make):
        wrong = examples_seen("onehot-lookup")
    assert right[0] != wrong[0]
