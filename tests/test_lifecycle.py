"""How a run ends: budgets (issue 11 item 6) and signals (item 8).

The signal tests start ``notecheck check -j 2`` on the repository's notes in a child
process, wait until its forked worker exists (found through a unique token in the
environment), and then signal the gate. Time is bounded, never measured.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.processes import gone, tagged
from verifiers.budget import Budget
from verifiers.deadline import deadline
from verifiers.run import run

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "corpus"
SLOW = CORPUS / "budgets" / "claim-over-budget" / "claims" / "n" / "c.yaml"

linux_only = pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")


# --------------------------------------------------------------------------- budgets


def _slow_project(root: Path, downstream: bool = False) -> Path:
    (root / "claims" / "n").mkdir(parents=True)
    shutil.copytree(CORPUS / "base" / "notes", root / "notes")
    text = SLOW.read_text(encoding="utf-8")
    if downstream:
        text += ("  - id: after\n    section: \"1.1\"\n    text: a = ⟨x⟩\n"
                 "    uses: {t: slow.s}\n    check: {x: t - 0.5}\n")
    (root / "claims" / "n" / "c.yaml").write_text(text, encoding="utf-8")
    return root


def test_claim_over_budget_is_a_located_error_that_depends_on_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _slow_project(tmp_path, downstream=True)
    monkeypatch.chdir(root)
    start = time.monotonic()
    result = run(Path("notes"), Path("claims"), budget=Budget(claim_seconds=0.5))
    assert time.monotonic() - start < 60  # unbounded, this claim takes minutes
    slow, after = result.verdicts
    assert (slow.id, slow.status, slow.claim_place) == ("slow", "error", (3, 1))
    assert slow.message == "claim took longer than its budget of 0.5 s"
    assert slow.depends_on_time
    assert after.status == "blocked" and after.message == "blocked by slow, which is error"
    assert after.root_cause == "slow"
    assert after.depends_on_time  # its outcome came from the clock too: never cached


def test_spent_run_budget_ends_every_claim(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_slow_project(tmp_path, downstream=True))
    budget = Budget(run_seconds=0.2)
    result = run(Path("notes"), Path("claims"), budget=budget)
    assert [v.message for v in result.verdicts] == ["the run's budget of 0.2 s was spent"] * 2
    assert all(v.depends_on_time and v.claim_place for v in result.verdicts)


def test_deadlines_nest() -> None:
    """A step's own time box inside a claim's budget: each fires; the outer one wins."""
    class Outer(BaseException):
        pass

    with pytest.raises(Outer):
        with deadline(0.3, Outer):
            with pytest.raises(TimeoutError):
                with deadline(0.05):
                    time.sleep(5)
            time.sleep(5)  # the outer timer is armed again after the inner one
    with pytest.raises(Outer):
        with deadline(0.05, Outer):
            try:
                with deadline(5):
                    time.sleep(5)
            except TimeoutError:  # a step that treats the budget as its own timeout
                pytest.fail("the inner deadline raised the outer one's expiry")
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# --------------------------------------------------------------------------- signals


def _tagged(token: str) -> list[int]:
    """Live processes whose environment holds ``token`` (the gate and what it forked)."""
    return tagged(token, "environ")


def _start_gate(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    token = f"NOTECHECK_TEST_TOKEN={uuid.uuid4().hex}"
    env = {**os.environ, "NOTECHECK_CACHE": str(tmp_path / "cache"),
           token.split("=")[0]: token.split("=")[1]}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.Popen([sys.executable, "-m", "verifiers.cli", "check", "--no-cache",
                             "-j", "2"], cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    limit = time.monotonic() + 120
    while len(_tagged(token)) < 2:  # the gate and its worker: the run is under way
        if proc.poll() is not None or time.monotonic() > limit:
            proc.kill()
            pytest.fail(f"no worker appeared: {proc.communicate()}")
        time.sleep(0.05)
    time.sleep(0.5)
    return proc, token


def _gone(token: str, seconds: float = 10) -> bool:
    return gone(token, "environ", seconds)


@linux_only
@pytest.mark.parametrize("signum, code, line", [(signal.SIGINT, 130, "notecheck: interrupted"),
                                                (signal.SIGTERM, 143, "notecheck: terminated")])
def test_signal_ends_the_run_with_one_line(tmp_path: Path, signum: int, code: int,
                                          line: str) -> None:
    proc, token = _start_gate(tmp_path)
    proc.send_signal(signum)  # to the gate alone, not its process group
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code, (out[-2000:], err[-2000:])
    assert err.splitlines() == [line]
    assert _gone(token), "a worker outlived the gate"


@linux_only
def test_sigkill_of_the_gate_leaves_no_worker(tmp_path: Path) -> None:
    proc, token = _start_gate(tmp_path)
    workers = [p for p in _tagged(token) if p != proc.pid]
    assert workers
    proc.kill()
    proc.communicate(timeout=60)
    assert _gone(token), f"workers {_tagged(token)} outlived the killed gate"


_HELD = """
import os, signal, time
from verifiers import lifecycle
try:
    with lifecycle.signals():
        with {block}:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.2)  # a signal not held has raised by now
            print("end of block", flush=True)
except lifecycle.Interrupted as caught:
    print("interrupted", caught.signum)
"""


@linux_only
@pytest.mark.parametrize(("block", "out"), [
    ("lifecycle.held()", "end of block\ninterrupted 15\n"),
    ("open(os.devnull)", "interrupted 15\n"),  # not held: it raises at once (the test can fail)
])
def test_a_signal_waits_for_the_end_of_a_held_import(block: str, out: str) -> None:
    """Inside ``held`` (the import of torch and the checkers) SIGTERM does not raise; it
    arrives when the block ends, as the run's usual interruption. (In a process of its own:
    a pytest-xdist worker does not run tests in the main thread.)"""
    proc = subprocess.run([sys.executable, "-c", _HELD.format(block=block)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (0, out), proc.stderr
