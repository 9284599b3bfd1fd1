"""Benchmark and sensitivity figures for notecheck (printed, never asserted).

    python benchmarks/bench.py              # the table: floor, cold, warm, --changed-since, kinds
    python benchmarks/bench.py --scale 10,100  # + a synthetic corpus of 10x and 100x the claims
    python benchmarks/bench.py --mutations  # + one-digit edit of every covered value

Timings are wall-clock medians over fresh processes, so they include
interpreter start-up, as a user or CI job sees them; peak memory is the child's
maximum resident set. The import floor is a Python process that only imports
the libraries the engine uses (mpmath, PyYAML, SymPy, torch, Hypothesis, NumPy).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = "import mpmath, yaml, sympy, torch, hypothesis, numpy"


def wall(command: list[str], repeat: int, cwd: Path = ROOT, setup=None) -> tuple[float, float]:
    """(median seconds, peak MB) of ``command`` run ``repeat`` times in fresh processes."""
    times, peak = [], 0.0
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0
        times.append(time.perf_counter() - start)
        peak = max(peak, usage.ru_maxrss / 1024)  # kB on Linux
    return statistics.median(times), peak


def row(label: str, seconds: float, floor: float, mb: float | None = None) -> None:
    memory = f"{mb:>10.0f}" if mb is not None else f"{'':>10}"
    print(f"{label:<52}{seconds:>9.2f}{seconds / floor:>9.1f}{memory}")


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def timings(repeat: int) -> None:
    check = [sys.executable, "-m", "verifiers.cli", "check"]
    print(f"{'measure':<52}{'seconds':>9}{'x floor':>9}{'peak MB':>10}")
    floor, floor_mb = wall([sys.executable, "-c", FLOOR], max(repeat, 3))
    row("import floor (mpmath yaml sympy torch hypothesis numpy)", floor, floor, floor_mb)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for folder in ("notes", "claims"):
            shutil.copytree(ROOT / folder, work / folder)
        cache = work / ".notecheck-cache"
        os.environ["NOTECHECK_CACHE"] = str(cache)  # a cache of this benchmark's own
        env_check = [*check]
        cold, cold_mb = wall([*env_check, "--no-cache"], repeat, work)
        row("notecheck check, cold (no cache)", cold, floor, cold_mb)
        wall(env_check, 1, work)  # fill the cache
        warm, warm_mb = wall(env_check, repeat, work)
        row("notecheck check, warm re-run (cache)", warm, floor, warm_mb)
        git(work, "init", "-q")
        git(work, "add", "-A")
        git(work, "commit", "-qm", "base")
        note = work / "notes" / "matrix-by-matrix.txt"
        original = note.read_text(encoding="utf-8")
        edited = original.replace("= 1.975", "= 1.976", 1)

        def edit() -> None:
            note.write_text(edited, encoding="utf-8")

        changed, changed_mb = wall([*env_check, "--changed-since", "HEAD"], repeat, work, edit)
        row("--changed-since HEAD after a one-line edit (cache)", changed, floor, changed_mb)
        shutil.rmtree(cache, ignore_errors=True)
        note.write_text(original, encoding="utf-8")
        changed_cold, _ = wall([*env_check, "--changed-since", "HEAD", "--no-cache"], repeat,
                               work, edit)
        row("--changed-since HEAD after a one-line edit (no cache)", changed_cold, floor)


def by_kind() -> None:
    """In-process: evaluation time per claim kind (each kind alone, cold engine)."""
    sys.path.insert(0, str(ROOT))
    from verifiers.run import run

    shares = {}
    for kind in ("arithmetic", "model", "symbolic", "property"):
        start = time.perf_counter()
        result = run(ROOT / "notes", ROOT / "claims", lambda c, k=kind: c.kind == k)
        shares[kind] = (time.perf_counter() - start, len(result.verdicts))
    total = sum(s for s, _ in shares.values())
    print(f"\n{'claims of kind (in-process, imports included)':<52}{'seconds':>9}{'share':>9}"
          f"{'claims':>10}")
    for kind, (seconds, n) in shares.items():
        print(f"{kind:<52}{seconds:>9.2f}{seconds / total:>9.0%}{n:>10}")


def scale(factors: list[int]) -> None:
    """A synthetic corpus of ``factor`` x the claims: time and memory should grow linearly."""
    from benchmarks.synthetic import write_corpus

    print(f"\n{'synthetic corpus (arithmetic)':<32}{'claims':>8}{'seconds':>9}{'ms/claim':>10}"
          f"{'peak MB':>9}{'MB/1000':>9}")
    for factor in factors:
        with tempfile.TemporaryDirectory() as tmp:
            n = write_corpus(Path(tmp), factor)
            seconds, mb = wall([sys.executable, "-m", "verifiers.cli", "check", "--no-cache"], 1,
                               Path(tmp))
            print(f"{f'{factor}x':<32}{n:>8}{seconds:>9.2f}{seconds / n * 1000:>10.2f}"
                  f"{mb:>9.0f}{mb / n * 1000:>9.1f}")


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
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", help="synthetic corpus factors, e.g. 10,100")
    parser.add_argument("--mutations", action="store_true", help="run the one-digit survey")
    parser.add_argument("--sample", type=int, help="only this many evenly spaced mutations")
    args = parser.parse_args()
    timings(args.repeat)
    if args.scale:  # before anything is imported here: a child's peak counts its fork
        sys.path.insert(0, str(ROOT))
        scale([int(f) for f in args.scale.split(",")])
    by_kind()
    if args.mutations:
        mutations(args.sample)


if __name__ == "__main__":
    main()
