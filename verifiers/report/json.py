"""The JSON report (contract, version 1); files are written by :mod:`verifiers.files`."""

from __future__ import annotations

import json
from typing import Any

from verifiers.properties.counts import property_counts

# Moved to verifiers.files; the old name stays for callers on other branches.
from verifiers.verdicts import (
    KNOWN,
    PASSING,
    UNPARSED,
    Position,
    RunResult,
    Verdict,
    after_roots,
    summary,
)

VERSION = 1


def _pos(p: Position | None) -> dict[str, int] | None:
    return None if p is None else {"line": p[0], "col": p[1]}


def claim_json(v: Verdict, inferred: bool = False,
               constants: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One claim; ``inferred`` is true for claims written by ``scaffold --infer``;
    ``constants`` the file constants it reads (a value the note shows only in a figure)."""
    return {
        "id": v.id,
        "file": v.file,
        "line": v.line,
        "note": v.note,
        "section": v.section,
        "kind": v.kind,
        "says": v.says,
        "inferred": inferred,
        "status": v.status,
        "message": v.message,
        "root_cause": v.root_cause,
        "where": _pos(v.where),  # the note position the message points at (stale: closest line)
        "span": None if v.span is None else {"start": _pos(v.span[0]), "end": _pos(v.span[1])},
        "values": [
            {
                "name": x.name,
                "printed": x.printed,
                "expected": x.expected,
                "suggestion": x.suggestion,
                "status": x.status,
                "root_cause": x.root_cause,
                "local": x.local,
                "message": x.message,
                "restated": x.restated,
                "approximate": x.approximate,
                "law": x.law,
                "route": x.route,
                "start": _pos(x.start),
                "end": _pos(x.end),
            }
            for x in v.values
        ],
        "constants": constants or [],
    }


def step_counts(verdicts: list[Verdict]) -> dict[str, int]:
    """Symbolic steps: how many were read from the note or restated, and how each ended."""
    steps = [x for v in verdicts if v.kind == "symbolic" for x in v.values]
    return {
        "total": len(steps),
        "read": sum(x.restated is None for x in steps),
        "restated": sum(x.restated is not None for x in steps),
        "proved": sum(x.expected == "proved" and x.status in PASSING for x in steps),
        "numeric_evidence": sum(x.expected == "numeric evidence" and x.status in PASSING
                                for x in steps),
        "unparsed": sum(x.status == UNPARSED for x in steps),
        "known": sum(x.status == KNOWN for x in steps),
        "failed": sum(x.status not in PASSING and x.status != UNPARSED for x in steps),
    }


def report(result: RunResult) -> dict[str, Any]:
    inferred = {c.id for c in result.claims if c.inferred}
    constants = {c.id: [{"name": k.name, "value": k.text, "reason": k.reason, "line": k.line}
                        for k in c.constants_read()] for c in result.claims}
    return {
        "version": VERSION,
        "summary": summary(result.verdicts),
        "steps": step_counts(result.verdicts),
        # property claims (sentences) and the distinct laws they searched (one search each)
        "properties": property_counts(result.verdicts),
        # claim-file order, except that a claim blocked by (or inheriting from) another
        # comes right after it
        "claims": [claim_json(v, v.id in inferred, constants.get(v.id))
                   for v in after_roots(result.verdicts)],
        # every wider tolerance a claim asks for, with its reason (docs/claim-format.md)
        "widened": [{"claim": c.id, "hole": name,
                     "by": {k: float(a) for k, a in (("abs", w.abs), ("rel", w.rel))
                            if a is not None},
                     "reason": w.reason}
                    for c in result.claims for name, w in c.widen.items()],
    }


def dumps(result: RunResult) -> str:
    return json.dumps(report(result), ensure_ascii=False, indent=2, sort_keys=False) + "\n"
