"""The ``read_by:`` entry of a claim, as loaded (:mod:`verifiers.formulas.readby` checks it).

Loading only: plain data, so that loading claims stays light (no engine, no reader).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["ReadBy", "parse"]


@dataclass(frozen=True)
class ReadBy:
    """This claim's formula hole is the reader's formula hole ``hole`` of claim ``claim_id``."""

    claim_id: str
    hole: str
    line: int


def parse(node: Any, formulas: list[str],
          problem: Callable[[int, int, str], None]) -> dict[str, ReadBy]:
    """``read_by: {F: claim-id.H}``: each key a formula hole of the text."""
    out: dict[str, ReadBy] = {}
    if node is None:
        return out
    if not isinstance(node.value, dict):
        problem(node.line, node.col, "'read_by' maps a formula hole to the claim and hole "
                "that read it: {F: claim-id.H}")
        return out
    for hole, ref in node.value.items():
        line, col = node.keys[hole]
        if hole not in formulas:
            problem(line, col, f"read_by: {hole}: not a formula hole ⟪{hole}⟫ of the text")
            continue
        text = ref.value if isinstance(ref.value, str) else ""
        claim_id, dot, other = text.rpartition(".")
        if not (dot and claim_id and other):
            problem(ref.line, ref.col, f"read_by: {hole}: name the reader as claim-id.H "
                    "(its formula hole H)")
            continue
        out[hole] = ReadBy(claim_id, other, ref.line)
    return out
