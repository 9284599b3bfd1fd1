"""Profile the symbolic stage with its SymPy jobs in this process (printed, never asserted).

    python -m benchmarks.symprofile [-k EXPR] [--top N] [--out FILE.prof] [--sort cumulative]
    python -m benchmarks.symprofile --attribute '(_ask)' --top 20   # who asks SymPy

``notecheck check --no-cache -j 1`` runs under cProfile, but the SymPy jobs that normally
run in the warm worker process (:func:`verifiers.symbolic.prove._run_streaming`) run here,
under the same CPU time box, so the profile sees them. The verdicts may differ from a real
run only where a job is cut off (the parent's and the worker's SymPy caches are one here);
use ``benchmarks/samejson.py`` on real runs to compare verdicts.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def _in_process(fn: Callable[..., Iterator[Any]], args: tuple, timeout: float
                ) -> tuple[list[Any], bool]:
    """:func:`_run_streaming` without the worker: the same results cache, a deadline."""
    from verifiers.deadline import DeadlineExceeded, deadline
    from verifiers.symbolic import prove

    key = prove._content_key(fn, args, timeout)
    if key is not None and key in prove._decided:
        return list(prove._decided[key]), True
    items: list[Any] = []
    finished = True
    try:
        with deadline(timeout):
            for item in fn(*args):
                items.append(item)
    except DeadlineExceeded:
        finished = False
    except Exception as exc:  # noqa: BLE001 - as the worker reports it
        items.append(("error", f"{type(exc).__name__}: {exc}"[:500]))
    if key is not None and finished and not any(
            isinstance(i, tuple) and i and i[0] == "error" for i in items):
        prove._decided[key] = list(items)
    return items, finished


def _timers(names: list[str]) -> dict[str, list[float]]:
    """Wrap each ``module:function`` (or ``module:Class.method``) with a CPU timer:
    inclusive seconds and calls, a recursive call counted once."""
    import importlib

    spent: dict[str, list[float]] = {}
    for name in names:
        module_name, _, qualname = name.partition(":")
        owner: Any = importlib.import_module(module_name)
        *path, attr = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        inner = getattr(owner, attr)
        record = spent.setdefault(name, [0.0, 0.0])
        depth = [0]

        def timed(*args: Any, _inner: Any = inner, _record: list[float] = record,
                  _depth: list[int] = depth, **kwargs: Any) -> Any:
            if _depth[0]:
                return _inner(*args, **kwargs)
            _depth[0] += 1
            start = time.process_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                _depth[0] -= 1
                _record[0] += time.process_time() - start
                _record[1] += 1

        if isinstance(owner, type) and isinstance(owner.__dict__.get(attr), staticmethod):
            timed = staticmethod(timed)  # type: ignore[assignment]
        setattr(owner, attr, timed)
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", dest="keywords", default=None)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="cumulative")
    parser.add_argument("--out", default=None, help="keep the raw profile here")
    parser.add_argument("--only", default="verifiers/symbolic",
                        help="print only functions whose file contains this")
    parser.add_argument("--claims", action="store_true",
                        help="no cProfile (its overhead distorts SymPy's many small calls): "
                             "the CPU seconds of each symbolic claim, most first")
    parser.add_argument("--functions", default="",
                        help="with --claims: module:function,... to time (CPU, inclusive)")
    parser.add_argument("--attribute", default=None, metavar="PATTERN",
                        help="split the time of the functions matching PATTERN (e.g. "
                             "'assumptions.py:509(_ask)') among the project functions that "
                             "called them (benchmarks/attribute.py)")
    args = parser.parse_args(argv)

    from verifiers import cli
    from verifiers.symbolic import claims, prove

    prove._run_streaming = _in_process  # type: ignore[assignment]
    claims.run_streaming = _in_process  # type: ignore[assignment]
    spent: dict[str, float] = {}
    if args.claims:
        check = claims.check_formulas

        def timed(claim: Any, match: Any, note: Any) -> Any:
            start = time.process_time()
            try:
                return check(claim, match, note)
            finally:
                spent[claim.id] = spent.get(claim.id, 0.0) + time.process_time() - start

        claims.check_formulas = timed  # type: ignore[assignment]
    timers = _timers([n for n in args.functions.split(",") if n]) if args.claims else {}
    os.environ.setdefault("NOTECHECK_CACHE", tempfile.mkdtemp(prefix="symprofile-"))
    command = ["check", "--no-cache", "-j", "1"]
    if args.keywords:
        command += ["-k", args.keywords]
    profile = cProfile.Profile(time.process_time)  # CPU: a shared machine stretches wall time
    sink = open(os.devnull, "w")  # noqa: SIM115 - the report is not what is measured
    saved, sys.stdout = sys.stdout, sink
    try:
        code = cli.main(command) if args.claims else profile.runcall(cli.main, command)
    finally:
        sys.stdout = saved
        sink.close()
    if args.claims:
        total = sum(spent.values())
        print(f"symbolic claims: {len(spent)}, {total:.2f} CPU s (SymPy jobs included)")
        for claim_id, seconds in sorted(spent.items(), key=lambda kv: (-kv[1], kv[0]))[
                :args.top]:
            print(f"{seconds:8.3f}  {claim_id}")
        for name, (seconds, calls) in sorted(timers.items(), key=lambda kv: -kv[1][0]):
            print(f"{seconds:8.3f}  {int(calls):6d} calls  {name}")
        return int(code or 0)
    if args.out:
        profile.dump_stats(args.out)
    stats = pstats.Stats(profile)
    stats.sort_stats(args.sort)
    stats.print_stats(args.only, args.top)
    if args.attribute:
        from benchmarks.attribute import report

        root = str(Path(__file__).resolve().parent.parent) + os.sep
        ours = tuple(root + part for part in ("verifiers" + os.sep, "tinygpt" + os.sep))
        print("\n".join(report(stats.stats, args.attribute,  # type: ignore[attr-defined]
                                lambda f: f[0].startswith(ours), args.top, root)))
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
