"""--cpu-durations (tests/cpu_time.py): CPU time, not wall time, ranks the tests."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest

from tests.cpu_time import _KEY, _PHASES, CpuDurations


class _Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_sep(self, sep: str, title: str) -> None:
        self.lines.append(title)

    def write_line(self, line: str) -> None:
        self.lines.append(line)


def _phase(plugin: CpuDurations, work: Any) -> float:
    """The seconds the plugin measures around ``work`` (one call phase)."""
    item = SimpleNamespace(stash=pytest.Stash())
    wrapper = plugin._measure(item, "call")  # type: ignore[arg-type]
    next(wrapper)
    work()
    with pytest.raises(StopIteration):
        next(wrapper)
    return item.stash[_PHASES]["call"]


def _spin() -> None:
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass


def test_a_test_that_sleeps_costs_no_cpu_and_one_that_spins_does() -> None:
    plugin = CpuDurations(2)
    slept = _phase(plugin, lambda: time.sleep(0.3))
    spun = _phase(plugin, _spin)
    assert slept < 0.1 <= 0.25 <= spun


def test_the_summary_ranks_by_cpu_and_sums_per_file() -> None:
    plugin = CpuDurations(1)
    for nodeid, seconds in (("tests/a.py::t1", 0.5), ("tests/a.py::t2", 2.0),
                            ("tests/b.py::t3", 1.0)):
        plugin.pytest_runtest_logreport(SimpleNamespace(  # type: ignore[arg-type]
            nodeid=nodeid, when="call", user_properties=[(_KEY, seconds)]))
    out = _Lines()
    plugin.pytest_terminal_summary(out)
    assert out.lines[0] == "cpu durations: 3.5 s in tests, top 1"
    assert out.lines[1].split() == ["2.00s", "call", "tests/a.py::t2"]  # only the top one
    assert out.lines[3].split() == ["2.50s", "tests/a.py"]
