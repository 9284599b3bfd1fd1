"""Each claim or waiver quote searched once while coverage classifies the notes.

The numbers' coverage (:mod:`verifiers.coverage.literals`) and the meaning coverage
(:mod:`verifiers.coverage.meaning`) look up the same quotes: a claim's spans, its quote for
the formulas, again for the statements, a given's used holes. That was two to four
searches of one quote (2,498 searches for 973 distinct ones on the real notes), each
milliseconds on a long note. Inside :func:`shared_finds` the first search's answer (the
match, or the ``ResolveError``) is kept for the same note, quote, scopes and context
(``near``, ``after``); outside it every call searches. The answer is the same either way:
:func:`verifiers.holes.find` reads only its arguments.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from verifiers.holes import Match, ResolveError, find
from verifiers.notes import Note

__all__ = ["find_in", "shared_finds"]

_Key = tuple[int, str, tuple[tuple[int, int], ...], "str | None", "str | None"]
# the note is kept beside its answer so that its id is not reused while the memo lives
_MEMO: ContextVar[dict[_Key, tuple[Note, Match | ResolveError]] | None] = \
    ContextVar("notecheck_coverage_finds", default=None)


@contextmanager
def shared_finds() -> Iterator[None]:
    """Searches inside the block answer a repeated quote from the first search (nested
    blocks share the outer memo; it ends with the outermost block)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def find_in(note: Note, quote: str, scopes: list[tuple[int, int]], *,
            near: str | None = None, after: str | None = None) -> Match:
    """:func:`verifiers.holes.find` on the note's text and displays (raises ``ResolveError``
    as it does), answered from the memo inside :func:`shared_finds`."""
    memo = _MEMO.get()
    if memo is None:
        return find(note.text, quote, scopes, displays=note.displays, near=near, after=after)
    key = (id(note), quote, tuple(scopes), near, after)
    if key not in memo:
        try:
            found: Match | ResolveError = find(note.text, quote, scopes,
                                               displays=note.displays, near=near, after=after)
        except ResolveError as err:
            found = err
        memo[key] = (note, found)
    answer = memo[key][1]
    if isinstance(answer, ResolveError):
        raise answer.with_traceback(None)
    return answer
