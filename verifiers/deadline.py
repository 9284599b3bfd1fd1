"""A SIGALRM deadline for SymPy calls that can take unbounded time: the gate must not hang.

Only the main thread of a POSIX process can be interrupted this way; elsewhere
:func:`deadline` is a no-op and callers decide (run unbounded, or not at all).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["can_bound", "deadline"]


def can_bound() -> bool:
    """Whether :func:`deadline` really interrupts here (main thread, POSIX timers)."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal,
                                                                             "setitimer")


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in this (main) thread after ``seconds``; a no-op elsewhere."""
    if not can_bound():
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
