"""Verdict records: plain data shared by the CLI, the pytest plugin and the reports."""

from __future__ import annotations

from dataclasses import dataclass, field

VERIFIED = "verified"
DISCREPANCY = "discrepancy"
KNOWN = "known"
FIXED = "fixed"
STALE = "stale"
ERROR = "error"
GIVEN = "given"
UNPARSED = "unparsed"  # a formula the reader cannot read, or that does not read back as written

STATUSES = (VERIFIED, DISCREPANCY, KNOWN, FIXED, STALE, UNPARSED, ERROR)
PASSING = frozenset({VERIFIED, KNOWN})
# Worst first: the claim takes the worst status of its values.
SEVERITY = {ERROR: 0, STALE: 1, UNPARSED: 2, DISCREPANCY: 3, FIXED: 4, KNOWN: 5, VERIFIED: 6,
            GIVEN: 7}

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


def worst(statuses: list[str]) -> str:
    return min(statuses, key=SEVERITY.__getitem__) if statuses else VERIFIED


def summary(verdicts: list[Verdict]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        counts[v.status] += 1
    return counts
