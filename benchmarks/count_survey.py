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

Each edit is run by the law-word survey's runner (:func:`benchmarks.lawwords.survey`: the claims
whose quote lies within 3 lines of the edit, against the unedited notes' verdicts; cached by a
fingerprint of the code, claims and notes). ``--save-edits FILE`` writes the edits so that
``python -m benchmarks.lawwords --edits FILE`` runs the same set on other code (before/after).

    python -m benchmarks.count_survey [--both] [--seed 20261202] [--save-edits F] [--progress]
    python -m benchmarks.count_survey --list
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.lawwords import NOTES, WordEdit, survey, table  # noqa: E402
from verifiers.restate.counted import count_sites  # noqa: E402
from verifiers.restate.countwords import COUNT, find_count_words, word_for_count  # noqa: E402

SEED = 20261202


def planted(seed: int = SEED, both: bool = False) -> list[WordEdit]:
    """One edit per count word (``both``: two), in note order."""
    rng = random.Random(seed)
    out = []
    for note in NOTES:
        text = (ROOT / "notes" / note).read_text(encoding="utf-8")
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
                out.append(WordEdit(f"{Path(note).stem[:4]}-{w.start}-{new}", note, w.start,
                                    line, w.text, new, cls, f"{w.word} {d:+d}"))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.count_survey",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--both", action="store_true", help="+1 and -1 for every word")
    parser.add_argument("--list", action="store_true", help="list the edits, run nothing")
    parser.add_argument("--save-edits", metavar="FILE")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    edits = planted(args.seed, args.both)
    if args.save_edits:
        Path(args.save_edits).write_text(json.dumps([e.__dict__ for e in edits],
                                                    ensure_ascii=False, indent=0) + "\n",
                                         encoding="utf-8")
    print(f"count-word edits: {len(edits)} (seed {args.seed})")
    if args.list:
        for e in edits:
            print(f"  {e.id}  {e.note}:{e.line} {e.old} -> {e.new} ({e.cls}, {e.meaning})")
        return 0
    outcomes = survey(edits, progress=args.progress)
    print(table(edits, outcomes))
    for e in edits:
        if outcomes[e.id]["outcome"] != "real" and e.cls == "items":
            print(f"  {e.note}:{e.line} {e.old} -> {e.new} ({e.cls}): "
                  f"{outcomes[e.id]['outcome']} {outcomes[e.id]['detail']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"seed": args.seed, "edits": [{**e.__dict__, **outcomes[e.id]} for e in edits]},
            ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0



if __name__ == "__main__":
    sys.exit(main())
