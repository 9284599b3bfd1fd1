"""Progress on a terminal (issue 15): ``check`` and ``report`` show claims done of total and
the kind being run on stderr when it is a terminal; nothing otherwise or under
``--format github``. The terminal is a real pseudo-terminal (``pty``)."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_engine import SUM, project

REPO = Path(__file__).resolve().parents[1]
TWO = SUM + """  - id: twice
    section: "1.1"
    text: b = ⟨b⟩
    check:
      b: 2 * 0.25
"""

posix_only = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")


def _run(root: Path, args: list[str], tty: bool) -> tuple[str, str]:
    """(stdout, stderr) of ``notecheck ARGS`` in ``root``, stderr a pty when ``tty``."""
    env = {**os.environ, "NOTECHECK_CACHE": str(root / "cache")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "verifiers.cli", *args]
    if not tty:
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True,
                              timeout=600)
        return done.stdout, done.stderr
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE,
                                stderr=follower, text=True)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        out = proc.communicate(timeout=600)[0]
    finally:
        os.close(leader)
    return out, b"".join(chunks).decode("utf-8", "replace")


@posix_only
def test_check_shows_progress_on_a_terminal_only(tmp_path: Path) -> None:
    root = project(tmp_path, TWO)
    out, err = _run(root, ["check", "--no-cache", "-j", "1"], tty=True)
    assert "notecheck: 2 claims" in out
    assert "notecheck: 0/2 claims" in err and "notecheck: 2/2 claims (arithmetic)" in err
    assert err.endswith("\r")  # the line is cleared at the end
    out_plain, err_plain = _run(root, ["check", "--no-cache", "-j", "1"], tty=False)
    assert err_plain == "" and out_plain == out  # not a terminal: silent, same output
    _, err_github = _run(root, ["check", "--no-cache", "--format", "github"], tty=True)
    assert "claims (" not in err_github and "/2" not in err_github


@posix_only
def test_report_shows_progress_on_a_terminal(tmp_path: Path) -> None:
    root = project(tmp_path, TWO)
    _, err = _run(root, ["report", "--out", "r.html"], tty=True)
    assert "notecheck: 2/2 claims (arithmetic)" in err
    _, err_plain = _run(root, ["report", "--out", "r.html"], tty=False)
    assert err_plain == ""
