"""A restatement of words keeps the formulas of its words: an edit of them is a verdict.

Why: a formula hole whose note text is words (「求和里只有 $m=i$ 那一项不为 0」) is checked
through its ``restate:`` formula, which is fixed in the claim. The math inside the words
(``m=i``) is what makes the words say that formula; an author who edits it (``m=k``) changes
what the note states, but the restatement would still be checked and pass. So every formula
the words hold (``$…$`` or plain-text math, as the formula coverage finds it) must be quoted
by the restatement -- in its formula or in its reason, which quotes the words it restates.
A formula of the words that neither quotes is a ``discrepancy`` at the hole: the note's words
changed, or the restatement does not say what they say.

The same holds for a side of a printed formula that the reader takes as one opaque name
(``E_{t_{i}, :}``, row t_i of E) or that the restatement writes out for an instance (a sum to
n): the restatement cannot be compared with it, so it must quote it (:func:`side_differs`).
"""

from __future__ import annotations

import re

from verifiers.meaning.formulas import find_formulas

__all__ = ["side_differs", "words_differ"]

_SPACE = re.compile(r"[\s$]+")


def _norm(text: str) -> str:
    """Compare formulas up to spacing and dollars (``$m=i$`` is ``m = i``)."""
    return _SPACE.sub("", text)


def _math_of(words: str) -> list[str]:
    """The formulas the words hold: each ``$…$`` span and each plain-text formula."""
    found = [m.group(1) for m in re.finditer(r"\$([^$]+)\$", words)]
    found += [item.text for item in find_formulas(words)]
    return [f for f in dict.fromkeys(found) if _norm(f)]


def words_differ(note_words: str, restated: str, reason: str) -> str | None:
    """How the formulas of restated words fail to be quoted by the restatement, or None."""
    quoted = _norm(restated) + "\n" + _norm(reason)
    for formula in _math_of(note_words):
        if _norm(formula) not in quoted:
            return (f"the note's words hold the formula {formula!r}, which the restatement "
                    f"{restated!r} does not restate (its reason does not quote it either): the "
                    "note's words changed, or the restatement does not say what they say")
    return None


def side_differs(side: str, restated: str, reason: str) -> str | None:
    """How a side the restatement replaces without comparison fails to be quoted, or None."""
    if _norm(side) in _norm(restated) + "\n" + _norm(reason):
        return None
    return (f"the note's {side.strip()!r} is not what the restatement {restated!r} restates "
            "(it cannot be compared, and the reason does not quote it): the note's formula "
            "changed, or the restatement does not say what it says")
