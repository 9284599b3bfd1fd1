"""Deadlines that expire at awkward moments (verifiers.deadline): an expiry pending while the
last deadline closes must not reach the default SIGALRM handler (which ends the process), and
an expiry's error must not be kept alive by its own traceback (which kept the deadlines of an
interrupted ``with`` open, re-firing into later code: test_lifecycle's nested deadlines once
failed with another test's "run's budget of 0.2 s was spent")."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifiers import deadline as deadline_module
from verifiers.budget import Budget, BudgetExceeded
from verifiers.deadline import DeadlineExceeded, deadline

ROOT = Path(__file__).resolve().parent.parent

PENDING_AT_CLOSE = """
import os, signal
from verifiers.deadline import deadline
with deadline(10):
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    os.kill(os.getpid(), signal.SIGALRM)  # an expiry on its way as the deadline closes
print("alive")
"""


def test_an_expiry_pending_at_close_does_not_end_the_process():
    done = subprocess.run([sys.executable, "-c", PENDING_AT_CLOSE], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "alive", (done.returncode,
                                                                     done.stderr)


def test_an_expiry_error_is_not_held_by_its_own_traceback():
    with pytest.raises(DeadlineExceeded) as caught:
        with deadline(0.01, clock="wall"):
            time.sleep(5)
    error, tb = caught.value, caught.value.__traceback__
    while tb is not None:
        if tb.tb_frame.f_globals.get("__name__") != "verifiers.deadline":
            tb = tb.tb_next  # this test's own frame names it, of course
            continue
        held = [name for name, value in tb.tb_frame.f_locals.items() if value is error]
        assert not held, f"{tb.tb_frame.f_code.co_name} holds the error in {held}"
        tb = tb.tb_next
    assert deadline_module._open == [] and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_budgets_spent_while_opening_leave_nothing_open():
    """Run budgets of 0 to 0.6 ms: expiries land while the two deadlines open and close."""
    for i in range(300):
        try:
            with Budget(run_seconds=1e-4 * (i % 7), claim_seconds=60).claim():
                sum(range(2000))
        except BudgetExceeded:
            pass
        assert deadline_module._open == [], i
        assert signal.SIGALRM not in signal.pthread_sigmask(signal.SIG_BLOCK, ())


def test_an_expiry_in_closing_code_waits_until_it_is_closed(monkeypatch):
    """An expiry that lands while a context manager is being closed (in contextlib's
    ``__exit__`` before it resumes the generator) is deferred, not raised there: raised there
    it skipped that manager's cleanup and left its deadline open (9 leaks in 150,000 tight
    budgets at load 12 before, 0 after). The deferred expiry is raised in the body."""
    import contextlib

    exits = []

    @contextlib.contextmanager
    def probe():
        yield
        exits.append(sys._getframe().f_back)  # the frame that resumes the generator

    with probe():
        pass
    closing = exits[0]
    assert closing.f_code is contextlib._GeneratorContextManager.__exit__.__code__
    monkeypatch.setattr(deadline_module, "DEFER", 0.5)  # raised well after the call returns
    returned = False
    with pytest.raises(DeadlineExceeded):
        with deadline(600, clock="wall"):  # no real expiry: it is made expired by hand
            deadline_module._open[-1].expiry = time.monotonic() - 1
            deadline_module._expire(signal.SIGALRM, closing)  # in closing code: deferred
            returned = True
            time.sleep(60)  # the deferred expiry interrupts this
    assert returned
    assert deadline_module._open == []


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_alarms_held_holds_an_expiry_another_thread_receives():
    """With a second thread alive (an xdist worker's, a pool's), the kernel hands a SIGALRM
    the main thread blocks to that thread, and CPython runs the handler in the main thread
    anyway: blocking the signal alone did not hold the expiry (it was raised in the body)."""
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    body_done = False
    try:
        with pytest.raises(DeadlineExceeded):
            with deadline(0.05, clock="wall"):
                with deadline_module.alarms_held():
                    _spin(0.4)  # the expiry lands here, through the other thread
                    body_done = True
                _spin(30)  # and is raised once released
    finally:
        stop.set()
        other.join()
    assert body_done
    assert deadline_module._open == [] and deadline_module._holding == 0
    assert signal.SIGALRM not in signal.pthread_sigmask(signal.SIG_BLOCK, ())


STRAY_AFTER_CLOSE = """
import os, signal, threading, time
from verifiers.deadline import deadline
stop = threading.Event()
threading.Thread(target=stop.wait, daemon=True).start()
with deadline(10):
    pass
os.kill(os.getpid(), signal.SIGALRM)  # an expiry another thread received as the timer stopped
time.sleep(0.2)
stop.set()
print("alive")
"""


def test_a_stray_expiry_after_the_last_close_is_harmless():
    """Putting SIG_DFL back at the last close let a late SIGALRM end the process (or, tripped
    in another thread, raise "Signal 14 ignored due to race condition" at a random line)."""
    done = subprocess.run([sys.executable, "-c", STRAY_AFTER_CLOSE], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "alive", (done.returncode,
                                                                     done.stderr)
    assert done.stderr == ""
