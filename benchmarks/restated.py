"""The symbolic steps a claim restates instead of reading them from the note (issue 13).

    python -m benchmarks.restated            # list them, with each claim's file:line and reason
    python -m benchmarks.restated --count    # only the number (the baseline test reads it)

A restated step is a formula the claim writes (``restate:`` on a formula hole that is checked,
not on a ``define:`` hole) instead of reading it from the note through a formula hole; the
check then judges the claim's copy, and an edit of the note's text is not re-evaluated
(unless :func:`verifiers.symbolic.claims.restatement_differs` compares the two). Restatements should
stay at most 10% of the symbolic steps: convert one by reading the printed formula (a formula
hole, with ``frame:`` when the words name its subject), by making it a definition, or by
dropping it when it proves nothing the note says.

The count is static (it reads the claims, runs nothing): one step per chain of a
restatement, as ``notecheck check`` counts them in its ``symbolic steps … restated``. Holes
of a restated definition (``define:``) are not steps and are not listed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from verifiers.latex import LatexError, split_chains
from verifiers.schema import load_claim_file

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Restated:
    """One restated formula hole of a symbolic claim, and the steps it stands for."""

    file: str
    line: int
    claim: str
    hole: str
    text: str
    reason: str
    steps: int


def restated(claims: Path = ROOT / "claims") -> list[Restated]:
    """Every restated step hole of every symbolic claim under ``claims``, in file order."""
    out = []
    for path in sorted(claims.rglob("*.yaml")):
        display = path.relative_to(claims.parent).as_posix()
        for claim in load_claim_file(path, display, {path.parent.name + ".txt"}).claims:
            if claim.kind != "symbolic":
                continue
            defined = set(claim.define.values())
            for hole, again in claim.restate.items():
                if hole in defined:
                    continue
                try:
                    steps = len(split_chains(again.text))
                except LatexError:
                    steps = 1
                out.append(Restated(display, again.line, claim.id, hole, again.text,
                                    again.reason, steps))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.restated",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--claims", type=Path, default=ROOT / "claims")
    parser.add_argument("--count", action="store_true", help="print only the step count")
    args = parser.parse_args(argv)
    found = restated(args.claims)
    total = sum(r.steps for r in found)
    if args.count:
        print(total)
        return 0
    for r in found:
        print(f"{r.file}:{r.line}: {r.claim} {r.hole} ({r.steps} step{'s' * (r.steps > 1)}): "
              f"{r.text}\n    reason: {r.reason}")
    print(f"{total} restated steps in {len(found)} holes of "
          f"{len({r.claim for r in found})} claims")
    return 0


if __name__ == "__main__":
    sys.exit(main())
