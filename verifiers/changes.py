"""The gate on changes: which claims a diff since a revision touches.

``git diff -U0 REV`` gives the changed lines of each note (new side) and the
changed claim files. A claim is selected when its quote overlaps a changed
line, when its quote no longer resolves (the edit moved or deleted its text),
when its claim file changed, or when it uses a selected claim. Git runs as a
subprocess with a fixed argument list; nothing from the diff is executed.

New text is gated too: :func:`uncovered_on_changed_lines` lists the numbers, formulas,
statements and procedures that no claim checks and no waiver explains and that lie on a
changed line (an item spanning several lines, when any of them changed).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from verifiers.coverage.literals import KINDS, coverage
from verifiers.errors import InputError
from verifiers.holes import ResolveError, find
from verifiers.notes import Note
from verifiers.schema import Claim
from verifiers.verdicts import RunResult

__all__ = ["Changes", "changes_since", "changed_claims", "uncovered_on_changed_lines"]

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)
_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+)$", re.M)


@dataclass
class Changes:
    """Changed lines per file (repository-relative path), on the new side."""

    lines: dict[str, set[int]] = field(default_factory=dict)
    root: Path | None = None

    def for_file(self, path: Path) -> set[int] | None:
        """Changed lines of a file, or None when the diff does not touch it."""
        resolved = path.resolve()
        for name, lines in self.lines.items():
            if self.root is not None and (self.root / name).resolve() == resolved:
                return lines
        return None


def _git(args: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise InputError(f"git: {err}") from None
    if done.returncode != 0:
        raise InputError(f"git {' '.join(args[:2])}: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout


def changes_since(rev: str, where: Path) -> Changes:
    """Lines changed between ``rev`` and the working tree (uncommitted edits included)."""
    if rev.startswith("-"):
        raise InputError(f"--changed-since: {rev!r} is not a revision")
    top = Path(_git(["rev-parse", "--show-toplevel"], where).strip())
    _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], top)
    diff = _git(["diff", "-U0", "--no-color", "--no-ext-diff", rev, "--"], top)
    changes = Changes(root=top)
    current: set[int] | None = None
    for line in diff.splitlines():
        m = _FILE.match(line)
        if m:
            current = changes.lines.setdefault(m.group(1).strip(), set())
            continue
        h = _HUNK.match(line)
        if h and current is not None:
            start, count = int(h.group(1)), int(h.group(2) or "1")
            # A pure deletion (count 0) touches the lines on either side of it.
            current.update(range(start, start + count) if count else (start, start + 1))
    for name in _git(["ls-files", "--others", "--exclude-standard"], top).splitlines():
        changes.lines.setdefault(name, set()).add(0)  # untracked: every claim in it is new
    return changes


def changed_claims(claims: list[Claim], notes: dict[str, Note], notes_dir: Path,
                   changes: Changes) -> Callable[[Claim], bool]:
    """A selector for ``run``: the claims the changes touch, and those that use them."""
    selected: set[str] = set()
    for claim in claims:
        if changes.for_file(Path(claim.file)) is not None:
            selected.add(claim.id)
            continue
        note = notes.get(claim.note)
        lines = changes.for_file(notes_dir / claim.note) if note is not None else None
        if note is None or not lines:
            continue
        if _touches(claim, note, lines):
            selected.add(claim.id)
    # A claim that uses a selected claim reads a value that may have changed: follow the
    # uses edges backwards with a worklist (linear, whatever the depth of a chain).
    users: dict[str, list[str]] = {}
    for claim in claims:
        for use in claim.uses.values():
            users.setdefault(use.claim_id, []).append(claim.id)
    work = list(selected)
    while work:
        for user in users.get(work.pop(), ()):
            if user not in selected:
                selected.add(user)
                work.append(user)
    return lambda claim: claim.id in selected


def _touches(claim: Claim, note: Note, lines: set[int]) -> bool:
    scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
    if not scopes:
        return True  # its section is gone: check it (it will be stale)
    try:
        match = find(note.text, claim.text, scopes, displays=note.displays,
                     near=claim.near, after=claim.after)
    except ResolveError:
        return True  # the edit broke its quote: check it (it will be stale)
    first, last = note.position(match.start)[0], note.position(max(match.end - 1,
                                                                     match.start))[0]
    return any(first <= line <= last for line in lines)


def uncovered_on_changed_lines(result: RunResult) -> list[str]:
    """``note:line:col: uncovered[ kind]: text (...)`` for every uncovered number, formula,
    statement or procedure on a line changed since the revision (raw text: the caller
    escapes it for its output)."""
    assert result.changes is not None
    out = []
    covs, _ = coverage(result)
    for cov in covs:
        note = result.notes[cov.note]
        lines = result.changes.for_file(result.notes_dir / cov.note) or set()
        if not lines:
            continue
        path = result.note_path(cov.note)
        for lit in cov.uncovered:
            line, col = note.position(lit.start)
            if line in lines:
                out.append(f"{path}:{line}:{col}: uncovered: {lit.text} "
                           "(new or changed text that no claim checks)")
        for kind in KINDS:
            for item in cov.kinds[kind].uncovered:
                (first, col), last = note.position(item.start), note.position(item.end)[0]
                if any(first <= line <= last for line in lines):
                    out.append(f"{path}:{first}:{col}: uncovered {kind[:-1]}: {item.text} "
                               "(new or changed text that no claim checks)")
    return out
