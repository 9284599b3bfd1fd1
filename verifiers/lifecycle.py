"""How the gate ends: on a signal, with one line and the shell's exit status; and never
leaving a forked process behind.

* :func:`signals` turns SIGINT and SIGTERM into :class:`Interrupted` (a
  KeyboardInterrupt) in the main thread and remembers them, so an interruption that
  some library swallows still ends the run (:func:`raise_if_interrupted`, checked
  between claims and at the end).
* :func:`children_die_with_parent` makes every process this one forks from then on
  (the ``-j`` workers, the symbolic checker's children) receive SIGKILL when its
  parent dies, whatever killed the parent (Linux ``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["Interrupted", "children_die_with_parent", "ignore_interrupts",
           "raise_if_interrupted", "signals"]

PR_SET_PDEATHSIG = 1


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived; ``signum`` says which (exit status 128 + signum)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_received: list[int] = []  # signals received while :func:`signals` was active


def _handler(signum: int, frame: Any) -> None:
    _received.append(signum)
    raise Interrupted(signum)


def raise_if_interrupted() -> None:
    """Raise the interruption again if one arrived and was swallowed on the way."""
    if _received:
        raise Interrupted(_received[0])


@contextlib.contextmanager
def signals() -> Iterator[None]:
    """SIGINT/SIGTERM raise :class:`Interrupted` inside the block (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, _handler) for s in (signal.SIGINT, signal.SIGTERM)}
    _received.clear()
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT/SIGTERM wait until the block ends (then arrive as usual).

    For the import of a C extension: an :class:`Interrupted` raised inside torch's import can
    abort the interpreter (SIGABRT, a C++ traceback) instead of ending the run with one line.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def ignore_interrupts() -> None:
    """After the first interruption: a second Ctrl-C must not print a traceback."""
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_IGN)


# --------------------------------------------------------------------------- children

_parent = [0]
_prctl: list[Any] = []


def _before_fork() -> None:
    _parent[0] = os.getpid()


def _in_child() -> None:
    if _prctl:
        _prctl[0](PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != _parent[0]:  # the parent died before the line above: follow it
        os._exit(1)


def children_die_with_parent() -> bool:
    """From now on, each forked child is killed when its parent dies (Linux); idempotent.

    Returns whether the platform supports it.
    """
    if _prctl:
        return True
    if not sys.platform.startswith("linux") or not hasattr(os, "register_at_fork"):
        return False
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    prctl.restype = ctypes.c_int
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    _prctl.append(prctl)
    os.register_at_fork(before=_before_fork, after_in_child=_in_child)
    return True
