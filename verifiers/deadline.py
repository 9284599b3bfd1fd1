"""A SIGALRM deadline for SymPy calls that can take unbounded time: the gate must not hang.

Only the main thread of a POSIX process can be interrupted this way; elsewhere
:func:`deadline` is a no-op and callers decide (run in a worker, or not at all):
:func:`can_bound` says which.

Deadlines nest: an inner deadline never outlives the one around it (it fires at
the earlier of the two), and when it ends the outer one is re-armed with what
is left of it -- at once if that already ran out while the inner block caught
its own :class:`DeadlineExceeded`. So a claim's budget holds even around code
that swallows a step's timeout.

A deadline interrupts Python code only between bytecodes: a single C call
(``int.__pow__`` of a ten-million-digit number) runs to its end first. That is
why the readers bound the *size* of every number before it is computed
(:mod:`verifiers.latex`, :mod:`verifiers.expr`); the deadline bounds the rest.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["DeadlineExceeded", "can_bound", "deadline", "remaining"]

_MIN_DELAY = 1e-4  # setitimer(0) would disarm: an expired deadline fires after this
_REPEAT = 0.05  # an expired deadline fires again at this interval until its block ends
_active: list[float] = []  # monotonic expiry of each active deadline, innermost last
# A forked child has no timer armed (POSIX): it starts with no deadline of its own.
os.register_at_fork(after_in_child=_active.clear)


class DeadlineExceeded(TimeoutError):
    """A :func:`deadline` of ``seconds`` ran out."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"took longer than {seconds:g} s")
        self.seconds = seconds


def can_bound() -> bool:
    """Whether :func:`deadline` really interrupts here (main thread, POSIX timers)."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal,
                                                                             "setitimer")


def remaining() -> float | None:
    """Seconds left of the innermost active deadline (None: no deadline is active)."""
    if not _active:
        return None
    return max(0.0, _active[-1] - time.monotonic())


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`DeadlineExceeded` (a TimeoutError) in this (main) thread after
    ``seconds``, or when an enclosing deadline runs out first; a no-op elsewhere."""
    if not can_bound():
        yield
        return
    now = time.monotonic()
    expiry = now + max(seconds, 0.0)
    if _active:
        expiry = min(expiry, _active[-1])  # never outlive the enclosing deadline

    closing = False

    def expire(signum: int, frame: Any) -> None:
        if not closing:
            raise DeadlineExceeded(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    _active.append(expiry)
    # The timer repeats every _REPEAT s until the block ends: code that swallows the
    # exception (an `except Exception` deep in SymPy) is interrupted again.
    signal.setitimer(signal.ITIMER_REAL, max(expiry - now, _MIN_DELAY), _REPEAT)
    try:
        yield
    finally:
        closing = True
        signal.setitimer(signal.ITIMER_REAL, 0)
        _active.pop()
        signal.signal(signal.SIGALRM, previous)
        if _active:  # re-arm the enclosing deadline with what is left of it
            signal.setitimer(signal.ITIMER_REAL,
                             max(_active[-1] - time.monotonic(), _MIN_DELAY), _REPEAT)
