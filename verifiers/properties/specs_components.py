"""Catalog entry for :mod:`verifiers.properties.laws_components` (laws7, issue 12 item 1).

A law about a component (rows sum to 1, non-negative, shift invariant, mean 0, causal, …) is
searched on the component the sentence *names*: the component is a word hole of class
``component`` and the trait one of class ``trait`` (``vocabulary.yaml``), so "Softmax：每一行
非负且和为 1" edited to "LayerNorm：…" is searched on LayerNorm and fails with a row whose
outputs are negative. A component outside the vocabulary is ``unparsed``. Light, like
:mod:`.catalog`: built from :mod:`.params` only.
"""

from __future__ import annotations

from verifiers.properties.params import COMPONENT, TRAIT, Param, Spec, slot


def specs() -> tuple[Spec, ...]:
    """The component law (its slots' defaults: Softmax, rows summing to 1)."""
    says = ("the component the sentence names (softmax, LayerNorm, RMSNorm, ReLU, GELU, "
            "sigmoid, tanh, self-attention, masked attention, residual, FFN: tinygpt's "
            "functions, torch's for the rest) has the trait{} it states (rows sum to 1, "
            "non-negative, strictly positive, in [0, 1], shift or scale invariant, rows of mean "
            "0 or variance 1, monotone, bounded, permutation equivariant, causal, per position) "
            "on every n x d input; the slots are the sentence's words")
    size = (Param("max_len", "int", 4, 1, 8), Param("max_width", "int", 4, 2, 8),
            Param("bound", "float", 5.0, 0.5, 1000.0),
            slot("component", "component", "softmax", COMPONENT))
    return (
        Spec("component-trait", says.format(""),
             params=(*size, slot("trait", "trait", "sums_to_one", TRAIT)), cost=0.3),
        Spec("component-two-traits", says.format("s (two, 非负且和为 1)"),
             params=(*size, slot("trait", "trait", "nonneg", TRAIT),
                     slot("trait2", "trait", "sums_to_one", TRAIT)), cost=0.3),
    )
