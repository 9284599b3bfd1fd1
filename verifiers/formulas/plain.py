"""Plain-text math as a note without LaTeX prints it, rewritten into the reader's notation.

Why: a plain-text note (matrix-by-matrix) writes ``Z₁ = softmax(Q₁·K₁^T/√2) · V₁ → 3×2 矩阵``,
``headᵢ = Attention(X · W_qᵢ, X · W_kᵢ, X · W_vᵢ)``, ``concat(head₁, ..., headₕ)``. The LaTeX
reader (:mod:`verifiers.latex`) already reads ``·``, ``×``, ``^T``, ``√d_k``, ``softmax(…)`` and
names such as ``X_input``; what it refuses is the Unicode subscripts, a plain ``...`` in an
argument list and a subscript of a letter and digits (``W_q1`` reads as ``W_q · 1``). This
module rewrites exactly those, character by character, so the same reader produces the same
SymPy tree it produces for the LaTeX spelling (``Z_{1}``, ``W_{q i}``, ``\\dots``, ``W_{q1}``);
nothing is evaluated. A trailing shape annotation ``→ 3×2 矩阵`` is split off and returned, so
the caller can check the value's shape too (:func:`read_plain`).
"""

from __future__ import annotations

import re

__all__ = ["SUBSCRIPTS", "normalize", "read_plain"]

#: Unicode subscript characters and what they stand for.
SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼᵣᵤᵥ", "0123456789aeoxhklmnpstijruv", strict=True))
_SUB = "".join(SUBSCRIPTS)
# a name, with an optional one-token subscript, then Unicode subscripts: Q₁, headᵢ, W_qᵢ
_NAME_SUBS = re.compile(rf"([A-Za-zα-ωΑ-Ω][A-Za-z]*)(?:_([A-Za-z0-9]+))?([{_SUB}]+)")
# a subscript of letters then digits that the reader would split: W_q1 -> W_{q1}
_LETTER_DIGITS = re.compile(r"(?<=[A-Za-z])_([A-Za-z]+[0-9]+)(?![A-Za-z0-9_{])")
# a row of a matrix written as an index in brackets: Q[i] -> Q_{i} (the row q_i of 3.1)
_ROW = re.compile(r"(?<![A-Za-z0-9_])([A-Z])\[([a-z])\]")
_ELLIPSIS = re.compile(r"(?<=,)\s*(?:\.\.\.|…)\s*(?=,)")
_SHAPE = re.compile(r"\s*(?:→|->|⟶)\s*(\d+)\s*[×x]\s*(\d+)\s*(?:矩阵)?\s*$")


def _subscripted(m: re.Match[str]) -> str:
    name, sub, uni = m.group(1), m.group(2) or "", m.group(3)
    return f"{name}_{{{sub}{''.join(SUBSCRIPTS[c] for c in uni)}}}"


def normalize(text: str) -> str:
    """``text`` with Unicode subscripts, ``...`` between arguments, letter-digit
    subscripts and rows ``Q[i]`` in the reader's notation (everything else unchanged)."""
    text = _NAME_SUBS.sub(_subscripted, text)
    text = _LETTER_DIGITS.sub(lambda m: "_{" + m.group(1) + "}", text)
    text = _ROW.sub(r"\1_{\2}", text)
    return _ELLIPSIS.sub(r" \\dots", text)


def read_plain(text: str) -> tuple[str, tuple[int, int] | None]:
    """(the formula in the reader's notation, the shape its annotation ``→ a×b`` states)."""
    m = _SHAPE.search(text)
    shape = (int(m.group(1)), int(m.group(2))) if m else None
    return normalize(text[:m.start()] if m else text), shape

