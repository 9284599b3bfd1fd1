"""Suspect inputs: a given value whose every consumer fails, and which one other value fixes.

A value the claims take as given (an input hole: no ``check``) is trusted as printed. When an
author edits it (``学习率为 0.1`` → ``0.01``), every value computed from it fails and the
given printing itself passes: the verdict lands at the consumers, not at the edited line.

After every claim is evaluated (:func:`attribute`, called by :func:`verifiers.run.finish`),
each given value upstream of a failing value is put on trial. The printed numbers of the
values computed from it (its *consumers*: the checked holes of its claim and of the claims
that use it, at any depth) are solved for the given's numbers, by a least-squares step on
finite differences, linear and in log-log form (a product, a power or a root is linear
there). The solution, written at the given's printed precision (or shorter, when that is
exact), is put in a copy of the note and the consumer claims are evaluated again. The given
is the suspect when:

- with the candidate, every value of those claims verifies (or keeps its pin);
- the candidate changes fewer printed numbers than the failing steps it repairs (values
  whose own arithmetic is wrong, from the printed values they use), and it repairs at least
  two: one failing consumer alone could as well be the wrong one. A value that only inherits
  an error (``x = 1.20, y = 2x = 2.50, z = y + 1 = 3.50``: z is right from the printed y) is
  no evidence: there the design's rule stands, the step whose own arithmetic fails (y) is
  where the error is;
- no other given explains the same failures with as few changes (a tie names nobody).

Then the given is a ``discrepancy`` at its own place, whose suggestion is the candidate (so
``notecheck fix`` rewrites the input, never its consumers), and each failing consumer is
secondary: ``root_cause`` the given's claim, no suggestion. A consumer that is itself wrong
cannot be repaired through its input without breaking the input's other consumers, so its
verdict stays where it is.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verifiers.arithmetic.edits import number_spans
from verifiers.arithmetic.onefailure import Printing, explain, in_column, unit_factor
from verifiers.arithmetic.slips import rank, slips
from verifiers.budget import Budget
from verifiers.engine import Engine, Evaluation, flat, part_of
from verifiers.holes import ResolveError, read_number, read_value
from verifiers.notes import Note
from verifiers.numbers import PrintedNumber
from verifiers.schema import Claim
from verifiers.verdicts import DISCREPANCY, GIVEN, KNOWN, VERIFIED, Verdict, settle

__all__ = ["attribute"]

MAX_NUMBERS = 12  # a given with more printed numbers is not put on trial (n + 1 evaluations)
MAX_CLAIMS = 40  # nor one whose consumers span more claims
MAX_TRIALS = 16  # givens put on trial per run, in note order
CHECKED_KINDS = frozenset({"arithmetic", "model", "given"})
PASS = frozenset({VERIFIED, KNOWN, GIVEN})
_DIGITS = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")

Replacement = tuple[int, int, str]  # (start, end, text) in the note


@dataclass(frozen=True)
class _Given:
    claim_id: str
    key: str  # the hole key (``eta``, ``G``)
    note: str
    numbers: tuple[PrintedNumber, ...]
    spans: tuple[tuple[int, int], ...]  # each number's offsets in the note
    span: tuple[int, int]  # the hole's offsets
    shape: tuple[int, ...] = ()  # the printed value's shape (a vector, a matrix)


@dataclass(frozen=True)
class _Finding:
    given: _Given
    texts: tuple[str, ...]  # the candidate text of each number
    changed: int
    repaired: frozenset[tuple[str, str]]  # (claim id, hole key) of the failing consumers
    evidence: int  # failing printed numbers repaired
    why: str = ""  # a one-failure reading (onefailure.py), appended to the message
    # failing values that only inherit the error (right from the printed values they use)
    inherited: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class _Tie:
    """One number of a given that alone repairs a single failing step (a percentage)."""

    step: tuple[str, str, str]  # the failing step: (claim id, hole key, its printing's place)
    given: _Given
    index: int
    text: str  # the repair
    rest: Any  # what the step computes from the rows as printed (mpf)


def attribute(verdicts: list[Verdict], claims: Iterable[Claim],
              notes: dict[str, Note] | None, budget: Budget | None = None) -> list[Verdict]:
    """The verdicts with each suspect input found (see the module) made the discrepancy.
    The trials re-evaluate claims within ``budget`` (the run's: a claim and the run keep
    their limits; by default a fresh one with the default limits)."""
    budget = budget or Budget()
    if not notes or not any(x.status == DISCREPANCY for v in verdicts for x in v.values):
        return verdicts
    claims = list(claims)
    by_id = {c.id: c for c in claims}
    present = {v.id: v for v in verdicts}
    users: dict[str, set[str]] = {}
    for c in claims:
        for use in c.uses.values():
            users.setdefault(use.claim_id, set()).add(c.id)
    givens = _suspects(verdicts, by_id, present, notes)
    findings: list[_Finding] = []
    ties: list[_Tie] = []
    base_cache: dict[str, dict[str, Evaluation]] = {}
    for given in givens[:MAX_TRIALS]:
        involved = _closure(given.claim_id, users, by_id, present)
        if involved is None:
            continue
        found = _trial(given, involved, claims, notes, base_cache, budget, ties,
                       _rows(given, givens))
        if found is not None:
            findings.append(found)
    chosen = _choose(findings)
    tied = _tied(ties, chosen)
    if not chosen and not tied:
        return verdicts
    out = list(verdicts)
    position = {v.id: i for i, v in enumerate(out)}
    touched: dict[str, Verdict] = {}

    def own(vid: str) -> Verdict:
        if vid not in touched:
            touched[vid] = copy.deepcopy(out[position[vid]])
            out[position[vid]] = touched[vid]
        return touched[vid]

    for f in chosen:
        _mark(f, own, notes[f.given.note])
    for step, members in tied.items():
        _mark_tie(step, members, own)
    for v in touched.values():
        settle(v)
    return out


def _suspects(verdicts: list[Verdict], by_id: dict[str, Claim], present: dict[str, Verdict],
              notes: dict[str, Note]) -> list[_Given]:
    """The given values upstream of a failing value (in its claim, or a claim it uses at any
    depth), in note order."""
    seen: set[tuple[str, str]] = set()
    out: list[_Given] = []
    for v in verdicts:
        if not any(x.status == DISCREPANCY for x in v.values):
            continue
        stack, visited = [v.id], set()
        while stack:
            cid = stack.pop()
            if cid in visited or cid not in by_id:
                continue
            visited.add(cid)
            stack.extend(u.claim_id for u in by_id[cid].uses.values())
            pv = present.get(cid)
            if pv is None or pv.span is None or by_id[cid].kind not in CHECKED_KINDS:
                continue
            for x in pv.values:
                if x.status == GIVEN and (cid, x.name) not in seen:
                    seen.add((cid, x.name))
                    given = _given(pv, x, notes.get(pv.note))
                    if given is not None:
                        out.append(given)
    return sorted(out, key=lambda g: (g.note, g.span, g.claim_id, g.key))


def _given(verdict: Verdict, value, note: Note | None) -> _Given | None:
    if note is None:
        return None
    try:
        start = note.offset(*value.start)
        end = note.offset(*value.end)
        printed = read_value(note.text[start:end], start)
    except (ValueError, ResolveError):
        return None
    if not 0 < len(printed.numbers) <= MAX_NUMBERS:
        return None
    if any(pn.kind not in ("integer", "decimal", "percent", "magnitude")
           or (pn.kind == "magnitude" and unit_factor(pn) is None) for pn in printed.numbers):
        return None
    spans = number_spans(printed)
    if len(spans) != len(printed.numbers):
        return None
    return _Given(verdict.id, value.name, verdict.note, printed.numbers, tuple(spans),
                  (start, end), printed.shape)


def _closure(claim_id: str, users: dict[str, set[str]], by_id: dict[str, Claim],
             present: dict[str, Verdict]) -> list[str] | None:
    """The given's claim and every claim that uses it, at any depth (None: too many)."""
    out, stack = [], [claim_id]
    seen = {claim_id}
    while stack:
        cid = stack.pop()
        out.append(cid)
        for u in sorted(users.get(cid, ())):
            if u not in seen and u in present and by_id[u].kind in CHECKED_KINDS:
                seen.add(u)
                stack.append(u)
        if len(out) > MAX_CLAIMS:
            return None
    return sorted(out)


def _evaluate(claims: list[Claim], notes: dict[str, Note], note_name: str,
              changes: list[Replacement], ids: list[str],
              budget: Budget) -> dict[str, Evaluation]:
    """The claims ``ids`` evaluated on a copy of the note with ``changes`` made."""
    note = notes[note_name]
    text = note.text
    for start, end, new in sorted(changes, reverse=True):
        text = text[:start] + new + text[end:]
    edited = note if not changes else Note(note.path, text, note.name)
    engine = Engine({**notes, note_name: edited}, claims, budget)
    for cid in ids:
        engine.verdict(cid)
    return engine.evaluations


@dataclass
class _Outputs:
    printed: list[Any]  # the consumers' printed numbers (mpf)
    computed: list[Any]  # what the claims compute for them from the givens (mpf)
    failing: dict[tuple[str, str], int]  # (claim, hole key) -> numbers whose own step fails
    passes: bool  # every value of the claims verifies or keeps its pin
    printings: list[tuple[tuple[str, str], Printing]]  # each printed number, by (claim, key)
    failed: frozenset[tuple[str, str]] = frozenset()  # every discrepancy, (claim, hole key)


def _outputs(evals: dict[str, Evaluation], ids: list[str]) -> _Outputs | None:
    printed: list[Any] = []
    computed: list[Any] = []
    failing: dict[tuple[str, str], int] = {}
    printings: list[tuple[tuple[str, str], Printing]] = []
    failed: set[tuple[str, str]] = set()
    passes = True
    for cid in ids:
        ev = evals.get(cid)
        if ev is None or ev.failure is not None or ev.verdict is None or ev.match is None:
            return None
        for x in ev.verdict.values:
            if x.status not in PASS:
                passes = False
                if x.status == DISCREPANCY:
                    failed.add((cid, x.name))
                state = ev.states.get(x.name)
                if x.status == DISCREPANCY and state is not None and not state.local_ok:
                    failing[(cid, x.name)] = max(1, len(state.unrouted))
        for ref in ev.claim.holes:
            if ref.name not in ev.claim.check or ref.key not in ev.match.values:
                continue
            pr = ev.match.values[ref.key]
            try:
                values = flat(part_of(ev.global_values[ref.name], ref, pr))
                numbers = [mpmath.mpf(_mid(v)) for v in values]
            except Exception:  # an interval, a string: not a number to solve against
                continue
            if len(numbers) != len(pr.numbers):
                continue
            printed += [_mpf(pn.value) for pn in pr.numbers]
            computed += numbers
            spans = number_spans(pr)
            note = ev.note
            for j, pn in enumerate(pr.numbers):
                span = spans[j] if len(spans) == len(pr.numbers) else None
                place = "?" if span is None or note is None else \
                    "{}:{}".format(*note.position(span[0]))
                printings.append(((cid, ref.key), Printing(pn, span, place, _mpf(pn.value),
                                                           numbers[j])))
    return _Outputs(printed, computed, failing, passes, printings, frozenset(failed))


def _mid(v: Any) -> Any:
    return v.mid if hasattr(v, "mid") else v


def _mpf(x: Fraction) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator


def _rows(given: _Given, givens: list[_Given]) -> list[tuple[str, ...]]:
    """The printed rows (a vector's numbers, a matrix's rows) of the note's other givens:
    where a row of ``given`` may have been copied from."""
    out = []
    for g in givens:
        if g is given or g.note != given.note:
            continue
        texts = tuple(pn.text for pn in g.numbers)
        width = g.shape[1] if len(g.shape) == 2 else len(texts)
        out += [texts[k:k + width] for k in range(0, len(texts), width)] if width else []
    return out


def _trial(given: _Given, ids: list[str], claims: list[Claim], notes: dict[str, Note],
           base_cache: dict[str, dict[str, Evaluation]], budget: Budget,
           ties: list[_Tie], others: list[tuple[str, ...]] = ()) -> _Finding | None:
    """Solve the consumers for the given's numbers; the finding if a candidate repairs them.
    When no solution is cheaper than the failures, an author-like slip of the given
    (:mod:`verifiers.arithmetic.slips`) is tried. A single failing column of percentages
    that the given's numbers could each repair adds to ``ties`` (see
    :mod:`verifiers.arithmetic.onefailure`)."""
    if given.note not in base_cache:
        base_cache[given.note] = {}
    base_evals = base_cache[given.note]
    todo = [c for c in ids if c not in base_evals]
    if todo:
        base_evals.update(_evaluate(claims, notes, given.note, [], todo, budget))
    base = _outputs(base_evals, ids)
    if base is None or base.passes or not base.failing:
        return None
    if sum(base.failing.values()) < 2:
        return _one_failure(given, ids, claims, notes, base, budget, ties)
    x = [_mpf(pn.value) for pn in given.numbers]
    steps = []
    for i, pn in enumerate(given.numbers):
        step = _step(pn)
        text = _text(pn, pn.value + step, exact=True)
        if text is None:
            return None
        out = _outputs(_evaluate(claims, notes, given.note,
                                 [(*given.spans[i], text)], ids, budget), ids)
        if out is None or len(out.computed) != len(base.computed):
            return None
        steps.append((_mpf(step), out.computed))
    for solution in _solutions(x, base, steps):
        texts = _candidate(given, solution)
        if texts is None:
            continue
        changes = [(*given.spans[i], t) for i, t in enumerate(texts)
                   if t != given.numbers[i].text]
        if not changes:
            continue
        after = _outputs(_evaluate(claims, notes, given.note, changes, ids, budget), ids)
        if after is None or not after.passes:
            continue
        evidence = sum(base.failing.values())
        if len(changes) >= evidence:
            break  # as many changes as failures: the consumers may as well be wrong
        return _Finding(given, texts, len(changes), frozenset(base.failing), evidence)
    return _slip(given, ids, claims, notes, base, x, steps, budget, list(others))


def _slip(given: _Given, ids: list[str], claims: list[Claim], notes: dict[str, Note],
          base: _Outputs, x: list[Any], steps: list[tuple[Any, list[Any]]], budget: Budget,
          others: list[tuple[str, ...]]) -> _Finding | None:
    """One author-like slip of the given (two entries swapped, a row copied, a sign) that
    makes every consumer verify: the finding, as one change. The failures must lie in two
    or more printed values (a slip of one consumer cannot explain them), and exactly one
    slip among the best predicted must repair them (two that do name nobody)."""
    evidence = sum(base.failing.values())
    values_failing = {(cid, key.split("[")[0]) for cid, key in base.failing}
    if evidence < 2 or len(values_failing) < 2:
        return None  # one printed value (⟨p[0]⟩ ⟨p[1]⟩ is one) may hold the slip itself
    jac = [[(c[k] - base.computed[k]) / h for h, c in steps] for k in range(len(base.printed))]
    residual = [p - c for p, c in zip(base.printed, base.computed, strict=True)]
    texts = tuple(pn.text for pn in given.numbers)

    def values(new: tuple[str, ...]) -> list[Any] | None:
        try:
            return [_mpf(read_number(t).value) for t in new]
        except (ValueError, ResolveError):
            return None

    def solve_row(idx: list[int]) -> tuple[str, ...] | None:
        rows = [k for k in range(len(jac)) if any(jac[k][i] != 0 for i in idx)]
        if not rows:
            return None
        with mpmath.workdps(30):
            a = mpmath.matrix(len(rows), len(idx))
            b = mpmath.matrix(len(rows), 1)
            for r, k in enumerate(rows):
                b[r] = residual[k]
                for j, i in enumerate(idx):
                    a[r, j] = jac[k][i]
            d = _lstsq(a, b)
        if d is None:
            return None
        out = list(texts)
        for j, i in enumerate(idx):
            t = _text(given.numbers[i], x[i] + d[j])
            if t is None:
                return None
            out[i] = t
        return tuple(out)

    found: list[tuple[tuple[str, ...], str]] = []
    for s in rank(slips(texts, given.shape, others, solve_row), values, x, jac, residual):
        changes = [(*given.spans[i], t) for i, t in enumerate(s.texts) if t != texts[i]]
        after = _outputs(_evaluate(claims, notes, given.note, changes, ids, budget), ids)
        if after is not None and after.passes:
            found.append((s.texts, s.what))
    if len({t for t, _ in found}) != 1:
        return None
    new, what = found[0]
    return _Finding(given, new, 1, frozenset(base.failing), evidence, f" (a slip: {what})",
                    base.failed - frozenset(base.failing))


def _one_failure(given: _Given, ids: list[str], claims: list[Claim], notes: dict[str, Note],
                 base: _Outputs, budget: Budget, ties: list[_Tie]) -> _Finding | None:
    """One failing step: the given is named only by a reading of onefailure.py; else its
    single-number repairs of a failing percentage are recorded as ``ties``."""
    failing = [(key, p) for key, p in base.printings if key in base.failing]

    def run(changes: list[Replacement]) -> _Outputs | None:
        return _outputs(_evaluate(claims, notes, given.note, changes, ids, budget), ids)

    def passes(changes: list[Replacement]) -> bool:
        out = run(changes)
        return out is not None and out.passes

    reading = explain(given.numbers, given.spans, [p for _, p in failing], passes, _text)
    if reading is not None:
        texts = tuple(reading.text if i == reading.index else pn.text
                      for i, pn in enumerate(given.numbers))
        return _Finding(given, texts, 1, frozenset(base.failing), 1, reading.why)
    if len(failing) != 1 or not in_column(failing[0][1], given.numbers):
        return None
    (cid, key), printing = failing[0]
    at = next(k for k, (kk, _) in enumerate(base.printings) if kk == (cid, key))
    for i, pn in enumerate(given.numbers):
        step = _step(pn)
        moved = _text(pn, pn.value + step, exact=True)
        out = run([(*given.spans[i], moved)]) if moved is not None else None
        if out is None or len(out.printings) != len(base.printings):
            continue
        slope = (out.printings[at][1].computed - printing.computed) / _mpf(step)
        if abs(slope + 1) > mpmath.mpf(10) ** -12:
            continue  # not a row of what the column leaves (rest = 1 − Σ rows)
        text = _text(pn, _mpf(pn.value) + (printing.printed - printing.computed) / slope)
        if text is not None and text != pn.text and passes([(*given.spans[i], text)]):
            ties.append(_Tie((cid, key, printing.place), given, i, text, printing.computed))
    return None


def _tied(ties: list[_Tie], chosen: list[_Finding]) -> dict[tuple[str, str, str], list[_Tie]]:
    """Failing steps that two or more given numbers could each repair alone, and that no
    finding explains: their members are flagged together (no one can be singled out)."""
    explained = {key for f in chosen for key in f.repaired}
    by_step: dict[tuple[str, str, str], list[_Tie]] = {}
    for t in ties:
        if t.step[:2] not in explained:
            by_step.setdefault(t.step, []).append(t)
    return {s: m for s, m in by_step.items() if len(m) >= 2 and _whole(m)}


def _whole(members: list[_Tie]) -> bool:
    """The step and its rows make up 100%: a distribution's column, not any difference."""
    total = members[0].rest + sum(_mpf(t.given.numbers[t.index].value) for t in members)
    return bool(abs(total - 1) <= mpmath.mpf(10) ** -12)


def _step(pn: PrintedNumber) -> Fraction:
    """A step of one unit in the last printed digit (in the value's scale)."""
    return 2 * pn.half_unit if pn.half_unit else Fraction(1)


def _solutions(x: list[Any], base: _Outputs, steps: list[tuple[Any, list[Any]]]
               ) -> list[list[Any]]:
    """Least-squares solutions of the consumers for the given's numbers: a linear step, then
    a log-log step (exact for a product or a power)."""
    out = []
    rows = [k for k in range(len(base.printed))
            if any(c[k] != base.computed[k] for _, c in steps)]
    if not rows:
        return out
    with mpmath.workdps(30):
        jac = mpmath.matrix(len(rows), len(x))
        rhs = mpmath.matrix(len(rows), 1)
        for r, k in enumerate(rows):
            rhs[r] = base.printed[k] - base.computed[k]
            for i, (h, c) in enumerate(steps):
                jac[r, i] = (c[k] - base.computed[k]) / h
        delta = _lstsq(jac, rhs)
        if delta is not None:
            out.append([x[i] + delta[i] for i in range(len(x))])
        logs = [k for k in rows if base.printed[k] * base.computed[k] > 0
                and all(c[k] * base.computed[k] > 0 for _, c in steps)]
        if logs and all(v != 0 and v + h != 0 and (v + h) * v > 0
                        for v, (h, _) in zip(x, steps, strict=True)):
            jac = mpmath.matrix(len(logs), len(x))
            rhs = mpmath.matrix(len(logs), 1)
            for r, k in enumerate(logs):
                rhs[r] = mpmath.log(base.printed[k] / base.computed[k])
                for i, (h, c) in enumerate(steps):
                    jac[r, i] = (mpmath.log(c[k] / base.computed[k])
                                 / mpmath.log((x[i] + h) / x[i]))
            delta = _lstsq(jac, rhs)
            if delta is not None:
                out.append([x[i] * mpmath.exp(delta[i]) for i in range(len(x))])
    return out


def _lstsq(a: Any, b: Any) -> list[Any] | None:
    """min |a·d − b| for the columns that move something (the others stay: d = 0)."""
    cols = [i for i in range(a.cols) if any(a[r, i] != 0 for r in range(a.rows))]
    if not cols or len(cols) > a.rows:
        return None
    sub = mpmath.matrix(a.rows, len(cols))
    for r in range(a.rows):
        for j, i in enumerate(cols):
            sub[r, j] = a[r, i]
    try:
        d, _ = mpmath.qr_solve(sub, b)
    except (ZeroDivisionError, ValueError):
        return None
    out = [mpmath.mpf(0)] * a.cols
    for j, i in enumerate(cols):
        out[i] = d[j]
    return out


def _candidate(given: _Given, solution: list[Any]) -> tuple[str, ...] | None:
    """The solution written the way the given prints its numbers; a number the solution
    leaves within its rounding keeps its text."""
    texts = []
    for pn, v in zip(given.numbers, solution, strict=True):
        if abs(v - _mpf(pn.value)) <= _mpf(pn.half_unit):
            texts.append(pn.text)
            continue
        text = _text(pn, v)
        if text is None:
            return None
        texts.append(text)
    return tuple(texts)


def _text(pn: PrintedNumber, value: Any, exact: bool = False) -> str | None:
    """``value`` written like ``pn``: its sign style, percent and (at most) its decimals plus
    two; the shortest that is exact, else at the printed decimals. ``exact``: a Fraction
    written in full (a finite-difference step)."""
    scale = Fraction(100) if pn.kind == "percent" else Fraction(1)
    if pn.kind == "magnitude":
        factor = unit_factor(pn)
        if factor is None:
            return None
        scale = Fraction(1, factor)
    m = _DIGITS.search(pn.text)
    if m is None or "," in m.group(0):
        return None
    decimals = len(m.group(0).split(".")[1]) if "." in m.group(0) else 0
    v = mpmath.mpf(value.numerator) / value.denominator if isinstance(value, Fraction) else value
    v = v * scale.numerator / scale.denominator
    sign_printed = pn.value < 0
    if v != 0 and (v < 0) != sign_printed and pn.value != 0:
        return None  # a sign the printed form would have to gain or lose: no candidate
    magnitude = abs(v)
    places = decimals
    for k in range(0, decimals + (6 if exact else 3)):
        if abs(mpmath.nint(magnitude * 10**k) - magnitude * 10**k) <= mpmath.mpf(10) ** -9:
            places = k
            break
    body = _fixed(magnitude, places)
    text = pn.text[:m.start()] + body + pn.text[m.end():]
    if pn.value == 0 and v < 0:
        text = "-" + text
    return text


def _fixed(magnitude: Any, places: int) -> str:
    """``magnitude`` rounded to ``places`` decimals, as plain digits."""
    scaled = int(mpmath.nint(magnitude * 10**places))
    if places == 0:
        return str(scaled)
    digits = str(scaled).rjust(places + 1, "0")
    return f"{digits[:-places]}.{digits[-places:]}"


def _choose(findings: list[_Finding]) -> list[_Finding]:
    """Per group of findings that repair overlapping failures: the one with the fewest
    changes; a tie names nobody."""
    chosen = []
    for f in findings:
        rivals = [g for g in findings if g is not f and g.repaired & f.repaired]
        if all(f.changed < g.changed for g in rivals):
            chosen.append(f)
    return chosen


def _mark(f: _Finding, own, note: Note) -> None:
    """The given's value becomes the discrepancy; its failing consumers secondary to it."""
    g = f.given
    gv = own(g.claim_id)
    y = next(x for x in gv.values if x.name == g.key)
    start, _ = g.span
    hole_text = note.text[g.span[0]:g.span[1]]
    for (a, b), old, new in sorted(zip(g.spans, [n.text for n in g.numbers], f.texts,
                                       strict=True), reverse=True):
        if old != new:
            hole_text = hole_text[:a - start] + new + hole_text[b - start:]
    shown = " ".join(y.printed.split())
    places = [f"{a}:{b}" for a, b in sorted({_place(c, k, own) for c, k in f.repaired})]
    line, col = y.start
    y.status, y.local, y.root_cause = DISCREPANCY, "wrong", g.claim_id
    y.expected = y.suggestion = hole_text
    y.message = (f"{g.key}: {shown} at {g.note}:{line}:{col} is inconsistent with the "
                 f"{f.evidence} value(s) computed from it ({', '.join(places)}); "
                 f"{' '.join(hole_text.split())} makes them verify{f.why}")
    for cid, key in sorted(f.repaired | f.inherited):
        v = own(cid)
        x = next(z for z in v.values if z.name == key)
        x.root_cause, x.local, x.suggestion = g.claim_id, "ok", None
        x.message = (f"{key}: printed {' '.join(x.printed.split())} — secondary: computed "
                     f"from {g.key} at {g.note}:{line}:{col} ({g.claim_id}), the suspect input")


def _place(cid: str, key: str, own) -> tuple[int, int]:
    return next(z for z in own(cid).values if z.name == key).start


def _mark_tie(step: tuple[str, str, str], members: list[_Tie], own) -> None:
    """Each member of a failing column is a discrepancy, none with a suggestion: like two
    printings of one value that differ, nobody can tell which one is wrong."""
    cid, key, place = step
    listed = ", ".join("{}:{} ".format(*_place(t.given.claim_id, t.given.key, own))
                       + f"{t.given.numbers[t.index].text.strip()} (→ {t.text})" for t in members)
    said = (f"a column of percentages that does not add up: {key} at {place} fails, and each "
            f"of {listed} alone would repair it; which one is wrong cannot be told")
    x = next(z for z in own(cid).values if z.name == key)
    x.suggestion = None
    x.message += f" — {said}"
    for t in members:
        y = next(z for z in own(t.given.claim_id).values if z.name == t.given.key)
        if y.status == DISCREPANCY:
            continue
        y.status, y.local, y.suggestion = DISCREPANCY, "wrong", None
        y.message = f"{t.given.key}: {' '.join(y.printed.split())} — {said}"
