"""Printed orders (pipelines, box diagrams, chains of quantities, step references) and mode
tables read from the note and checked against tinygpt (``verifiers/procedures/orders.py``,
``modes.py``).

* ``printed_order`` — a code hole hands the block as the note prints it now; every sequence
  in it is judged by the locator (one finding per sequence or step reference). The example
  returns how many it read, so a block that no longer holds any is visible.
"""

from __future__ import annotations

import torch

from tinygpt.examples import example
from verifiers.procedures.modes import mode_findings
from verifiers.procedures.orders import order_findings
from verifiers.programs.codehole import Finding, locator

__all__ = ["printed_order", "printed_order_findings"]


@locator("printed_order")
def printed_order_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each sequence of the block, verified or a discrepancy at its first wrong item."""
    found = order_findings(block) + mode_findings(block)
    if not found:
        return [Finding(1, 0, 1, "error", "order", "", "",
                        "no printed order the vocabularies read in this block "
                        "(verifiers/procedures/vocabulary.yaml, quantities.yaml)")]
    return found


@example("printed_order")
def printed_order(program: str, text: str = "") -> dict[str, torch.Tensor]:
    """The number of findings (the locator judges each)."""
    n = len(order_findings(program)) + len(mode_findings(program))
    return {"outputs": torch.tensor(float(n), dtype=torch.float64)}
