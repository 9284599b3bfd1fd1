"""CPU seconds per claim, per kind and per ``-j 2`` lane (printed, never asserted).

    python -m benchmarks.lanes [-k EXPR] [--top N]

Wall time on a shared machine says little; CPU seconds do. This runs ``notecheck check
--no-cache -j 1`` in this process, times each claim's evaluation in CPU seconds (its SymPy
worker's included, read from /proc), then replays ``-j 2``'s schedule
(:mod:`verifiers.schedule`) on those costs: the gate takes the plain lane, the worker the
torch lane, each the next group when it is free, and a process pays torch's import the
first time it takes torch work. The makespan against half the total says how much a
better split could still win; the per-kind sums say where the CPU goes.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import sys
import time
from collections import defaultdict
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _sympy_worker_cpu() -> float:
    """CPU seconds of this process's warm SymPy worker so far (0 when there is none)."""
    from verifiers.symbolic import prove

    proc = prove._warm.proc
    if proc is None or prove._warm.owner == 0:
        return 0.0
    return prove._child_cpu(proc.pid) or 0.0


def claim_costs(keywords: str | None) -> tuple[dict[str, float], float]:
    """CPU seconds of each claim (outermost verdict only) and of torch's import."""
    start = time.process_time()
    import torch  # noqa: F401 - paid once here, then added per process by the replay

    torch_cpu = time.process_time() - start
    from verifiers import cli, engine

    costs: dict[str, float] = defaultdict(float)
    depth = [0]
    verdict = engine.Engine.verdict

    def timed(self: Any, claim_id: str, *args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return verdict(self, claim_id, *args, **kwargs)
        depth[0] += 1
        cpu, child = time.process_time(), _sympy_worker_cpu()
        try:
            return verdict(self, claim_id, *args, **kwargs)
        finally:
            depth[0] -= 1
            spent = time.process_time() - cpu + max(_sympy_worker_cpu() - child, 0.0)
            costs[claim_id] += spent

    engine.Engine.verdict = timed  # type: ignore[method-assign]
    command = ["check", "--no-cache", "-j", "1"] + (["-k", keywords] if keywords else [])
    with redirect_stdout(io.StringIO()):
        cli.main(command)
    return dict(costs), torch_cpu


def replay(costs: dict[str, float], torch_cpu: float, by_id: dict[str, Any]) -> dict[str, Any]:
    """``-j 2``'s queue on measured costs: each process's CPU (``clock``, by lane), what it
    spent it on (``kinds``) and how many processes imported torch (``imports``)."""
    from verifiers import schedule

    queue = schedule.Queue(schedule.groups(by_id, [i for i in costs if i in by_id]),
                           multiprocessing.get_context())
    lanes = (schedule.PLAIN, schedule.TORCH)  # the gate, the worker
    clock = dict.fromkeys(lanes, 0.0)
    has_torch = dict.fromkeys(lanes, False)
    kinds: dict[int, dict[str, float]] = {lane: defaultdict(float) for lane in lanes}
    busy = set(lanes)
    real_torch = sys.modules.get("torch")
    try:
        while busy:
            lane = min(busy, key=lambda k: (clock[k], k))
            if has_torch[lane]:  # Queue.take asks whether this process imported torch
                sys.modules["torch"] = real_torch  # type: ignore[assignment]
            else:
                sys.modules.pop("torch", None)
            group = queue.take(lane)
            if group is None:
                busy.discard(lane)
                continue
            if group.lane == schedule.TORCH and not has_torch[lane]:
                has_torch[lane] = True
                clock[lane] += torch_cpu
                kinds[lane]["(torch import)"] += torch_cpu
            for claim_id in group.ids:
                clock[lane] += costs[claim_id]
                kinds[lane][by_id[claim_id].kind] += costs[claim_id]
    finally:
        if real_torch is not None:
            sys.modules["torch"] = real_torch
    return {"clock": clock, "kinds": kinds, "imports": sum(has_torch.values())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", dest="keywords", default=None)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    costs, torch_cpu = claim_costs(args.keywords)
    from verifiers import schedule
    from verifiers.run import load_claims, load_notes

    notes = load_notes(ROOT / "notes")
    claims = {c.id: c for c in load_claims(ROOT / "claims", set(notes))[0]}
    by_kind: dict[str, list[float]] = defaultdict(list)
    for claim_id, seconds in costs.items():
        by_kind[claims[claim_id].kind if claim_id in claims else "?"].append(seconds)
    total = sum(costs.values())
    print(f"claims: {len(costs)}, {total:.2f} CPU s (SymPy worker included); "
          f"torch import {torch_cpu:.2f} CPU s")
    for kind, values in sorted(by_kind.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {kind:<12}{len(values):>5} claims {sum(values):>8.2f} s  "
              f"(estimate {schedule.KIND_COST.get(kind, schedule.DEFAULT_COST):.3f} s/claim, "
              f"measured {sum(values) / len(values):.3f})")
    for claim_id, seconds in sorted(costs.items(), key=lambda kv: (-kv[1], kv[0]))[:args.top]:
        print(f"  {seconds:8.3f}  {claim_id}")
    plan = replay(costs, torch_cpu, claims)
    names = {schedule.PLAIN: "gate (plain lane)", schedule.TORCH: "worker (torch lane)"}
    for lane, seconds in plan["clock"].items():
        parts = ", ".join(f"{k} {v:.2f}" for k, v in sorted(plan["kinds"][lane].items()))
        print(f"-j 2 {names[lane]}: {seconds:.2f} CPU s ({parts})")
    makespan = max(plan["clock"].values())
    even = (total + plan["imports"] * torch_cpu) / 2
    print(f"-j 2 makespan {makespan:.2f} s; an even split of the same work {even:.2f} s; "
          f"torch imported {plan['imports']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
