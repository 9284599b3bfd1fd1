"""Time budgets: one per claim and one per run, so a pull request cannot hold CI for hours.

A claim's evaluation runs under a deadline (:mod:`verifiers.deadline`, SIGALRM in the
main thread of the process that evaluates it: the gate, or a ``-j`` worker) of the
claim's budget or what is left of the run's, whichever ends first. Exceeding it ends
the claim as an ``error`` whose verdict has ``depends_on_time`` set (never cached).
Once the run's budget is spent, every claim still to evaluate ends at once with
``error: the run's budget of N s was spent``.

A claim's budget counts CPU time (:func:`verifiers.deadline.cpu_seconds`, with a wall
backstop of ``WALL_FACTOR`` times it), so a busy machine does not turn a slow claim into
an error; the run's budget counts wall time, since it bounds how long CI waits.

Claim files cannot raise a budget: only the command line sets them (``--claim-budget``,
``--run-budget``), and a symbolic claim's ``timeout:`` (at most 30 s per step) only
divides the claim's budget further. Where no deadline can interrupt (not the main
thread), the run's budget is still checked between claims.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from verifiers.deadline import alarms_held, cpu_seconds, deadline

__all__ = ["CLAIM_SECONDS", "RUN_SECONDS", "Budget", "BudgetExceeded", "SessionBudget"]

CLAIM_SECONDS = 60.0
RUN_SECONDS = 15 * 60.0


class BudgetExceeded(BaseException):
    """A budget ran out. A BaseException, so no ``except Exception`` in a checker eats it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _seconds(value: float) -> str:
    return f"{value:g}"


@dataclass
class Budget:
    claim_seconds: float = CLAIM_SECONDS
    run_seconds: float = RUN_SECONDS
    started: float = field(default_factory=time.monotonic)  # CLOCK_MONOTONIC: shared by forks

    def claim_message(self) -> str:
        return f"claim took longer than its budget of {_seconds(self.claim_seconds)} s"

    def run_message(self) -> str:
        return f"the run's budget of {_seconds(self.run_seconds)} s was spent"

    def run_left(self) -> float:
        return self.started + self.run_seconds - time.monotonic()

    @staticmethod
    def clock() -> float:
        """The clock a claim's ``spent`` is counted on (CPU seconds of this process)."""
        return cpu_seconds()

    @contextlib.contextmanager
    def claim(self, spent: float = 0.0) -> Iterator[None]:
        """The body runs within the claim's budget (less ``spent``, in :meth:`clock`
        seconds) and the run's; the run's wins when both have run out."""
        run_left = self.run_left()
        if run_left <= 0:
            raise BudgetExceeded(self.run_message())
        claim_left = self.claim_seconds - spent
        if claim_left <= 0:
            raise BudgetExceeded(self.claim_message())
        with contextlib.ExitStack() as stack:
            with alarms_held():  # an expiry while opening waits until both can close
                if not math.isinf(run_left):
                    run_message = self.run_message()
                    stack.enter_context(deadline(run_left, lambda: BudgetExceeded(run_message),
                                                 clock="wall"))
                if not math.isinf(claim_left):
                    claim_message = self.claim_message()
                    stack.enter_context(deadline(claim_left,
                                                 lambda: BudgetExceeded(claim_message)))
            yield


@dataclass
class SessionBudget(Budget):
    """The budget of a pytest session's engine, which evaluates claims now and then between
    other tests: the run's clock runs only while a claim is evaluated. With :class:`Budget`
    it ran from the first claim on, so on a busy machine a long session spent the run's 15
    minutes in other tests and every claim asked for later ended as an error."""

    idle: float = 0.0  # wall seconds spent outside claims, before idle_since
    idle_since: float | None = field(default_factory=time.monotonic)  # None: in a claim

    def run_left(self) -> float:
        now = time.monotonic()
        idle = self.idle + (now - self.idle_since if self.idle_since is not None else 0.0)
        return self.started + idle + self.run_seconds - now

    @contextlib.contextmanager
    def claim(self, spent: float = 0.0) -> Iterator[None]:
        outermost = self.idle_since is not None  # a claim within a claim: one clock
        if outermost:
            self.idle += time.monotonic() - self.idle_since
            self.idle_since = None
        try:
            with super().claim(spent):
                yield
        finally:
            if outermost:
                self.idle_since = time.monotonic()
