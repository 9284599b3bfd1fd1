"""How ``-j`` processes share the claims to evaluate: groups, two lanes, a shared queue.

Why not a fixed split: one symbolic claim costs seconds where most cost milliseconds, so a
split made up front by estimated cost left one process with nearly twice the other's work.
Why lanes: torch's import is most of the import floor, and every process that runs one
property or model claim pays it. So:

* claims that must share a process form a group (the claims of one law share one
  Hypothesis search; the model claims share torch's import and their runs);
* groups go into two lanes, torch and plain, each ordered longest-first by an estimate
  of their cost by kind;
* each process takes the next group of its own lane from a queue shared across the fork
  and, when its lane is empty, of the other lane -- a plain process only when enough torch
  work is left to pay for the import.

Which process evaluates a claim never changes its verdict (each depends only on its
inputs), so the order of taking cannot either.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from verifiers.schema import Claim

__all__ = ["Group", "Queue", "groups", "TORCH", "PLAIN"]

TORCH, PLAIN = 0, 1
# Estimated CPU seconds by kind (one process, imports excluded;
# measured on the notes): a property group is one search whatever its number of claims.
KIND_COST = {"arithmetic": 0.008, "given": 0.001, "procedure": 0.02, "symbolic": 0.06,
             "model": 0.1, "property": 0.2}
DEFAULT_COST = 0.05
TORCH_IMPORT = 2.5  # CPU seconds a process pays to start torch work without torch


@dataclass(frozen=True)
class Group:
    """Claims that go to one process, in claim order."""

    ids: tuple[str, ...]
    cost: float
    lane: int


def _needs_torch(claim: Claim) -> bool:
    """Claims whose checker imports torch (tinygpt): see ``engine._import_checkers``.

    Every ``reference`` is computed by tinygpt: the LaTeX ones (``tinygpt-…``,
    formulas/code.py) and the plain-text ones (``attention-weights``, formulas/holes.py)
    alike; one of the latter in the plain lane made the gate import torch for one claim.
    """
    return (claim.kind in ("property", "model", "procedure") or claim.run is not None
            or bool(claim.reference))


def groups(claims: Mapping[str, Claim], ids: list[str]) -> list[Group]:
    """The groups of ``ids``: one per law, one for the model claims, one per other claim,
    each with its cost estimated by kind (one search for a law, whatever its claims)."""
    keyed: dict[str, list[str]] = {}
    for claim_id in ids:
        claim = claims[claim_id]
        if claim.kind == "property":
            key = f"law:{claim.property_name}"
        elif claim.kind == "model" or claim.run is not None:
            key = "kind:model"
        else:
            key = f"claim:{claim_id}"
        keyed.setdefault(key, []).append(claim_id)
    out = []
    for members in keyed.values():
        first = claims[members[0]]
        if first.kind == "property":
            cost = KIND_COST["property"]
        else:
            cost = sum(KIND_COST.get(claims[m].kind, DEFAULT_COST) for m in members)
        lane = TORCH if any(_needs_torch(claims[m]) for m in members) else PLAIN
        out.append(Group(tuple(members), cost, lane))
    return out


class Queue:
    """The groups of both lanes, longest first, with one shared 'next' index per lane.

    Built before the fork; :meth:`take` is safe across the forked processes (the indices
    live in shared memory under one lock).
    """

    def __init__(self, items: list[Group], context: Any) -> None:
        self.lanes: list[list[Group]] = [
            sorted((g for g in items if g.lane == lane), key=lambda g: (-g.cost, g.ids))
            for lane in (TORCH, PLAIN)]
        # left[lane][i]: estimated cost of lane's groups from i on
        self.left = []
        for lane in self.lanes:
            sums = [0.0] * (len(lane) + 1)
            for i in range(len(lane) - 1, -1, -1):
                sums[i] = sums[i + 1] + lane[i].cost
            self.left.append(sums)
        self.next = context.Array("i", 2)

    def cost(self) -> float:
        return self.left[TORCH][0] + self.left[PLAIN][0]

    def take(self, lane: int) -> Group | None:
        """The next group for a process of ``lane``: its own lane's, else the other's
        (torch work only where torch is imported already or enough of it is left)."""
        with self.next.get_lock():
            for source in (lane, 1 - lane):
                i = self.next[source]
                if i >= len(self.lanes[source]):
                    continue
                if (source == TORCH and source != lane and "torch" not in sys.modules
                        and self.left[TORCH][i] < 2 * TORCH_IMPORT):
                    continue
                self.next[source] = i + 1
                return self.lanes[source][i]
        return None
