"""How many laws a run searched for how many sentences (light: no torch, no Hypothesis).

Every property claim's value names the law it searched (:attr:`ValueVerdict.law`: the
property and its complete parameters, words read from the sentence included). Claims that
state the same law share one search, so the report counts both: "65 laws searched for
116 sentences".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from verifiers.verdicts import Verdict


def property_counts(verdicts: Iterable[Verdict]) -> dict[str, int]:
    """``sentences``: property claims; ``laws``: distinct laws among those that searched."""
    sentences, laws = 0, set()
    for v in verdicts:
        if v.kind != "property":
            continue
        sentences += 1
        laws.update(x.law for x in v.values if x.law)
    return {"sentences": sentences, "laws": len(laws)}


def counts_line(verdicts: Iterable[Verdict]) -> str:
    """"; properties: 65 laws searched for 116 sentences" (empty without property claims)."""
    counts: dict[str, Any] = property_counts(verdicts)
    if not counts["sentences"]:
        return ""
    laws, sentences = counts["laws"], counts["sentences"]
    return (f"; properties: {laws} law{'s' * (laws != 1)} searched for {sentences} "
            f"sentence{'s' * (sentences != 1)}")
