"""Update rules: ``θ \\leftarrow θ - η g`` (also ``\\gets`` and ``←``).

An update is an assignment, not an equation: ``θ = θ - η g`` would be false (for g ≠ 0),
and substituting it as a definition would never end. It defines the name's value after
the update, ``θ^{new}``, as the right side evaluated with the old ``θ``, so a later step
of the note (``θ^{new} - θ = - η g``, or a printed SGD step with numbers) checks it, and an
edited rule (a flipped sign, a dropped η) fails that step.
"""

from __future__ import annotations

from typing import Any

import sympy

from verifiers.latex import LatexError, parse_latex

__all__ = ["assigned", "updated"]


def assigned(target: Any, text: str, value: Any) -> tuple[Any, Any]:
    """``(θ^{new}, value)`` for the update ``θ ← value``; ValueError when the left side is
    not one name (``f (x) ← …``)."""
    if not isinstance(target, sympy.Symbol):
        raise ValueError(f"an update assigns a name, not {text!r}")
    return sympy.Symbol(f"{target.name}^new", real=True), value


def updated(key: str) -> sympy.Symbol | None:
    """The name an update of the define key ``key`` defines (``θ`` -> ``θ^{new}``), or None
    when the key is not one name."""
    try:
        name = parse_latex(key)
    except LatexError:
        return None
    return sympy.Symbol(f"{name.name}^new", real=True) if isinstance(name, sympy.Symbol) else None
