"""The attacks of tests/test_jail.py, on the jail or on the old runner (measured, not asserted).

    python benchmarks/jail_attacks.py            # the jail (verifiers.programs)
    python benchmarks/jail_attacks.py --old      # verifiers/sandbox.py as of 05ae1e3

Prints one line per attack: what the program achieved. The old runner really runs
the attacks: it writes a marker file into the checkout (removed afterwards), opens
sockets, forks 200 sleepers, maps (never touches) 8 GB, and makes the measuring gate
hold 1 GB of output, so run it only where that is acceptable.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OLD_REV = "05ae1e3"


def short(s: str, n: int = 160) -> str:
    return (s[:n] + "…") if len(s) > n else s


def main() -> None:
    old = "--old" in sys.argv[1:]
    sys.path.insert(0, REPO)
    from tests import test_jail as T

    oldir = tempfile.mkdtemp(prefix="notecheck-old-runner-")
    if old:
        text = subprocess.run(["git", "-C", REPO, "show", f"{OLD_REV}:verifiers/sandbox.py"],
                              capture_output=True, text=True, check=True).stdout
        with open(os.path.join(oldir, "old_sandbox.py"), "w", encoding="utf-8") as fh:
            fh.write(text)
        sys.path.insert(0, oldir)
        from old_sandbox import run_program
        runner = "from old_sandbox import run_program"
    else:
        from verifiers.programs import run_program
        runner = "from verifiers.programs import run_program"
    prefix = f"import sys; sys.path[:0]=[{oldir!r}, {REPO!r}]\n{runner}\n"
    try:
        out = attacks(T, run_program, prefix)
    finally:
        shutil.rmtree(oldir, ignore_errors=True)
    for name, what in out.items():
        print(f"{name:20} {what}")



def _gate(code: str, env: dict[str, str] | None = None) -> str:
    """Run ``code`` in a fresh gate process (a secret in its environment from the start)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tempfile.gettempdir(), env=env).stdout


def _kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def attacks(T, run_program, prefix: str) -> dict[str, str]:  # noqa: ANN001, N803
    out: dict[str, str] = {}
    token = f"ci-secret-{uuid.uuid4().hex}"
    seen = _gate(prefix + f"r = run_program({T.READ_ENVIRON!r}, timeout=10)\nprint(r.stdout)\n",
                 {**os.environ, "NOTECHECK_CI_TOKEN": token})
    listed = sum(1 for ln in seen.splitlines() if ln.split()[:1] and ln.split()[0].isdigit())
    out["environ"] = f"secret leaked={token in seen}; pids listed={listed}"

    r = run_program(T.READ_PASSWD, timeout=10)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    out["/etc/passwd"] = f"'root:' in output={'root:' in r.stdout}; rc={r.returncode} {short(last)}"

    tmpd = tempfile.mkdtemp(prefix="notecheck-attack-")
    os.makedirs(f"{tmpd}/cache")
    with open(f"{tmpd}/target.txt", "w", encoding="utf-8") as fh:
        fh.write("original\n")
    marker = f"{REPO}/jail-escape-marker.py"
    targets = [f"{tmpd}/target.txt", f"{tmpd}/cache/poison.json", marker]
    try:
        r = run_program(T._with(T.WRITE_OUTSIDE, TARGETS=json.dumps(targets)), timeout=10)
        out["write outside"] = short(r.stdout.strip().replace(tmpd, "<tmp>"), 300)
    finally:
        if os.path.exists(marker):
            os.unlink(marker)
        shutil.rmtree(tmpd, ignore_errors=True)

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        addresses = [("127.0.0.1", listener.getsockname()[1]), ("1.1.1.1", 53)]
        r = run_program(T._with(T.CONNECT, ADDRESSES=addresses), timeout=15)
        out["network"] = r.stdout.strip()

    r = run_program(T.FORK_BOMB, timeout=10)
    out["fork 200"] = (r.stdout.strip() + " " + short(r.stderr.strip())).strip()
    r = run_program(T.ALLOCATE, timeout=10)
    last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    out["allocate 8 GB"] = (" ".join(r.stdout.split()) + " " + short(last)).strip()

    for name, program in (("print 1 GB", T.PRINT_GIGABYTE), ("one 256 MB line", T.ONE_LONG_LINE)):
        code = prefix + (
            f"import json, re\nr = run_program({program!r}, timeout=30)\n"
            "hwm = int(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1))\n"
            "print(json.dumps({'gate_peak_MB': hwm // 1024, 'kept_chars': len(r.stdout), "
            "'longest_line': max(map(len, r.stdout.split('\\n'))), "
            "'truncated': getattr(r, 'truncated', None), 'seconds': round(r.seconds, 1)}))\n")
        out[name] = _gate(code).strip()

    token = f"notecheck-detach-{uuid.uuid4().hex}"
    start = time.monotonic()
    run_program(T._with(T.DETACH.replace("120", "20"), TOKEN=token), timeout=4)
    took = time.monotonic() - start
    time.sleep(1)
    alive = T._alive(token)
    out["detach, timeout 4 s"] = f"returned after {took:.1f} s; survivors={len(alive)}"
    _kill_all(alive)

    token = f"notecheck-term-{uuid.uuid4().hex}"
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "notecheck-sandbox-*")))
    program = T._with("import subprocess, sys, time\nTOKEN = TOKEN_R[::-1]\n"
                      "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', "
                      "TOKEN])\ntime.sleep(60)\n", TOKEN_R=token[::-1])
    code = prefix + f"run_program({program!r}, timeout=60)\n"
    gate = subprocess.Popen([sys.executable, "-c", code], cwd=tempfile.gettempdir())
    end = time.monotonic() + 20
    while not T._alive(token) and time.monotonic() < end:
        time.sleep(0.2)
    started = bool(T._alive(token))
    gate.send_signal(signal.SIGTERM)
    gate.wait()
    time.sleep(2)
    alive = T._alive(token)
    left = set(glob.glob(os.path.join(tempfile.gettempdir(), "notecheck-sandbox-*"))) - before
    out["SIGTERM to gate"] = (f"program started={started}; survivors={len(alive)}; "
                              f"temp dirs left={len(left)}")
    _kill_all(alive)
    for folder in left:
        shutil.rmtree(folder, ignore_errors=True)
    return out


if __name__ == "__main__":
    main()
