"""``--cpu-durations=N``: the N tests that cost the most CPU time (issue 15).

Wall-clock durations say little on a machine shared by several jobs; the CPU time a test
costs does not depend on the load. Each phase (setup, call, teardown) is measured in the
process that runs it (an xdist worker or the only one) as the process's own user+system
time plus that of the child processes it waited for (a ``notecheck`` subprocess, a browser),
so a test that spawns the CLI pays for the CLI's imports. Off unless asked for.

    CI=true pytest -q --cpu-durations=30
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Generator
from typing import Any

import pytest

_KEY = "cpu_seconds"
_WORKER = "cpu_worker"  # (worker, process CPU so far, its collection CPU, wall clock)


def _cpu_now() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


class CpuDurations:
    """Measures each phase in the process that runs it; reports in the controller."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.rows: list[tuple[float, str, str]] = []
        self.collected_cpu = 0.0  # this process's CPU when collection ended
        self.started = time.time()
        self.workers: dict[str, tuple[float, float, float, int]] = {}

    def pytest_collection_finish(self) -> None:
        self.collected_cpu = _cpu_now()

    def _measure(self, item: pytest.Item, when: str) -> Generator[None, Any, None]:
        start = _cpu_now()
        yield
        item.stash.setdefault(_PHASES, {})[when] = _cpu_now() - start

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, Any, None]:
        yield from self._measure(item, "teardown")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item,
                                  call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        seconds = item.stash.get(_PHASES, {}).get(call.when)
        if seconds is not None:  # user_properties travel from an xdist worker to the controller
            outcome.get_result().user_properties.append((_KEY, seconds))
        if call.when == "teardown":
            worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
            outcome.get_result().user_properties.append(
                (_WORKER, (worker, _cpu_now(), self.collected_cpu, time.time())))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == _KEY:
                self.rows.append((float(value), report.when or "", report.nodeid))
            elif key == _WORKER:
                worker, cpu, collected, wall = value
                tests = self.workers.get(worker, (0.0, 0.0, 0.0, 0))[3] + 1
                self.workers[worker] = (float(cpu), float(collected), float(wall), tests)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        total = sum(seconds for seconds, _, _ in self.rows)
        terminalreporter.write_sep("=", f"cpu durations: {total:.1f} s in tests, "
                                   f"top {self.top}")
        by_file: dict[str, float] = {}
        for seconds, _, nodeid in self.rows:
            path = nodeid.split("::")[0]
            by_file[path] = by_file.get(path, 0.0) + seconds
        for seconds, when, nodeid in sorted(self.rows, reverse=True)[:self.top]:
            terminalreporter.write_line(f"{seconds:8.2f}s {when:<8} {nodeid}")
        terminalreporter.write_sep("-", "cpu by file")
        for path, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:self.top]:
            terminalreporter.write_line(f"{seconds:8.2f}s {path}")
        if self.workers:  # which process finished last, and what its start-up cost
            terminalreporter.write_sep("-", "cpu by process (start-up and collection "
                                       "included; wall: its last test's end)")
            for worker, (cpu, collected, wall, tests) in sorted(self.workers.items()):
                terminalreporter.write_line(
                    f"{worker:<6} {tests:5d} tests  cpu {cpu:7.1f}s  collection "
                    f"{collected:5.1f}s  wall end {wall - self.started:7.1f}s")


_PHASES = pytest.StashKey[dict[str, float]]()
