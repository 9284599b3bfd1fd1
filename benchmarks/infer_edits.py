"""python -m benchmarks.infer_edits: can the claims inference writes FAIL? An edit survey.

Inferred claims that only ever verify prove nothing. For every note of the held-out corpus
that may be looked at (``benchmarks/heldout``, without the round-5 note ``lora-int8.md``,
which stays blind) and the invented notes of ``benchmarks/invented``, this infers claims
into an empty claims folder (as ``notecheck scaffold --infer`` does), then changes the last
digit of each literal an inferred claim covers (``verifiers/mutate.py``'s number sites, one
at a time) and re-runs the claims that quote the edited line, exactly as
``benchmarks.mutants`` does (``benchmarks/planted/survey.py`` ``classify``). The figure is,
per inferred class (the family that proposed the covering claim), the share of edited
literals that get a real verdict (discrepancy/unparsed/error) **at the edited line**; it
should be near 100%. A covered literal is sampled per note with ``--per-note`` and ``--seed``
(the same sample on every run). A digit edit of an input the note only reads (``x_1 = 2`` of
a sum) is a real error too: the checked result then disagrees, maybe on another line.

    python -m benchmarks.infer_edits [--per-note N] [--seed S] [--note NAME] [--misses]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

from benchmarks.mutants import OUTCOME_ORDER, outcome
from benchmarks.planted.survey import REAL, _key
from verifiers.coverage.literals import COVERED, _claim_spans, coverage
from verifiers.coverage.strength import Strengths
from verifiers.infer import infer
from verifiers.infer.write import write_inferred
from verifiers.mutate import NUMBER, sites
from verifiers.run import load_claims, run

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "benchmarks" / "heldout"
INVENTED = ROOT / "benchmarks" / "invented"
BLIND = {"lora-int8.md"}  # the latest round: run as a number elsewhere, never surveyed here


def _notes(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".md", ".txt")
                  and p.name not in BLIND and p.name != "README.md")


def survey_note(path: Path, per_note: int, seed: int) -> tuple[dict[str, Counter], list[str]]:
    """Outcome counts per inferred class for one note, and a line per edit not real."""
    with tempfile.TemporaryDirectory(prefix="notecheck-infer-edits-") as tmp:
        notes_dir, claims_dir = Path(tmp) / "notes", Path(tmp) / "claims"
        notes_dir.mkdir()
        claims_dir.mkdir()
        shutil.copy(path, notes_dir / path.name)
        found = infer(run(notes_dir, claims_dir), path.name)
        family = {c.id: c.family for c in found.claims}
        write_inferred(claims_dir, path.name, found.entries())
        base = run(notes_dir, claims_dir)
        note = base.notes[path.name]
        cov = next(c for c in coverage(base)[0] if c.note == path.name)
        strengths = Strengths({c.id: c for c in base.claims})
        owner: dict[int, str] = {}
        for span in sorted(_claim_spans(base, note, path.name, strengths),
                           key=lambda s: (s.start, s.end, s.claim)):
            for lit in note.literals_in(span.start, span.end):  # a checking claim wins
                if owner.get(lit.start, "definition") == "definition":
                    owner[lit.start] = family.get(span.claim, "definition")
        covered = {lit.start: lit for lit in cov.literals if cov.status[lit.start] == COVERED}
        claims, _ = load_claims(claims_dir, {path.name})
        chosen = [s for s in sites(note, NUMBER) if any(
            lit.start <= s.start < lit.start + len(lit.text) for lit in covered.values())]
        if len(chosen) > per_note:
            chosen = sorted(random.Random(f"{seed}:{path.name}").sample(chosen, per_note),
                            key=lambda s: s.start)
        spans: dict[str, dict[str, tuple[int, int]]] = {path.name: {}}
        for v in base.verdicts:
            if v.span is not None:
                spans[path.name][v.id] = (note.offset(*v.span[0]), note.offset(*v.span[1]))
        baseline = {v.id: _key(v) for v in base.verdicts if not v.passed}
        rows: dict[str, Counter] = {}
        misses = []
        for site in chosen:
            lit = next(x for x in covered.values()
                       if x.start <= site.start < x.start + len(x.text))
            cls = owner.get(lit.start, "?")
            what, detail = outcome(site, base.notes, claims, spans, baseline)
            rows.setdefault(cls, Counter())[what] += 1
            if what != REAL:
                misses.append(f"{path.name}:{site.line}:{site.col} [{cls}] {site.old!r} → "
                              f"{site.new!r}: {what} {detail}")
        false_alarms = sum(not v.passed for v in base.verdicts)
        if false_alarms:
            misses.append(f"{path.name}: {false_alarms} FALSE ALARMS on the unedited note")
        return rows, misses


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.infer_edits",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--per-note", type=int, default=30, metavar="N",
                        help="edited literals per note at most (a seeded sample; default 30)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--note", action="append", default=[], help="only this note (name)")
    parser.add_argument("--misses", action="store_true", help="list every edit not real")
    args = parser.parse_args(argv)
    paths = [p for folder in (HELDOUT, INVENTED) if folder.is_dir() for p in _notes(folder)
             if not args.note or p.name in args.note]
    total: dict[str, Counter] = {}
    all_misses: list[str] = []
    for path in paths:
        rows, misses = survey_note(path, args.per_note, args.seed)
        real = sum(c[REAL] for c in rows.values())
        n = sum(sum(c[o] for o in OUTCOME_ORDER) for c in rows.values())
        print(f"  {path.name:34} {real:4} / {n:<4} real at the line", flush=True)
        for cls, c in rows.items():
            total.setdefault(cls, Counter()).update(c)
        all_misses += misses
    print(f"\n{'inferred class':<16} {'edits':>5}  " + "  ".join(f"{o:>12}" for o in
                                                               OUTCOME_ORDER))
    for cls, c in sorted(total.items()):
        n = sum(c[o] for o in OUTCOME_ORDER)
        print(f"{cls:<16} {n:>5}  " + "  ".join(
            f"{c[o]:>4} {100 * c[o] / n:5.1f}%" for o in OUTCOME_ORDER))
    n = sum(sum(c[o] for o in OUTCOME_ORDER) for c in total.values())
    real = sum(c[REAL] for c in total.values())
    print(f"{'all':<16} {n:>5}  real at the line {real} ({100 * real / max(n, 1):.1f}%)")
    if args.misses:
        print("\n".join(all_misses))
    return 1 if any("FALSE ALARMS" in m for m in all_misses) else 0


if __name__ == "__main__":
    sys.exit(main())
