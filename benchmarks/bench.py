"""Benchmark and sensitivity figures for notecheck (printed, never asserted).

    python benchmarks/bench.py              # floor, cold, warm, PR, --changed-since, kinds
    python benchmarks/bench.py --scale      # + one large note at 1x, 2x, 5x, 10x (10x = ten times
                                            #   the largest note), time and memory fitted to a line
    python benchmarks/bench.py --corpus 10,100  # + a synthetic corpus of 10x and 100x the claims
    python benchmarks/bench.py --mutations  # + one-digit edit of every covered value
    python benchmarks/bench.py --skip-timings --tests   # the floor and the README's test command

Every figure is printed as a ratio to the import floor measured in the same run (a
Python process that only imports the libraries the engine uses), so a busy machine
moves the seconds but much less the ratios. Each row gives wall seconds (median over
fresh processes, interpreter start-up included, as a user or CI job sees them), CPU
seconds (user + system of the process and its children: what the work costs whatever
the load) and the peak resident set.
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


def wall(command: list[str], repeat: int, cwd: Path = ROOT,
         setup=None) -> tuple[float, float, float]:
    """(median wall seconds, median CPU seconds, peak MB) of ``command`` run ``repeat``
    times in fresh processes (CPU: user + system, children included)."""
    times, cpus, peak = [], [], 0.0
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0
        times.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
        peak = max(peak, usage.ru_maxrss / 1024)  # kB on Linux
    return statistics.median(times), statistics.median(cpus), peak


FLOOR_WALL = FLOOR_CPU = 1.0  # set by timings(): every row is a ratio to these


def row(label: str, measured: tuple[float, float, float] | None = None) -> None:
    if measured is None:
        print(f"{label:<52}{'wall s':>8}{'x floor':>8}{'CPU s':>8}{'x floor':>8}{'peak MB':>9}")
        return
    seconds, cpu, mb = measured
    print(f"{label:<52}{seconds:>8.2f}{seconds / FLOOR_WALL:>8.1f}{cpu:>8.2f}"
          f"{cpu / FLOOR_CPU:>8.1f}{mb:>9.0f}")


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def timings(repeat: int) -> None:
    global FLOOR_WALL, FLOOR_CPU
    check = [sys.executable, "-m", "verifiers.cli", "check"]
    row("measure")
    floor = wall([sys.executable, "-c", FLOOR], max(repeat, 3))
    FLOOR_WALL, FLOOR_CPU = floor[0], floor[1]
    row("import floor (mpmath yaml sympy torch hypothesis numpy)", floor)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for folder in ("notes", "claims"):
            shutil.copytree(ROOT / folder, work / folder)
        cache = work / ".notecheck-cache"
        saved = work / ".saved-cache"
        os.environ["NOTECHECK_CACHE"] = str(cache)  # a cache of this benchmark's own
        row("notecheck check, cold (no cache, -j 2)", wall([*check, "--no-cache"], repeat, work))
        row("notecheck check, cold, one process (-j 1)",
            wall([*check, "--no-cache", "-j", "1"], 1, work))
        wall(check, 1, work)  # fill the cache: what CI's actions/cache restores
        shutil.copytree(cache, saved)
        row("notecheck check, warm re-run (cache)", wall(check, repeat, work))
        git(work, "init", "-q")
        git(work, "add", "-A")
        git(work, "commit", "-qm", "base")
        note = work / "notes" / "matrix-by-matrix.txt"
        original = note.read_text(encoding="utf-8")
        edited = original.replace("= 1.975", "= 1.976", 1)

        def pull_request() -> None:  # CI: the base's cache restored, one note edited
            shutil.rmtree(cache, ignore_errors=True)
            shutil.copytree(saved, cache)
            note.write_text(edited, encoding="utf-8")

        row("CI: a PR that edits one note, cache restored", wall(check, repeat, work,
                                                                 pull_request))
        row("--changed-since HEAD after a one-line edit (cache)",
            wall([*check, "--changed-since", "HEAD"], repeat, work, pull_request))
        shutil.rmtree(cache, ignore_errors=True)
        note.write_text(original, encoding="utf-8")
        row("--changed-since HEAD after a one-line edit (no cache)",
            wall([*check, "--changed-since", "HEAD", "--no-cache"], repeat, work,
                 lambda: note.write_text(edited, encoding="utf-8")))


def by_kind() -> None:
    """In-process CPU time per claim kind (each kind alone, in a fresh process so the
    imports it needs count and the others' do not)."""
    code = ("import sys; from pathlib import Path; from verifiers.run import run; "
            "r = run(Path('notes'), Path('claims'), lambda c: c.kind == sys.argv[1]); "
            "print(len(r.verdicts))")
    from verifiers.run import load_claims, load_notes

    claims, _ = load_claims(ROOT / "claims", set(load_notes(ROOT / "notes")))
    shares = {}
    for kind in ("arithmetic", "model", "symbolic", "property"):
        _, cpu, _ = wall([sys.executable, "-c", code, kind], 1)
        shares[kind] = (cpu, sum(c.kind == kind for c in claims))
    total = sum(s for s, _ in shares.values())
    print(f"\n{'claims of kind (own process, imports included)':<52}{'CPU s':>8}{'x floor':>8}"
          f"{'share':>8}{'claims':>9}")
    for kind, (cpu, n) in shares.items():
        print(f"{kind:<52}{cpu:>8.2f}{cpu / FLOOR_CPU:>8.1f}{cpu / total:>8.0%}{n:>9}")


def fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares ``y = a + b x``: (a, b, worst relative residual)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0
    a = my - b * mx
    worst = max(abs(a + b * x - y) / y for x, y in zip(xs, ys, strict=True) if y)
    return a, b, worst


def scale(factors: list[float], base_lines: int) -> None:
    """One note of ``factor * base_lines / 10`` lines and its claims (10x: ten times the
    largest note): time and memory should grow linearly in the size."""
    from benchmarks.synthetic import write_large_note

    print(f"\n{'one large note (arithmetic)':<20}{'lines':>8}{'claims':>8}{'wall s':>8}"
          f"{'CPU s':>8}{'x floor':>8}{'ms/claim':>9}{'peak MB':>9}")
    sizes, cpus, mbs = [], [], []
    for factor in factors:
        with tempfile.TemporaryDirectory() as tmp:
            lines, n = write_large_note(Path(tmp), int(factor * base_lines / 10))
            seconds, cpu, mb = wall([sys.executable, "-m", "verifiers.cli", "check",
                                     "--no-cache", "-j", "1"], 1, Path(tmp))
        sizes.append(lines)
        cpus.append(cpu)
        mbs.append(mb)
        print(f"{f'{factor:g}x':<20}{lines:>8}{n:>8}{seconds:>8.2f}{cpu:>8.2f}"
              f"{cpu / FLOOR_CPU:>8.1f}{cpu / n * 1000:>9.2f}{mb:>9.0f}")
    if len(sizes) > 2:
        a, b, worst = fit(sizes, cpus)
        print(f"CPU s = {a:.2f} + {b * 1000:.3f} per 1000 lines (worst residual {worst:.0%})")
        a, b, worst = fit(sizes, mbs)
        print(f"peak MB = {a:.0f} + {b * 1000:.1f} per 1000 lines (worst residual {worst:.0%})")


def corpus(factors: list[int]) -> None:
    """A synthetic corpus of ``factor`` x the claims: time and memory should grow linearly."""
    from benchmarks.synthetic import write_corpus

    print(f"\n{'synthetic corpus (arithmetic)':<32}{'claims':>8}{'seconds':>9}{'ms/claim':>10}"
          f"{'peak MB':>9}{'MB/1000':>9}")
    for factor in factors:
        with tempfile.TemporaryDirectory() as tmp:
            n = write_corpus(Path(tmp), factor)
            seconds, _, mb = wall([sys.executable, "-m", "verifiers.cli", "check",
                                   "--no-cache"], 1, Path(tmp))
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


def tests(args: list[str]) -> None:
    """The README's test command (``CI=true pytest -q``; pyproject.toml runs it on every core),
    once: its wall and CPU time (the xdist workers included) as ratios to the floor."""
    command = [sys.executable, "-m", "pytest", "-q", *args]
    env = {**os.environ, "CI": "true"}
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    measured = (time.perf_counter() - start, usage.ru_utime + usage.ru_stime,
                usage.ru_maxrss / 1024)
    print()
    row("measure")
    label = f"CI=true pytest -q {' '.join(args)}".strip()[:42]
    row(f"{label} (exit {os.waitstatus_to_exitcode(status)})", measured)


def largest_note_lines() -> int:
    return max(len(p.read_text(encoding="utf-8").splitlines())
               for p in (ROOT / "notes").iterdir() if p.suffix in (".txt", ".md"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", nargs="?", const="1,2,5,10",
                        help="one large note at these factors (10: ten times the largest "
                             "note; default 1,2,5,10)")
    parser.add_argument("--scale-lines", type=int,
                        help="the note's lines at 10x (default: ten times the largest note)")
    parser.add_argument("--corpus", help="synthetic corpus factors, e.g. 10,100")
    parser.add_argument("--mutations", action="store_true", help="run the one-digit survey")
    parser.add_argument("--sample", type=int, help="only this many evenly spaced mutations")
    parser.add_argument("--tests", nargs="?", const="",
                        help="time the README's test command (extra pytest arguments: a "
                             "selection, e.g. tests/test_layers.py)")
    parser.add_argument("--skip-timings", action="store_true",
                        help="only the import floor, then the sections asked for")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.skip_timings:
        global FLOOR_WALL, FLOOR_CPU
        FLOOR_WALL, FLOOR_CPU, _ = wall([sys.executable, "-c", FLOOR], max(args.repeat, 3))
        print(f"import floor: {FLOOR_WALL:.2f} s wall, {FLOOR_CPU:.2f} s CPU")
    else:
        timings(args.repeat)
        by_kind()
    if args.scale:
        scale([float(f) for f in args.scale.split(",")],
              args.scale_lines or 10 * largest_note_lines())
    if args.corpus:
        corpus([int(f) for f in args.corpus.split(",")])
    if args.mutations:
        mutations(args.sample)
    if args.tests is not None:
        tests(args.tests.split())


if __name__ == "__main__":
    main()
