"""Plain-text spellings in a ``computes:`` formula hole, rewritten into the reader's notation.

Why: a note without LaTeX (matrix-by-matrix) writes ``Total Loss = (loss₀ + loss₁ + loss₂) / 3``,
``Z_concat = concat(Z₁, Z₂)`` and ``Q_猫 · K_猫``. The LaTeX reader refuses Unicode subscripts
and a subscript that is a CJK word; :mod:`verifiers.formulas.plain` already rewrites the
former (``Z₁`` -> ``Z_{1}``), and this module adds the latter (``Q_猫`` -> ``Q_{猫}``) and a
power that is a whole printed number (``e^4.165`` -> ``e^{4.165}``, as the plain text means). A hole
without such a spelling is returned unchanged, so LaTeX notes read exactly as before.
"""

from __future__ import annotations

import re

from verifiers.formulas.plain import SUBSCRIPTS, normalize

__all__ = ["plain_text"]

_CJK_SUB = re.compile(r"_([\u4e00-\u9fff]+)")
_NUMBER_POWER = re.compile(r"\^(\d+\.\d+|\d{2,})")  # e^4.165: the whole number is the power
#: a plain big operator (``Σ_i``, ``Σ_{i=1}^{n}``, ``∏_i``) is LaTeX's ``\\sum``/``\\prod``
_BIG_OPERATORS = {"Σ": "\\sum", "∑": "\\sum", "∏": "\\prod", "Π": "\\prod"}
_BIG = re.compile(r"[Σ∑∏Π](?=_)")
_PLAIN_MARKS = re.compile(rf"[{''.join(SUBSCRIPTS)}]|_[\u4e00-\u9fff]|{_NUMBER_POWER.pattern}"
                          r"|[Σ∑∏Π]_")


def plain_text(text: str) -> str:
    """``text`` in the reader's notation when it holds a plain-text spelling, else as is."""
    if not _PLAIN_MARKS.search(text):
        return text
    text = _BIG.sub(lambda m: _BIG_OPERATORS[m.group(0)] + " ", text)
    text = _NUMBER_POWER.sub(lambda m: "^{" + m.group(1) + "}", normalize(text))
    return _CJK_SUB.sub(lambda m: "_{" + m.group(1) + "}", text)
