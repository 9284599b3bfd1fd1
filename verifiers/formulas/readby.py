"""Formula holes that another claim reads and checks (``read_by:``).

A property claim's sentence often holds a formula between its law words: 「$i=j$ 时为
$p_i(1-p_i)\\gt0$，…自己的概率⟦own⟧」. Quoted as literal text, an edit of the formula makes
the claim ``stale`` (issue 12 item 2); but the law cannot check the formula either, and a
symbolic claim already reads it. So the formula is a formula hole that names its reader::

    text: 时为 $⟪D⟫$，提高自己的 logit，自己的概率⟦own⟧
    read_by: {D: l1-c-5-jacobian-from-definition.JD}   # that claim's hole JD reads it

The hole is checked, never trusted: the reader must be a claim that checks the formula (a
symbolic claim, or a ``computes:`` entry), its hole must be matched at exactly the same span
of the same note (else an ``error`` naming where the reader reads instead), and the reader's
verdict on the steps located inside the formula becomes this hole's value: a step the reader
fails there is a ``discrepancy`` (``unparsed``, ``error``) of this claim at the formula too,
naming the reader's message. A stale or broken reader blocks the hole. A reader cannot itself
have ``read_by:`` entries, so there is no cycle.

Loading (:mod:`verifiers.formulas.readby_spec`) is plain data; :func:`check` runs with the
engine (it evaluates the reader, which the run's cache key also follows: :mod:`verifiers.cache`).
"""

from __future__ import annotations

from typing import Any

from verifiers.formulas.readby_spec import ReadBy, parse
from verifiers.verdicts import BLOCKED, ERROR, PASSING, SEVERITY, VERIFIED, ValueVerdict

__all__ = ["ReadBy", "check", "parse"]


def _reader_problem(engine: Any, claim: Any, ref: ReadBy) -> str | None:
    """Why ``ref`` names no claim that checks that formula hole (None: it does)."""
    reader = engine.claims.get(ref.claim_id)
    if reader is None:
        return f"unknown claim {ref.claim_id!r}"
    if reader.note != claim.note:
        return f"{ref.claim_id} reads {reader.note}, not {claim.note}"
    if ref.hole not in reader.formulas:
        return f"{ref.claim_id} has no formula hole ⟪{ref.hole}⟫"
    if getattr(reader, "read_by", None):
        return f"{ref.claim_id} has read_by: entries itself (a reader must check)"
    if reader.kind != "symbolic" and ref.hole not in reader.computes:
        return f"{ref.claim_id} does not check ⟪{ref.hole}⟫ (a symbolic claim or computes:)"
    return None


def check(engine: Any, claim: Any, match: Any, note: Any) -> list[ValueVerdict]:
    """One value per ``read_by:`` hole: the reader's verdict on the formula's span."""
    values: list[ValueVerdict] = []
    for hole, ref in claim.read_by.items():
        printed = match.formulas[hole]
        start, end = note.position(printed.start), note.position(printed.end)

        def value(status: str, message: str, expected: str = "", hole: str = hole,
                  printed: Any = printed, start: Any = start, end: Any = end) -> ValueVerdict:
            return ValueVerdict(name=hole, printed=printed.text, expected=expected,
                                status=status, start=start, end=end, message=message)

        why = _reader_problem(engine, claim, ref)
        if why is not None:
            values.append(value(ERROR, f"read_by: {hole}: {why} (line {ref.line})"))
            continue
        up = engine.evaluate(ref.claim_id)
        if up.failure is not None:
            status = up.failure.status if up.failure.root is None else up.failure.root_status
            values.append(value(BLOCKED, f"{hole}: blocked by {up.failure.root or ref.claim_id},"
                                         f" which is {status} (it reads this formula)"))
            continue
        theirs = up.match.formulas[ref.hole]
        if (theirs.start, theirs.end) != (printed.start, printed.end):
            line, col = note.position(theirs.start)
            values.append(value(ERROR, f"{hole}: {ref.claim_id}.{ref.hole} reads "
                                       f"{theirs.text!r} at {line}:{col}, not this formula"))
            continue
        verdict = engine.verdict(ref.claim_id)
        inside = [v for v in verdict.values if start <= v.start <= end]
        failed = sorted((v for v in inside if v.status not in PASSING),
                        key=lambda v: SEVERITY.get(v.status, 0))
        if failed:
            worst = failed[0]
            message = worst.message or worst.status
            values.append(value(worst.status, f"{hole}: {ref.claim_id}, which reads this "
                                              f"formula, finds: {message}", worst.expected))
            values[-1].depends_on_time = worst.depends_on_time
        elif verdict.status not in PASSING and not inside:
            values.append(value(verdict.status, f"{hole}: {ref.claim_id}, which reads this "
                                                f"formula, is {verdict.status}: "
                                                f"{verdict.message}"))
        else:
            values.append(value(VERIFIED, f"{hole}: read and checked by {ref.claim_id} "
                                          f"(⟪{ref.hole}⟫)"))
    return values
