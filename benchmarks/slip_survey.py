"""Slip survey: every given vector/matrix entry swapped with a neighbour (issue 12 item 7).

    python -m benchmarks.slip_survey                      # every swap, all notes
    python -m benchmarks.slip_survey --every 4 --progress # every 4th swap (a fixed subset)
    python -m benchmarks.slip_survey --list               # only list the edits

A value the claims take as given (an input hole, no ``check``) printed as a vector or a
matrix gets one edit per pair of neighbouring entries (the next one in its row, the one
below in its column) whose texts differ: the two texts swapped, as an author's hand slips.
Each edit is run by the planted-error runner (:mod:`benchmarks.planted.survey`: the edited
note's claims, in process, against the unedited notes' verdicts) and sorted into its
outcomes; "real verdict at line" means a real verdict on a line of the given. A swap that
nothing downstream reads cannot be caught and shows as missed. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.planted.survey import CorpusError, Edit, survey, table  # noqa: E402
from verifiers.arithmetic.edits import number_spans  # noqa: E402
from verifiers.engine import Engine  # noqa: E402
from verifiers.holes import ResolveError, read_value  # noqa: E402
from verifiers.run import load_claims, load_notes  # noqa: E402
from verifiers.verdicts import GIVEN  # noqa: E402

KINDS = ("arithmetic", "given", "model")


def swaps(notes_dir: Path = ROOT / "notes", claims_dir: Path = ROOT / "claims") -> list[Edit]:
    """One edit per neighbouring pair of differing entries of every given vector/matrix, in
    note order (deterministic)."""
    notes = load_notes(notes_dir)
    claims, _ = load_claims(claims_dir, set(notes))
    engine = Engine(notes, claims)
    seen: set[tuple[str, int, int]] = set()
    out: list[Edit] = []
    for c in sorted(claims, key=lambda c: c.id):
        if c.kind not in KINDS:
            continue
        v = engine.verdict(c.id)
        note = notes.get(v.note)
        if note is None or v.span is None:
            continue
        for x in v.values:
            if x.status != GIVEN:
                continue
            try:
                start, end = note.offset(*x.start), note.offset(*x.end)
                printed = read_value(note.text[start:end], start)
            except (ValueError, ResolveError):
                continue
            spans = number_spans(printed)
            n = len(printed.numbers)
            if n < 2 or len(spans) != n or (v.note, start, end) in seen:
                continue
            seen.add((v.note, start, end))
            cols = printed.shape[1] if len(printed.shape) == 2 else n
            hole = note.text[start:end]
            line = note.text.count("\n", 0, start) + 1
            for i in range(n):
                for j in (i + 1 if (i + 1) % cols else None, i + cols):
                    if j is None or j >= n:
                        continue
                    a, b = spans[i], spans[j]
                    ta, tb = note.text[a[0]:a[1]], note.text[b[0]:b[1]]
                    if ta.strip() == tb.strip():
                        continue
                    new = (hole[:a[0] - start] + tb + hole[a[1] - start:b[0] - start] + ta
                           + hole[b[1] - start:])
                    edit = Edit(f"sw-{c.id}-{x.name}-{i}-{j}", "copied-entries", v.note,
                                hole, new, f"entries {i} and {j} of the given {x.name} "
                                "swapped", line=line)
                    try:
                        edit.offset(note.text)
                    except CorpusError:  # the hole's text is printed twice on its line
                        continue
                    out.append(edit)
    return sorted(out, key=lambda e: (e.note, e.line or 0, e.id))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.slip_survey",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=1, help="only every Nth swap")
    parser.add_argument("--id", action="append", help="only this edit (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the edits, run nothing")
    parser.add_argument("--progress", action="store_true", help="one line per edit on stderr")
    args = parser.parse_args(argv)
    edits = [e for e in swaps() if e.id in args.id] if args.id else swaps()[::max(1, args.every)]
    if args.list:
        for e in edits:
            print(f"{e.note}:{e.line} {e.id}: {e.find!r} -> {e.replace!r}")
        print(f"{len(edits)} edits")
        return 0

    def progress(i, n, outcome):
        print(f"[{i}/{n}] {outcome.edit.id}: {outcome.outcome} {outcome.detail}",
              file=sys.stderr, flush=True)

    result = survey(edits, progress=progress if args.progress else None)
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
