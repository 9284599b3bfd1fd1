"""Which of our functions a library function's time is spent for (printed, never asserted).

cProfile says SymPy's ``_ask`` costs 25 s, but not on whose behalf: its callers are other
SymPy functions, called by others again. :func:`attribute` walks the profile's caller graph
up from the function to the nearest project frames, splitting the time at each function
among its callers in proportion to the time each caller spent in it, so the result says
which of our call sites to look at (``benchmarks.symprofile --attribute _ask``).

The split is an estimate: cProfile keeps one caller-callee total per edge, not whole call
paths, so a library function reached from two call sites through one shared helper is split
by the helper's shares. Recursion edges (a function calling itself) are skipped; weight
still moving after ``depth`` steps is reported as ``deep``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from typing import Any

Func = tuple[str, int, str]  # pstats' key: (file, line, function name)
#: pstats' ``Stats.stats``: func -> (primitive calls, calls, own time, cumulative time,
#: {caller: (primitive calls, calls, own time, cumulative time)})
Stats = Mapping[Func, tuple[Any, Any, float, float, Mapping[Func, tuple[Any, ...]]]]

DEEP: Func = ("deep", 0, "(still inside the library after the depth limit)")
ROOT: Func = ("root", 0, "(no project caller)")


def label(func: Func) -> str:
    """``func`` as pstats prints it: ``file:line(name)``."""
    return f"{func[0]}:{func[1]}({func[2]})"


def attribute(stats: Stats, target: Func, is_project: Callable[[Func], bool],
              depth: int = 60) -> dict[Func, float]:
    """``target``'s cumulative time, split among the project functions that called it
    through library code (a project function calling it directly gets its share at once)."""
    found: dict[Func, float] = defaultdict(float)
    frontier: dict[Func, float] = {target: stats[target][3]}
    for _ in range(depth):
        upward: dict[Func, float] = defaultdict(float)
        for func, weight in frontier.items():
            if func != target and is_project(func):
                found[func] += weight
                continue
            callers = {c: edge for c, edge in stats.get(func, (0, 0, 0, 0, {}))[4].items()
                       if c != func}
            total = sum(edge[3] for edge in callers.values())
            if not callers or total <= 0:
                found[ROOT] += weight
                continue
            for caller, edge in callers.items():
                upward[caller] += weight * edge[3] / total
        frontier = upward
        if not frontier:
            break
    for weight in frontier.values():
        found[DEEP] += weight
    return dict(found)


def matching(stats: Stats, pattern: str) -> list[Func]:
    """The profiled functions whose ``file:line(name)`` contains ``pattern``."""
    return [f for f in stats if pattern in label(f)]


def report(stats: Stats, pattern: str, is_project: Callable[[Func], bool],
           top: int = 25, strip: str = "") -> list[str]:
    """Lines to print: each function matching ``pattern`` with its calls and time, then
    its time by project caller, most first."""
    lines = []
    for target in matching(stats, pattern):
        calls, cumulative = stats[target][1], stats[target][3]
        lines.append(f"{label(target).replace(strip, '')}: {calls} calls, "
                     f"{cumulative:.2f} s cumulative, spent for:")
        shares = attribute(stats, target, is_project)
        for func, seconds in sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))[:top]:
            lines.append(f"{seconds:9.2f}  {label(func).replace(strip, '')}")
    return lines
