"""Verdict records: plain data shared by the CLI, the pytest plugin and the reports.

Also what the checkers and the outputs share with the engine and the run, kept here so
none of them imports those back: :class:`ClaimFailure`, :func:`settle` (a claim's status
from its values') and :class:`RunResult`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from verifiers.files import display_path

if TYPE_CHECKING:  # types only: the records sit below the stages that fill them
    from pathlib import Path

    from verifiers.changes import Changes
    from verifiers.notes import Note
    from verifiers.schema import Claim, Waiver

VERIFIED = "verified"
DISCREPANCY = "discrepancy"
KNOWN = "known"
FIXED = "fixed"
STALE = "stale"
ERROR = "error"
GIVEN = "given"
UNPARSED = "unparsed"  # a formula the reader cannot read, or that does not read back as written
# A claim that uses a stale or broken claim: it is not evaluated, and its verdict names the
# claim where the failure starts (``root_cause``). Reports list it after that root.
BLOCKED = "blocked"

STATUSES = (VERIFIED, DISCREPANCY, KNOWN, FIXED, STALE, UNPARSED, ERROR, BLOCKED)
PASSING = frozenset({VERIFIED, KNOWN})
# Worst first: the claim takes the worst status of its values.
SEVERITY = {ERROR: 0, STALE: 1, BLOCKED: 2, UNPARSED: 3, DISCREPANCY: 4, FIXED: 5, KNOWN: 6,
            VERIFIED: 7, GIVEN: 8}

Position = tuple[int, int]


@dataclass
class ValueVerdict:
    """One hole: what the note prints, what it should be, and why."""

    name: str
    printed: str
    expected: str
    status: str
    start: Position
    end: Position
    message: str = ""
    suggestion: str | None = None
    local: str | None = None  # "wrong" when this step's own arithmetic is wrong, else "ok"
    root_cause: str | None = None
    restated: str | None = None  # symbolic: the claim's restatement checked instead of the note
    depends_on_time: bool = False  # the outcome came from a clock (a deadline was hit)
    approximate: bool = False  # the note marks it approximate (约, 左右, about …): ±1 last digit
    law: str | None = None  # property: the law searched (name and complete parameters)
    route: str | None = None  # checked: the honest route(s) that give it (arithmetic/routes.py)


@dataclass
class Verdict:
    """One claim's outcome."""

    id: str
    file: str
    line: int
    note: str
    kind: str
    says: str
    status: str
    message: str = ""
    root_cause: str | None = None
    span: tuple[Position, Position] | None = None
    where: Position | None = None  # the note position messages point at
    section: str | None = None
    values: list[ValueVerdict] = field(default_factory=list)
    claim_place: Position | None = None  # set when the claim file itself is at fault
    # Set when the outcome came from a clock (a deadline, a time budget) or from this machine
    # (no jail for note programs) rather than from the claim's content: such a verdict is
    # reported but never cached, so load or a missing package cannot stick.
    depends_on_time: bool = False

    @property
    def passed(self) -> bool:
        return self.status in PASSING


class ClaimFailure(Exception):
    """A claim cannot be evaluated (status ``error``, ``stale``, or ``blocked`` by one that
    cannot)."""

    def __init__(self, status: str, message: str, line: int | None = None,
                 depends_on_time: bool = False, where: int | None = None,
                 root: str | None = None, root_status: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.line = line  # the claim file's line of the expression that failed, if one did
        self.depends_on_time = depends_on_time  # a budget ran out, here or upstream
        self.where = where  # a note offset: a stale quote's closest line, an ambiguous candidate
        self.root = root  # blocked: the failed claim upstream where the failure starts
        self.root_status = root_status  # ... and its status (stale or error)


def worst(statuses: list[str]) -> str:
    return min(statuses, key=SEVERITY.__getitem__) if statuses else VERIFIED


def summary(verdicts: list[Verdict]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        counts[v.status] += 1
    return counts


def after_roots(verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts in their order, except that a claim whose ``root_cause`` is another of
    them comes right after that root (and after the root's earlier dependents)."""
    ids = {v.id for v in verdicts}
    dependents: dict[str, list[Verdict]] = {}
    for v in verdicts:
        if v.root_cause in ids and v.root_cause != v.id:
            dependents.setdefault(v.root_cause, []).append(v)
    out: list[Verdict] = []
    placed: set[int] = set()

    def place(v: Verdict) -> None:
        stack = [v]
        while stack:
            x = stack.pop()
            if id(x) in placed:
                continue
            placed.add(id(x))
            out.append(x)
            stack.extend(reversed(dependents.get(x.id, [])))

    for v in verdicts:
        if not (v.root_cause in ids and v.root_cause != v.id):
            place(v)
    for v in verdicts:  # a ring of roots (cannot happen for blocked claims): keep them all
        place(v)
    return out


def settle(verdict: Verdict) -> Verdict:
    """A claim's status, message, place and root cause from its values' (also after the
    copies of a given value are compared: :mod:`verifiers.copies`)."""
    failing = [v for v in verdict.values if v.status not in (VERIFIED, GIVEN)]
    verdict.status = worst([v.status for v in verdict.values if v.status != GIVEN])
    verdict.root_cause = None
    if failing:
        first = next((v for v in failing if v.status == verdict.status), failing[0])
        verdict.where = first.start
        verdict.message = "; ".join(v.message for v in failing[:3])
        if len(failing) > 3:
            verdict.message += f"; and {len(failing) - 3} more"
        roots = {v.root_cause for v in failing}
        if None not in roots and verdict.id not in roots:
            verdict.root_cause = sorted(roots)[0]
    else:
        verdict.where = verdict.span[0] if verdict.span else verdict.where
        checked = sum(1 for v in verdict.values if v.status == VERIFIED)
        verdict.message = f"{checked} value(s) verified"
        if verdict.kind == "given":
            verdict.message = f"{len(verdict.values)} input(s) read, nothing checked"
        if verdict.kind == "property":
            verdict.message = verdict.values[0].message  # "no counterexample in N examples"
    return verdict


@dataclass
class RunResult:
    """One run's verdicts with the notes and claims they came from (for every report)."""

    verdicts: list[Verdict]
    notes: dict[str, Note]
    notes_dir: Path
    claims_dir: Path
    waivers: list[Waiver] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    changes: Changes | None = None  # with --changed-since: the lines the diff touches

    def note_path(self, note: str) -> str:
        return display_path(self.notes_dir / note)
