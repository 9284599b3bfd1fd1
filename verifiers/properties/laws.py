"""Every law, registered by name (importing this module imports torch and Hypothesis)."""

from __future__ import annotations

from verifiers.properties import (  # noqa: F401  (each module registers its laws)
    laws_attention,
    laws_components,
    laws_decoding,
    laws_hedges,
    laws_model,
    laws_necessity,
    laws_prose,
    laws_reading,
    laws_relations,
    laws_softmax,
    laws_statements,
)
from verifiers.properties.base import LAWS, Counterexample, Law

__all__ = ["LAWS", "Counterexample", "Law"]
