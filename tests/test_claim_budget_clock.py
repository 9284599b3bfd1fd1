"""A symbolic claim's budget after the fact counts CPU time, as its deadline does: a busy
machine that stretches the wall time is no overrun (the verdict would depend on the load)."""

from __future__ import annotations

import time

from verifiers.deadline import WALL_FACTOR, cpu_seconds
from verifiers.schema import Claim
from verifiers.symbolic import claims as symclaims


def progress() -> symclaims._Progress:
    return symclaims._Progress(Claim(id="c", file="c.yaml", line=1, col=1, note="n.txt"), None)


def test_wall_time_past_the_budget_is_no_overrun():
    p = progress()
    p.start = time.monotonic() - 3 * symclaims.CLAIM_SECONDS  # a loaded machine
    assert not p.overran()


def test_cpu_time_past_the_budget_is_an_overrun():
    p = progress()
    p.cpu_start = cpu_seconds() - symclaims.CLAIM_SECONDS - 1  # a swallowed deadline
    assert p.overran()


def test_a_claim_that_waits_past_ten_times_its_budget_is_an_overrun():
    p = progress()
    p.start = time.monotonic() - symclaims.CLAIM_SECONDS * WALL_FACTOR - 1
    assert p.overran()
