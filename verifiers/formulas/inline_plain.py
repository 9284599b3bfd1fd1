"""Plain-text spellings in a ``computes:`` formula hole, rewritten into the reader's notation.

Why: a note without LaTeX (matrix-by-matrix) writes ``Total Loss = (loss₀ + loss₁ + loss₂) / 3``,
``Z_concat = concat(Z₁, Z₂)`` and ``Q_猫 · K_猫``. The LaTeX reader refuses Unicode subscripts
and a subscript that is a CJK word; :mod:`verifiers.formulas.plain` already rewrites the
former (``Z₁`` -> ``Z_{1}``), and this module adds the latter (``Q_猫`` -> ``Q_{猫}``). A hole
without such a spelling is returned unchanged, so LaTeX notes read exactly as before.
"""

from __future__ import annotations

import re

from verifiers.formulas.plain import SUBSCRIPTS, normalize

__all__ = ["plain_text"]

_CJK_SUB = re.compile(r"_([\u4e00-\u9fff]+)")
_PLAIN_MARKS = re.compile(rf"[{''.join(SUBSCRIPTS)}]|_[\u4e00-\u9fff]")


def plain_text(text: str) -> str:
    """``text`` in the reader's notation when it holds a plain-text spelling, else as is."""
    if not _PLAIN_MARKS.search(text):
        return text
    return _CJK_SUB.sub(lambda m: "_{" + m.group(1) + "}", normalize(text))
