"""Coverage: every number a note prints is checked by a claim, waived with a reason, or flagged.

A literal of the note's index is ``covered`` when it lies inside a value a
claim reads (a hole, or a formula hole's LaTeX), ``waived`` when a waiver's
quote marks it (with the waiver's reason), and ``uncovered`` otherwise -- the
gate notices new text. A few explicit rules take literals that are not claims
at all out of the count; each rule is one small function, tested on the
notes' real lines:

* ``list-marker`` -- ``1.`` opening a numbered list item;
* ``step-label`` -- ``(1)`` opening a list item or a line (a label for a step);
* ``reference`` -- a section reference, ``§7`` or ``第 12 章``;
* ``label`` -- the number of a named part: ``Step 1``, ``Word 1``, ``Lesson 3``,
  ``Example 2``, ``Figure 4``/``图 4``, ``Table 2``/``表 2``, ``第 3 步``.

Formulas, sentences that state a law and procedures are classified too
(:mod:`verifiers.coverage.meaning`), in ``NoteCoverage.kinds``; the JSON reports them
next to the numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from verifiers.coverage.meaning import KINDS, KindCoverage, claim_checks, classify_items
from verifiers.coverage.quotes import find_in, shared_finds
from verifiers.coverage.strength import ORDER, Strengths, best
from verifiers.holes import ResolveError
from verifiers.notes import Literal, Note
from verifiers.restate.coverage import CountCoverage, classify_count_words, count_words_json
from verifiers.restate.items import ITEMS_PREFIX
from verifiers.schema import Waiver
from verifiers.verdicts import RunResult

__all__ = ["KINDS", "NoteCoverage", "RULES", "WaiverProblem", "coverage", "coverage_json",
           "strength_json"]

COVERED, WAIVED, UNCOVERED = "covered", "waived", "uncovered"


def _line_start(note: Note, lit: Literal) -> str:
    return note.text[note.text.rfind("\n", 0, lit.start) + 1:lit.start]


def list_marker(note: Note, lit: Literal) -> bool:
    """``1. 从最小单位开始`` -- an integer opening a line, followed by ``. ``."""
    return not _line_start(note, lit).strip() and lit.number.kind == "integer" \
        and note.text.startswith(". ", lit.end)


_MARKER_PREFIX = re.compile(r"\s*(?:\d+\.\s*)?\(\Z")


def step_label(note: Note, lit: Literal) -> bool:
    """``1. (1)矩阵乘法的定义`` -- ``(N)`` opening a list item or a line."""
    return lit.number.kind == "integer" and note.text.startswith(")", lit.end) \
        and _MARKER_PREFIX.fullmatch(_line_start(note, lit)) is not None


_CHAPTER_REF = re.compile(r"第\s*\Z")
_CHAPTER_WORD = re.compile(r"\s*[章节]")


def reference(note: Note, lit: Literal) -> bool:
    """``§7`` or ``第 12 章`` -- a pointer to another part of the note."""
    before = note.text[max(0, lit.start - 3):lit.start]
    if before.rstrip().endswith("§"):
        return True
    return _CHAPTER_REF.search(before) is not None \
        and _CHAPTER_WORD.match(note.text, lit.end) is not None


_LABEL_WORD = re.compile(
    r"(?<![A-Za-z])(?:Step|Word|Lesson|Example|Exercise|Figure|Fig\.|Table|Chapter|Section"
    r"|Part|Question|Problem)[ \t]*\Z"
    r"|(?:(?<![\u4e00-\u9fff])|(?<=[如见]))[图表例][ \t]*\Z", re.IGNORECASE)
_ORDINAL_WORD = re.compile(r"[ \t]*[步课讲节题问]")


def label(note: Note, lit: Literal) -> bool:
    """``Step 1``, ``Lesson 3``, ``图 4``, ``第 3 步`` -- the name of a part, not a value.
    ``图``/``表`` count only on their own (``词表 50257`` is a vocabulary size)."""
    if lit.number.kind != "integer" or lit.text[:1] in "+-−":
        return False
    before = note.text[max(0, lit.start - 12):lit.start]
    if _LABEL_WORD.search(before):
        return True
    return _CHAPTER_REF.search(before) is not None \
        and _ORDINAL_WORD.match(note.text, lit.end) is not None


RULES: dict[str, Callable[[Note, Literal], bool]] = {
    "list-marker": list_marker,
    "step-label": step_label,
    "reference": reference,
    "label": label,
}


@dataclass(frozen=True)
class WaiverProblem:
    waiver: Waiver
    message: str

    def __str__(self) -> str:
        return f"{self.waiver.file}:{self.waiver.line}: waiver: {self.message}"


@dataclass
class NoteCoverage:
    note: str
    literals: list[Literal] = field(default_factory=list)  # the ones that can be claims
    status: dict[int, str] = field(default_factory=dict)  # literal start -> status
    reasons: dict[int, str] = field(default_factory=dict)  # waived literal -> reason
    excluded: dict[str, int] = field(default_factory=dict)  # rule -> count
    kinds: dict[str, KindCoverage] = field(default_factory=dict)  # "formulas", ... -> items
    strength: dict[int, str] = field(default_factory=dict)  # covered literal -> how (strength)
    orphans: list[tuple[str, str]] = field(default_factory=list)  # copies of nothing recomputed
    copies_of_given: int = 0  # covered literals that only repeat an input (counted as given)
    count_words: CountCoverage = field(default_factory=CountCoverage)  # 三个, two (restate/)

    def count(self, status: str) -> int:
        return sum(1 for lit in self.literals if self.status[lit.start] == status)

    @property
    def uncovered(self) -> list[Literal]:
        return [lit for lit in self.literals if self.status[lit.start] == UNCOVERED]


def coverage(result: RunResult) -> tuple[list[NoteCoverage], list[WaiverProblem]]:
    """Classify every literal of every note (claims of a full run, and its waivers); each
    quote is searched once for both coverages (:mod:`verifiers.coverage.quotes`)."""
    with shared_finds():
        return _coverage(result)


def _coverage(result: RunResult) -> tuple[list[NoteCoverage], list[WaiverProblem]]:
    problems: list[WaiverProblem] = []
    out = []
    strengths = Strengths({c.id: c for c in result.claims})
    for name in sorted(result.notes):
        note = result.notes[name]
        cov = NoteCoverage(name, excluded=dict.fromkeys(RULES, 0))
        for lit in note.literals:
            rule = next((r for r, applies in RULES.items() if applies(note, lit)), None)
            if rule is not None:
                cov.excluded[rule] += 1
            else:
                cov.literals.append(lit)
                cov.status[lit.start] = UNCOVERED
        spans = sorted(_claim_spans(result, note, name, strengths))
        copies_of_given = {(s.claim, s.hole) for s in spans if s.hole is not None} \
            & strengths.copies_of_given
        for lit in cov.literals:
            over = [s for s in spans if s.start <= lit.start and lit.end <= s.end]
            if over:
                cov.status[lit.start] = COVERED
                cov.strength[lit.start] = best([s.strength for s in over]) or ORDER[-1]
                cov.copies_of_given += any((s.claim, s.hole) in copies_of_given for s in over) \
                    and cov.strength[lit.start] == ORDER[-1]
        cov.orphans = [o for o in strengths.orphans if o[0] in {s.claim for s in spans}]
        waived_words: list[tuple[tuple[int, int], str]] = []
        for waiver in (w for w in result.waivers if w.note == name):
            try:
                waived = _waived_spans(note, waiver)
            except ResolveError as err:
                problems.append(WaiverProblem(waiver, err.message))
                continue
            if "count_words" in waiver.waives:
                waived_words += [(span, waiver.reason) for span in waived]
            if "numbers" not in waiver.waives:
                continue
            for lit in cov.literals:
                if cov.status[lit.start] == UNCOVERED and _inside(waived, lit):
                    cov.status[lit.start] = WAIVED
                    cov.reasons[lit.start] = waiver.reason
        cov.kinds = classify_items(result, name)
        cov.count_words = classify_count_words(
            note.text, [(s.start, s.end) for s in spans if s.hole is not None], waived_words)
        out.append(cov)
    return out, problems


@dataclass(frozen=True, order=True)
class Span:
    """Where a claim reads the note, and how strongly it checks what it reads there."""

    start: int
    end: int
    strength: str
    claim: str
    hole: str | None = None  # the value hole (None: a formula or a program block)


def _claim_spans(result: RunResult, note: Note, name: str, strengths: Strengths) -> list[Span]:
    """Spans a claim checks, found from the claims and their quotes (no evaluation, so
    coverage does not depend on which claims a run selected): every hole of a claim that
    checks something (a ``check``, a model ``run``, a symbolic formula), and holes that a
    claim which checks something uses. A claim of inputs (``kind: given``, a scaffolded
    stub) covers nothing by itself: only its holes a checking claim uses. Each span carries
    its strength (:mod:`verifiers.coverage.strength`); a restatement of words covers nothing."""
    used = {(u.claim_id, u.hole) for c in result.claims if claim_checks(c) and not c.problems
            for u in c.uses.values()}
    spans = []
    for claim in result.claims:
        if claim.note != name or claim.problems or claim.kind in ("property", "procedure"):
            continue  # a procedure reads only word holes (schema): no value or formula span
        scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
        try:
            match = find_in(note, claim.text, scopes, near=claim.near, after=claim.after)
        except ResolveError:
            continue  # a stale claim covers nothing
        checks = claim_checks(claim)
        for key, printed in match.values.items():
            hole = key.split("[")[0]
            if hole.startswith(ITEMS_PREFIX):  # an enumeration counts its items: it checks
                continue  # no number printed inside them (verifiers/restate/items.py)
            if checks or (claim.id, hole) in used:
                spans.append(Span(printed.start, printed.end, strengths.hole(claim, hole, key),
                                  claim.id, hole))
        for hole, p in match.formulas.items():
            spans += [Span(a, b, how, claim.id)
                      for a, b, how in strengths.formula(claim, hole, p.start, p.text)]
        from verifiers.programs.codehole import block_span, reads_block

        if reads_block(claim):  # a code hole judges its block (a printed order: its words)

            span = block_span(claim, match, note)
            if span is not None:  # a trace is recomputed entry by entry; a program's
                # literals are its inputs
                trace = getattr(claim.code, "name", "") in ("trace", "rules")  # rules: each
                # printed rule is evaluated against autograd (verifiers/backward)
                spans.append(Span(*span, "recomputed" if trace else "given", claim.id))
    return spans


def _waived_spans(note: Note, waiver: Waiver) -> list[tuple[int, int]]:
    scopes = note.scopes(waiver.section) if waiver.section else [(0, len(note.text))]
    if not scopes:
        raise ResolveError(f"section {waiver.section!r} not found in the note")
    match = find_in(note, waiver.text, scopes, near=waiver.near, after=waiver.after)
    if match.values:
        return sorted((p.start, p.end) for p in match.values.values())
    return [(match.start, match.end)]


def _inside(spans: list[tuple[int, int]], lit: Literal) -> bool:
    return any(a <= lit.start and lit.end <= b for a, b in spans)


def _place(note: Note, text: str, start: int) -> dict[str, object]:
    line, col = note.position(start)
    return {"text": text, "line": line, "col": col}


def strength_json(cov: NoteCoverage) -> dict[str, object]:
    """How the covered literals are checked (:mod:`verifiers.coverage.strength`); ``derived`` counts
    the ones the note derives (all but ``given``), ``recomputed_share`` the part of those
    recomputed; ``orphan_copies`` the copies whose original nothing recomputes."""
    counts = {how: sum(1 for s in cov.strength.values() if s == how) for how in ORDER}
    derived = counts["recomputed"] + counts["copy"] + counts["restated"]
    return {**counts, "copies_of_given": cov.copies_of_given, "derived": derived,
            "recomputed_share": round(counts["recomputed"] / derived, 4) if derived else 1.0,
            "orphan_copies": [{"claim": c, "hole": h} for c, h in cov.orphans]}


def coverage_json(result: RunResult, covs: list[NoteCoverage]) -> dict[str, object]:
    """The coverage contract, version 1 (``formulas``, ``statements``, ``procedures`` added
    next to the numeric fields, each ``{total, covered, waived, uncovered: [...]}``)."""
    notes = []
    for cov in covs:
        note = result.notes[cov.note]
        kinds = {kind: {"total": len(k.items), "covered": k.count(COVERED),
                        "waived": k.count(WAIVED),
                        "uncovered": [_place(note, it.text, it.start) for it in k.uncovered]}
                 for kind, k in cov.kinds.items()}
        # statements a checking claim quotes without reading their law words (laws6)
        quoted = [{**_place(note, k.items[i].text, k.items[i].start), "claim": cid,
                   "status": k.status[i]}
                  for k in cov.kinds.values() for i, cid in sorted(k.quoted.items())]
        notes.append({
            "note": cov.note,
            "literals": len(cov.literals),
            "covered": cov.count(COVERED),
            "waived": cov.count(WAIVED),
            "excluded": cov.excluded,
            "uncovered": [
                _place(note, lit.text, lit.start) for lit in cov.uncovered
            ],
            "strength": strength_json(cov),
            "count_words": count_words_json(cov.count_words, functools.partial(_place, note)),
            **kinds,
            **({"statements_quoted_unread": quoted} if quoted else {}),
        })
    return {"version": 1, "notes": notes}
