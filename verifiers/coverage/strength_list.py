"""Derived literals not recomputed: ``python -m verifiers.coverage.strength_list``.

``notecheck coverage`` counts them per note (:mod:`verifiers.coverage.strength`); this says
which they are and which claim covers each, so they can be turned into recomputations:
one line per literal, ``note:line:col: copy|restated: TEXT (claim file:line claim.hole)``.
Like coverage it reads the claims' quotes and evaluates nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from verifiers.coverage.literals import Span, _claim_spans, coverage
from verifiers.coverage.strength import COPY, RESTATED, Strengths
from verifiers.run import RunResult, run
from verifiers.textsafe import printable

__all__ = ["main", "weak_literals"]


def weak_literals(result: RunResult) -> list[str]:
    """One line per covered literal whose strongest check is a copy or a restatement."""
    covs, _ = coverage(result)
    strengths = Strengths({c.id: c for c in result.claims})
    claims = {c.id: c for c in result.claims}
    lines = []
    for cov in covs:
        note = result.notes[cov.note]
        spans = _claim_spans(result, note, cov.note, strengths)
        for lit in cov.literals:
            how = cov.strength.get(lit.start)
            if how not in (COPY, RESTATED):
                continue
            span = min((s for s in spans if s.start <= lit.start and lit.end <= s.end
                        and s.strength == how), key=_narrowest)
            claim = claims[span.claim]
            entry = claim.check.get(span.hole) if span.hole else None
            at = f"{claim.file}:{entry[1] if entry else claim.line}"
            hole = f".{span.hole}" if span.hole else ""
            line, col = note.position(lit.start)
            lines.append(printable(f"{result.note_path(cov.note)}:{line}:{col}: {how}: "
                                   f"{note.text[lit.start:lit.end]} ({at} {claim.id}{hole})"))
    return lines


def _narrowest(span: Span) -> tuple[int, str]:
    return span.end - span.start, span.claim


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verifiers.coverage.strength_list",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=Path, default=Path("notes"))
    parser.add_argument("--claims", type=Path, default=Path("claims"))
    args = parser.parse_args(argv)
    lines = weak_literals(run(args.notes, args.claims, lambda claim: False))
    print("\n".join(lines + [f"{len(lines)} derived literal(s) not recomputed"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
