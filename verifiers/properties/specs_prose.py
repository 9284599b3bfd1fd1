"""Catalog entries for :mod:`verifiers.properties.laws_prose` (issue 12 items 1 and 4).

Law sentences found by the comparative and scope cues (增长, 不仅由, 增加 … 减小): how a sum's
spread grows with its number of terms, that a dot product is not fixed by the angle alone, and
which way a small step of one parameter moves the loss given the sign of its derivative.
Light, like :mod:`.catalog`: built from :mod:`.params` only.
"""

from __future__ import annotations

from verifiers.properties.params import DIRECTION, FAILS, SENTENCE_CLASSES, Param, Spec, slot

GROWTH = SENTENCE_CLASSES["growth"]  # sqrt, linear, constant
EXCLUSIVE = SENTENCE_CLASSES["exclusive"]  # only, also
SIGNS = SENTENCE_CLASSES["sign"]  # positive, nonneg, zero, negative


def specs() -> tuple[Spec, ...]:
    """The prose laws' specs (each slot's default is the word the true law is stated with)."""
    return (
        Spec("sum-spread-growth", "the standard deviation of a sum of n independent "
             "unit-variance terms grows as sqrt(n) (sample statistics, fixed seeds): 4 times "
             "the terms, twice the spread",
             params=(Param("max_terms", "int", 64, 2, 1024),
                     Param("samples", "int", 20_000, 5_000, 200_000),
                     slot("growth", "growth", "sqrt", GROWTH)), cost=0.05),
        Spec("scaled-dot-spread", "the SD of q . k / c over independent standard normal "
             "entries, as the dimension d grows 4-fold: c = d shrinks it (1/sqrt d), c = 1 "
             "grows it (sqrt d) (sample statistics, fixed seeds)",
             params=(Param("divisor", "choice", "d", choices=("d", "one")),
                     Param("max_dim", "int", 64, 4, 1024),
                     Param("samples", "int", 20_000, 5_000, 200_000),
                     slot("spread", "direction", "decreases", DIRECTION)), cost=0.05),
        Spec("dot-not-angle-only", "the dot product is not fixed by the angle alone: "
             "rescaling q or k keeps the angle and changes q . k (the sentence's word "
             "'only' states the opposite)", expect=FAILS,
             params=(Param("max_len", "int", 6, 2, 16),
                     slot("only", "exclusive", "also", EXCLUSIVE)),
             negated_by=(("only", "only"),)),
        Spec("derivative-sign-step", "for the cross-entropy loss as a function of one logit "
             "w: where dL/dw has the stated sign, a small step of w the stated way moves the "
             "loss the stated way (dL/dw < 0: increasing w lowers the loss), and the step "
             "the sentence recommends lowers it",
             params=(Param("max_len", "int", 6, 2, 16),
                     slot("sign", "sign", "negative", SIGNS),
                     slot("move", "direction", "increases", DIRECTION),
                     slot("loss", "direction", "decreases", DIRECTION),
                     slot("fix", "direction", "increases", DIRECTION))),
    )
