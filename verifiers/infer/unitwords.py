"""Pattern family: the unit word of a restated size is read, not quoted (``约 1.53 ⟦u⟧``).

:mod:`.units` checks the digits of ``1646821376 字节 ≈ 1.65 GB，约 1.53 GiB``; its quote holds
``GiB`` as fixed text, so an author who writes ``GB`` there (or ``bits`` for ``bytes``, ``M`` for
``B`` parameters) only makes that claim stale. Here the second unit word of each pair is a word
hole ``⟦u⟧`` read with ``states: {u: {unit: EXPR}}`` (:mod:`verifiers.unit_words`): EXPR is the
factor the printed value stands for (the first value in its unit's base, divided by the printed
value), and the word must name the unit of its dimension nearest to it. A wrong unit word is
then a ``discrepancy`` at the word.

Its own claim, never merged: it also checks the digits unless a kept :mod:`.units` claim
already does (so a wrong value is never read as an input of a verified word). A reading of
words, so kept only when the engine verifies it.
"""

from __future__ import annotations

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, Token
from verifiers.infer.units import unit_pairs
from verifiers.unit_words import readings

__all__ = ["unit_word_candidates"]


def unit_word_candidates(text: str, tokens: list[Token], uncovered: set[int]
                         ) -> list[Candidate]:
    """One candidate per restated value whose unit word reads one way only in its dimension."""
    out = []
    for pair in unit_pairs(text, tokens, uncovered):
        if pair.u2 is None:
            continue
        word, a, b = pair.u2
        first = readings(pair.u1[0]) if pair.u1 else (("count", 1.0),)
        second = readings(word)
        if len(first) != 1 or not second:
            continue  # `B` after a plain product: bytes or a billion, the pair cannot tell
        base = first[0][1]
        hole = f"v{len(pair.names) + 1}"
        holes = {pair.names[t.start]: t for t in pair.seg if t.kind == NUM}
        holes[hole] = pair.result
        body = pair.expr if pair.ops == 0 else f"({pair.expr})"
        scale = "" if base == 1 else f" * {_number(base)}"
        # the digits too (dropped when a kept claim already checks them): a word claim over a
        # wrong value would count that value as read while nothing checks it
        check = f"{body} * {pair.ratio[0]} / {pair.ratio[1]}" if pair.ratio != (1, 1) else body
        cand = Candidate("unit word", "inferred: the unit word names the unit the printed "
                         "values stand for", holes, [Check(hole, check, False)], {},
                         ["    states:", f"      u: {{unit: \"{body}{scale} / {hole}\"}}"])
        cand.words = {"u": (a, b)}
        out.append(cand)
    return out


def _number(x: float) -> str:
    """A factor as the grammar reads it (``1000000000``, ``0.125``)."""
    return str(int(x)) if x == int(x) else repr(x)
