"""Tests of verifiers.programs.jail: each escape a note's program could try, tried for real.

Every attack is a program a note could print. On the old runner (a child interpreter
with a temporary cwd and a reduced environment) each one succeeded; here each must
fail inside the jail while the gate stays fine. The attack programs are module
constants so that the "before" column of the branch report can be re-measured
against the old runner with the same text.

Timeouts are small (a few seconds); the only time assertions are generous bounds
showing that a call returns after the jail is killed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import verifiers.programs.jail as jail
from tests.processes import gone, tagged
from verifiers.programs import JailUnavailable, ProgramResult, quote_output, run_program

REPO = Path(__file__).resolve().parents[1]
pytest_plugins = ["pytester"]


# --------------------------------------------------------------------------- attack programs

READ_ENVIRON = """\
import os
for pid in [os.getppid(), 1] + [int(p) for p in os.listdir('/proc') if p.isdigit()]:
    try:
        print(pid, open(f'/proc/{pid}/environ', 'rb').read().replace(b'\\0', b' ').decode())
    except OSError as err:
        print(pid, 'denied', type(err).__name__)
"""

READ_PASSWD = "print(open('/etc/passwd').read())\n"

WRITE_OUTSIDE = """\
import json
done = {}
for path in json.loads(TARGETS):
    try:
        with open(path, 'a') as fh:
            fh.write('os._exit(0)  # pwned\\n')
        done[path] = 'written'
    except OSError as err:
        done[path] = type(err).__name__
print(json.dumps(done))
"""

CONNECT = """\
import json, socket
out = {}
for host, port in ADDRESSES:
    try:
        socket.create_connection((host, port), timeout=2).close()
        out[f'{host}:{port}'] = 'connected'
    except OSError as err:
        out[f'{host}:{port}'] = type(err).__name__
print(json.dumps(out))
"""

FORK_BOMB = """\
import os, time
n = 0
for _ in range(200):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    n += 1
print('forked', n, flush=True)
"""

# 8 GB of address space first without touching it (mmap), so that on a runner without a
# limit the attack shows the limit is missing without eating the machine's memory.
ALLOCATE = """\
import mmap
try:
    m = mmap.mmap(-1, 8 << 30)
except OSError as err:
    print('mmap refused:', err, flush=True)
    b = bytearray(8 << 30)
print('allocated 8 GB')
"""

PRINT_GIGABYTE = """\
import sys
chunk = (b'x' * 1023 + b'\\n') * 1024
for _ in range(1024):
    sys.stdout.buffer.write(chunk)
"""

ONE_LONG_LINE = "import sys\nsys.stdout.buffer.write(b'y' * (256 << 20))\n"

DETACH = """\
import os, subprocess, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # the grandchild: no parent, own session, holds stdout open
        subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', TOKEN])
        time.sleep(120)
    os._exit(0)
print('detached', flush=True)
"""


def _with(program: str, **names: object) -> str:
    """The program with its parameters as literal assignments in front."""
    return "".join(f"{k} = {v!r}\n" for k, v in names.items()) + program


def _alive(token: str) -> list[int]:
    """Host pids whose command line carries ``token`` (the host sees every pid namespace)."""
    return tagged(token, "cmdline")


def _gone(token: str, within: float = 10.0) -> bool:
    return gone(token, "cmdline", within)


# --------------------------------------------------------------------------- basics


def test_program_runs_and_reports() -> None:
    result = run_program("import sys\nprint('out')\nsys.stderr.write('boom\\n')\nsys.exit(3)\n",
                         timeout=10)
    assert (result.returncode, result.stdout, result.stderr, result.timed_out) == (
        3, "out\n", "boom\n", False)
    assert result.jailed and not result.truncated
    crash = run_program("x = 1\n1 / 0\n", timeout=10)
    assert crash.returncode == 1
    assert "ZeroDivisionError" in crash.stderr
    assert 'program.py", line 2' in crash.stderr  # traceback lines map back to the source


def test_numpy_and_extra_files_but_not_the_checkout() -> None:
    source = textwrap.dedent("""\
        import importlib.util, json, os, sys
        import numpy as np
        print(json.dumps({'sum': float(np.arange(4).sum()), 'data': open('data/in.txt').read(),
                          'cwd': os.getcwd(), 'repo': os.path.exists(REPO),
                          'home': sorted(os.listdir(HOME)) if os.path.exists(HOME) else [],
                          'verifiers': importlib.util.find_spec('verifiers') is not None,
                          'tinygpt': importlib.util.find_spec('tinygpt') is not None}))
        """)
    result = run_program(_with(source, REPO=str(REPO), HOME=str(Path.home())), timeout=20,
                         extra_files={"data/in.txt": "学习 10"})
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    home = seen.pop("home")  # at most the path down to the interpreter (pyenv), nothing else
    assert all(Path.home() / name in Path(sys.base_prefix).parents or
               Path.home() / name == Path(sys.base_prefix) for name in home), home
    assert seen == {"sum": 6.0, "data": "学习 10", "cwd": jail.WORKDIR, "repo": False,
                    "verifiers": False, "tinygpt": False}
    with pytest.raises(ValueError):
        run_program("pass", extra_files={"../escape.txt": "x"})
    with pytest.raises(ValueError):
        run_program("pass", extra_files={"/tmp/abs.txt": "x"})


def test_environment_is_empty_but_for_a_few(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_SECRET", "s3cret")
    result = run_program("import json, os\nprint(json.dumps(dict(os.environ)))\n", timeout=10)
    env = json.loads(result.stdout)
    assert "s3cret" not in result.stdout
    assert set(env) <= {"HOME", "TMPDIR", "LANG", "PATH", "OPENBLAS_NUM_THREADS",
                        "OMP_NUM_THREADS", "MKL_NUM_THREADS", "LC_CTYPE", "PWD"}


def test_infinite_loop_is_killed_after_timeout() -> None:
    result = run_program("while True:\n    pass\n", timeout=2)
    assert result.timed_out and result.returncode < 0
    assert result.seconds < 2 + 20


# --------------------------------------------------------------------------- the escapes


def test_parent_environ_is_out_of_reach() -> None:
    """A gate started with a secret in its environment (as CI starts it) runs the program.

    ``/proc/<pid>/environ`` shows a process's environment as it was at exec, so the
    secret must be there from the gate's start, not set later with ``os.environ``.
    """
    token = f"ci-secret-{uuid.uuid4().hex}"
    code = (f"from verifiers.programs import run_program\n"
            f"r = run_program({READ_ENVIRON!r}, timeout=10)\n"
            f"print(r.returncode, r.stdout, r.stderr)\n")
    gate = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=60, env={**os.environ, "NOTECHECK_CI_TOKEN": token},
                          check=True)
    assert gate.stdout.startswith("0 "), gate.stdout + gate.stderr
    assert token not in gate.stdout and token not in gate.stderr
    # private pid namespace: only the jail's own few processes are listed
    assert len([ln for ln in gate.stdout.splitlines() if ln.split()[:1] and
                ln.split()[0].isdigit()]) < 10


def test_etc_passwd_is_not_there() -> None:
    result = run_program(READ_PASSWD, timeout=10)
    assert result.returncode == 1 and "FileNotFoundError" in result.stderr
    assert "root:" not in result.stdout + result.stderr


def test_writes_outside_the_jail_fail(tmp_path: Path) -> None:
    mine = tmp_path / "target.txt"
    mine.write_text("original\n", encoding="utf-8")
    cache = Path(os.environ["NOTECHECK_CACHE"]) / "poison.json"
    checkout = REPO / f"jail-escape-{uuid.uuid4().hex}.py"
    targets = [str(mine), str(cache), str(checkout), str(REPO / "verifiers" / "__init__.py")]
    before = (REPO / "verifiers" / "__init__.py").read_bytes()
    try:
        result = run_program(_with(WRITE_OUTSIDE, TARGETS=json.dumps(targets)), timeout=10)
        assert result.returncode == 0, result.stderr
        assert "written" not in json.loads(result.stdout).values()
        assert mine.read_text(encoding="utf-8") == "original\n"
        assert not cache.exists() and not checkout.exists()
        assert (REPO / "verifiers" / "__init__.py").read_bytes() == before
    finally:
        checkout.unlink(missing_ok=True)
        cache.unlink(missing_ok=True)


def test_no_network() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        addresses = [("127.0.0.1", port), ("1.1.1.1", 53), ("8.8.8.8", 443)]
        result = run_program(_with(CONNECT, ADDRESSES=addresses), timeout=15)
        assert result.returncode == 0, result.stderr
        assert "connected" not in json.loads(result.stdout).values()
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody knocked


def test_fork_bomb_is_capped() -> None:
    result = run_program(FORK_BOMB, timeout=10)
    assert result.returncode == 0, result.stderr
    forked = int(result.stdout.split()[1])
    assert forked <= jail.PROCESSES < 100


def test_memory_is_capped() -> None:
    result = run_program(ALLOCATE, timeout=10)
    assert "mmap refused" in result.stdout and "allocated" not in result.stdout
    assert "MemoryError" in result.stderr


def _gate_rss(program: str, timeout: float) -> dict:
    """Run ``program`` from a separate gate process; its peak RSS (kB) and what it kept.

    The peak is ``VmHWM`` (reset at exec), not ``ru_maxrss``, which keeps the peak of the
    forked pytest process across the exec.
    """
    code = textwrap.dedent(f"""\
        import json, re
        from verifiers.programs import run_program
        r = run_program({program!r}, timeout={timeout})
        hwm = int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))
        print(json.dumps({{'rss_kb': hwm,
                          'stdout': len(r.stdout), 'longest': max(map(len, r.stdout.split('\\n'))),
                          'truncated': r.truncated, 'tail': r.stdout[-200:]}}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=timeout + 60, cwd=REPO, check=True).stdout
    return json.loads(out)


def test_a_gigabyte_of_output_is_truncated() -> None:
    seen = _gate_rss(PRINT_GIGABYTE, 30)
    assert seen["truncated"] and "output truncated" in seen["tail"]
    assert seen["stdout"] < 2 << 20
    assert seen["rss_kb"] < 300 << 10  # the gate never holds the gigabyte


def test_one_long_line_is_cut() -> None:
    seen = _gate_rss(ONE_LONG_LINE, 30)
    assert seen["truncated"] and seen["longest"] < 128 << 10
    assert seen["rss_kb"] < 300 << 10


def test_detached_child_holding_stdout_dies_with_the_jail() -> None:
    token = f"notecheck-detach-{uuid.uuid4().hex}"
    start = time.monotonic()
    result = run_program(_with(DETACH, TOKEN=token), timeout=4)
    assert time.monotonic() - start < 4 + 20
    assert "detached" in result.stdout
    assert _gone(token), f"survivors: {_alive(token)}"


def test_detached_child_of_a_hanging_program_dies_at_the_timeout() -> None:
    token = f"notecheck-detach-{uuid.uuid4().hex}"
    start = time.monotonic()
    result = run_program(_with(DETACH + "time.sleep(120)\n", TOKEN=token), timeout=3)
    assert result.timed_out
    assert time.monotonic() - start < 3 + 20
    assert _gone(token), f"survivors: {_alive(token)}"


def test_sigterm_to_the_gate_kills_the_jail() -> None:
    token = f"notecheck-term-{uuid.uuid4().hex}"
    # the gate's own command line carries the program: only the reversed token is in it
    program = _with("import subprocess, sys, time\nTOKEN = TOKEN_R[::-1]\n"
                    "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', "
                    "TOKEN])\ntime.sleep(120)\n", TOKEN_R=token[::-1])
    code = f"from verifiers.programs import run_program\nrun_program({program!r}, timeout=60)\n"
    gate = subprocess.Popen([sys.executable, "-c", code], cwd=REPO)
    try:
        end = time.monotonic() + 20
        while not _alive(token) and time.monotonic() < end:
            time.sleep(0.2)
        assert _alive(token), "the jailed program never started"
        assert gate.pid not in _alive(token)
        gate.send_signal(signal.SIGTERM)
        gate.wait(timeout=20)
        assert _gone(token), f"survivors: {_alive(token)}"
    finally:
        if gate.poll() is None:
            gate.kill()
            gate.wait()


# --------------------------------------------------------------------------- fail closed


def test_without_bwrap_the_program_never_runs(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.setattr(jail, "BWRAP", str(tmp_path / "no-bwrap"))
    monkeypatch.delenv(jail.TRUST_ENV, raising=False)
    marker = tmp_path / "ran"
    with pytest.raises(JailUnavailable, match="apt-get install bubblewrap"):
        run_program(_with("open(MARKER, 'w').write('x')\n", MARKER=str(marker)), timeout=10)
    assert not marker.exists()


def test_trust_runs_unconfined_where_no_jail(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setattr(jail, "BWRAP", str(tmp_path / "no-bwrap"))
    monkeypatch.setenv(jail.TRUST_ENV, "1")
    result = run_program("import os\nimport numpy\nprint('ran', os.getcwd())\n", timeout=20)
    assert isinstance(result, ProgramResult) and not result.jailed
    assert result.stdout.startswith("ran ") and result.returncode == 0, result.stderr
    assert not Path(result.stdout.split()[1]).exists()  # its temporary cwd is removed


def test_claim_is_an_error_without_a_jail(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Through the CLI: the lesson 1 program claim says why, and how to fix it."""
    import tinygpt.examples.lesson1 as lesson1
    import verifiers.modelrun as modelrun
    from verifiers.cli import main

    monkeypatch.setattr(lesson1, "_CACHE", {})  # runs earlier in this process are remembered
    monkeypatch.setattr(modelrun, "_CACHE", {})
    monkeypatch.setattr(jail, "BWRAP", str(tmp_path / "no-bwrap"))
    monkeypatch.delenv(jail.TRUST_ENV, raising=False)
    monkeypatch.chdir(REPO)
    report = tmp_path / "report.json"
    code = main(["check", "-k", "l1-7-program and not tinygpt", "--no-cache", "-j", "1",
                 "--json", str(report)])
    capsys.readouterr()
    (claim,) = json.loads(report.read_text(encoding="utf-8"))["claims"]
    assert code == 1 and claim["status"] == "error"
    assert "jail" in claim["message"] and "apt-get install bubblewrap" in claim["message"]
    assert "--trust-note-programs" in claim["message"]


def test_a_missing_jail_is_not_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Installing bubblewrap must be enough: the run after it evaluates the claim again."""
    import tinygpt.examples.lesson1 as lesson1
    import verifiers.modelrun as modelrun
    from verifiers.cli import main

    monkeypatch.setattr(lesson1, "_CACHE", {})
    monkeypatch.setattr(modelrun, "_CACHE", {})
    monkeypatch.setattr(jail, "BWRAP", str(tmp_path / "no-bwrap"))
    monkeypatch.delenv(jail.TRUST_ENV, raising=False)
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(REPO)
    args = ["check", "-k", "l1-7-program and not tinygpt", "-j", "1"]
    assert main(args) == 1
    capsys.readouterr()
    stored = [p for p in (tmp_path / "cache").rglob("*.json")]
    assert all(b"jail" not in p.read_bytes() for p in stored), "an error of this machine was cached"


def test_trust_flag_reaches_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    from verifiers.cli import build_parser

    for command in ("check", "report", "fix"):
        assert build_parser().parse_args([command, "--trust-note-programs"]).trust_note_programs
    assert not build_parser().parse_args(["check"]).trust_note_programs
    monkeypatch.delenv(jail.TRUST_ENV, raising=False)
    assert not jail.trusted()
    monkeypatch.setenv(jail.TRUST_ENV, "1")
    assert jail.trusted()


def test_pytest_option_trusts(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jail.TRUST_ENV, "0")  # restored afterwards, whatever the plugin sets
    pytester.makepyfile("import os\n\ndef test_env():\n"
                        "    assert os.environ.get('NOTECHECK_TRUST_NOTE_PROGRAMS') == '1'\n")
    pytester.runpytest("--notecheck-trust-note-programs", "-p", "no:randomly").assert_outcomes(
        passed=1)


# --------------------------------------------------------------------------- quoting


def test_quoted_output_is_short_and_inert() -> None:
    text = "\n".join(f"line {i}" for i in range(100)) + "\n\x1b[31mred\x1b[0m\x00 \x07end\n"
    quoted = quote_output(text)
    assert "\x1b" not in quoted and "\x00" not in quoted and "\x07" not in quoted
    assert quoted.endswith("\\x1b[31mred\\x1b[0m\\x00 \\x07end")
    assert "line 96" in quoted and "line 95" not in quoted  # the last five lines
    assert len(quote_output("z" * 5000)) == 500
