"""Copies of a given value: every printing of an input is compared with the others.

A value the claims take as given (an input hole: no ``check``) is often printed again later
in the note (a table repeats a dimension, a summary or quiz restates a matrix). A claim checks
such a copy with a check that is only a name: ``check: {tdk: dk}`` where ``dk`` is a ``uses:``
entry naming another claim's input hole (or a copy of one, at any depth), or an input hole of
the same claim (``check: {kc: k}``). Those copies form one group per given value.

Checked one by one against the given printing, an edit of the *first* printing would flag
every later, correct copy. So the copies of a group are compared with each other, element by
element, after every claim is evaluated (:func:`reconcile`, called by :func:`verifiers.run.run`):
two printings agree when they differ by at most the larger of their rounding half-units. The
reference of an element is the value a strict majority of its printings agree with (the first
such printing). Without a strict majority (two printings that disagree) nothing tells which
is wrong: every printing of that element is a ``discrepancy`` with no suggestion. A printing
that differs from its reference is a ``discrepancy`` at that printing, whose message lists
every copy (``line:col``, the differing ones marked ✗); a copy that agrees with the reference
verifies even where it differs from the given printing; values that inherited the error of
such a copy now inherit it from the given printing. The suggestion of a differing printing
is its reference, so ``notecheck fix`` rewrites the minority, never the majority.

This runs on the claims' verdicts, not inside one claim's evaluation: a claim's own verdict
(and its cache entry) still depends only on what it reads, and the comparison, which is
cheap, is redone on every run over the verdicts present (a ``-k`` selection compares the
copies it selected).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from verifiers import expr as ex
from verifiers.holes import Printed, ResolveError, read_value
from verifiers.numbers import PrintedNumber
from verifiers.schema import Claim
from verifiers.verdicts import DISCREPANCY, GIVEN, VERIFIED, ValueVerdict, Verdict

__all__ = ["copy_groups", "reconcile"]

Hole = tuple[str, str]  # (claim id, hole name)
Copy = tuple[str, str, tuple[int, ...]]  # (claim id, hole name, index of the part printed)
_KEY = re.compile(r"^([^\[]+)(?:\[([\d,\s]+)\])?$")
MAX_DEPTH = 64  # copies of copies followed at most this deep


def _source(entry: tuple[ex.Expr, int] | None) -> tuple[str, tuple[int, ...]] | None:
    """``X`` -> ("X", ()), ``X[1]`` -> ("X", (1,)), ``X[0, 2]`` / ``X[0][2]`` -> ("X", (0, 2));
    any other expression computes something: None."""
    if entry is None:
        return None
    node, index = entry[0], ()
    while isinstance(node, ex.Index):
        items = []
        for item in node.items:
            if not (isinstance(item, ex.Num) and item.text.isdigit()):
                return None
            items.append(int(item.text))
        node, index = node.target, (*items, *index)
    return (node.id, index) if isinstance(node, ex.Name) else None


def _given(claims: dict[str, Claim], claim: Claim, name: str, index: tuple[int, ...] = (),
           depth: int = 0) -> Copy | None:
    """The given (input) hole, and the part of it, that a name of ``claim`` reads unchanged."""
    if depth > MAX_DEPTH:
        return None
    if name in claim.uses:
        use = claim.uses[name]
        up = claims.get(use.claim_id)
        if up is None or use.hole not in up.hole_names:
            return None
        if use.hole not in up.check:
            return (up.id, use.hole, index)
        source = _source(up.check[use.hole])
        return None if source is None else _given(claims, up, source[0], source[1] + index,
                                                  depth + 1)
    if name in claim.hole_names and name not in claim.check:
        return (claim.id, name, index)
    if name in claim.check:  # a copy of a copy within the claim (``terms: upper``)
        source = _source(claim.check[name])
        if source is None or source[0] == name:
            return None
        return _given(claims, claim, source[0], source[1] + index, depth + 1)
    return None


def copy_groups(claims: Iterable[Claim]) -> dict[Hole, list[Copy]]:
    """Given hole -> the checked holes that print it (or a part of it) again: (claim id,
    hole name, the index of the part they print), in claim order."""
    by_id = {c.id: c for c in claims}
    groups: dict[Hole, list[Copy]] = {}
    for claim in by_id.values():
        for name, entry in claim.check.items():
            source = _source(entry)
            if (source is None or source[0] == name or name not in claim.hole_names
                    or name in claim.widen):  # a copy printed on purpose at another precision
                continue
            given = _given(by_id, claim, *source)
            if given is not None:
                groups.setdefault(given[:2], []).append((claim.id, name, given[2]))
    return groups


@dataclass
class _Printing:
    verdict: Verdict
    value: ValueVerdict
    printed: Printed
    given: bool  # the given printing itself (the input hole), not a copy
    offset: tuple[int, ...] = ()  # the part of the given value this hole prints

    @property
    def place(self) -> str:
        return f"{self.value.start[0]}:{self.value.start[1]}"


def _index(key: str) -> tuple[int, ...]:
    m = _KEY.match(key)
    if not m or not m.group(2):
        return ()
    return tuple(int(i) for i in m.group(2).split(","))


def _elements(p: _Printing) -> dict[tuple[int, ...], PrintedNumber]:
    base = p.offset + _index(p.value.name)
    shape = p.printed.shape
    out = {}
    for flat, number in enumerate(p.printed.numbers):
        if len(shape) == 2:
            local: tuple[int, ...] = divmod(flat, shape[1])
        elif len(shape) == 1:
            local = (flat,)
        else:
            local = ()
        out[base + local] = number
    return out


def _agree(a: PrintedNumber, b: PrintedNumber) -> bool:
    slack = max(Fraction(0) if a.exact else a.half_unit, Fraction(0) if b.exact else b.half_unit)
    return abs(a.value - b.value) <= slack


def _printings(verdict: Verdict, name: str, given: bool, offset: tuple[int, ...] = ()
               ) -> list[_Printing]:
    out = []
    for x in verdict.values:
        m = _KEY.match(x.name)
        if m and m.group(1) == name:
            try:
                out.append(_Printing(verdict, x, read_value(x.printed, 0), given, offset))
            except ResolveError:
                continue
    return out


def reconcile(verdicts: list[Verdict], claims: Iterable[Claim]) -> list[Verdict]:
    """The verdicts with the copies of every given value compared (see the module)."""
    claims = list(claims)
    groups = copy_groups(claims)
    if not groups:
        return verdicts
    position = {v.id: i for i, v in enumerate(verdicts)}
    out = list(verdicts)
    touched: dict[str, Verdict] = {}

    def own(verdict: Verdict) -> Verdict:
        """A copy of the verdict to change (cached verdicts are shared objects)."""
        if verdict.id not in touched:
            touched[verdict.id] = copy.deepcopy(verdict)
            out[position[verdict.id]] = touched[verdict.id]
        return touched[verdict.id]

    moved: dict[tuple[str, str], tuple[str, str]] = {}  # (copy claim, key) -> given (claim, key)
    for (given_id, given_name), members in groups.items():
        given_v = verdicts[position[given_id]] if given_id in position else None
        if given_v is None or given_v.span is None:  # not selected, or stale / broken
            continue
        printings = _printings(given_v, given_name, True)
        for claim_id, name, offset in members:
            if claim_id in position and verdicts[position[claim_id]].span is not None:
                printings += _printings(verdicts[position[claim_id]], name, False, offset)
        if len(printings) < 2 or not any(p.given for p in printings):
            continue
        _compare(printings, own, moved)
    if moved:
        _reroute(out, moved, own)
    from verifiers.verdicts import settle

    for verdict in touched.values():
        settle(verdict)
    return out


def _compare(printings: list[_Printing], own, moved) -> None:
    """Decide each printing of one given value against its elements' references."""
    printings.sort(key=lambda p: (p.value.start, not p.given))
    elements = [_elements(p) for p in printings]
    indices = sorted({i for e in elements for i in e})
    differs = [False] * len(printings)
    reference: dict[tuple[int, ...], PrintedNumber] = {}
    undecided = False  # an element whose printings disagree without a strict majority
    for index in indices:
        present = [k for k, e in enumerate(elements) if index in e]
        if len(present) < 2:
            continue
        support = {k: sum(_agree(elements[k][index], elements[j][index]) for j in present)
                   for k in present}
        best = max(support.values())
        if 2 * best > len(present):
            ref = next(k for k in present if support[k] == best)
        else:
            ref = next(k for k in present if printings[k].given)
        reference[index] = elements[ref][index]
        split = [k for k in present if not _agree(elements[k][index], elements[ref][index])]
        live = [k for k in present  # a pinned printing keeps its pin and is no evidence
                if printings[k].value.status in (GIVEN, VERIFIED, DISCREPANCY)]
        if split and 2 * best <= len(present) and any(
                not _agree(elements[k][index], elements[j][index]) for k in live for j in live):
            split, undecided = live, True  # no majority: the given printing is no safer
        for k in split:
            differs[k] = True
    if not any(differs):
        return
    listing = ", ".join(f"{p.place} {' '.join(p.value.printed.split())}"
                        + (" ✗" if differs[k] else "") for k, p in enumerate(printings))
    given_key = next((p.verdict.id, p.value.name) for p in printings if p.given)
    for k, p in enumerate(printings):
        x = p.value
        if x.status not in (GIVEN, VERIFIED, DISCREPANCY):
            continue  # a pinned value keeps its pin's verdict
        shown = " ".join(x.printed.split())
        agree = sum(not d for d in differs)
        if differs[k]:
            expected = _suggestion(p, elements[k], reference)
            y = _value(own(p.verdict), x.name)
            y.status, y.local, y.root_cause = DISCREPANCY, "wrong", p.verdict.id
            y.expected = y.suggestion = expected
            y.message = (f"{x.name}: printed {shown}, expected {expected} — this given value "
                         f"is printed {len(printings)} times and {agree} of the printings "
                         f"agree with each other: {listing}")
            if undecided:  # which printing is wrong cannot be told: fix rewrites neither
                y.expected, y.suggestion = "agreement with its other printings", None
                y.message = (f"{x.name}: printed {shown} — this given value is printed "
                             f"{len(printings)} times and its printings disagree with no "
                             f"majority, so any of them may be the wrong one: {listing}")
        elif x.status == DISCREPANCY and not p.given:
            y = _value(own(p.verdict), x.name)
            y.status, y.local, y.root_cause, y.suggestion = VERIFIED, "ok", None, None
            y.expected = x.printed
            y.message = (f"{x.name}: {shown} verified — agrees with {agree} of the "
                         f"{len(printings)} printings of this given value: {listing}")
            moved[(p.verdict.id, x.name)] = given_key


def _value(verdict: Verdict, name: str) -> ValueVerdict:
    return next(x for x in verdict.values if x.name == name)


def _suggestion(p: _Printing, mine: dict[tuple[int, ...], PrintedNumber],
                reference: dict[tuple[int, ...], PrintedNumber]) -> str:
    """The reference value, written the way this printing writes it."""
    from verifiers.engine import shape_numbers, suggest, to_point

    values = [to_point(reference.get(i, n).value) for i, n in mine.items()]
    return suggest(p.printed, shape_numbers(p.printed, values))


def _reroute(verdicts: list[Verdict], moved: dict[tuple[str, str], tuple[str, str]],
             own) -> None:
    """Values that inherited the error of a copy that verifies now inherit it from the given
    printing (the copy only repeated what the given printing should have said)."""
    for verdict in list(verdicts):
        for x in verdict.values:
            if x.root_cause is None or x.status != DISCREPANCY:
                continue
            for (claim_id, key), (given_id, given_key) in moved.items():
                old = f"inherited from {claim_id} ({key})"
                if x.root_cause == claim_id and old in x.message:
                    y = _value(own(verdict), x.name)
                    y.root_cause = given_id
                    y.message = y.message.replace(old, f"inherited from {given_id} "
                                                       f"({given_key})")
                    break
