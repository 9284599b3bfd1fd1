"""Load must not become a verdict (issue 15): deadlines and budgets count CPU time.

A busy machine stretches the wall time of a claim, not its CPU time. Each test pairs a
claim (or step) that is slow only in wall time -- it sleeps, as a process does while
other jobs hold the cores -- with one that really works that long, which must still end
as an error. The old wall-clock deadlines fail the first half of each pair.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_engine import SUM, project
from verifiers.budget import Budget
from verifiers.deadline import DeadlineExceeded, deadline
from verifiers.engine import Engine
from verifiers.run import run


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_a_deadline_counts_cpu_time_not_waiting() -> None:
    with deadline(0.2):
        time.sleep(0.6)  # three times the deadline in wall time, almost no CPU time
    with pytest.raises(DeadlineExceeded):
        with deadline(0.2):
            _spin(30)


def test_a_wall_deadline_and_the_wall_backstop_still_end_waiting() -> None:
    with pytest.raises(DeadlineExceeded):
        with deadline(0.1, clock="wall"):
            time.sleep(5)
    start = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        with deadline(0.05):  # a CPU deadline: the backstop is WALL_FACTOR times it
            time.sleep(30)
    assert time.monotonic() - start < 20  # a watchdog, not a timing


def _slowed(monkeypatch: pytest.MonkeyPatch, slow: object) -> None:
    original = Engine._run

    def run_slowly(self: Engine, ev: object) -> None:
        slow()  # type: ignore[operator]
        original(self, ev)  # type: ignore[arg-type]

    monkeypatch.setattr(Engine, "_run", run_slowly)


def test_a_claim_slow_only_in_wall_time_verifies(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, SUM)
    _slowed(monkeypatch, lambda: time.sleep(1.5))  # a busy machine: three budgets of waiting
    (verdict,) = run(root / "notes", root / "claims", budget=Budget(claim_seconds=0.5)).verdicts
    assert verdict.status == "verified", verdict.message


def test_a_claim_that_works_past_its_budget_is_an_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    root = project(tmp_path, SUM)
    _slowed(monkeypatch, lambda: _spin(3600))  # an infinite loop, for the test's purposes
    (verdict,) = run(root / "notes", root / "claims", budget=Budget(claim_seconds=0.5)).verdicts
    assert verdict.status == "error" and verdict.depends_on_time
    assert verdict.message == "claim took longer than its budget of 0.5 s"


def _job_sleeps(seconds: float) -> Iterator[str]:
    time.sleep(seconds)
    yield "done"


def _job_spins(seconds: float) -> Iterator[str]:
    _spin(seconds)
    yield "done"


def test_a_symbolic_step_starved_of_cpu_is_not_cut_off() -> None:
    from verifiers.symbolic.prove import _run_streaming, _warm

    items, finished = _run_streaming(_job_sleeps, (1.0,), 0.3)
    assert (items, finished) == (["done"], True)
    items, finished = _run_streaming(_job_spins, (3600.0,), 0.3)
    assert (items, finished) == ([], False)
    items, finished = _run_streaming(_job_sleeps, (0.0,), 5.0)  # a fresh worker after a kill
    assert (items, finished) == (["done"], True)
    _warm.stop()


def _job_fails() -> Iterator[str]:
    yield "first"
    raise ValueError("boom")


def test_a_failing_job_reports_like_a_one_shot_worker() -> None:
    from verifiers.symbolic.prove import _run_forked, _run_streaming, _warm

    warm = _run_streaming(_job_fails, (), 5.0)
    assert warm == _run_forked(_job_fails, (), 5.0)
    assert warm == (["first", ("error", "ValueError: boom"), ("error", "worker process died")],
                    True)
    _warm.stop()
