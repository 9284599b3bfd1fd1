"""A vector written out with an ellipsis, ``(q_{1}, q_{2}, \\dots, q_{64})``: read as its length.

Why: a note states a dimension by writing the vector's coordinates, and the LaTeX reader does
not read an ellipsis in a tuple (it has no value). In a ``computes:`` formula hole such a side
is read as the number of its entries -- the last subscript -- when the shown entries are one
name with the subscripts 1, 2, … in order and the last is that name with an integer
subscript; its value is compared with the claim's (a length). Anything else (``q_{1},
q_{3}``, ``q_{1}, k_{2}``, a symbolic last subscript) is not such a run: ``None``, and the
reader then says what it cannot read (never a pass).
"""

from __future__ import annotations

import re

__all__ = ["run_length"]

_ENTRY = re.compile(r"\s*([A-Za-zα-ωΑ-Ω]\w*)_\{?\s*(\d+)\s*\}?\s*")
_DOTS = re.compile(r"\s*(?:\\dots|\\ldots|\\cdots|\.\.\.|…)\s*")


def run_length(side: str) -> int | None:
    """The length ``n`` of ``(x_{1}, x_{2}, \\dots, x_{n})``; None when ``side`` is not one."""
    text = side.strip()
    if not (text.startswith("(") and text.endswith(")")):
        return None
    items = text[1:-1].split(",")
    dots = [k for k, item in enumerate(items) if _DOTS.fullmatch(item)]
    if len(dots) != 1 or dots[0] in (0, len(items) - 1):
        return None
    shown, last = items[:dots[0]], items[dots[0] + 1:]
    entries = [_ENTRY.fullmatch(item) for item in (*shown, *last)]
    if len(last) != 1 or not all(entries):
        return None
    names = {m.group(1) for m in entries if m}
    subs = [int(m.group(2)) for m in entries if m]
    if len(names) != 1 or subs[:-1] != list(range(1, len(shown) + 1)) or subs[-1] <= len(shown):
        return None
    return subs[-1]
