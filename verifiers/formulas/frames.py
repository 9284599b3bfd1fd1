r"""A formula fragment the prose completes, read into the frame the claim gives it.

Prose often prints only the end of a relation and names its subject in words: "现在所有指数都
$\le0$" (every shifted exponent is at most 0), "每一项 $\to1$", "取值在 $[-1,1]$", "两边都是 0".
The fragment carries the note's numbers, and restating the whole relation in the claim
(``restate:``) would check the claim's copy of them: an edit of the note's ``\le0`` would never
be seen. A symbolic claim instead gives the fragment a *frame*:

.. code-block:: yaml

    text: 现在所有指数都 $⟪PA⟫$，…
    frame: {PA: 'z_{1} + c ⟪PA⟫, z_{2} + c ⟪PA⟫, z_{3} + c ⟪PA⟫'}

The frame is LaTeX with placeholders ``⟪name⟫`` for formula holes of the claim; each is
replaced by the note's text as printed (never by the claim's), and the result is checked like
a formula the note prints, at the hole's place in the note. The frame supplies only what the
words name (the subject, the instance); the relation's printed part is read, so an edit of it
(``\le0`` to ``\ge0``, ``1/V`` to ``2/V``) is re-evaluated. A frame must hold its own hole. A
hole that only fills another hole's frame (the ``p_i`` of "$1/p_i$ 与 … 的 $p_i$ 恰好抵消")
is no step of its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["PLACEHOLDER", "fill", "filled_only", "problem"]

PLACEHOLDER = re.compile(r"⟪([^⟪⟫\s]+)⟫")


def problem(name: str, frame: object, formulas: list[str], taken: set[str]) -> str | None:
    """Why ``frame: {name: frame}`` is malformed, or None. ``taken``: holes that are already
    bound otherwise (define, restate, reference, printing, parts)."""
    if name not in formulas:
        return f"frame: {name}: not a formula hole of the text"
    if name in taken:
        return f"frame: {name}: the hole is already defined, restated or bound otherwise"
    if not isinstance(frame, str) or not frame.strip():
        return f"frame: {name}: the frame is LaTeX around ⟪{name}⟫"
    used = PLACEHOLDER.findall(frame)
    if name not in used:
        return f"frame: {name}: the frame must hold the note's formula, ⟪{name}⟫"
    for other in used:
        if other not in formulas or (other != name and other in taken):
            return (f"frame: {name}: ⟪{other}⟫ is not a formula hole the frame can read "
                    "(a hole of the text, not defined or restated)")
    return None


def fill(frame: str, printed: Mapping[str, str]) -> str:
    """The frame with every placeholder replaced by the note's text of that hole."""
    return PLACEHOLDER.sub(lambda m: printed[m.group(1)], frame)


def filled_only(frames: Mapping[str, str]) -> set[str]:
    """Holes that only fill another hole's frame: no step of their own."""
    used = {other for name, frame in frames.items() for other in PLACEHOLDER.findall(frame)
            if other != name}
    return used - set(frames)
