"""Time budgets: one per claim and one per run, so a pull request cannot hold CI for hours.

A claim's evaluation runs under a deadline (:mod:`verifiers.deadline`, SIGALRM in the
main thread of the process that evaluates it: the gate, or a ``-j`` worker) of the
claim's budget or what is left of the run's, whichever ends first. Exceeding it ends
the claim as an ``error`` whose verdict has ``depends_on_time`` set (never cached).
Once the run's budget is spent, every claim still to evaluate ends at once with
``error: the run's budget of N s was spent``.

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

from verifiers.deadline import deadline

__all__ = ["CLAIM_SECONDS", "RUN_SECONDS", "Budget", "BudgetExceeded"]

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

    @contextlib.contextmanager
    def claim(self, spent: float = 0.0) -> Iterator[None]:
        """The body runs within the claim's budget (less ``spent``) and the run's."""
        run_left = self.run_left()
        if run_left <= 0:
            raise BudgetExceeded(self.run_message())
        claim_left = self.claim_seconds - spent
        if claim_left <= 0:
            raise BudgetExceeded(self.claim_message())
        if math.isinf(claim_left) and math.isinf(run_left):
            yield
            return
        message = self.claim_message() if claim_left <= run_left else self.run_message()
        with deadline(min(claim_left, run_left), lambda: BudgetExceeded(message)):
            yield
