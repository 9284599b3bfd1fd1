"""The count-word survey (counts8, issue 12 items 4, 5, 7): every count word of the three notes
changed to its neighbour number; does the suite answer at the word's line?

Why: held-out rounds are a few edits each, and mechanisms built from one round's misses gained
nothing on the next. This survey is exhaustive over a class instead: every count word of class
``count`` that :mod:`verifiers.restate.countwords` finds (三个, 两类, 十二层, 二维, six; not
articles, idioms or ordinals), each changed to the number one above or one below (drawn with the
seed; ``--both``: both), written as a count word in the same style (三 -> 四 or 两). Edits are
sorted into two classes: ``items`` (the word has printed or enumerated items next to it:
:func:`verifiers.restate.counted.count_sites`, whether or not a claim was kept) and ``prose``
(everything else: 两个问题, 三个阶段, 两种情况 …). Not every such edit makes the note false
(two problems may be three), so the share measures how often a changed count word is judged.

Each edit runs the claims whose quote (on the unedited note) lies within :data:`NEAR` lines of
the edit, in process, and sorts their verdicts as the planted-error runner does
(:func:`benchmarks.planted.survey.classify`, against the same claims on the unedited notes):
real verdict at the edited line, stale only, elsewhere only, missed. ``--save-edits FILE``
writes the edits; ``--edits FILE --root DIR`` runs that same set on the code, claims and notes
of another checkout (``git archive main | tar -x -C DIR``): the before/after pair.

    python -m benchmarks.count_survey [--both] [--seed 20261202] [--save-edits F] [--progress]
    python -m benchmarks.count_survey --edits F --root /tmp/main   # the same edits, other code
    python -m benchmarks.count_survey --list
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks.outcome_tables import share_table

ROOT = Path(__file__).resolve().parents[1]
NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt")
NEAR = 3  # lines: a claim whose quote lies this close to the edit is run
SEED = 20261202
OUTCOMES = ("real", "stale", "elsewhere", "missed")


@dataclass(frozen=True)
class CountEdit:
    """One planted count word: ``old`` at ``offset`` of ``note`` replaced by ``new``."""

    id: str
    note: str
    offset: int
    line: int
    old: str
    new: str
    cls: str  # "items" or "prose"
    word: str  # the whole word and the step, 三个 +1


def planted(seed: int = SEED, both: bool = False, root: Path = ROOT) -> list[CountEdit]:
    """One edit per count word (``both``: two), in note order."""
    from verifiers.restate.counted import count_sites
    from verifiers.restate.countwords import COUNT, find_count_words, word_for_count

    rng = random.Random(seed)
    out = []
    for note in NOTES:
        text = (root / "notes" / note).read_text(encoding="utf-8")
        near = {s.word.start for s in count_sites(text)}
        for w in find_count_words(text):
            if w.cls != COUNT or w.value.denominator != 1:
                continue
            steps = [d for d in (1, -1) if w.value + d >= 1]
            if not both:
                steps = [rng.choice(steps)]
            for d in steps:
                new = word_for_count(w.text, w.value + d)
                if new is None or new == w.text:
                    continue
                line = text.count("\n", 0, w.start) + 1
                cls = "items" if w.start in near else "prose"
                out.append(CountEdit(f"{Path(note).stem[:4]}-{w.start}-{new}", note, w.start,
                                     line, w.text, new, cls, f"{w.word} {d:+d}"))
    return out


def survey(edits: list[CountEdit], root: Path = ROOT, progress: bool = False
           ) -> dict[str, dict[str, str]]:
    """{edit id: {"outcome", "detail"}}: each edit's near claims, in process."""
    from benchmarks.planted.survey import Edit, _key, classify, quote_lines
    from verifiers import profiles
    from verifiers.engine import Engine
    from verifiers.notes import Note
    from verifiers.run import load_claims, load_notes

    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    spans = quote_lines(notes, claims)
    near = {e.id: {cid for a, b, cid in spans.get(e.note, [])
                   if a - NEAR <= e.line <= b + NEAR} for e in edits}
    out: dict[str, dict[str, str]] = {}
    start = time.perf_counter()
    with profiles.default("ci"):
        engine = Engine(notes, claims)
        wanted = sorted(set().union(*near.values())) if near else []
        baseline = {v.id: _key(v) for v in (engine.verdict(cid) for cid in wanted)
                    if not v.passed}
        for k, e in enumerate(edits, 1):
            text = notes[e.note].text
            assert text[e.offset:e.offset + len(e.old)] == e.old, e.id
            edited = text[:e.offset] + e.new + text[e.offset + len(e.old):]
            changed = dict(notes)
            old = notes[e.note]
            changed[e.note] = Note(old.path, edited, old.name)
            ids = sorted(near[e.id])
            verdicts = [Engine(changed, claims).verdict(cid) for cid in ids] if ids else []
            fake = Edit(e.id, "inconsistent-restatement", e.note, e.old, e.new, "count survey")
            o = classify(fake, {e.line}, verdicts, baseline)
            out[e.id] = {"outcome": o.outcome, "detail": o.detail}
            if progress:
                print(f"[{k}/{len(edits)} {time.perf_counter() - start:.0f}s] {e.id} "
                      f"{e.old}->{e.new}: {o.outcome} {o.detail}", file=sys.stderr, flush=True)
    return out


def table(edits: list[CountEdit], outcomes: dict[str, dict[str, str]]) -> str:
    """Per class: edits, real at line, stale only, elsewhere, missed, share real."""
    by: dict[str, Counter] = {}
    for e in edits:
        by.setdefault(e.cls, Counter())[outcomes[e.id]["outcome"]] += 1
    return share_table(by, OUTCOMES, 10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.count_survey",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--both", action="store_true", help="+1 and -1 for every word")
    parser.add_argument("--list", action="store_true", help="list the edits, run nothing")
    parser.add_argument("--save-edits", metavar="FILE")
    parser.add_argument("--edits", metavar="FILE", help="run the edits of a --save-edits file")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout whose code, claims and notes run the edits")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    sys.path.insert(0, str(root))  # its verifiers and benchmarks, before this checkout's
    if args.edits:
        edits = [CountEdit(**e) for e in json.loads(Path(args.edits).read_text("utf-8"))]
    else:
        edits = planted(args.seed, args.both, root)
    if args.save_edits:
        Path(args.save_edits).write_text(json.dumps([asdict(e) for e in edits],
                                                    ensure_ascii=False, indent=0) + "\n",
                                         encoding="utf-8")
    import verifiers

    print(f"count-word edits: {len(edits)} (seed {args.seed}; claims and notes: {root}; "
          f"code: {Path(verifiers.__file__).parent.parent})")
    if args.list:
        for e in edits:
            print(f"  {e.id}  {e.note}:{e.line} {e.old} -> {e.new} ({e.cls}, {e.word})")
        return 0
    outcomes = survey(edits, root, args.progress)
    print(table(edits, outcomes))
    for e in edits:
        if outcomes[e.id]["outcome"] != "real" and e.cls == "items":
            print(f"  {e.note}:{e.line} {e.old} -> {e.new} ({e.cls}): "
                  f"{outcomes[e.id]['outcome']} {outcomes[e.id]['detail']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"seed": args.seed, "edits": [{**asdict(e), **outcomes[e.id]} for e in edits]},
            ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
