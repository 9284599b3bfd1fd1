"""python -m benchmarks.planted.sample [--seed S] [--n N]: lines for a fresh held-out corpus.

Why: a corpus written after seeing the tool's weaknesses over-counts what it catches. The
author of a held-out corpus draws the lines to edit by a seeded random choice over the notes'
lines that hold a number, a formula or a law word, away (±2 lines) from every line the
existing corpus edits, so the easy lines are not picked by hand.
"""

from __future__ import annotations

import argparse
import random
import re
import sys

from benchmarks.planted.survey import ROOT, load_corpus

CUES = re.compile(r"[0-9]|[=≈∝√Σ∑·×÷^_]|\\[a-z]+|总是|一定|不变|等价|保证|必要|充分|越|成正比|"
                  r"always|never|invariant|iff|proportional|万|亿|%")


def touched() -> dict[str, set[int]]:
    """Lines (±2) that the existing corpus edits, per note of ``notes/`` (the corpora over
    new notes, ``notes:`` another folder, edit other files)."""
    near: dict[str, set[int]] = {}
    for edit in load_corpus():
        if edit.notes_dir:
            continue
        text = (ROOT / "notes" / edit.note).read_bytes().decode("utf-8")
        _, lines = edit.apply(text)
        near.setdefault(edit.note, set()).update(
            n + d for n in lines for d in range(-2, 3))
    return near


def candidates() -> list[tuple[str, int, str]]:
    near = touched()
    out = []
    for path in sorted((ROOT / "notes").glob("*.txt")):
        lines = path.read_bytes().decode("utf-8").split("\n")
        for i, line in enumerate(lines, 1):
            if line.strip() and CUES.search(line) and i not in near.get(path.name, set()):
                out.append((path.name, i, line))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--n", type=int, default=240)
    args = parser.parse_args(argv)
    pool = candidates()
    pick = sorted(random.Random(args.seed).sample(pool, min(args.n, len(pool))))
    for note, n, line in pick:
        print(f"{note}:{n}: {line.strip()[:160]}")
    print(f"{len(pick)} of {len(pool)} candidate lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
