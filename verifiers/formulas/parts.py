r"""A formula fragment the prose names, checked as a part of a formula the claim reads.

Prose often names a piece of a formula without a relation: the common factor ``$e^{c}$`` that
cancels in the next display, the glossary ``$Z - E [Z]$ ：随机变量与均值的偏差`` under
``Var (Z) = E [(Z - E [Z])^{2}]``, ``除以 √d_k 后``. Such a fragment has no step to check, so it
was quoted as literal text, and an edit of it only made its claim ``stale``. A symbolic claim
names it ``parts: {E: F}``: formula hole ``E`` (the fragment) must occur, as read, in formula
hole ``F`` (a formula the claim reads and checks, or the claim's restatement of it), as a whole
subexpression or as some of the terms or factors of a sum or product there. A fragment that is
no part of it (a sign flipped, another index, a wrong factor) is a ``discrepancy`` at the
fragment; one the reader cannot read is ``unparsed``, never a pass. The check is containment,
so a fragment cut down to a smaller part of the same formula (``\sqrt{v + ε}`` written as
``v + ε``) still passes: what it catches is a fragment that is no longer in the formula.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from verifiers.latex import LatexError, split_chains
from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

__all__ = ["contains", "part_value"]

SUFFIX = ".part"


def contains(whole: Any, part: Any) -> bool:
    """Whether ``part`` occurs in ``whole``: as a subexpression, or as some of the terms of
    a sum (``x_{r} - μ`` in ``x_{r} - μ + 1``) or factors of a product there."""
    if whole == part or whole.has(part):
        return True
    if isinstance(part, (sympy.Add, sympy.Mul)):
        wanted = set(part.args)
        return any(type(node) is type(part) and wanted <= set(node.args)
                   for node in sympy.preorder_traversal(whole))
    return False


def part_value(claim: Any, hole: str, match: Any, note: Any,
               parse: Callable[[str], Any]) -> ValueVerdict:
    """The value of fragment hole ``hole``: verified when it is a part of ``claim.parts[hole]``."""
    printed = match.formulas[hole]
    whole_hole = claim.parts[hole]
    restated = claim.restate.get(whole_hole)
    whole_text = restated.text if restated is not None else match.formulas[whole_hole].text
    where = "its restatement" if restated is not None else f"formula {whole_hole}"

    def value(status: str, message: str) -> ValueVerdict:
        return ValueVerdict(name=hole + SUFFIX, printed=printed.text.strip(),
                            expected=f"a part of {where}", status=status,
                            start=note.position(printed.start), end=note.position(printed.end),
                            message=f"{hole}: {message}", suggestion=None)

    try:
        part = parse(printed.text.strip().rstrip("。.，,"))
        sides = [parse(side) for chain in split_chains(whole_text) for side in chain[0::2]]
    except (LatexError, ValueError) as err:  # _Unparsed is a ValueError
        return value(UNPARSED, f"cannot read the fragment or the formula it names: {err}")
    if any(contains(side, part) for side in sides):
        return value(VERIFIED, f"{printed.text.strip()!r} is a part of {where}")
    return value(DISCREPANCY, f"the fragment {printed.text.strip()!r} is not a part of {where} "
                              f"({whole_text.strip()[:120]!r}): the prose names another formula")
