"""A SIGALRM deadline for calls that can take unbounded time: the gate must not hang.

Deadlines nest: the run's per-claim budget (:mod:`verifiers.budget`) wraps a claim,
and the SymPy steps inside it keep their own shorter time boxes. One real timer is
armed for the soonest expiry; when it fires, the *outermost* expired deadline raises
its error (a claim's budget wins over a step's time box, so a step's ``except
TimeoutError`` cannot swallow the budget), and the timer is re-armed briefly while
an expired deadline is still open, so an error swallowed by foreign code is raised
again. Only the main thread of a POSIX process can be interrupted this way;
elsewhere :func:`deadline` is a no-op and callers decide (run in a worker, or not at
all): :func:`can_bound` says which, :func:`remaining` how long is left.

A deadline interrupts Python code only between bytecodes: a single C call
(``int.__pow__`` of a ten-million-digit number) runs to its end first. That is
why the readers bound the *size* of every number before it is computed
(:mod:`verifiers.latex`, :mod:`verifiers.expr`); the deadline bounds the rest.

Clocks: a deadline counts this process's **CPU time** by default, so a busy machine
(eight jobs on two cores) stretches the wall time of a step without turning it into a
timeout: the same claim gets the same verdict on a busy machine and an idle one. A
CPU deadline still ends in wall time at ``WALL_FACTOR`` times its seconds, so code that
waits (a sleep, a pipe) cannot hold the gate forever. ``clock="wall"`` counts wall
time only (the run's budget, which bounds how long CI waits). One real timer serves
both: it is armed for the soonest moment an expiry *could* be due (CPU time cannot
run ahead of wall time in one thread), and re-armed when the CPU clock is not there yet.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["WALL_FACTOR", "DeadlineExceeded", "alarms_held", "can_bound", "cpu_seconds",
           "deadline", "remaining"]

class DeadlineExceeded(TimeoutError):
    """A :func:`deadline` of ``seconds`` ran out."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"took longer than {seconds:g} s")
        self.seconds = seconds


REFIRE = 0.25  # seconds between re-raises while an expired deadline is still open
WALL_FACTOR = 10.0  # a CPU deadline of s seconds also ends after WALL_FACTOR * s of wall time


def cpu_seconds() -> float:
    """CPU time of this process (all threads, user + system): the clock of CPU deadlines."""
    return time.process_time()


class _Open:
    __slots__ = ("expiry", "cpu_expiry", "error")

    def __init__(self, expiry: float, cpu_expiry: float | None,
                 error: Callable[[], BaseException]) -> None:
        self.expiry, self.cpu_expiry, self.error = expiry, cpu_expiry, error

    def left(self, now: float, cpu: float) -> float:
        """Seconds before this deadline can be due (CPU seconds for a CPU deadline)."""
        wall = self.expiry - now
        return wall if self.cpu_expiry is None else min(wall, self.cpu_expiry - cpu)


_ALARM = frozenset({signal.SIGALRM})  # blocked while a deadline closes
_open: list[_Open] = []  # the deadlines now open in this process, outermost first
_previous: Any = None  # the SIGALRM handler before the outermost deadline
_previous_hook: Any = None  # sys.unraisablehook before the outermost deadline
_holding = 0  # open holders (alarms_held, a deadline opening or closing): expiries wait
_deferred = False  # an expiry came while held: raised again once nothing holds


def _unraisable(info: Any) -> None:
    """An expiry that landed where Python cannot raise (a GC callback, ``__del__``) is
    dropped silently, not printed as "Exception ignored": the timer fires again."""
    if getattr(info.exc_value, "_from_deadline", False):
        return
    (_previous_hook or sys.__unraisablehook__)(info)


def _forget_in_child() -> None:  # a forked child has no timer: it must not inherit deadlines
    global _holding, _deferred
    _open.clear()
    _holding, _deferred = 0, False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def can_bound() -> bool:
    """Whether :func:`deadline` really interrupts here (main thread, POSIX timers)."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal,
                                                                             "setitimer")


def remaining() -> float | None:
    """Seconds left before the soonest open deadline expires (None: none is open)."""
    if not _open:
        return None
    now, cpu = time.monotonic(), cpu_seconds()
    return max(0.0, min(d.left(now, cpu) for d in _open))


def _arm() -> None:
    if not _open:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    now, cpu = time.monotonic(), cpu_seconds()
    signal.setitimer(signal.ITIMER_REAL, max(min(d.left(now, cpu) for d in _open), 1e-4))


# Code that closes context managers: an error raised there (before it resumes the
# generator of a ``@contextmanager``, or between an ExitStack's callbacks) skips that
# manager's cleanup, and a deadline it held stays open until a garbage collection.
_CLOSING = frozenset({
    contextlib._GeneratorContextManager.__exit__.__code__,
    contextlib.ExitStack.__exit__.__code__,
})
_CLOSING_DEPTH = 3  # frames looked at from the interrupted one (helpers an exit calls)
DEFER = 1e-3  # seconds before an expiry that landed in closing code is raised again


def _closing(frame: Any) -> bool:
    """Whether ``frame`` (or one of the few frames that called it) closes a context manager."""
    for _ in range(_CLOSING_DEPTH):
        if frame is None:
            return False
        if frame.f_code in _CLOSING:
            return True
        frame = frame.f_back
    return False


def _expire(signum: int, frame: Any) -> None:
    global _deferred
    if _holding:  # delivered through another thread while this one holds: later
        _deferred = True
        return
    now, cpu = time.monotonic(), cpu_seconds()
    expired = [d for d in _open if d.left(now, cpu) <= 0]
    if not expired:  # fired early (clock rounding, or CPU time behind wall time): re-arm
        _arm()
        return
    if _closing(frame):  # raised once the managers being closed are closed
        signal.setitimer(signal.ITIMER_REAL, DEFER)
        return
    signal.setitimer(signal.ITIMER_REAL, REFIRE)  # again, until the expired one is closed
    # No local names the error: a frame of its own traceback holding it is a reference
    # cycle, which kept an interrupted ``with`` (its context manager, its generator and the
    # deadlines it opened) alive until a garbage collection, re-firing meanwhile.
    raise _tagged(expired[0].error())


def _tagged(error: BaseException) -> BaseException:
    error._from_deadline = True  # type: ignore[attr-defined]
    return error


def _hold() -> bool:
    """Hold expiries; whether they were held already (by an outer holder).

    Two locks, because one is not enough: SIGALRM is blocked in this thread, and a
    counter tells :func:`_expire` to defer. In a process with other threads (an xdist
    worker, a pool's feeder) the kernel hands a signal this thread blocks to another
    thread, and CPython still runs the handler here: only the counter holds it then."""
    global _holding
    _holding += 1  # first: from here on the handler defers instead of raising
    return signal.SIGALRM in signal.pthread_sigmask(signal.SIG_BLOCK, _ALARM)


def _release(held: bool) -> None:
    """Let expiries through again unless an outer holder still holds them: one that was
    deferred (or pending on the mask) is raised shortly after."""
    global _holding, _deferred
    if not held:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _ALARM)  # a pending one defers (count > 0)
    _holding -= 1
    if _holding == 0 and _deferred:
        _deferred = False
        if _open:
            signal.setitimer(signal.ITIMER_REAL, DEFER)


@contextlib.contextmanager
def alarms_held() -> Iterator[None]:
    """No expiry is raised in the body (it waits, pending, to the end): for opening
    several deadlines at once, so none is raised between one's opening and the
    registration of its cleanup (``ExitStack.enter_context``)."""
    if not can_bound():
        yield
        return
    held = _hold()
    try:
        yield
    finally:
        _release(held)


@contextlib.contextmanager
def deadline(seconds: float, error: Callable[[], BaseException] | None = None,
             clock: str = "cpu") -> Iterator[None]:
    """Raise ``error()`` (default :class:`DeadlineExceeded`, a TimeoutError) in this (main)
    thread after ``seconds`` of CPU time (or WALL_FACTOR times that of wall time), or of
    wall time with ``clock="wall"``; a no-op elsewhere."""
    global _previous, _previous_hook
    if not can_bound():
        yield
        return
    seconds = max(seconds, 0.0)
    if clock == "wall":
        entry = _Open(time.monotonic() + seconds, None,
                      error or (lambda: DeadlineExceeded(seconds)))
    else:
        entry = _Open(time.monotonic() + seconds * WALL_FACTOR, cpu_seconds() + seconds,
                      error or (lambda: DeadlineExceeded(seconds)))
    # Opened with SIGALRM blocked: an expiry (this one's or an outer one's) that lands while
    # opening waits until the deadline is open and its cleanup registered, then is raised
    # inside it. Raised between ``_open.append`` and ``try`` it left the entry open forever.
    held = _hold()
    if not _open:
        _previous = signal.signal(signal.SIGALRM, _expire)
        _previous_hook, sys.unraisablehook = sys.unraisablehook, _unraisable
    _open.append(entry)
    try:
        _arm()
        _release(held)
        yield
    finally:
        # An expired deadline re-fires every REFIRE seconds, so a late expiry can land in
        # this very cleanup. SIGALRM is blocked while closing, so at most one expiry that
        # was already on its way runs here (it is absorbed and the close is redone); one
        # that arrives when it is unblocked finds this deadline closed (the error already
        # on its way out, if any, keeps going, or an expired outer deadline takes over).
        held = None  # whether an outer holder (alarms_held) holds expiries: it releases them
        while True:
            try:
                if held is None:
                    held = _hold()
                _close(entry)
                break
            except BaseException as late:
                if not getattr(late, "_from_deadline", False):
                    if held is not None:
                        _release(held)
                    raise
        _release(held)


def _close(entry: _Open) -> None:
    """Close ``entry`` and any inner deadline an exception skipped past; disarm first."""
    signal.setitimer(signal.ITIMER_REAL, 0)
    index = next((i for i, d in enumerate(_open) if d is entry), len(_open))
    del _open[index:]
    if _open:
        _arm()
    else:
        # An expiry already on its way (pending while SIGALRM is blocked here) must not reach
        # the previous handler: the default one ends the process ("Alarm clock").
        if hasattr(signal, "sigtimedwait") and signal.SIGALRM in signal.sigpending():
            signal.sigtimedwait(_ALARM, 0)
        # Only a handler of someone else's is put back. Under SIG_DFL or SIG_IGN an expiry
        # that another thread received just before the timer was disarmed ends the process,
        # or CPython raises "Signal 14 ignored due to race condition" at a random line;
        # :func:`_expire` with nothing open only disarms.
        if callable(_previous):
            signal.signal(signal.SIGALRM, _previous)
        if sys.unraisablehook is _unraisable:
            sys.unraisablehook = _previous_hook or sys.__unraisablehook__
