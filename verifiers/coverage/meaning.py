"""Coverage of a note's formulas, law-stating sentences and procedures.

The items come from :mod:`verifiers.meaning`. A formula or a procedure is

* ``covered`` when its span overlaps the matched quote of a claim that checks something
  (a ``check``, a model ``run``, a symbolic formula, a property's law): whatever its
  holes are (numbers, ``⟪formula⟫``, words), the claim reads the quoted text; or when it
  overlaps a hole of a claim of inputs (``kind: given``) that a checking claim uses --
  the rule of the numbers' coverage: a given covers only what feeds a check;
* ``waived`` when it overlaps the matched quote of a waiver that names its kind
  (``waives: [formulas]``), with the waiver's reason;
* ``uncovered`` otherwise.

A statement (a sentence that states a law) is ``covered`` only when a checking claim *reads
its law-carrying words* (issue 12 item 4; :class:`_Reading`): a word hole ``⟦slot⟧`` of the
claim lies inside the sentence, or every cue word of the sentence (``cues.yaml``) lies inside
what the claim reads -- a hole, a procedure's step word, or a vocabulary law word of its quoted
fixed text (read as a hole when the note changes it: ``verifiers/words.py`` ``relax``). A
sentence a claim merely quotes (an arithmetic claim whose quote spans ``不代表`` reads the
numbers, not the word) is ``uncovered`` unless waived, and the claim that quotes it is kept
(``KindCoverage.quoted``) so that the report can say so.

A claim with problems, a stale one, or one that checks nothing (a scaffolded stub, a
table of inputs) covers nothing. Overlap is found with sorted spans and a running maximum,
so the cost is (items + claims) × log(claims).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from verifiers import words
from verifiers.claimtext import claim_checks  # the one rule, shared with readers
from verifiers.coverage.quotes import find_in, shared_finds
from verifiers.holes import Match, ResolveError
from verifiers.meaning import FINDERS, Item
from verifiers.meaning.statements import cue_spans
from verifiers.notes import Note
from verifiers.restate.items import ITEMS_PREFIX
from verifiers.schema import Claim
from verifiers.verdicts import RunResult

__all__ = ["KINDS", "KindCoverage", "classify_items", "item_kind", "quote_match"]

KINDS = tuple(FINDERS)  # "formulas", "statements", "procedures"
COVERED, WAIVED, UNCOVERED = "covered", "waived", "uncovered"


def item_kind(kind: str) -> str:
    """``formulas`` -> ``formula`` (the word of a console line)."""
    return kind[:-1]


@dataclass
class KindCoverage:
    """The items of one kind in one note, each with its status (same order)."""

    items: list[Item] = field(default_factory=list)
    status: list[str] = field(default_factory=list)
    reasons: dict[int, str] = field(default_factory=dict)  # item index -> waiver reason
    # item index -> a checking claim that quotes the item without reading its law words
    # (a statement the overlap rule called covered; now uncovered or waived)
    quoted: dict[int, str] = field(default_factory=dict)

    def count(self, status: str) -> int:
        return self.status.count(status)

    @property
    def uncovered(self) -> list[Item]:
        return [it for it, s in zip(self.items, self.status, strict=True) if s == UNCOVERED]


class _Spans:
    """Sorted (start, end) spans answering "does [s, e) overlap any?" in log time."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans = sorted(spans)
        self.starts = [a for a, _ in spans]
        self.max_end = []
        top = -1
        for _, b in spans:
            top = max(top, b)
            self.max_end.append(top)

    def overlaps(self, start: int, end: int) -> bool:
        k = bisect.bisect_left(self.starts, max(end, start + 1))  # spans starting before end
        return k > 0 and self.max_end[k - 1] > start


def _match(note: Note, text: str, section: str | None, near: str | None,
           after: str | None) -> Match | None:
    """Where a claim's or a waiver's quote is, found as the numbers' coverage finds it."""
    scopes = note.scopes(section) if section else [(0, len(note.text))]
    if not scopes:
        return None
    try:
        return find_in(note, text, scopes, near=near, after=after)
    except ResolveError:
        return None


def quote_match(note: Note, claim: Claim) -> Match | None:
    """Where a claim's quote is in the note (None: not found), as coverage finds it: for the
    law-word survey (benchmarks/lawwords.py), which runs the claims near an edit."""
    return _match(note, claim.text, claim.section, claim.near, claim.after)


def _quote_spans(note: Note, claim: Claim) -> list[tuple[int, int]]:
    """The claim's matched quote, and the block its code hole reads (a program it runs)."""
    if claim.kind == "procedure":  # the words it reads, not the lines it skips
        from verifiers.procedures.locate import quote_spans

        return quote_spans(note, claim)
    match = _match(note, claim.text, claim.section, claim.near, claim.after)
    if match is None:
        return []
    spans = _without_items(match)
    if getattr(claim, "code", None) is not None and claim.run is not None:
        from verifiers.programs.codehole import block_span

        block = block_span(claim, match, note)
        if block is not None:
            spans.append(block)
    return spans


def _without_items(match: Match) -> list[tuple[int, int]]:
    """The quote's span less its ``⟨items⟩`` holes: an enumeration is counted, not read
    (a formula inside one, ``v_{1}, v_{2}, v_{3} \\in R^{3}``, is not checked by it)."""
    spans, pos = [], match.start
    for p in sorted((p for k, p in match.values.items() if k.startswith(ITEMS_PREFIX)),
                    key=lambda p: p.start):
        spans.append((pos, p.start))
        pos = p.end
    spans.append((pos, match.end))
    return [(a, b) for a, b in spans if b > a]


def _used_hole_spans(note: Note, claim: Claim,
                     used: set[tuple[str, str]]) -> list[tuple[int, int]]:
    """The printed holes of a claim of inputs that a checking claim uses (none else)."""
    if not any(cid == claim.id for cid, _ in used):
        return []
    match = _match(note, claim.text, claim.section, claim.near, claim.after)
    if match is None:
        return []
    holes = [*match.values.items(), *match.formulas.items()]
    return [(printed.start, printed.end) for key, printed in holes
            if (claim.id, key.split("[")[0]) in used]


def find_items(note: Note) -> dict[str, list[Item]]:
    """Every formula, statement and procedure of a note (procedures kept inside sections)."""
    headings = [s.start for s in note.sections]
    return {
        "formulas": FINDERS["formulas"](note.text),
        "statements": FINDERS["statements"](note.text),
        "procedures": FINDERS["procedures"](note.text, headings),
    }


class _Reading:
    """What the checking claims of one note read, for statements: the spans of their word
    holes, and of everything read (holes, procedure step words, the law words of quoted fixed
    text), plus each claim's matched quote (to name a claim that quotes but does not read)."""

    def __init__(self) -> None:
        self.word_holes: list[tuple[int, int]] = []
        self.read: list[tuple[int, int]] = []
        self.quotes: list[tuple[int, int, str]] = []

    def add_claim(self, note: Note, claim: Claim) -> None:
        if claim.kind == "procedure":  # it reads its step words (as word holes)
            spans = _quote_spans(note, claim)
            self.word_holes += spans
            self.read += spans
            self.quotes += [(a, b, claim.id) for a, b in spans]
            return
        match = _match(note, claim.text, claim.section, claim.near, claim.after)
        if match is None:
            return
        self.quotes.append((match.start, match.end, claim.id))
        self.word_holes += [(p.start, p.end) for p in match.words.values()]
        holes = [(p.start, p.end) for p in
                 (*match.values.values(), *match.formulas.values(), *match.words.values())]
        self.read += holes + _fixed_law_words(note.text, match.start, match.end, holes)

    def add_used_holes(self, spans: list[tuple[int, int]]) -> None:
        self.read += spans  # a given's printed value that a check uses is read

    def classify(self, item: Item) -> tuple[bool, str | None]:
        """(does a claim read the statement's law words?, a claim that only quotes it)."""
        if any(item.start <= a and b <= item.end for a, b in self.word_holes):
            return True, None
        cues = [(item.start + a, item.start + b) for a, b in cue_spans(item.text)]
        inside = [(a, b) for a, b in self.read if a < item.end and b > item.start]
        if cues and all(any(a <= c and d <= b for a, b in inside) for c, d in cues):
            return True, None
        if not cues and any(item.start <= a and b <= item.end for a, b in inside):
            return True, None  # a pair cue (越…越): a law word of it is read
        quoting = next((cid for a, b, cid in self.quotes if a < item.end and b > item.start),
                       None)
        return False, quoting


def _fixed_law_words(text: str, start: int, end: int,
                     holes: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The vocabulary law words of a matched quote's fixed text (outside its holes, not its
    first word): the words ``relax`` reads as holes when the note changes them."""
    out = []
    cuts = sorted((max(x, start), min(y, end)) for x, y in holes if x < end and y > start)
    gaps, pos = [], start  # the fixed text between the holes, as relax reads it chunk by chunk
    for x, y in cuts:  # (大于 ⟨0⟩: 大于, not the longer word 大于 0 that takes in the hole)
        if x > pos:
            gaps.append((pos, x))
        pos = max(pos, y)
    gaps.append((pos, end))
    for lo, hi in gaps:
        for m in words.auto_words().finditer(text, lo, hi):
            a, b = m.span()
            if b > hi or (a == start and not _opening_read(text, b, end, cuts)):
                continue
            out.append((a, b))
    return out


def _opening_read(text: str, b: int, end: int, holes: list[tuple[int, int]]) -> bool:
    """A quote's opening law word is read (verifiers/lawsentence.py ``find_opening``) when
    fixed text follows it (a quote cannot open with a hole)."""
    k = b
    while k < end and text[k].isspace():
        k += 1
    return k < end and not any(x == k for x, _ in holes)


def classify_items(result: RunResult, name: str) -> dict[str, KindCoverage]:
    """Classify the items of one note against the run's claims and waivers (a checking
    claim's quote is searched once for its spans and its reading: coverage/quotes.py)."""
    with shared_finds():
        return _classify_items(result, name)


def _classify_items(result: RunResult, name: str) -> dict[str, KindCoverage]:
    note = result.notes[name]
    claim_spans = []
    reading = _Reading()
    used = {(u.claim_id, u.hole) for c in result.claims if claim_checks(c) and not c.problems
            for u in c.uses.values()}
    for claim in result.claims:
        if claim.note != name or claim.problems:
            continue
        if claim_checks(claim):
            claim_spans.extend(_quote_spans(note, claim))
            reading.add_claim(note, claim)
        else:
            given = _used_hole_spans(note, claim, used)
            claim_spans.extend(given)
            reading.add_used_holes(given)
    covering = _Spans(claim_spans)
    waivers = []
    for waiver in result.waivers:
        if waiver.note == name and set(waiver.waives) & set(KINDS):
            # a stale waiver is reported by the numbers' coverage
            match = _match(note, waiver.text, waiver.section, waiver.near, waiver.after)
            if match is not None:
                waivers.append((waiver, _Spans([(match.start, match.end)])))
    out = {}
    for kind, items in find_items(note).items():
        cov = KindCoverage(items)
        for index, item in enumerate(items):
            if kind == "statements":
                read, quoting = reading.classify(item)
                if quoting is not None:
                    cov.quoted[index] = quoting
            else:
                read = covering.overlaps(item.start, item.end)
            if read:
                cov.status.append(COVERED)
                continue
            waiver = next((w for w, spans in waivers
                           if kind in w.waives and spans.overlaps(item.start, item.end)), None)
            cov.status.append(WAIVED if waiver is not None else UNCOVERED)
            if waiver is not None:
                cov.reasons[index] = waiver.reason
        out[kind] = cov
    return out
