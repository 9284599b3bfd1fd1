"""Tests of tinygpt.bpe: the note's worked example (lesson 1 §1) and generic cases."""

from __future__ import annotations

import pytest

from tinygpt.bpe import train_bpe

# Lesson 1 §1's corpus, typed in as data (the claims read it from the note).
NOTE_CORPUS = [("机器学习", 5), ("深度学习", 3), ("学习", 2), ("机器人", 2), ("深度", 1)]


def test_note_example_start() -> None:
    trace = train_bpe(NOTE_CORPUS)
    # "起点词表是用到的 7 个字：机、器、学、习、深、度、人" — "语料一共 … =44 个 token"
    assert trace.initial_vocab == tuple("机器学习深度人")
    assert trace.initial_tokens == 44


def test_note_example_merges() -> None:
    """学习（10）→ 机器（7）→ 机器学习（5）→ 深度（4）→ 深度学习（3）→ 机器人（2）."""
    trace = train_bpe(NOTE_CORPUS)
    got = [(m.unit, m.count) for m in trace.merges]
    assert got == [
        ("学习", 10),
        ("机器", 7),
        ("机器学习", 5),
        ("深度", 4),
        ("深度学习", 3),
        ("机器人", 2),
    ]
    # round 1: "词表变成 8 个，语料 token 数从 44 降到 34"
    assert (trace.merges[0].vocab_size, trace.merges[0].tokens) == (8, 34)
    # "6 轮之后每个词都成了一个 token，总数降到 13"
    assert len(trace.merges) == 6
    assert trace.final_tokens == 13
    assert all(len(units) == 1 for units, _ in trace.words)
    assert [m.tokens for m in trace.merges] == [34, 27, 22, 18, 15, 13]
    assert [m.vocab_size for m in trace.merges] == [8, 9, 10, 11, 12, 13]
    # the note's order never rests on a tie-breaking rule
    assert all(m.tied == () for m in trace.merges)


def test_note_example_order_independent_of_corpus_order() -> None:
    """No ties, so listing the words in another order gives the same merges."""
    a = train_bpe(NOTE_CORPUS)
    b = train_bpe(list(reversed(NOTE_CORPUS)))
    assert [(m.pair, m.count, m.tokens) for m in a.merges] == [
        (m.pair, m.count, m.tokens) for m in b.merges
    ]


def test_tie_broken_by_first_seen_pair() -> None:
    # ("a","b") and ("c","d") both occur 3 times; the one seen first wins, and the
    # other is reported as tied.
    trace = train_bpe([("ab", 3), ("cd", 3)], max_merges=1)
    assert trace.merges[0].pair == ("a", "b")
    assert trace.merges[0].tied == (("c", "d"),)
    trace = train_bpe([("cd", 3), ("ab", 3)], max_merges=1)
    assert trace.merges[0].pair == ("c", "d")


def test_empty_corpus() -> None:
    for corpus in ([], {}, [("机器", 0)]):
        trace = train_bpe(corpus)
        assert trace.merges == ()
        assert trace.initial_tokens == 0 and trace.initial_vocab == ()
        assert trace.final_tokens == 0 and trace.final_vocab_size == 0


def test_single_character_words_have_no_pairs() -> None:
    trace = train_bpe({"a": 4, "b": 1})
    assert trace.merges == () and trace.final_tokens == 5 and trace.final_vocab_size == 2


def test_overlapping_pair_counts_occurrences_but_merges_non_overlapping() -> None:
    # "aaa": the pair (a, a) occurs twice, but merging left to right gives "aa a".
    trace = train_bpe([("aaa", 1)], max_merges=1)
    m = trace.merges[0]
    assert (m.pair, m.count, m.tokens) == (("a", "a"), 2, 2)
    assert trace.words == ((("aa", "a"), 1),)


def test_stopping_rules_and_duplicates() -> None:
    assert len(train_bpe(NOTE_CORPUS, target_vocab=9).merges) == 2
    assert len(train_bpe(NOTE_CORPUS, max_merges=3).merges) == 3
    # a repeated word counts as one word with the summed count
    merged = train_bpe([("学习", 1), ("学习", 2)])
    assert merged.merges[0].count == 3 and merged.final_tokens == 3


def test_presplit_units_and_bad_counts() -> None:
    trace = train_bpe([(("学", "习"), 2)])
    assert trace.merges[0].unit == "学习"
    with pytest.raises(ValueError):
        train_bpe([("学习", -1)])
    with pytest.raises(ValueError):
        train_bpe([("学习", 1.5)])  # type: ignore[list-item]
