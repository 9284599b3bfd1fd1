"""Catalog entry for :mod:`verifiers.properties.laws_necessity` (laws7, issue 12 item 3).

Necessity words (必须 / 不必, must / need not) mapped to a searchable law: a sentence that says
two things *must* coincide states a law that fails when a computation with them apart works.
Light, like :mod:`.catalog`: built from :mod:`.params` only.
"""

from __future__ import annotations

from verifiers.properties.params import SENTENCE_CLASSES, Param, Spec, slot


def specs() -> tuple[Spec, ...]:
    """The necessity laws (each slot's default is the word the true law is stated with)."""
    return (
        Spec("kv-may-differ", "keys and values need not coincide: tinygpt.attention with V "
             "different from K (even of another width d_v) gives weight rows summing to 1 and "
             "Z = A V, one row of width d_v per query; the slot 'must' (不必 / 必须 要求 K 与 V "
             "一致) says whether they must coincide, and 必须 states the law the search breaks",
             params=(Param("max_len", "int", 4, 1, 8),
                     slot("must", "need", "none", SENTENCE_CLASSES["need"])),
             negated_by=(("must", "needed"),)),
    )
