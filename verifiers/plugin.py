"""pytest plugin: every claim in ``claims/`` is a test item named by its id.

Registered through the ``pytest11`` entry point; it acts only where it is told
where the notes and claims are (``--notecheck-notes``/``--notecheck-claims``, the
ini keys ``notecheck_notes``/``notecheck_claims``, or a ``[tool.notecheck]`` table
in ``pyproject.toml``), and stays silent everywhere else. Notes and claims are
loaded once per process and each item evaluates its own claim (and what it
uses), so pytest-xdist splits the claims across workers with the same
verdicts. A failure reads like the domain (note line, printed vs expected,
root cause), not like a traceback.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

_KEY = pytest.StashKey["_Settings | None"]()


class _Settings:
    """The project's notes and claims, loaded once per process; each claim evaluated on
    demand, so ``pytest -n 2`` (pytest-xdist) splits the claims across workers."""

    def __init__(self, root: Path, notes: Path, claims: Path) -> None:
        self.root, self.notes, self.claims = root, notes, claims
        self.special_given = False  # problems of links/FIFOs in claims/ (pytest skips them)
        self.result: Any = None  # a full run, only for --notecheck-report
        self.failure: str | None = None
        self._loaded: Any = None
        self._engine: Any = None

    def loaded(self) -> Any:
        """A RunResult with the notes, claims and waivers, and no verdicts yet."""
        if self._loaded is None and self.failure is None:
            from verifiers.errors import InputError
            from verifiers.run import load_claims, load_notes
            from verifiers.verdicts import RunResult

            try:
                notes = load_notes(self.notes)
                waivers: list[Any] = []
                claims, problems = load_claims(self.claims, set(notes), waivers)
            except InputError as err:
                self.failure = str(err)
                return None
            self._loaded = RunResult([], notes, self.notes, self.claims, waivers, claims)
            self.problems = problems
        return self._loaded

    def verdict(self, claim_id: str) -> Any:
        if self._engine is None:
            from verifiers import lifecycle
            from verifiers.budget import Budget
            from verifiers.engine import Engine

            lifecycle.children_die_with_parent()  # a killed session leaves no checker child
            loaded = self.loaded()
            self._engine = Engine(loaded.notes, loaded.claims, Budget())
        return self._engine.verdict(claim_id)

    def verdicts(self) -> Any:
        if self.result is None and self.failure is None:
            from verifiers.errors import InputError
            from verifiers.run import run

            try:
                self.result = run(self.notes, self.claims)
            except InputError as err:
                self.failure = str(err)
        return self.result


def _settings(config: pytest.Config) -> _Settings | None:
    """Where the notes and claims are: the command-line options (relative to where pytest
    was started), else the ini keys, else ``[tool.notecheck]`` in pyproject.toml (both
    relative to the rootdir). With none of them the plugin stays silent."""
    root = Path(config.rootpath)
    here = Path(config.invocation_params.dir)
    table: dict[str, Any] = {}
    try:
        pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
        table = tomllib.loads(pyproject)["tool"]["notecheck"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        table = {}

    def folder(kind: str) -> Path | None:
        option = config.getoption(f"notecheck_{kind}", None)
        if option:
            return here / option
        ini = config.getini(f"notecheck_{kind}")
        if ini:
            return root / ini
        return root / table[kind] if kind in table else None

    notes, claims = folder("notes"), folder("claims")
    if notes is None and claims is None and not table:
        return None
    return _Settings(root, notes or root / "notes", claims or root / "claims")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("notecheck")
    group.addoption("--notecheck-report", metavar="PATH", default=None,
                    help="write the HTML report of the claims to PATH after the session")
    group.addoption("--notecheck-changed-since", metavar="REV", default=None,
                    help="run only the claims the changes since REV touch (git diff), "
                         "as notecheck check --changed-since")
    group.addoption("--notecheck-notes", metavar="DIR", default=None,
                    help="the notes folder (default: [tool.notecheck] notes, or ini "
                         "notecheck_notes)")
    group.addoption("--notecheck-claims", metavar="DIR", default=None,
                    help="the claims folder (default: [tool.notecheck] claims, or ini "
                         "notecheck_claims); pass it as a path to collect too")
    parser.addini("notecheck_notes", "notecheck: the notes folder, relative to the rootdir")
    parser.addini("notecheck_claims", "notecheck: the claims folder, relative to the rootdir")
    group.addoption("--notecheck-trust-note-programs", action="store_true", default=False,
                    help="run programs printed in notes even where no jail (bubblewrap) "
                         "exists: only for notes you trust")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """``--notecheck-changed-since REV``: deselect the claims the diff does not touch."""
    rev = config.getoption("notecheck_changed_since", None)
    settings = config.stash.get(_KEY, None)
    if not rev or settings is None or settings.loaded() is None:
        return
    from verifiers.changes import changed_claims, changes_since
    from verifiers.errors import InputError

    loaded = settings.loaded()
    try:
        touched = changed_claims(loaded.claims, loaded.notes, settings.notes,
                                 changes_since(rev, settings.notes))
    except InputError as err:
        raise pytest.UsageError(f"--notecheck-changed-since: {err}") from None
    ids = {c.id for c in loaded.claims if touched(c)}
    keep = [i for i in items if not isinstance(i, ClaimItem) or i.claim_id in ids]
    dropped = [i for i in items if i not in keep]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("notecheck_trust_note_programs", False):  # read by programs.jail
        os.environ["NOTECHECK_TRUST_NOTE_PROGRAMS"] = "1"
    config.stash[_KEY] = _settings(config)
    if config.getoption("notecheck_report", None) and config.stash[_KEY] is None:
        raise pytest.UsageError("--notecheck-report needs --notecheck-notes/--notecheck-claims "
                                "or a [tool.notecheck] table in pyproject.toml")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """``--notecheck-report=PATH``: the same page as ``notecheck report``, written atomically."""
    config = session.config
    target = config.getoption("notecheck_report", None)
    settings = config.stash.get(_KEY, None)
    if not target or settings is None:
        return
    result = settings.verdicts()
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if result is None:
        message = f"notecheck: no HTML report: {settings.failure}"
    else:
        from verifiers.report.html import write

        path = Path(config.invocation_params.dir) / target
        message = f"notecheck: wrote {target} ({write(result, path)} bytes)"
    if reporter is not None:
        reporter.write_line(message)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash.get(_KEY, None)
    if settings is None or file_path.suffix not in (".yaml", ".yml") or file_path.is_symlink():
        return None  # a link is never read: its problem comes with the first claim file
    try:
        file_path.resolve().relative_to(settings.claims.resolve())
    except ValueError:
        return None
    return ClaimFile.from_parent(parent, path=file_path)


class ClaimFile(pytest.File):
    def collect(self) -> Any:
        settings: _Settings = self.config.stash[_KEY]
        loaded = settings.loaded()
        if loaded is None:
            yield ClaimItem.from_parent(self, name=self.path.name, claim_id=None,
                                        failure=settings.failure)
            return
        from verifiers.files import display_path
        from verifiers.run import problem_verdict

        mine = display_path(self.path)
        for problem in settings.problems:
            if problem.file == mine:
                verdict = problem_verdict(problem)
                yield ClaimItem.from_parent(self, name=verdict.id, claim_id=None, failure=None,
                                            verdict=verdict)
        for claim in loaded.claims:
            if claim.file == mine:
                yield ClaimItem.from_parent(self, name=claim.id, claim_id=claim.id, failure=None)
        if not settings.special_given:  # links, FIFOs, devices: refused, never skipped
            settings.special_given = True
            for problem in settings.problems:
                if not _regular(problem.file):
                    verdict = problem_verdict(problem)
                    yield ClaimItem.from_parent(self, name=verdict.id, claim_id=None,
                                                failure=None, verdict=verdict)


def _regular(path: str) -> bool:
    import os
    import stat

    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


class ClaimMismatch(Exception):
    """Raised by a claim item whose verdict is not verified/known."""


class ClaimItem(pytest.Item):
    def __init__(self, *, claim_id: str | None, failure: str | None, verdict: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.claim_id = claim_id
        self.verdict = verdict
        self.failure = failure

    def runtest(self) -> None:
        if self.verdict is None and self.claim_id is not None:
            self.verdict = self.config.stash[_KEY].verdict(self.claim_id)
        if self.verdict is None:
            raise ClaimMismatch(self.failure or "notecheck could not run")
        if self.verdict.status == "known":
            pytest.xfail(self.verdict.message)
        if self.verdict.status != "verified":
            raise ClaimMismatch(self.describe())

    def describe(self) -> str:
        from verifiers.cli import console_line

        settings: _Settings = self.config.stash[_KEY]
        v = self.verdict
        loaded = settings.loaded()
        lines = [console_line(loaded, v)]
        if v.says:
            lines.append(f"  says: {v.says}")
        note = loaded.notes.get(v.note)
        for x in v.values:
            if x.status in ("verified", "given"):
                continue
            if note is not None:
                text = note.line_text(x.start[0])
                lines.append(f"  {x.start[0]:>5} | {text.strip()}")
                lead = len(text) - len(text.lstrip())
                width = max(1, (x.end[1] - x.start[1]) if x.end[0] == x.start[0] else 1)
                lines.append(f"        | {' ' * (x.start[1] - 1 - lead)}{'^' * width}")
            if x.suggestion is None:  # a derivation step: the message says what failed where
                lines.append(f"    {x.status}: {x.message}")
            else:
                lines.append(f"    {x.name}: {x.status}: printed {x.printed}, expected "
                             f"{x.suggestion} (exact {x.expected})")
            if x.root_cause and x.root_cause != v.id:
                lines.append(f"    root cause: {x.root_cause}")
        from verifiers.textsafe import printable

        return "\n".join(printable(line) for line in lines)  # claim and note text: untrusted

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, ClaimMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        claims = self.config.stash[_KEY].loaded()
        claim = next((c for c in claims.claims if c.id == self.claim_id), None) if claims else None
        line = claim.line - 1 if claim else (self.verdict.line - 1 if self.verdict else 0)
        return self.path, line, f"claim {self.name}"
