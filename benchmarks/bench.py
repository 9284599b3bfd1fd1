"""Benchmark and sensitivity figures for notecheck (printed, never asserted).

    python benchmarks/bench.py              # timings: import floor, cold `notecheck check`
    python benchmarks/bench.py --mutations  # also: one-digit edit of every covered value

Timings are wall-clock medians over a few runs of fresh processes, so they
include interpreter start-up, as a user or CI job sees them.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def wall(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def timings(repeat: int) -> None:
    floor = wall([sys.executable, "-c", "import mpmath, yaml"], repeat)
    check = wall([sys.executable, "-m", "verifiers", "check"], repeat)
    print(f"{'measure':<40}{'seconds':>10}{'x floor':>10}")
    print(f"{'import floor (python + mpmath + yaml)':<40}{floor:>10.3f}{1:>10.1f}")
    print(f"{'notecheck check (all claims, cold)':<40}{check:>10.3f}{check / floor:>10.1f}")


def by_kind() -> None:
    """In-process: evaluation time per claim kind (each kind alone, cold engine)."""
    sys.path.insert(0, str(ROOT))
    from verifiers.run import run

    for kind in ("arithmetic", "model", "symbolic"):
        start = time.perf_counter()
        result = run(ROOT / "notes", ROOT / "claims", lambda c, k=kind: c.kind == k)
        seconds = time.perf_counter() - start
        print(f"{'claims of kind ' + kind + f' ({len(result.verdicts)})':<40}{seconds:>10.3f}")


def mutations(sample: int | None) -> None:
    sys.path.insert(0, str(ROOT))
    from collections import Counter

    from verifiers.mutate import CAUGHT, survey

    start = time.perf_counter()
    results = survey(ROOT / "notes", ROOT / "claims", sample)
    seconds = time.perf_counter() - start
    counts = Counter(outcome for _, outcome in results)
    print(f"one-digit edits of covered values: {len(results)} in {seconds:.1f} s: "
          + ", ".join(f"{n} {what}" for what, n in sorted(counts.items())))
    for m, outcome in results:
        if outcome != CAUGHT:
            print(f"  {outcome}: notes/{m.note}:{m.line}:{m.col} {m.old}->{m.new} "
                  f"({m.claim_id} {m.hole})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--mutations", action="store_true", help="run the one-digit survey")
    parser.add_argument("--sample", type=int, help="only this many evenly spaced mutations")
    args = parser.parse_args()
    timings(args.repeat)
    by_kind()
    if args.mutations:
        mutations(args.sample)


if __name__ == "__main__":
    main()
