"""The order in which tinygpt does things: a recording that procedure claims compare with.

The model's code names each operation where it happens (``step("softmax")``) and groups
operations that belong together (``with scope("block"):``). Nothing is kept unless a
``recording()`` is active, so the calls cost one list test when nobody listens.

The recorded names are what the note's numbered steps and pipeline diagrams are checked
against (``verifiers/procedures``): the order comes from running the code, not from a list
written by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["Event", "recording", "scope", "step"]


@dataclass(frozen=True)
class Event:
    """One operation: its name and the scopes it ran in, outermost first."""

    name: str
    path: tuple[str, ...] = ()


_RECORDINGS: list[list[Event]] = []
_PATH: list[str] = []


def step(name: str) -> None:
    """Note that operation ``name`` has just been done (a no-op unless recording)."""
    if _RECORDINGS:
        event = Event(name, tuple(_PATH))
        for events in _RECORDINGS:
            events.append(event)


@contextmanager
def scope(name: str) -> Iterator[None]:
    """Operations inside belong to ``name`` (a block, an attention layer, a forward pass)."""
    if not _RECORDINGS:
        yield
        return
    step(name)  # the scope itself is an event: seen whole when it is not opened
    _PATH.append(name)
    try:
        yield
    finally:
        _PATH.pop()


@contextmanager
def recording() -> Iterator[list[Event]]:
    """Record every ``step`` done inside, in order."""
    events: list[Event] = []
    _RECORDINGS.append(events)
    try:
        yield events
    finally:
        _RECORDINGS.remove(events)
