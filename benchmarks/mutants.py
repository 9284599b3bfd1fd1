"""python -m benchmarks.mutants: an exhaustive, seeded mutation survey of the notes, per class.

Where ``benchmarks.planted`` runs hand-written author edits, this applies a mechanical
mutation at every site of a class (verifiers/mutate.py ``sites``): a printed number's last
digit, a law vocabulary word of a law-stating sentence replaced by another meaning's word, a
component name by its neighbour (Softmax → Sigmoid), two neighbouring items of an arrow
pipeline swapped, a sub/superscript's last character (i → j, 2 → 3); and, apart, the numbers
some claim's quote holds as literal text (``quoted-number``: what verifiers/readers.py is
about; a subset of ``number``). A class with more sites
than ``--per-class`` is sampled with ``--seed`` (the same sample on every run).

Each mutation re-runs only the claims whose quote (in the unedited note) touches the edited
line, and the claims that use them, in-process on the edited text, then compares with the
unedited verdicts exactly as the planted survey does (benchmarks/planted/survey.py
``classify``): real verdict at the edited line, stale only, elsewhere only, missed; and
``unquoted``, a miss where no claim's quote touches the edited line at all (a waived number,
prose nobody claims). Cross-claim passes (copies of a given value, formula printings) see only
the claims run, so a reaction there among claims that do not quote the line is not counted.

A mutation need not make the note false (a component ring can name an equivalent one, an
index swap inside a symmetric sum changes nothing): shares are a measure to compare before
and after a change, not a target of 100%. The list of misses (and stale-only outcomes) is
written as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.outcome_tables import sites_table
from benchmarks.planted.survey import ELSEWHERE, MISSED, REAL, STALE, Edit, _key, classify
from verifiers import profiles
from verifiers.engine import Engine
from verifiers.mutate import SITE_CLASSES, Site, sites
from verifiers.notes import Note
from verifiers.run import finish, load_claims, load_notes, run
from verifiers.schema import Claim

ROOT = Path(__file__).resolve().parent.parent
UNTOUCHED = "unquoted"  # missed, and no claim quotes the edited line


def _line_span(text: str, offset: int) -> tuple[int, int]:
    lo = text.rfind("\n", 0, offset) + 1
    hi = text.find("\n", offset)
    return lo, len(text) if hi < 0 else hi


def _reach(claims: list[Claim], touching: set[str]) -> list[str]:
    """The touching claims and, transitively, every claim that uses one of them."""
    users: dict[str, set[str]] = {}
    for claim in claims:
        for use in claim.uses.values():
            users.setdefault(use.claim_id, set()).add(claim.id)
    seen, todo = set(), sorted(touching)
    while todo:
        cid = todo.pop()
        if cid not in seen:
            seen.add(cid)
            todo.extend(sorted(users.get(cid, ())))
    return [c.id for c in claims if c.id in seen]


def outcome(site: Site, notes: dict[str, Note], claims: list[Claim],
            spans: dict[str, dict[str, tuple[int, int]]], baseline: dict[str, tuple]
            ) -> tuple[str, str]:
    """(outcome, detail) of one mutation: only the claims it can reach are evaluated."""
    note = notes[site.note]
    lo, hi = _line_span(note.text, site.start)
    touching = {cid for cid, (a, b) in spans.get(site.note, {}).items() if a < hi and b > lo}
    if not touching:
        return UNTOUCHED, ""
    edited = dict(notes)
    edited[site.note] = Note(note.path, site.apply(note.text), note.name)
    engine = Engine(edited, claims)
    verdicts = [engine.verdict(cid) for cid in _reach(claims, touching)]
    verdicts = finish(verdicts, claims, edited)
    edit = Edit(f"{site.cls}@{site.line}:{site.col}", site.cls, site.note, site.old, site.new,
                "mutation")
    result = classify(edit, {site.line + k for k in range(site.new.count("\n") + 1)},
                      verdicts, baseline)
    return result.outcome, result.detail


def survey(per_class: int, seed: int, classes: tuple[str, ...], notes_dir: Path,
           claims_dir: Path, progress: bool = False, only: tuple[str, ...] = ()) -> dict:
    """Every class's sampled sites, mutated one at a time; outcomes per class and the misses.
    ``only``: these notes (names), else every note."""
    from verifiers.cache import VerdictCache

    notes = load_notes(notes_dir)
    if only:
        notes = {name: note for name, note in notes.items() if name in only}
    with profiles.default("ci"):  # the unedited run, as `notecheck check -j 2` (its cache)
        base = run(notes_dir, claims_dir, lambda c: c.note in notes,
                   cache=VerdictCache.default_folder(), jobs=2)
    claims, _ = load_claims(claims_dir, set(notes))
    spans: dict[str, dict[str, tuple[int, int]]] = {}  # note -> claim -> its quote's span
    for v in base.verdicts:
        if v.span is not None and v.note in notes:
            note = notes[v.note]
            spans.setdefault(v.note, {})[v.id] = (note.offset(*v.span[0]),
                                                  note.offset(*v.span[1]))
    baseline = {v.id: _key(v) for v in base.verdicts if not v.passed}
    false_alarms = sorted(f"{v.note}: {v.id} {v.status}" for v in base.verdicts if not v.passed)
    rows: dict[str, Counter] = {}
    listed: list[dict] = []
    for cls in classes:
        every = [s for name in sorted(notes) for s in sites(notes[name], cls, claims)]
        chosen = every
        if len(every) > per_class:
            chosen = sorted(random.Random(f"{seed}:{cls}").sample(every, per_class),
                            key=lambda s: (s.note, s.start))
        counts: Counter = Counter(total=len(every))
        for k, site in enumerate(chosen, 1):
            with profiles.default("ci"):
                what, detail = outcome(site, notes, claims, spans, baseline)
            counts[what] += 1
            if progress:
                print(f"[{cls} {k}/{len(chosen)}] {site.note}:{site.line}:{site.col} "
                      f"{site.old!r} → {site.new!r}: {what} {detail}", file=sys.stderr,
                      flush=True)
            if what != REAL:
                lo, hi = _line_span(notes[site.note].text, site.start)
                listed.append({"class": cls, "outcome": what, "note": site.note,
                               "line": site.line, "col": site.col, "old": site.old,
                               "new": site.new, "detail": detail,
                               "text": notes[site.note].text[lo:hi].strip()[:200]})
        rows[cls] = counts
    return {"rows": rows, "listed": listed, "false_alarms": false_alarms}


OUTCOME_ORDER = (REAL, STALE, ELSEWHERE, MISSED, UNTOUCHED)


def table(rows: dict[str, Counter]) -> str:
    """Per class: sites in the notes, mutations run, and each outcome's share."""
    return sites_table(rows, OUTCOME_ORDER, "class", 13, 22, cut=22)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutants",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=40, metavar="N",
                        help="mutations run per class at most (a seeded sample; default 40)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--class", dest="classes", choices=SITE_CLASSES, action="append",
                        help="only this class (repeatable)")
    parser.add_argument("--note", action="append", default=[],
                        help="only this note (a file name under notes/; repeatable)")
    parser.add_argument("--json", metavar="FILE", help="write the misses and stale-only "
                                                       "outcomes, and the counts, as JSON")
    parser.add_argument("--progress", action="store_true", help="one line per mutation")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = survey(args.per_class, args.seed, tuple(args.classes or SITE_CLASSES),
                    ROOT / "notes", ROOT / "claims", args.progress, tuple(args.note))
    print(table(result["rows"]))
    if result["false_alarms"]:
        print(f"false alarms on the unedited notes: {len(result['false_alarms'])}")
    print(f"run time: {time.perf_counter() - start:.0f} s")
    if args.json:
        data = {"counts": {cls: dict(c) for cls, c in result["rows"].items()},
                "false_alarms": result["false_alarms"], "not_real": result["listed"]}
        Path(args.json).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
