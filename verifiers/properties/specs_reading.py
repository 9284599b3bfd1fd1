"""Catalog entries for :mod:`verifiers.properties.laws_reading` (issue 12 items 1 and 4).

Law sentences that were waived because no slot could read their words: what changes with the
input and what is fixed after training (A 随输入改变 / W 训练后固定), which side of an
encoder-decoder feeds the queries and which the keys and values (Q 来自解码端，K/V 来自编码端),
and what a token id does not imply (3 号和 4 号挨着，不代表意思相近). Light, like
:mod:`.catalog`: built from :mod:`.params` only.
"""

from __future__ import annotations

from verifiers.properties.params import EFFECT, FAILS, SENTENCE_CLASSES, Param, Spec, slot

SIDES = SENTENCE_CLASSES["side"]  # decoder, encoder
TRUTH = SENTENCE_CLASSES["truth"]  # is, isnot
#: what a sentence says varies with the input (a TinyGPT forward pass's intermediates)
VARYING = ("weights", "q", "k", "v")


def specs() -> tuple[Spec, ...]:
    """The reading laws' specs (each slot's default is the word the true law is stated with)."""
    return (
        Spec("input-invariant", "the named intermediate of a TinyGPT forward pass (the "
             "attention weights A, or q, k, v) is the same for every input text: false, they "
             "change with the input (the parameters that make them are fixed: "
             "generation-keeps-parameters); the slot 'vary' is the sentence's word: 改变/不同 "
             "says it changes (the search must find two inputs that differ), 固定/相同 says "
             "it is the same", FAILS,
             params=(Param("what", "choice", "weights", choices=VARYING),
                     Param("max_len", "int", 5, 2, 8),
                     slot("vary", "effect", "changes", EFFECT)),
             cost=0.3,
             negated_by=(("vary", "invariant"),)),
        Spec("cross-attention-roles", "encoder-decoder cross-attention takes Q from the side "
             "whose positions it outputs (the decoder: one output row per target position) "
             "and K, V from the side it reads (the encoder): A is target length x source "
             "length; the slots q and kv are the sentence's sides, and the law computes "
             "tinygpt.attention with Q, K, V taken from them",
             params=(Param("max_len", "int", 6, 2, 12),
                     slot("q", "side", "decoder", SIDES),
                     slot("kv", "side", "encoder", SIDES))),
        Spec("variance-additive-only-independent", "Var(X + Y) = Var X + Var Y only for "
             "independent X, Y (false: Cov(X, Y) = 0 is what it needs, so a dependent but "
             "uncorrelated pair, Y = X^2 with X symmetric, adds too: independence is sufficient, "
             "not necessary); the slot 'necessary' (不是 / 是 必要条件) says whether it holds",
             FAILS, params=(Param("max_values", "int", 4, 1, 8),
                            slot("necessary", "truth", "isnot", TRUTH)),
             negated_by=(("necessary", "is"),)),
        Spec("matmul-inner-dims", "a matrix product (n x d)(d' x m) is defined exactly when "
             "the inner sizes agree (d = d'), and then it is n x m (the inner d vanishes), "
             "computed with torch.matmul; the slot 'must' (必须 / 不必 相等) says whether the "
             "inner sizes must agree",
             params=(Param("max_dim", "int", 5, 1, 8),
                     slot("must", "need", "needed", SENTENCE_CLASSES["need"])),
             negated_by=(("must", "none"),)),
        Spec("adjacent-ids-similar", "adjacent token ids have the more similar embeddings: "
             "cos(E[i], E[i+1]) >= cos(E[i], E[j]) for every j not next to i (false: an id "
             "is a row number; a freshly initialised E has no such order); the sentence's "
             "'means' "
             "(不代表 / 代表) says whether it holds", FAILS,
             params=(Param("max_vocab", "int", 8, 4, 64),
                     slot("means", "truth", "isnot", TRUTH)),
             negated_by=(("means", "is"),)),
    )

