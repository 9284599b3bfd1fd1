"""Planted-error survey: realistic one-error author edits of the notes, and what the suite says.

The corpus is data: ``benchmarks/planted/<kind>.yaml``, each edit ``{id, kind, note, find,
replace, why}`` (``line`` when ``find`` occurs more than once in the note). A file with
``held_out: true`` at the top (``fresh-<kind>.yaml``) holds edits written before they were
ever run; the table counts them apart, since the others were partly written after seeing
what the suite misses. An edit is applied
to a temporary copy of the notes, only that note's claims are run in-process (with a verdict
cache shared across the edits, in a temporary folder, so claims the edit cannot reach are cache
hits), and the outcome is classified:

- ``real``: a claim reacts with ``discrepancy``, ``unparsed``, ``fixed`` or ``error`` at a
  position (a value, or the place its message points at) on an edited line;
- ``stale``: the only reaction is ``stale`` (the quote no longer resolves; the table counts
  apart the edits where a stale claim points at an edited line, its closest line), with the
  ``blocked`` verdicts of claims that use a stale claim ("blocked by ..., which is stale");
- ``elsewhere``: some other non-passing reaction, but none at the edited lines (including an
  ``error`` of a check that has no note position, e.g. a re-run program that gives NaN);
- ``missed``: every claim of the note still passes.

Apart from the outcome, each edit records what the changed-lines gate says about it
(``notecheck check --changed-since`` fails on a number, formula, statement or procedure that no
claim checks on a changed line, :func:`verifiers.changes.uncovered_on_changed_lines`): an edit
that no claim judges may still stop there, as "uncovered", which says "nobody checks this
line", never "this line is wrong". The table counts those among the edits without a real verdict.

A *reaction* is a non-passing verdict that the unedited notes do not give (same claim, same
status, same message): a claim that already fails on the unedited notes (a false alarm, which
the survey reports separately) is not credited to an edit.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from verifiers.run import RunResult

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent
KINDS = ("arithmetic", "copied-entries", "rounding", "formula", "prose-law", "restatement",
         "program", "unit-scale")
FIELDS = ("id", "kind", "note", "find", "replace", "why")

REAL, STALE, ELSEWHERE, MISSED = "real", "stale", "elsewhere", "missed"
OUTCOMES = (REAL, STALE, ELSEWHERE, MISSED)
REAL_STATUSES = frozenset({"discrepancy", "unparsed", "fixed", "error"})


class CorpusError(Exception):
    """A malformed corpus entry (unknown key, missing field, a find that does not resolve)."""


@dataclass(frozen=True)
class Edit:
    id: str
    kind: str
    note: str
    find: str
    replace: str
    why: str
    line: int | None = None
    source: str = ""  # file name of the corpus file
    held_out: bool = False  # from a file marked ``held_out: true``
    notes_dir: str = ""  # ``notes:`` of the file (relative to the project): not ``notes/``
    inferred: bool = False  # ``claims: inferred``: the claims `notecheck infer` writes

    def offset(self, text: str) -> int:
        """Where ``find`` starts in ``text``: its only occurrence, or the one on ``line``."""
        starts = []
        at = text.find(self.find)
        while at >= 0:
            starts.append(at)
            at = text.find(self.find, at + 1)
        if self.line is not None:
            starts = [s for s in starts if text.count("\n", 0, s) + 1 == self.line]
        if len(starts) != 1:
            where = f" on line {self.line}" if self.line is not None else ""
            raise CorpusError(f"{self.id}: find occurs {len(starts)} times{where} in {self.note}")
        return starts[0]

    def apply(self, text: str) -> tuple[str, set[int]]:
        """The edited text and the (1-based) lines of the edited text that the edit touches."""
        start = self.offset(text)
        edited = text[:start] + self.replace + text[start + len(self.find):]
        first = edited.count("\n", 0, start) + 1
        last = first + self.replace.count("\n")
        return edited, set(range(first, last + 1))


def load_corpus(folder: Path = CORPUS) -> list[Edit]:
    """Every edit of every ``*.yaml`` in ``folder``, in file then list order."""
    edits: list[Edit] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict) or set(data) - {"edits", "held_out", "notes", "claims"}:
            raise CorpusError(f"{path.name}: top level must be a mapping of edits (and "
                              "held_out, notes, claims)")
        held_out = data.get("held_out", False)
        if not isinstance(held_out, bool):
            raise CorpusError(f"{path.name}: held_out must be true or false")
        notes_dir, inferred = _notes_source(path.name, data)
        for entry in data.get("edits") or []:
            unknown = set(entry) - set(FIELDS) - {"line"}
            missing = [f for f in FIELDS if not isinstance(entry.get(f), str) or not entry[f]]
            if unknown or missing:
                raise CorpusError(f"{path.name}: {entry.get('id')}: unknown keys "
                                  f"{sorted(unknown)}, missing {missing}")
            line = entry.get("line")
            if line is not None and (not isinstance(line, int) or line < 1):
                raise CorpusError(f"{path.name}: {entry['id']}: line must be a positive integer")
            edits.append(Edit(**{f: entry[f] for f in FIELDS}, line=line, source=path.name,
                              held_out=held_out, notes_dir=notes_dir, inferred=inferred))
    return edits


def from_sources(edits: list[Edit], patterns: list[str]) -> list[Edit]:
    """The edits of the corpus files whose name matches a glob (``fresh5-*``), so one held-out
    round can be run on its own, first run and reruns alike, without listing its ids."""
    return [e for e in edits if any(fnmatchcase(e.source, p) for p in patterns)]


def _notes_source(name: str, data: dict) -> tuple[str, bool]:
    """A file's ``notes:`` folder (a project folder of new notes) and whether its claims are
    the inferred ones (``claims: inferred``, required with ``notes:``)."""
    notes, claims = data.get("notes"), data.get("claims")
    if notes is None and claims is None:
        return "", False
    if not isinstance(notes, str) or claims != "inferred":
        raise CorpusError(f"{name}: notes: must name a folder of the project, with "
                          "claims: inferred")
    folder = (ROOT / notes).resolve()
    if ROOT not in folder.parents or not folder.is_dir():
        raise CorpusError(f"{name}: notes: {notes!r} is not a folder of the project")
    return notes, True


@dataclass
class Outcome:
    edit: Edit
    outcome: str
    detail: str  # one line: what happened
    reactions: list[str] = field(default_factory=list)  # "id status" of the reacting claims
    stale_at_line: bool = False  # stale only, and a stale claim points at an edited line
    gate: list[str] = field(default_factory=list)  # uncovered items on the edited lines


def _value_lines(verdict) -> list[tuple[int, int, str]]:
    """(first line, last line, status) of every position a verdict reports."""
    places = [(v.start[0], v.end[0], v.status) for v in verdict.values]
    if verdict.where is not None:
        places.append((verdict.where[0], verdict.where[0], verdict.status))
    return places


def _key(verdict) -> tuple:
    return (verdict.status, verdict.message,
            tuple((v.name, v.status, v.printed, v.expected) for v in verdict.values))


def classify(edit: Edit, lines: set[int], verdicts: Iterable, baseline: dict[str, tuple]
             ) -> Outcome:
    """Sort the verdicts of the edited note's claims into one of the four outcomes."""
    reacting = [v for v in verdicts if not v.passed and baseline.get(v.id) != _key(v)]
    at_line = []
    for v in reacting:
        if v.status not in REAL_STATUSES:
            continue
        hits = [(a, s) for a, b, s in _value_lines(v)
                if s in REAL_STATUSES and any(a <= n <= b for n in lines)]
        if hits:
            at_line.append(f"{v.status} {v.id} at line {hits[0][0]}")
    names = [f"{v.id} {v.status}" for v in reacting]
    if at_line:
        return Outcome(edit, REAL, "; ".join(at_line[:3]), names)
    if not reacting:
        return Outcome(edit, MISSED, "every claim of the note still passes", names)
    # An error that only says a claim it uses failed is a consequence, not a reaction of its own.
    own = [v for v in reacting if not _cascade(v)]
    cascade = len(reacting) - len(own)
    also = f" (+{cascade} blocked)" if cascade else ""
    if not own:
        return Outcome(edit, ELSEWHERE, f"only blocked claims ({cascade})", names)
    if all(v.status == "stale" for v in own):
        return Outcome(edit, STALE, "stale: " + ", ".join(
            v.id + (f" at line {v.where[0]}" if v.where else "") for v in own[:4])
                       + (f" (+{len(own) - 4})" if len(own) > 4 else "") + also, names,
                       any(v.where is not None and v.where[0] in lines for v in own))
    other = [v for v in own if v.status != "stale"]
    first = other[0]
    place = next((f" at line {a}" for a, _, s in _value_lines(first) if s == first.status),
                 " (no note position)")
    stale = len(own) - len(other)
    said = "" if place.startswith(" at") else ": " + " ".join(first.message.split())[:80]
    return Outcome(edit, ELSEWHERE, f"{first.status} {first.id}{place}{said}"
                   + (f" (+{len(other) - 1} more)" if len(other) > 1 else "")
                   + (f", {stale} stale" if stale else "") + also, names)


def gate(result: RunResult, note: str, lines: set[int]) -> list[str]:
    """What the changed-lines gate reports on the edited lines: its uncovered items."""
    from verifiers.changes import Changes, uncovered_on_changed_lines

    one = replace(result, notes={note: result.notes[note]},
                  changes=Changes({note: set(lines)}, root=result.notes_dir))
    return uncovered_on_changed_lines(one)


def _cascade(verdict) -> bool:
    """A claim ``blocked`` by a failed claim it uses (before ``blocked``: an ``error`` whose
    only complaint was that a claim it uses is not verified)."""
    return verdict.status == "blocked" or (
        verdict.status == "error" and verdict.message.startswith("depends on claim "))


@dataclass
class Survey:
    outcomes: list[Outcome]
    false_alarms: list[str]  # "note: id status" of the unedited notes' non-passing verdicts


def survey(edits: list[Edit], notes_dir: Path = ROOT / "notes",
           claims_dir: Path = ROOT / "claims",
           progress: Callable[[int, int, Outcome], None] | None = None) -> Survey:
    """Run every edit on a temporary copy of the notes; the copies and the cache are removed."""
    from verifiers import profiles
    from verifiers.run import run

    tmp = Path(tempfile.mkdtemp(prefix="notecheck-planted-"))
    try:
        groups: dict[tuple[str, bool], list[int]] = {}
        for i, edit in enumerate(edits):
            groups.setdefault((edit.notes_dir, edit.inferred), []).append(i)
        outcomes: dict[int, Outcome] = {}
        false_alarms: list[str] = []
        done = 0
        for k, ((folder, inferred), members) in enumerate(sorted(groups.items())):
            notes = tmp / f"notes-{k}"
            shutil.copytree(ROOT / folder if folder else notes_dir, notes,
                            ignore=shutil.ignore_patterns("README.md", "planted")
                            if folder else None)
            claims = claims_dir
            if inferred:  # the claims inference writes for the clean notes
                claims = tmp / f"claims-{k}"
                claims.mkdir()
                _infer_into(notes, claims)
            cache = tmp / f"cache-{k}"
            group = [edits[i] for i in members]
            originals = {e.note: (notes / e.note).read_bytes().decode("utf-8") for e in group}

            def check(note: str, notes: Path = notes, claims: Path = claims,
                      cache: Path = cache) -> RunResult:
                # as `notecheck check` does: the derandomised Hypothesis profile, so a
                # property claim gives the same verdict on every run
                with profiles.default("ci"):
                    return run(notes, claims, lambda c: c.note == note, cache=cache)

            baseline: dict[str, dict[str, tuple]] = {}
            for note in sorted(originals):
                verdicts = check(note).verdicts
                baseline[note] = {v.id: _key(v) for v in verdicts if not v.passed}
                false_alarms += [f"{note}: {v.id} {v.status}" for v in verdicts
                                 if not v.passed]
            for i in members:
                edit = edits[i]
                text, lines = edit.apply(originals[edit.note])
                path = notes / edit.note
                path.write_bytes(text.encode("utf-8"))  # bytes: the note's line endings kept
                try:
                    result = check(edit.note)
                    outcome = classify(edit, lines, result.verdicts, baseline[edit.note])
                    outcome.gate = gate(result, edit.note, lines)
                finally:
                    path.write_bytes(originals[edit.note].encode("utf-8"))
                outcomes[i] = outcome
                done += 1
                if progress is not None:
                    progress(done, len(edits), outcome)
        return Survey([outcomes[i] for i in range(len(edits))], false_alarms)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def quote_lines(notes: dict, claims: list) -> dict[str, list[tuple[int, int, str]]]:
    """(first line, last line, claim id) of every claim's quote on the unedited notes: the
    surveys run only the claims near an edit."""
    from verifiers.coverage.meaning import quote_match

    out: dict[str, list[tuple[int, int, str]]] = {}
    for claim in claims:
        if claim.problems or claim.note not in notes:
            continue
        note = notes[claim.note]
        match = quote_match(note, claim)
        if match is None:
            continue
        first = note.text.count("\n", 0, match.start) + 1
        last = note.text.count("\n", 0, match.end) + 1
        out.setdefault(claim.note, []).append((first, last, claim.id))
    return out



def edits_main(prog: str, argv: list[str] | None, make_edits: Callable[[], list[Edit]]
               ) -> Survey | None:
    """The command line the scripted surveys share: ``--list`` the edits, ``--dump`` them as
    JSON, run the ``--edits`` of such a file (the same edits on an older tree: the figure
    before a change) or the script's own; prints the table and returns the survey (None when
    it only listed or dumped)."""
    import argparse
    import json
    import sys
    from dataclasses import asdict

    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--list", action="store_true", help="only list the edits")
    parser.add_argument("--dump", type=Path, help="write the edits as JSON and stop")
    parser.add_argument("--edits", type=Path, help="run the edits of this JSON file")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    found = [Edit(**e) for e in json.loads(args.edits.read_text(encoding="utf-8"))] \
        if args.edits else make_edits()
    if args.dump:
        args.dump.write_text(json.dumps([asdict(e) for e in found], ensure_ascii=False,
                                        indent=1), encoding="utf-8")
        return None
    if args.list:
        for e in found:
            print(f"{e.id}: {e.why}")
        return None

    def progress(i: int, n: int, o: Outcome) -> None:
        print(f"[{i}/{n}] {o.edit.id}: {o.outcome} {o.detail}", file=sys.stderr, flush=True)

    result = survey(found, progress=progress if args.progress else None)
    print(table(result))
    return result


def _infer_into(notes: Path, claims: Path) -> None:
    """Write every note's inferred claims into the (empty) ``claims`` folder, one note at a
    time, as `notecheck infer` does."""
    from verifiers.infer import infer
    from verifiers.infer.write import write_inferred
    from verifiers.run import run

    for name in sorted(run(notes, claims).notes):
        write_inferred(claims, name, infer(run(notes, claims), name).entries())



def table(result: Survey) -> str:
    """Per-kind tables (the held-out edits apart), the false-alarm line and one line per
    non-real edit."""
    seen = [o for o in result.outcomes if not o.edit.held_out and not o.edit.inferred]
    held = [o for o in result.outcomes if o.edit.held_out and not o.edit.inferred]
    new = [o for o in result.outcomes if o.edit.inferred]
    rows: list[str] = []
    if seen:
        rows += _kind_table(seen)
    if held:
        if seen:
            rows.append("")
        rows.append("held out (fresh-*.yaml: written before their first run):")
        rows += _kind_table(held)
    if new:
        if seen or held:
            rows.append("")
        rows.append("new notes, with the claims inference writes (heldout-notes-*.yaml):")
        rows += _kind_table(new)
    return "\n".join(rows + _tail(result))


def _kind_table(outcomes: list[Outcome]) -> list[str]:
    rows = [f"{'kind':<16}{'edits':>6}{'real verdict at line':>22}{'stale only':>12}"
            f"{'(pointing at line)':>20}{'elsewhere only':>16}{'missed':>8}"
            f"{'(gate: uncovered)':>19}"]
    kinds = [k for k in KINDS if any(o.edit.kind == k for o in outcomes)]

    def row(label: str, outs: list[Outcome]) -> str:
        n = {k: sum(o.outcome == k for o in outs) for k in OUTCOMES}
        pointing = sum(o.stale_at_line for o in outs)
        gated = sum(bool(o.gate) for o in outs if o.outcome != REAL)
        return (f"{label:<16}{len(outs):>6}{n[REAL]:>22}{n[STALE]:>12}{pointing:>20}"
                f"{n[ELSEWHERE]:>16}{n[MISSED]:>8}{gated:>19}")

    for kind in kinds:
        rows.append(row(kind, [o for o in outcomes if o.edit.kind == kind]))
    rows.append(row("total", outcomes))
    return rows


def _tail(result: Survey) -> list[str]:
    rows = [""]
    rows.append(f"false alarms (unedited notes, the edited notes' claims): "
                f"{len(result.false_alarms)} non-passing verdicts"
                + "".join(f"\n  {a}" for a in result.false_alarms))
    others = [o for o in result.outcomes if o.outcome != REAL]
    if others:
        rows.append("")
        rows.append("edits without a real verdict at the edited line:")
        width = max(len(o.edit.id) for o in others)
        for o in others:
            rows.append(f"  {o.edit.id:<{width}}  {o.outcome:<9}  {o.detail}"
                        + (f"; gate: {len(o.gate)} uncovered on the line" if o.gate else ""))
    return rows


def as_json(result: Survey) -> dict:
    return {
        "version": 1,
        "false_alarms": result.false_alarms,
        "summary": {k: {o: sum(x.outcome == o for x in result.outcomes if x.edit.kind == k)
                        for o in OUTCOMES}
                    for k in KINDS if any(x.edit.kind == k for x in result.outcomes)},
        "held_out_summary": {
            k: {o: sum(x.outcome == o for x in result.outcomes
                       if x.edit.kind == k and x.edit.held_out) for o in OUTCOMES}
            for k in KINDS if any(x.edit.kind == k and x.edit.held_out for x in result.outcomes)},
        "edits": [{"id": o.edit.id, "kind": o.edit.kind, "note": o.edit.note,
                   "held_out": o.edit.held_out, "inferred": o.edit.inferred,
                   "why": o.edit.why, "outcome": o.outcome, "detail": o.detail,
                   "stale_at_line": o.stale_at_line, "gate": o.gate,
                   "reactions": o.reactions}
                  for o in result.outcomes],
    }
