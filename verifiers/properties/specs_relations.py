"""Catalog entries for :mod:`verifiers.properties.laws_relations` (laws8, issue 12 item 1).

A comparison (≪ 小于 约等于 大于 ≫), a count (必须相等 / 可以不同), a condition (只要 / 只有当 /
当且仅当) and a cause (因为 …: class ``reason``) are word holes read as the law's slots, so an
edit of one is searched as the law it now states. Light, like :mod:`.catalog`: built from
:mod:`.params` only.
"""

from __future__ import annotations

from verifiers.properties.params import COMPONENT, DIGIT, REASON, TRAIT, Param, Spec, slot

COMPARISON = ("much_less", "less", "approx", "greater", "much_greater")
CONDITION = ("sufficient", "necessary", "iff")
COUNT = ("same", "different")
QUANTITIES = ("exp", "softmax", "sigmoid", "tanh", "loss", "entropy")
OPERATIONS = ("matmul", "dot", "add")


def specs() -> tuple[Spec, ...]:
    """The comparison, count and condition laws."""
    return (
        Spec("quantity-compare", "every value of the quantity (exp, softmax, sigmoid, tanh of "
             "the scores; the loss -ln p_y; the entropy) is in the stated relation (≪ < ≈ > ≫) "
             "to the stated constant (0 or 1) on every score vector",
             params=(Param("quantity", "choice", "exp", choices=QUANTITIES),
                     Param("max_len", "int", 6, 1, 16), Param("scale", "float", 30.0, 0.5, 300.0),
                     slot("relation", "comparison", "greater", COMPARISON),
                     slot("bound", "digit", "zero", DIGIT)), cost=0.3),
        Spec("shapes-agree", "the operation (matrix product's inner sizes, a dot product's "
             "lengths, a residual sum's widths) is defined exactly when the two sizes are "
             "equal (torch); 可以不同 states that the sizes may differ",
             params=(Param("operation", "choice", "matmul", choices=OPERATIONS),
                     Param("max_size", "int", 6, 3, 16),
                     slot("count", "count", "same", COUNT)), cost=0.2),
        Spec("component-condition", "the component the sentence names has the trait it "
             "states (sufficient: searched), the contrasted component lacks it (necessary: on "
             "seeded inputs), or both (iff)",
             params=(Param("max_len", "int", 4, 1, 8), Param("max_width", "int", 4, 2, 8),
                     Param("bound", "float", 5.0, 0.5, 1000.0),
                     Param("contrast", "choice", "attention", choices=COMPONENT),
                     slot("component", "component", "masked_attention", COMPONENT),
                     slot("trait", "trait", "causal", TRAIT),
                     slot("condition", "condition", "iff", CONDITION)), cost=0.3),
        Spec("component-cause", "因为 A，所以 B: the cause A the sentence gives holds on the "
             "component named (its premise trait, searched), B holds too, and A is a known "
             "reason for B (laws_relations.REASONS); a cause outside the vocabulary is unparsed",
             params=(Param("max_len", "int", 4, 1, 8), Param("max_width", "int", 4, 2, 8),
                     Param("bound", "float", 5.0, 0.5, 1000.0),
                     slot("component", "component", "softmax", COMPONENT),
                     slot("because", "reason", "common_factor", REASON),
                     slot("so", "trait", "shift_invariant", TRAIT)), cost=0.3),
    )
