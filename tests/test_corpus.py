"""The corpus of hostile and broken inputs (issue 7): each case ends as the README promises.

Every case under ``tests/corpus/<category>/<case>/`` is a small project (the base note
and claim of ``tests/corpus/base`` unless the case brings its own ``notes/`` or
``claims/``) plus ``expect.yaml``, read with the project's own safe YAML loader (no
tags, no aliases). ``tests/corpus/README.md`` describes the format.

Each case runs through ``notecheck check`` in-process (``verifiers.cli.main``) in a
temporary folder, and the cases marked ``subprocess: true`` also through
``python -m verifiers.cli`` in a child process. The contract checked on every case:

* the exit code is the expected one (2: unreadable input or a bad invocation, with one
  line on stderr; 1: a verdict that fails, in the JSON report and on the console);
* no traceback anywhere in the output, and a child never dies of a signal (a crash in
  C code, such as PyYAML's composer on deeply nested YAML, is a signal, not a traceback);
* the expected message on one line together with its place: the claim file or note,
  and the line (and column) where that exists;
* nothing the input asked for ran (``absent:`` files were not created).

Time is bounded, never measured: each child runs under a timeout, and each in-process
run under a ``faulthandler`` watchdog that aborts the whole session with a stack dump
instead of letting CI hang (it uses its own thread, not SIGALRM, which the LaTeX reader
uses for its time boxes).
"""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from verifiers.cli import main
from verifiers.yamlload import load

REPO = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).resolve().parent / "corpus"
BASE = CORPUS / "base"
DEFAULT_ARGS = ["check", "--notes", "notes", "--claims", "claims", "--json", "report.json"]
REPORT = "report.json"
CHILD_TIMEOUT = 180  # seconds per child process: a bound on a hang, not a speed target
WATCHDOG = 600  # seconds per in-process case before the session is aborted with a dump

EXPECT_KEYS = {"what", "exit", "status", "where", "message", "args", "make", "subprocess",
               "absent", "timeout", "unseen"}
MAKE_KEYS = {"path", "parts", "newline", "directory", "symlink", "fifo"}
PART_KEYS = {"text", "hex", "repeat", "times", "count", "start", "stop", "file", "replace"}
STATUSES = {"error", "stale", "unparsed", "discrepancy", "known", "fixed", "verified"}


@dataclass(frozen=True)
class Case:
    category: str
    name: str
    folder: Path
    expect: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"

    @property
    def args(self) -> list[str]:
        return list(self.expect.get("args", DEFAULT_ARGS))


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CORPUS.glob("*/*/expect.yaml")):
        node = load(path.read_text(encoding="utf-8"))
        expect = node.plain() if node is not None else None
        assert isinstance(expect, dict), f"{path}: expect.yaml is a mapping"
        cases.append(Case(path.parent.parent.name, path.parent.name, path.parent, expect))
    return cases


CASES = load_cases()
SUBPROCESS_CASES = [c for c in CASES if c.expect.get("subprocess")]


# --------------------------------------------------------------------------- building a case


def _part_text(part: dict[str, Any]) -> str | bytes:
    if "hex" in part:
        return bytes.fromhex(part["hex"])
    if "text" in part:
        return part["text"]
    if "repeat" in part:
        return part["repeat"] * part["times"]
    if "count" in part:
        return "".join(part["count"].format(i) for i in range(part["start"], part["stop"]))
    text = (CORPUS / part["file"]).read_text(encoding="utf-8")
    if "replace" in part:
        old, new = part["replace"]
        assert old in text, f"replace: {old!r} is not in {part['file']}"
        text = text.replace(old, new)
    return text


def _make(root: Path, spec: dict[str, Any]) -> None:
    target = root / spec["path"]
    if spec.get("directory"):
        target.mkdir(parents=True, exist_ok=True)
        return
    if "symlink" in spec or spec.get("fifo"):  # in place of a base file of that name
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.is_file():
            target.unlink()
        if spec.get("fifo"):
            os.mkfifo(target)
        else:
            target.symlink_to(spec["symlink"])
        return
    newline = spec.get("newline", "\n")
    chunks = []
    for part in spec.get("parts", []):
        piece = _part_text(part)
        if isinstance(piece, str):
            piece = piece.replace("\n", newline).encode("utf-8")
        chunks.append(piece)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(chunks))


def build(case: Case, root: Path) -> Path:
    """The case's project in ``root``: base notes/claims unless the case brings its own.

    A case brings a folder as files (``notes/``, ``claims/`` next to expect.yaml) or by
    making a file inside it; a made ``notes/n.txt`` replaces the base note.
    """
    made = {Path(spec["path"]).parts[0] for spec in case.expect.get("make", [])}
    for folder in ("notes", "claims"):
        if (case.folder / folder).is_dir():
            shutil.copytree(case.folder / folder, root / folder)
        elif folder == "notes" or folder not in made:
            shutil.copytree(BASE / folder, root / folder)
    for spec in case.expect.get("make", []):
        _make(root, spec)
    return root


# --------------------------------------------------------------------------- the contract


def check_outcome(case: Case, root: Path, code: int, out: str, err: str) -> None:
    expect = case.expect
    where, fragments = expect.get("where", ""), list(expect.get("message", []))
    assert "Traceback" not in out + err, f"{case.id}: a traceback\n{err[-3000:]}"
    assert code == expect["exit"], f"{case.id}: exit {code}\n{out[-2000:]}\n{err[-2000:]}"
    for name in expect.get("absent", []):
        assert not (root / name).exists(), f"{case.id}: the input created {name}"
    report_path = root / REPORT
    shown = out + err + (report_path.read_text(encoding="utf-8", errors="replace")
                         if report_path.is_file() and not report_path.is_symlink() else "")
    for text in expect.get("unseen", []):
        assert text not in shown, f"{case.id}: {text!r} (content of a refused file) was shown"
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, f"{case.id}: exit 2 prints one line on stderr, got {lines}"
        assert where in lines[0] and all(f in lines[0] for f in fragments), lines[0]
        return
    report = json.loads((root / REPORT).read_text(encoding="utf-8"))
    if "status" in expect:
        statuses = [c["status"] for c in report["claims"]]
        assert expect["status"] in statuses, f"{case.id}: statuses {statuses}"
    if code == 1:
        marker = f": {expect['status']}: "
        lines = [ln for ln in out.splitlines()
                 if ln.startswith(where) and marker in ln and all(f in ln for f in fragments)]
        assert lines, f"{case.id}: no line starting {where!r} with {marker!r} and " \
                      f"{fragments}:\n{out[-3000:]}"


def test_corpus_is_well_formed() -> None:
    """Every expect.yaml uses the documented keys; every category has cases."""
    assert len(CASES) >= 60
    for case in CASES:
        expect = case.expect
        assert set(expect) <= EXPECT_KEYS, (case.id, set(expect) - EXPECT_KEYS)
        assert isinstance(expect.get("what"), str) and expect["what"], case.id
        assert expect["exit"] in (0, 1, 2), case.id
        assert expect["exit"] != 1 or expect.get("status") in STATUSES, case.id
        assert expect["exit"] == 0 or expect.get("where"), f"{case.id}: a place is required"
        for spec in expect.get("make", []):
            assert set(spec) <= MAKE_KEYS, (case.id, spec)
            for part in spec.get("parts", []):
                assert set(part) <= PART_KEYS, (case.id, part)
    categories = {c.category for c in CASES}
    assert {"yaml-malformed", "duplicates", "unknown-keys", "wrong-types", "empty", "yaml-bombs",
            "unsafe-tags", "expressions", "notes", "latex", "invocation", "files"} <= categories


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case_in_process(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = build(case, tmp_path)
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    faulthandler.dump_traceback_later(WATCHDOG, exit=True, file=sys.__stderr__)
    try:
        code = main(case.args)
    finally:
        faulthandler.cancel_dump_traceback_later()
    captured = capsys.readouterr()
    check_outcome(case, root, code, captured.out, captured.err)


@pytest.mark.parametrize("case", SUBPROCESS_CASES, ids=[c.id for c in SUBPROCESS_CASES])
def test_case_in_a_child_process(case: Case, tmp_path: Path) -> None:
    """The real command line: exit status, stderr and no crash of the interpreter itself."""
    root = build(case, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "verifiers.cli", *case.args], cwd=root, env=env,
        capture_output=True, text=True, encoding="utf-8", errors="replace",
        timeout=case.expect.get("timeout", CHILD_TIMEOUT),
    )
    assert proc.returncode >= 0, f"{case.id}: killed by signal {-proc.returncode}"
    check_outcome(case, root, proc.returncode, proc.stdout, proc.stderr)


def test_subprocess_cases_cover_every_exit_code_and_the_crashers() -> None:
    assert len(SUBPROCESS_CASES) >= 8
    assert {1, 2} <= {c.expect["exit"] for c in SUBPROCESS_CASES}
    ids = {c.id for c in SUBPROCESS_CASES}
    assert {"yaml-bombs/deep-flow-nesting", "yaml-bombs/billion-laughs",
            "unsafe-tags/python-object-apply", "notes/nul-byte"} <= ids


# --------------------------------------------------------------------------- nothing runs


L1 = "lesson1-text-to-distribution.txt"
BIGRAM = REPO / "claims" / "lesson1-text-to-distribution" / "17-bigram.yaml"


def test_note_program_runs_only_in_the_jail(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """lesson1 §7's printed program, through the claim that runs it (``l1-7-program``).

    A line added to the program in the note (the claim reads the program from the note)
    records what the program sees. It must run in the jail: another pid, a cwd that is not
    on the host, without the parent's secrets, unable to write the witness file into the test's
    folder (so it prints it), and under a time limit. tests/test_jail.py tries the
    escapes one by one.
    """
    import verifiers.programs as programs
    import verifiers.programs.jail as jail

    probe = ("import json as _j, os as _o, sys as _s; _s.stderr.write('WITNESS' + _j.dumps({"
             "'secret': _o.environ.get('NOTECHECK_TEST_SECRET'), 'cwd': _o.getcwd(), "
             "'pid': _o.getpid(), 'sees_host': _o.path.exists(" + repr(str(tmp_path)) + ")}))")
    root = tmp_path / "project"
    (root / "notes").mkdir(parents=True)
    (root / "claims").mkdir()
    note = (REPO / "notes" / L1).read_text(encoding="utf-8")
    start = "\nimport numpy as np\n"
    assert note.count(start) == 1
    edited = note.replace(start, f"{start}{probe}\n")
    (root / "notes" / L1).write_text(edited, encoding="utf-8")
    # l1-7-program reads the program from the note (a code hole): the claim is not edited
    claims = BIGRAM.read_text(encoding="utf-8")
    assert "import numpy as np\n" not in claims.split("id: l1-7-program\n", 1)[1].split("- id:")[0]
    (root / "claims" / BIGRAM.name).write_text(claims, encoding="utf-8")

    timeouts: list[float] = []
    errs: list[str] = []
    real = jail.run_program

    def spy(source: str, timeout: float = 60, extra_files: Any = None) -> Any:
        timeouts.append(timeout)
        result = real(source, timeout=timeout, extra_files=extra_files)
        errs.append(result.stderr)
        return result

    monkeypatch.setattr(jail, "run_program", spy)
    monkeypatch.setattr(programs, "run_program", spy)
    monkeypatch.setenv("NOTECHECK_TEST_SECRET", "hunter2")
    monkeypatch.chdir(root)
    code = main(["check", "--notes", "notes", "--claims", "claims", "-k",
                 "l1-7-program and not tinygpt", "--json", "report.json", "--no-cache"])
    out = capsys.readouterr().out
    report = json.loads((root / "report.json").read_text(encoding="utf-8"))
    assert [c["id"] for c in report["claims"]] == ["l1-7-program"], out
    assert report["claims"][0]["status"] != "error", out
    assert code in (0, 1)
    assert errs and all("hunter2" not in e for e in errs)
    seen = json.loads(errs[0].split("WITNESS", 1)[1])
    assert seen["secret"] is None
    assert seen["pid"] != os.getpid()  # a child interpreter, never this process
    assert not seen["sees_host"]  # the test's folder does not exist in the jail
    cwd = Path(seen["cwd"])
    assert cwd not in (root, REPO) and root not in cwd.parents and REPO not in cwd.parents
    assert not cwd.exists()  # the jail's cwd is a tmpfs of its own, not a host folder
    assert timeouts and all(0 < t <= 60 for t in timeouts)
    assert {p.name for p in root.iterdir()} <= {"claims", "notes", "report.json",
                                                ".notecheck-cache"}  # nothing else written


#: Calls that would run text as code, or load objects from bytes, anywhere in the engine.
FORBIDDEN_CALLS = {"eval", "exec", "__import__", "system", "popen", "execv", "execve", "execvp",
                   "spawnl", "spawnv", "sympify", "parse_expr", "parse_latex_lark",
                   "unsafe_load", "full_load"}
FORBIDDEN_MODULES = {"pickle", "marshal", "shelve", "dill"}
SUBPROCESS_ALLOWED = {"verifiers/programs/jail.py", "verifiers/changes.py"}  # the jail; git diff


def test_no_module_runs_text_as_code() -> None:
    """A static fence over verifiers/ and tinygpt/: the only code run is the jail's child.

    ``compile`` appears once, in the extraction, to find where a printed program ends (it
    compiles, never executes); ``subprocess`` only in the jail and for ``git diff``;
    no ``shell=True``; no pickle; YAML only through ``verifiers.yamlload``.
    """
    import ast

    found = []
    for path in sorted([*REPO.glob("verifiers/**/*.py"), *REPO.glob("tinygpt/**/*.py")]):
        rel = path.relative_to(REPO).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(
                    f, ast.Attribute) else ""
                if name in FORBIDDEN_CALLS:
                    found.append(f"{rel}:{node.lineno}: {name}()")
                if (name == "compile" and isinstance(f, ast.Name)
                        and rel != "verifiers/programs/extract.py"):
                    found.append(f"{rel}:{node.lineno}: compile()")
                if name in ("load", "load_all") and isinstance(f, ast.Attribute) and isinstance(
                        f.value, ast.Name) and f.value.id == "yaml":
                    found.append(f"{rel}:{node.lineno}: yaml.{name}()")
                for kw in node.keywords:
                    if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant)
                                                  and kw.value.value is False):
                        found.append(f"{rel}:{node.lineno}: shell=")
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [
                    node.module or ""]
                for mod in names:
                    top = mod.split(".")[0]
                    if top in FORBIDDEN_MODULES:
                        found.append(f"{rel}:{node.lineno}: import {mod}")
                    if top == "subprocess" and rel not in SUBPROCESS_ALLOWED:
                        found.append(f"{rel}:{node.lineno}: import {mod}")
    assert not found, "\n".join(found)


# --------------------------------------------------------------------------- nothing half-written


class _Interrupted(OSError):
    pass


def test_interrupted_json_write_leaves_the_previous_report(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]
                                                           ) -> None:
    """write_output: a write that fails half-way (disk full) or is interrupted (Ctrl-C)."""
    import verifiers.files as files

    target = tmp_path / "reports" / "notecheck.json"
    target.parent.mkdir()
    previous = '{"version": 1, "summary": {"verified": 251}}\n'
    target.write_text(previous, encoding="utf-8")
    real_fdopen = os.fdopen

    def half_then(exc: BaseException) -> Any:
        def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
            fh = real_fdopen(fd, *args, **kwargs)
            real_write = fh.write

            def write(text: bytes) -> int:
                real_write(text[: len(text) // 2])
                fh.flush()
                raise exc

            fh.write = write
            return fh
        return fdopen

    for exc in (_Interrupted(28, "No space left on device"), KeyboardInterrupt()):
        monkeypatch.setattr(files.os, "fdopen", half_then(exc))
        # an OSError comes back as one line naming the file; Ctrl-C as itself
        with pytest.raises(files.OutputError if isinstance(exc, OSError) else type(exc)):
            files.write_output(target, '{"version": 1, "summary": {"error": 1}}\n' * 1000)
        assert target.read_text(encoding="utf-8") == previous
        assert [p.name for p in target.parent.iterdir()] == ["notecheck.json"]  # no temp left

    # Through the command: one line on stderr, exit 2, the old report untouched.
    root = build(Case("base", "base", BASE, {"what": "base", "exit": 0}), tmp_path / "project")
    monkeypatch.chdir(root)
    monkeypatch.setattr(files.os, "fdopen",
                        half_then(_Interrupted(28, "No space left on device")))
    assert main(["check", "--notes", "notes", "--claims", "claims", "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert f"{target}: cannot write: No space left on device" in err
    assert target.read_text(encoding="utf-8") == previous
    assert [p.name for p in target.parent.iterdir()] == ["notecheck.json"]
