"""Numbers a claim's quote holds as literal text, and whether another claim reads them.

An edit of such a number breaks the quote; when another claim reads it with a hole, the
quote is still located and the reader judges the edit (:mod:`verifiers.readers`); when none
does, the edit can only make the quote stale. ``unread_literals`` lists those (a test over
``claims/`` keeps the list empty); ``quoted_literals`` is the mutation survey's population
(:mod:`verifiers.mutate`, class ``quoted-number``).
"""

from __future__ import annotations

from collections.abc import Iterable

from verifiers.notes import Literal, Note
from verifiers.readers import locate, read_spans
from verifiers.schema import Claim

__all__ = ["quoted_literals", "unread_literals"]


def quoted_literals(note: Note, claims: Iterable[Claim]
                    ) -> list[tuple[str, Literal, frozenset[str]]]:
    """(claim id, literal, ids of the other claims that read it) of each number a claim's
    quote holds as literal text: inside its match, outside its own holes."""
    claims = [c for c in claims if c.note == note.name and not c.problems]
    spans = read_spans(note, claims)
    out: list[tuple[str, Literal, frozenset[str]]] = []
    for claim in claims:
        if claim.kind == "procedure":
            continue
        match = locate(note, claim)
        if match is None:
            continue
        own = [(p.start, p.end) for p in [*match.values.values(), *match.formulas.values(),
                                           *match.words.values()]]
        for lit in note.literals:
            if not match.start <= lit.start < match.end or any(
                    a <= lit.start and lit.end <= b for a, b in own):
                continue
            readers = frozenset(who for a, b, who in spans
                                if a <= lit.start and lit.end <= b and who != claim.id)
            out.append((claim.id, lit, readers))
    return out


def unread_literals(note: Note, claims: Iterable[Claim], waived: list[tuple[int, int]]
                    ) -> list[tuple[str, int, str]]:
    """(claim id, note offset, text) of each number a claim's quote holds as literal text
    that no other claim reads and judges, no waiver (``waived``: spans) and no coverage rule
    (a list marker, a label) takes out.

    Why: an edit of such a number makes the quote stale and nothing says whether the new
    number is right; read by another claim, the edit is located and judged (:func:`relocate`).
    """
    from verifiers.coverage.literals import RULES

    return [(cid, lit.start, lit.text) for cid, lit, readers in quoted_literals(note, claims)
            if not readers and not any(a <= lit.start and lit.end <= b for a, b in waived)
            and not any(rule(note, lit) for rule in RULES.values())]
