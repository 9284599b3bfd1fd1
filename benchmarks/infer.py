"""How much of a note ``notecheck scaffold --infer`` covers, on notes it has not seen.

    python -m benchmarks.infer [--verbose]

``--verbose`` also lists, per note, every line whose literals stay uncovered.

Two measurements, each on a copy of the notes with an *empty* claims folder, so
every number starts uncovered and only inferred claims cover anything:

* the held-out fixtures ``tests/fixtures/infer/notes`` (written before the tool
  ran on them; ``PLANTED.md`` lists their planted errors);
* the held-out notes ``benchmarks/heldout`` (Markdown and plain-text study notes written
  by hand before the tool ever ran on them; inference is never tuned to their wording);
* the same held-out notes with errors planted (``benchmarks/heldout/planted``, same
  file names; the planted lines are the lines that differ from the clean copy): a
  planted error is *caught* when inference on the planted copy pins a value on that
  line, and separately when the claims inferred from the clean copy, run against the
  planted copy, report a discrepancy on that line (a release catching an author's edit);
* the project's three real notes with all their claims removed -- the closest to
  a held-out measurement on real notes. Pins there are compared with the
  hand-written arithmetic claims' own discrepancies at the same place.

Per note: literals (coverage's count), covered by inferred claims (the
project's coverage definition, after writing ``90-inferred.yaml``), inferred
claims, false alarms (inferred claims that do not pass ``check``: must be 0),
and the values pinned as "inferred; review".
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from verifiers.coverage.literals import COVERED, coverage
from verifiers.infer import infer
from verifiers.infer.evaluate import REVIEW
from verifiers.infer.write import write_inferred
from verifiers.run import run
from verifiers.verdicts import DISCREPANCY, KNOWN

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "infer" / "notes"
HELDOUT = ROOT / "benchmarks" / "heldout"
#: The planted errors of PLANTED.md: (note, printed text of the wrong value).
PLANTED = {("attention-mini.txt", "[[0.5, 4], [1.5, 9]]"), ("attention-mini.txt", "1.78")}


def measure(notes_src: Path, verbose: bool = False) -> tuple[list[dict[str, object]],
                                                             set[tuple[str, str, int]]]:
    """Infer on a copy of ``notes_src`` with no claims; one row per note, and the pins
    (``verbose``: print each line whose literals stay uncovered, to find the next rule)."""
    with tempfile.TemporaryDirectory(prefix="notecheck-infer-bench-") as tmp:
        notes, claims = Path(tmp) / "notes", Path(tmp) / "claims"
        shutil.copytree(notes_src, notes, ignore=shutil.ignore_patterns("README.md", "planted"))
        claims.mkdir()
        names = sorted(run(notes, claims).notes)
        for name in names:  # one note at a time, as the command does
            write_inferred(claims, name, infer(run(notes, claims), name).entries())
        result = run(notes, claims)
        covs, _ = coverage(result)
        rows, pins = [], set()
        for cov in covs:
            verdicts = [v for v in result.verdicts if v.note == cov.note]
            pinned = [(v.note, x.printed, x.start[0]) for v in verdicts for x in v.values
                      if x.status == KNOWN and REVIEW in x.message]
            pins.update(pinned)
            rows.append({"note": cov.note, "literals": len(cov.literals),
                         "covered": cov.count(COVERED), "claims": len(verdicts),
                         "false_alarms": sum(not v.passed for v in verdicts),
                         "pinned": len(pinned)})
            if verbose:
                _print_uncovered(result.notes[cov.note].text, cov.note,
                                 [lit.start for lit in cov.uncovered])
        return rows, pins


def _print_uncovered(text: str, name: str, starts: list[int]) -> None:
    """``note:line: k uncovered | the line``, one row per line holding uncovered literals."""
    per_line: dict[int, int] = {}
    for start in starts:
        line = text.count("\n", 0, start) + 1
        per_line[line] = per_line.get(line, 0) + 1
    lines = text.split("\n")
    for line, count in sorted(per_line.items()):
        print(f"    {name}:{line}: {count:3} | {lines[line - 1].strip()[:150]}")


def _infer_into(notes: Path, claims: Path) -> None:
    """Write every note's inferred claims into the (empty) ``claims`` folder."""
    for name in sorted(run(notes, claims).notes):
        write_inferred(claims, name, infer(run(notes, claims), name).entries())


def planted_lines(clean: Path, planted: Path) -> dict[str, set[int]]:
    """Per planted note: the 1-based lines that differ from its clean copy."""
    out = {}
    for path in sorted(planted.iterdir()):
        if path.suffix in (".md", ".txt") and path.name != "PLANTED.md":
            a = (clean / path.name).read_text(encoding="utf-8").split("\n")
            b = path.read_text(encoding="utf-8").split("\n")
            out[path.name] = {k + 1 for k, (x, y) in enumerate(zip(a, b, strict=True)) if x != y}
    return out


def measure_planted(clean: Path, planted: Path) -> dict[str, tuple[set[int], set[int], set[int]]]:
    """Per note: (planted lines, lines pinned by inference on the planted copy, lines where
    the clean copy's inferred claims report a discrepancy on the planted copy)."""
    lines = planted_lines(clean, planted)
    out = {}
    with tempfile.TemporaryDirectory(prefix="notecheck-infer-planted-") as tmp:
        for name, where in lines.items():
            base = Path(tmp) / Path(name).stem
            for sub in ("clean", "planted", "c1", "c2"):
                (base / sub).mkdir(parents=True)
            shutil.copy(clean / name, base / "clean" / name)
            shutil.copy(planted / name, base / "planted" / name)
            _infer_into(base / "planted", base / "c1")
            pins = {x.start[0] for v in run(base / "planted", base / "c1").verdicts
                    for x in v.values if x.status == KNOWN and REVIEW in x.message}
            _infer_into(base / "clean", base / "c2")
            flags = {x.start[0] for v in run(base / "planted", base / "c2").verdicts
                     for x in v.values if x.status == DISCREPANCY}
            out[name] = (where, pins, flags)
    return out


def planted_table(found: dict[str, tuple[set[int], set[int], set[int]]]) -> None:
    print("\nplanted errors in the held-out notes (benchmarks/heldout/planted)")
    print(f"  {'note':34} {'planted':>7} {'pinned':>6} {'other':>5} {'claims':>6} {'other':>5}")
    for name, (where, pins, flags) in found.items():
        print(f"  {name:34} {len(where):7} {len(where & pins):6} {len(pins - where):5} "
              f"{len(where & flags):6} {len(flags - where):5}")
    total = sum(len(w) for w, _, _ in found.values())
    print(f"  caught at the line: {sum(len(w & p) for w, p, _ in found.values())} of {total} "
          f"pinned by inference on the planted copy; "
          f"{sum(len(w & f) for w, _, f in found.values())} of {total} by the clean copy's "
          "inferred claims")


def hand_written_flags() -> set[tuple[str, int]]:
    """(note, line) of every value the project's arithmetic claims pin or flag."""
    result = run(ROOT / "notes", ROOT / "claims", select=lambda c: c.kind == "arithmetic")
    return {(v.note, x.start[0]) for v in result.verdicts for x in v.values
            if x.status in (KNOWN, DISCREPANCY)}


def table(title: str, rows: list[dict[str, object]]) -> None:
    print(f"\n{title}")
    print(f"  {'note':34} {'literals':>8} {'covered':>8} {'share':>6} {'claims':>6} "
          f"{'false':>5} {'pinned':>6}")
    total_l = total_c = 0
    for r in rows:
        lits, cov = int(r["literals"]), int(r["covered"])  # type: ignore[call-overload]
        total_l, total_c = total_l + lits, total_c + cov
        print(f"  {r['note']:34} {lits:8} {cov:8} {cov / max(lits, 1):6.1%} {r['claims']:6} "
              f"{r['false_alarms']:5} {r['pinned']:6}")
    print(f"  {'all':34} {total_l:8} {total_c:8} {total_c / max(total_l, 1):6.1%}")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    verbose = "--verbose" in args
    rows, pins = measure(FIXTURES)
    table("held-out fixtures (tests/fixtures/infer/notes, no claims)", rows)
    found = {(n, p) for n, p, _ in pins}
    print(f"  planted errors pinned as \"{REVIEW}\": {len(PLANTED & found)} of {len(PLANTED)}; "
          f"other pins: {len(found - PLANTED)}")
    rows, pins = measure(HELDOUT, verbose)
    table("held-out notes (benchmarks/heldout, no claims)", rows)
    for note, printed, line in sorted(pins):
        print(f"    pinned {note}:{line}: {printed}")
    held_false = sum(int(r["false_alarms"]) for r in rows)  # type: ignore[call-overload]
    planted_table(measure_planted(HELDOUT, HELDOUT / "planted"))
    rows, pins = measure(ROOT / "notes", verbose)
    table("the three real notes, all claims removed (--claims an empty folder)", rows)
    flagged = hand_written_flags()
    confirmed = sorted(p for p in pins if (p[0], p[2]) in flagged)
    print(f"  pins: {len(pins)}, at a line the hand-written claims also pin: {len(confirmed)}")
    for note, printed, line in sorted(pins):
        mark = "confirmed" if (note, line) in flagged else "REVIEW"
        print(f"    {note}:{line}: {printed} ({mark})")
    false_alarms = sum(int(r["false_alarms"]) for r in rows)  # type: ignore[call-overload]
    return 1 if false_alarms or held_false else 0


if __name__ == "__main__":
    sys.exit(main())
