"""A printing that repeats a derived value is recomputed, not compared with the other printing.

A note often prints a derived value twice: a matrix again in a later section, a value
repeated in a summary, a table row reusing an earlier result. A claim checks the second
printing with a check that only names the first one -- a *reference*: ``x: y`` (a checked
hole of the same claim), ``x: Q[0]``, ``x: "[A[0], A[0]]"`` (a ``uses:`` of another claim's
checked hole), through ``where:`` aliases.

On the exact route a reference is already the exact upstream value. On the other honest
routes (:mod:`verifiers.arithmetic.routes`) a referenced checked value would be carried as
the note prints it, so the second printing would only be compared with the first one's
digits: a copy. Here each checked value a reference reads is instead **recomputed on that
route** by the expression (or model run) that derives it, from its own inputs carried the
same way. So the second printing is judged by the computation of the first one, at its own
line, whatever the first printing says: an edit of it is a discrepancy with the computed
value, and a second printing that repeats a wrong first one is wrong by itself.

A ``uses:`` entry ``as: printed`` is the note restarting from its printed digits: it stays
printed here too (a reference through it is a copy, :mod:`verifiers.coverage.strength`).
The engine (``Engine.route_value``) evaluates a reference in :class:`Recomputing`; this
module only says what a reference is and how it reads its names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from verifiers import expr as ex
from verifiers.schema import Claim

__all__ = ["Recomputing", "is_reference", "reference_items", "reference_names"]


def reference_names(node: ex.Expr) -> list[str] | None:
    """The names a bare reference reads (``x``, ``L[pi]``, ``X[0, 2]``, ``[a, b[1]]``);
    None when the expression computes something."""
    if isinstance(node, ex.ListLit):
        names: list[str] = []
        for item in node.items:
            sub = reference_names(item)
            if sub is None:
                return None
            names += sub
        return names
    while isinstance(node, ex.Index):
        if not all(_selects(i) for i in node.items):
            return None
        node = node.target
    return [node.id] if isinstance(node, ex.Name) else None


def _selects(item: ex.Expr | ex.Slice) -> bool:
    """An index item that only selects (``2``, ``pi``, ``:``, ``1:3``), computing nothing."""
    if isinstance(item, ex.Slice):
        return all(b is None or isinstance(b, (ex.Num, ex.Name)) for b in (item.start, item.stop))
    return isinstance(item, (ex.Num, ex.Name))


def reference_items(claim: Claim, name: str) -> list[int]:
    """The items of a list check that are references, when the list as a whole computes
    (``[w0, softmax(S[1])]``: item 0 repeats ``w0``); they are recomputed one by one."""
    node = claim.check[name][0] if name in claim.check else None
    if not isinstance(node, ex.ListLit) or is_reference(claim, name):
        return []
    return [i for i, item in enumerate(node.items) if _refers(claim, item)]


def _refers(claim: Claim, node: ex.Expr) -> bool:
    """Is ``node`` a reference, also through ``where:`` aliases (see :func:`is_reference`)?"""
    stack, seen = [node], set()
    while stack:
        names = reference_names(stack.pop())
        if names is None:
            return False
        for n in names:
            if n in claim.where and n not in seen:
                if n in claim.hidden:  # rounded on its routes: a computation of its own
                    return False
                seen.add(n)
                stack.append(claim.where[n][0])
    return True


def is_reference(claim: Claim, name: str) -> bool:
    """Is the check of ``name`` only a reference to other values (a repeated printing),
    also through ``where:`` aliases that are references themselves? An alias that computes
    (``w: softmax(s)``) makes the check a computation, evaluated as any other."""
    return name in claim.check and _refers(claim, claim.check[name][0])


class Recomputing(Mapping[str, Any]):
    """The names a reference reads on one route: a ``where:`` alias read through, a checked
    value (of this claim, or of a ``uses:`` entry not taken as printed) recomputed by
    ``recomputed(name)`` (None: not recomputable, an input or a value as printed), anything
    else as the route's own scope ``base`` has it."""

    def __init__(self, claim: Claim, base: Mapping[str, Any],
                 recomputed: Callable[[str], Any | None],
                 evaluate: Callable[[tuple[ex.Expr, int], Mapping[str, Any]], Any]) -> None:
        self.claim, self.base, self.recomputed, self.evaluate = claim, base, recomputed, evaluate

    def __getitem__(self, name: str) -> Any:
        if name in self.claim.where:  # a reference itself (is_reference)
            return self.evaluate(self.claim.where[name], self)
        if name in self.claim.check or name in self.claim.uses:
            value = self.recomputed(name)
            if value is not None:
                return value
        return self.base[name]

    def __contains__(self, name: object) -> bool:
        return name in self.base

    def __iter__(self) -> Iterator[str]:
        return iter(self.base)

    def __len__(self) -> int:
        return len(self.base)
