"""The pytest session's engine: its run budget counts only the time claims are evaluated, so
a long session on a busy machine (the other tests' time) does not end later claims as errors.
The run's clock is moved by hand here: no test waits or depends on the machine's speed."""

from __future__ import annotations

import pytest

from verifiers import budget as budget_module
from verifiers.budget import Budget, BudgetExceeded, SessionBudget


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(budget_module.time, "monotonic", c)
    return c


def test_time_between_claims_does_not_spend_the_session_budget(clock: Clock):
    session = SessionBudget(run_seconds=60, started=clock.now, idle_since=clock.now)
    clock.now += 3600  # an hour of other tests
    assert session.run_left() == 60
    with session.claim():
        clock.now += 20  # a claim's evaluation counts
        assert session.run_left() == 40
        with session.claim():  # a claim it depends on: the same clock, counted once
            clock.now += 5
        assert session.run_left() == 35
    clock.now += 3600
    assert session.run_left() == 35


def test_a_session_that_evaluates_past_its_budget_still_ends(clock: Clock):
    session = SessionBudget(run_seconds=60, started=clock.now, idle_since=clock.now)
    with session.claim():
        clock.now += 61
    with pytest.raises(BudgetExceeded, match="run's budget of 60 s"):
        with session.claim():
            pass


def test_a_run_budget_counts_every_second(clock: Clock):  # what the session engine had
    run = Budget(run_seconds=60, started=clock.now)
    clock.now += 3600
    assert run.run_left() < 0


def test_the_plugins_session_engine_has_a_session_budget(request, real_verdict):
    from tests.conftest import _plugin_settings

    settings = _plugin_settings(request.config)
    assert settings is not None
    assert real_verdict("l1-1-bpe-round1-merge").status == "verified"
    assert isinstance(settings._engine.budget, SessionBudget)
