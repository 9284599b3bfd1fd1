"""Catalog entries for the laws of :mod:`verifiers.properties.laws_hedges` (issue 12 item 4).

Law sentences that were waived as hedges or definitions but do state a checkable law: a
gradient step does not raise every sample's probability, the coefficients of a fixed average
do not depend on the input, and not every high-dimensional dot product is large. Light, like
:mod:`.catalog` (no torch, no Hypothesis); the catalog appends :func:`specs` with one line.
"""

from __future__ import annotations

from verifiers.properties.params import EFFECT, FAILS, Param, Spec, slot


def specs() -> tuple[Spec, ...]:
    return (
        Spec("step-raises-every-sample", "one gradient step on the mean cross-entropy of a "
             "batch raises the target probability of every sample in it", FAILS,
             params=(Param("max_vocab", "int", 3, 2, 5), Param("max_dim", "int", 2, 1, 4)),
             cost=0.25),
        Spec("fixed-average-weights-constant", "z = sum_j c_j x_j with fixed coefficients: "
             "the weight of x_j in z (dz/dx_j) is c_j whatever the input",
             params=(Param("max_terms", "int", 4, 2, 8),
                     slot("effect", "effect", "invariant", EFFECT)),
             cost=0.25, negated_by=(("effect", "changes"),)),
        Spec("attention-row-own-only", "the last row of causal attention, z_n = sum_j a_nj "
             "v_j, depends on its own position only: changing an earlier value v_j leaves it",
             FAILS, params=(Param("max_len", "int", 3, 2, 6),), cost=0.25),
        Spec("residual-keeps-information", "y = x + F(x) keeps every input apart: for every "
             "linear sublayer F, different inputs give different outputs", FAILS,
             params=(Param("max_dim", "int", 2, 1, 4),), cost=0.25),
        Spec("small-softmax-derivative-stalls", "when the softmax derivative at the target "
             "p_y(1 - p_y) is small, the cross-entropy gradient dL/dz_y is small too", FAILS,
             params=(Param("max_vocab", "int", 4, 2, 8),), cost=0.25),
        Spec("high-dim-dots-all-large", "every dot product of two d-dimensional vectors of "
             "+-1 entries (d >= 16) is large: abs(q . k) >= 1", FAILS,
             params=(Param("max_dim", "int", 64, 16, 512),), cost=0.25),
    )
