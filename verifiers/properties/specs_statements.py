"""Catalog entries for the laws of :mod:`verifiers.properties.laws_statements` (issue 12 item 4).

Law-stating sentences of the notes that no law of the catalog stated: parameters kept during
generation, BPE shortening a text, sizes proportional to V, the bigram's blindness to earlier
tokens, the chain rule scoring every text, and maximum likelihood as minimum negative log.
Light, like :mod:`.catalog` (no torch, no Hypothesis); the catalog appends :func:`specs` with
one line; both build from :mod:`.params`, so neither imports the other back.
"""

from __future__ import annotations

from verifiers.properties.params import (
    DIGIT,
    DIRECTION,
    EFFECT,
    SENTENCE_CLASSES,
    Param,
    Spec,
    slot,
)


def specs() -> tuple[Spec, ...]:
    """The statements' specs, built from the catalog's parameter families."""
    return (
        Spec("generation-keeps-parameters", "generating tokens (greedy or sampled, with or "
             "without the KV cache) leaves every parameter of the model exactly as it was",
             params=(Param("max_layers", "int", 2, 1, 3), Param("max_len", "int", 4, 1, 8),
                     slot("params", "effect", "invariant", EFFECT)),
             cost=0.25, negated_by=(("params", "changes"),)),
        Spec("bpe-merges-shorten-text", "each BPE merge that enlarges the vocabulary strictly "
             "lowers the token count of the text it was learnt on (a larger V cuts the same "
             "text into fewer tokens)",
             params=(Param("max_words", "int", 5, 1, 8),
                     slot("tokens", "direction", "decreases", DIRECTION))),
        Spec("vocab-proportional-parameters", "the embedding matrix E (V x d) and the output "
             "matrix U (d x V) have d V entries each: proportional to V, d fixed",
             params=(Param("max_vocab", "int", 64, 2, 4096),)),
        Spec("bigram-context-blind", "a bigram's next-token distribution depends on the "
             "current token only: two contexts ending in the same token get the same "
             "distribution", params=(Param("max_vocab", "int", 6, 2, 16),
                                     Param("max_len", "int", 6, 2, 12),
                                     slot("effect", "effect", "invariant", EFFECT)),
             negated_by=(("effect", "changes"),)),
        Spec("chain-rule-scores-text", "the product of a model's next-token probabilities "
             "scores every text: over all texts of one length the scores sum to 1",
             params=(Param("max_vocab", "int", 3, 2, 4), Param("max_len", "int", 3, 1, 3)),
             cost=0.25),
        Spec("max-likelihood-min-nll", "maximising the product of the probabilities picks "
             "the same candidate as minimising the sum of their negative logarithms",
             params=(Param("max_candidates", "int", 5, 2, 12),
                     Param("max_len", "int", 6, 1, 16),
                     slot("effect", "effect", "invariant", EFFECT)),
             negated_by=(("effect", "changes"),)),
        Spec("variance-mean-square", "Var X = E[X^2] - (E X)^2: the variance equals the "
             "expectation of the square exactly when the mean is 0 (not for every X)",
             params=(Param("max_values", "int", 6, 1, 8),
                     slot("always", "guarantee", "not", SENTENCE_CLASSES["guarantee"]),
                     slot("only", "exclusive", "only", SENTENCE_CLASSES["exclusive"]),
                     slot("mean", "digit", "zero", DIGIT)),
             cost=0.2),
    )
