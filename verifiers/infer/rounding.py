"""Could honest rounding of the printed inputs explain a printed result?

A claim's inputs are its printed digits, exactly; but the note's author often
computed with more digits than they printed (``0.339660 - (-0.921286) =
1.260945`` is right from the unrounded values). Such a disagreement is no
error of the note, so inference never pins it: it pins a value only when
*no* choice of inputs within their printed precision gives the printed
result (interval arithmetic over the inputs' rounding intervals).
"""

from __future__ import annotations

from fractions import Fraction

from verifiers import expr as ex
from verifiers.engine import INTERVAL, flat, overlaps, shape_numbers, to_interval, to_point
from verifiers.holes import read_value
from verifiers.infer.tokens import Token
from verifiers.notes import Note

__all__ = ["rounding_explains"]


def _printed(note: Note, tok: Token, exact: bool) -> object:
    p = read_value(note.text[tok.start:tok.end], tok.start)
    return p, shape_numbers(p, [to_interval(pn.value, Fraction(0) if exact or pn.exact
                                            else pn.half_unit) for pn in p.numbers])


def rounding_explains(note: Note, holes: dict[str, Token], result: str, expr: str) -> bool:
    """True when some inputs within their printed precision give the printed result
    (or when it cannot be told: then nothing is pinned either)."""
    try:
        tree = ex.parse(expr)
        names = set(ex.free_names(tree)) - ex.CONSTANTS  # pi, e: exact
        if not names & set(holes):
            return False  # no printed input (a program's output): no rounding to explain it
        scope = {name: _printed(note, holes[name], False)[1] for name in names}
        value = ex.evaluate(tree, scope, INTERVAL)
        printed, _ = _printed(note, holes[result], True)
    except Exception:  # noqa: BLE001 - undecidable here means "do not pin"
        return True
    got = flat(value)
    numbers = printed.numbers  # type: ignore[attr-defined]
    if len(got) != len(numbers):
        return True
    return all(overlaps(x, pn.value, to_point(Fraction(0) if pn.exact else pn.half_unit))
               for x, pn in zip(got, numbers, strict=True))
