"""Run a program printed in a note inside a bubblewrap jail, or refuse to run it.

A note's program arrives in a pull request like any other note edit, and the gate
runs it with CI's secrets around. So it runs in ``bwrap`` (Debian: ``apt-get install
bubblewrap``) with:

* **nothing of the host but the runtime**: read-only binds of ``/usr`` (and the
  ``/lib*``, ``/bin`` links), the interpreter's ``sys.base_prefix`` and the
  site-packages folders (for NumPy) — not the checkout, not ``$HOME``, not the verdict
  cache, not ``/etc``; the interpreter runs with ``-I -S``, so no ``.pth`` file (an
  editable install's finder points into the checkout) is read;
* **private namespaces**: pid (``/proc`` shows only the jail), network (no
  interfaces but a dead loopback), ipc, uts; a fresh session (no terminal);
* **a private, size-limited tmpfs** as cwd and ``/tmp`` — the program's writes
  vanish with the jail, and no host temporary folder is needed (the program is
  passed in through a memfd);
* **resource limits** set before the program starts: address space, CPU seconds,
  file size, open files, and processes. ``RLIMIT_NPROC`` does not bind root, so as
  root the program is switched to a fresh unprivileged uid (unique per run) after
  bwrap has mounted everything; without root, bwrap's own user namespace does it;
* **a bounded death**: at the timeout bwrap is SIGKILLed; ``--die-with-parent``
  kills the jail's init and with it the whole pid namespace (detached, ``setsid``
  double-forked children included). The gate dying (SIGTERM, SIGKILL) kills it too.

Where no jail can be made (no binary, namespaces refused), :func:`run_program` raises
:class:`JailUnavailable` and the claim becomes an ``error`` — unless the user trusts
the notes (``--trust-note-programs``, i.e. ``NOTECHECK_TRUST_NOTE_PROGRAMS=1``): then
the program runs unconfined, with the same limits and bounded output.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from verifiers.programs.capture import drain, quote_output
from verifiers.programs.extract import PROGRAM_NAME

__all__ = ["BWRAP", "TRUST_ENV", "JailUnavailable", "ProgramResult", "jail_problem",
           "run_program", "trusted"]

#: The bubblewrap binary; tests point it elsewhere to simulate a machine without it.
BWRAP = shutil.which("bwrap") or "/usr/bin/bwrap"
#: Set to ``1`` by ``--trust-note-programs`` / ``--notecheck-trust-note-programs``.
TRUST_ENV = "NOTECHECK_TRUST_NOTE_PROGRAMS"

WORKDIR = "/jail"  # the program's cwd and $HOME inside the jail
MEMORY = 2 << 30  # RLIMIT_AS
FILE_SIZE = 64 << 20  # RLIMIT_FSIZE, and the size of each tmpfs
OPEN_FILES = 256
PROCESSES = 64  # RLIMIT_NPROC: processes and threads of the jail's uid
GRACE = 3.0  # seconds allowed after a kill for the pipes to close

INSTALL_HINT = ("install bubblewrap (apt-get install bubblewrap), or pass "
                "--trust-note-programs to run the notes' programs unconfined")


class JailUnavailable(RuntimeError):
    """No jail can be set up here, and the notes' programs are not trusted."""


@dataclass(frozen=True)
class ProgramResult:
    """What a run produced.

    ``returncode`` is the exit status (negative: killed by that signal, e.g. ``-9``
    after a timeout); ``timed_out`` is set when *we* killed it. ``truncated``: some
    output was discarded or a line was cut (see :mod:`verifiers.programs.capture`).
    ``jailed`` is false only for a trusted, unconfined run.
    """

    stdout: str
    stderr: str
    returncode: int
    timed_out: bool
    seconds: float
    truncated: bool = False
    jailed: bool = True


def trusted() -> bool:
    """Whether the user said the notes' programs may run unconfined where no jail exists."""
    return os.environ.get(TRUST_ENV, "") == "1"


# --------------------------------------------------------------------------- the command


def _bootstrap(uid: int | None, cpu_seconds: int, jailed: bool = True) -> str:
    """Code run by the jail's interpreter before the program: limits, uid, sys.path, then run.

    Limits are set here, inside the jail, rather than on bwrap: ``RLIMIT_NPROC`` set
    before bwrap makes its namespaces would be charged against the host's root. The
    uid switch (root only) happens after bwrap mounted everything and before any of
    the note's code runs; setuid from root clears every capability.
    """
    paths = [inside if jailed else host for host, inside in _site_packages()]
    limits = [("RLIMIT_AS", MEMORY), ("RLIMIT_CPU", cpu_seconds), ("RLIMIT_FSIZE", FILE_SIZE),
              ("RLIMIT_NOFILE", OPEN_FILES), ("RLIMIT_NPROC", PROCESSES), ("RLIMIT_CORE", 0)]
    lines = ["import os, resource, runpy, sys"]
    lines += [f"resource.setrlimit(resource.{name}, ({value}, {value}))" for name, value in limits]
    if uid is not None:
        lines += ["os.setgroups([])", f"os.setgid({uid})", f"os.setuid({uid})"]
    lines += [f"sys.path += {paths!r}", f"sys.argv = [{PROGRAM_NAME!r}]",
              f"runpy.run_path({PROGRAM_NAME!r}, run_name='__main__')"]
    return "; ".join(lines)


def _interpreter() -> str:
    """The base interpreter (not the venv's link to it: ``-S`` skips the venv anyway)."""
    return os.path.realpath(sys.executable)


def _ro_bind(path: str) -> list[str]:
    """Read-only bind of ``path`` at the same place, with world-traversable parents.

    Same place, because interpreters carry absolute rpaths (pyenv's libpython). The
    parents are made explicitly: bwrap would copy ``/root``'s 0700 mode, which the
    jail's unprivileged uid could not traverse.
    """
    parts = PurePosixPath(path).parts[1:]
    args: list[str] = []
    for i in range(1, len(parts)):
        args += ["--perms", "0755", "--dir", "/" + "/".join(parts[:i])]
    return [*args, "--ro-bind", path, path]


def _roots() -> list[str]:
    """The interpreter's installation (``sys.base_prefix``, and where the binary really is)."""
    roots: list[str] = []
    for root in (os.path.realpath(sys.base_prefix),
                 os.path.dirname(os.path.dirname(_interpreter()))):
        if not root.startswith("/usr/") and not any(_within(root, r) for r in roots):
            roots.append(root)
    return roots


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _site_packages() -> list[tuple[str, str]]:
    """(host, jail) folders for ``sys.path``: a venv's site-packages is bound at ``/site/N``.

    Not at its host path, which usually lies in the checkout: the jail must not even
    learn the checkout's layout. Wheels find their bundled libraries relative to
    themselves, so the move is harmless.
    """
    out: list[tuple[str, str]] = []
    for path in site.getsitepackages():
        host = os.path.realpath(path)
        if not os.path.isdir(host):
            continue
        if host.startswith("/usr/") or any(_within(host, r) for r in _roots()):
            out.append((host, host))  # already visible at its own place
        else:
            out.append((host, f"/site/{len(out)}"))
    return out


def _runtime_binds() -> list[str]:
    """``/usr``, the merged-/usr links, the interpreter and site-packages: nothing else."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    for root in _roots():
        args += _ro_bind(root)
    for host, inside in _site_packages():
        if host != inside:
            args += ["--perms", "0755", "--dir", "/site", "--ro-bind", host, inside]
    return args


def _jail_argv(files: dict[str, int], dirs: list[str], cpu_seconds: int) -> list[str]:
    """The bwrap command line; ``files`` maps jail paths to the fds bwrap copies them from."""
    root = os.geteuid() == 0
    uid = 100000 + secrets.randbelow(1 << 30) if root else None  # unique: its own NPROC count
    if root:  # privileged bwrap: no user namespace needed; the bootstrap drops to ``uid``
        spaces = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                  "--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:  # the user's own uid, in a user namespace it cannot leave
        spaces = ["--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534",
                  "--disable-userns"]
    args = [BWRAP, "--die-with-parent", "--new-session", "--clearenv", *spaces,
            *_runtime_binds(), "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(FILE_SIZE), "--tmpfs", "/tmp",
            "--perms", "0777", "--size", str(FILE_SIZE), "--tmpfs", WORKDIR]
    for d in dirs:
        args += ["--perms", "0777", "--dir", f"{WORKDIR}/{d}"]
    for dest, fd in files.items():
        args += ["--perms", "0644", "--file", str(fd), f"{WORKDIR}/{dest}"]
    env = {"HOME": WORKDIR, "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--chdir", WORKDIR, "--", _interpreter(), "-I", "-S", "-X", "utf8", "-c",
            _bootstrap(uid, cpu_seconds)]


# --------------------------------------------------------------------------- running


def _check_names(extra_files: Mapping[str, str | bytes]) -> None:
    """Relative POSIX names only: an absolute name or ``..`` would leave the work folder."""
    for name in extra_files:
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts or name == PROGRAM_NAME:
            raise ValueError(f"extra file name must be a relative path in the jail: {name!r}")


def _contents(source: str, extra_files: Mapping[str, str | bytes]) -> dict[str, bytes]:
    out = {PROGRAM_NAME: source.encode("utf-8")}
    for name, content in extra_files.items():
        out[name] = content if isinstance(content, bytes) else content.encode("utf-8")
    return out


def _memfd(data: bytes) -> int:
    """An anonymous file holding ``data``: bwrap copies it in, no host folder to clean up."""
    fd = os.memfd_create("notecheck-program", 0)
    os.write(fd, data)  # memfd writes are complete
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL bwrap (and its group); ``--die-with-parent`` takes the pid namespace down."""
    for kill in (lambda: os.killpg(proc.pid, signal.SIGKILL), proc.kill):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def _supervise(argv: list[str], cwd: str, env: dict[str, str] | None, fds: tuple[int, ...],
               timeout: float, jailed: bool) -> ProgramResult:
    """Start ``argv``, read its output bounded, kill it at the timeout, always reap it."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=fds,
                            start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    try:
        captures, timed_out = drain(
            {"stdout": proc.stdout.fileno(), "stderr": proc.stderr.fileno()},
            start + timeout, lambda: _kill(proc), lambda: proc.poll() is not None, GRACE)
        _kill(proc)  # whatever the program left behind (unconfined: its process group)
        proc.wait()
    finally:
        if proc.returncode is None:  # interrupted (KeyboardInterrupt): never leave it running
            _kill(proc)
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    out, cut_out = captures["stdout"].text()
    err, cut_err = captures["stderr"].text()
    return ProgramResult(stdout=out, stderr=err, returncode=proc.returncode, timed_out=timed_out,
                         seconds=time.monotonic() - start, truncated=cut_out or cut_err,
                         jailed=jailed)


def _run_jailed(contents: dict[str, bytes], timeout: float) -> ProgramResult:
    fds: dict[str, int] = {}
    try:
        for name, data in contents.items():
            fds[name] = _memfd(data)
        dirs = sorted({str(PurePosixPath(n).parent) for n in contents} - {"."},
                      key=lambda d: d.count("/"))
        argv = _jail_argv(fds, dirs, int(timeout) + 5)
        return _supervise(argv, "/", None, tuple(fds.values()), timeout, jailed=True)
    finally:
        for fd in fds.values():
            os.close(fd)


def _run_unconfined(contents: dict[str, bytes], timeout: float) -> ProgramResult:
    """Trusted mode without a jail: a temporary cwd, a scrubbed environment, the same limits."""
    tmp = tempfile.mkdtemp(prefix="notecheck-program-")
    try:
        for name, data in contents.items():
            target = Path(tmp, *PurePosixPath(name).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        env = {"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": tmp, "OPENBLAS_NUM_THREADS": "1"}
        boot = _bootstrap(None, int(timeout) + 5, jailed=False)
        argv = [_interpreter(), "-I", "-S", "-X", "utf8", "-c", boot]
        return _supervise(argv, tmp, env, (), timeout, jailed=False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@functools.cache
def _probe(bwrap: str) -> str | None:
    """Why no jail can be made with ``bwrap`` (``None``: it works); once per process."""
    if not os.access(bwrap, os.X_OK):
        return f"no bubblewrap binary at {bwrap}"
    try:
        result = _run_jailed({PROGRAM_NAME: b"print('jail ok')\n"}, 30)
    except OSError as err:
        return f"bubblewrap could not start: {err}"
    if result.returncode != 0 or result.stdout.strip() != "jail ok":
        return (f"bubblewrap could not create the jail (exit {result.returncode}): "
                f"{quote_output(result.stderr, lines=2, chars=200)}")
    return None


def jail_problem() -> str | None:
    """Why note programs cannot be jailed on this machine, or ``None`` when they can."""
    return _probe(BWRAP)


def run_program(source: str, timeout: float = 60,
                extra_files: Mapping[str, str | bytes] | None = None) -> ProgramResult:
    """Run Python ``source`` as ``program.py`` in the jail, its cwd a private tmpfs.

    ``extra_files`` (relative name → text or bytes) are placed next to it. After
    ``timeout`` seconds the jail is killed and ``timed_out`` set; output read until
    then is returned, at most 1 MiB per stream. Raises :class:`JailUnavailable` when
    no jail can be made, unless :func:`trusted`; never runs the program unconfined
    otherwise.
    """
    extra = dict(extra_files or {})
    _check_names(extra)
    contents = _contents(source, extra)
    problem = jail_problem()
    if problem is None:
        return _run_jailed(contents, timeout)
    if trusted():
        return _run_unconfined(contents, timeout)
    raise JailUnavailable(f"the jail for note programs is unavailable ({problem}); the program "
                          f"was not run: {INSTALL_HINT}")
