"""Evaluate claims: resolve quotes, compute expected values, assign verdicts.

Every checked hole is evaluated twice (see docs/claim-format.md):

* **global** — point arithmetic from the exact upstream values;
* **local** — the honest routes (:mod:`verifiers.arithmetic.routes`): the
  printed upstream values as printed, or carried a digit or two finer, or with
  declared hidden intermediates rounded; never the interval hull of the inputs.

Local ✗ (no route gives the printed value) means the error is in this step;
local ✓ with global ✗ means the value is honest rounding along a route, or
inherits an upstream error, whose root cause is then reported instead of a
cascade of independent-looking errors.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, mp

from verifiers import expr as ex
from verifiers import lifecycle
from verifiers.arithmetic import routes as rt
from verifiers.budget import Budget, BudgetExceeded
from verifiers.claimtext import HoleRef, did_you_mean
from verifiers.holes import Match, Printed, ResolveError, find
from verifiers.notes import Note
from verifiers.numbers import (
    PrintedNumber,
    approximate_at,
    approximate_unit,
    format_like,
    is_bare_power,
    neighbour_decimals,
    parse_printed,
)
from verifiers.pins import apply_pin, same_text
from verifiers.programs.jail import JailUnavailable
from verifiers.schema import Claim
from verifiers.verdicts import (
    BLOCKED,
    DISCREPANCY,
    ERROR,
    GIVEN,
    KNOWN,
    STALE,
    VERIFIED,
    ClaimFailure,
    ValueVerdict,
    Verdict,
    settle,
)

DPS = 40
HAIR = Fraction(1, 10**30)

POINT, INTERVAL = "point", "interval"
FLOAT_SLACK = mpmath.mpf("1e-9")  # relative: float64 round-off of a small model example


def _evaluate(entry: tuple[ex.Expr, int], scope: Mapping[str, Any], mode: str) -> Any:
    """Evaluate a claim's expression; an ExprError remembers the expression's YAML line."""
    tree, line = entry
    functions = scope.ev.claim.user_functions if isinstance(scope, Scope) else None
    try:
        return ex.evaluate(tree, scope, mode, functions)
    except ex.ExprError as err:
        if getattr(err, "claim_line", None) is None:  # the innermost expression's line
            err.claim_line = line  # type: ignore[attr-defined]
        raise


@dataclass
class HoleState:
    """How one hole fared, used for root-cause attribution downstream."""

    key: str
    local_ok: bool
    global_ok: bool
    status: str
    root: tuple[str, str] | None = None  # (claim id, hole key) where the error starts
    route: str | None = None  # the honest route(s) giving the printed value (routes.py keys)
    candidates: dict[str, Any] = field(default_factory=dict)  # route key -> this hole's value
    unrouted: tuple[int, ...] = ()  # the printed numbers (row-major) no route gives
    # numbers of a row that mixes routes (routes.one_route): index -> the routes giving it
    mixed: dict[int, set[str]] = field(default_factory=dict)
    leaders: tuple[str, ...] = ()  # the routes giving most of that row


@dataclass
class Evaluation:
    """Everything computed for one claim (memoised)."""

    claim: Claim
    note: Note | None = None
    match: Match | None = None
    failure: ClaimFailure | None = None
    global_values: dict[str, Any] = field(default_factory=dict)
    states: dict[str, HoleState] = field(default_factory=dict)
    values: dict[str, ValueVerdict] = field(default_factory=dict)
    verdict: Verdict | None = None
    scopes: dict[str, Any] = field(default_factory=dict)  # one per mode: model runs once
    on_route: dict[tuple[str, str], Any] = field(default_factory=dict)  # (name, route) -> value
    spent: float = 0.0  # seconds spent evaluating, counted against the claim's budget
    computed: dict[str, Any] = field(default_factory=dict)  # computes: hole -> bound values


def to_point(x: Fraction) -> mpmath.mpf:
    with mp.workdps(DPS):
        return mp.mpf(x.numerator) / x.denominator


def to_interval(x: Fraction, radius: Fraction) -> Any:
    """An interval certainly containing [x - radius, x + radius]."""
    old = iv.dps
    iv.dps = DPS
    try:
        centre = iv.mpf(x.numerator) / x.denominator
        if not radius:
            return centre
        return centre + iv.mpf([-1, 1]) * (iv.mpf(radius.numerator) / radius.denominator)
    finally:
        iv.dps = old


class Engine:
    """Evaluates claims against notes; one instance per run."""

    def __init__(self, notes: dict[str, Note], claims: list[Claim],
                 budget: Budget | None = None) -> None:
        self.notes = notes
        self.claims = {c.id: c for c in claims}
        self.evaluations: dict[str, Evaluation] = {}
        self.in_progress: set[str] = set()
        self.readers: dict[str, dict[int, list[tuple[int, int]]]] = {}  # verifiers/readers.py
        self.by_readers: set[str] = set()  # claims whose stale quote their readers located
        # per claim and per run (None: unbounded); see verifiers.budget
        self.budget = budget if budget is not None else Budget(float("inf"), float("inf"))

    # -- public -----------------------------------------------------------
    def verdict(self, claim_id: str) -> Verdict:
        ev = self.evaluate(claim_id)
        if ev.verdict is None:
            start = self.budget.clock()
            try:
                with self.budget.claim(ev.spent):  # symbolic and property work happens here
                    ev.verdict = self._verdict(ev)
            except BudgetExceeded as err:
                ev.failure = ClaimFailure(ERROR, err.message, ev.claim.line, True)
                ev.values.clear()
                ev.verdict = self._verdict(ev)
            except JailUnavailable as err:  # this machine's, not the claim's: never cached
                ev.failure = ClaimFailure(ERROR, str(err), ev.claim.line, True)
                ev.values.clear()
                ev.verdict = self._verdict(ev)
            except Exception as err:  # a defect of ours: one claim's error, never a traceback
                ev.failure = ClaimFailure(ERROR, f"internal error while checking: "
                                                 f"{type(err).__name__}: {err}")
                ev.verdict = self._verdict(ev)
            finally:
                ev.spent += self.budget.clock() - start
        return ev.verdict

    def evaluate(self, claim_id: str) -> Evaluation:
        """The claim's evaluation, and first those of the claims it uses, at any depth.

        The ``uses`` graph is walked with an explicit stack (a chain thousands of claims
        deep needs no recursion), upstream claims are evaluated first, and a cycle is an
        error of each claim on it, located at its ``uses`` entry and naming the cycle.
        """
        if claim_id in self.evaluations:
            return self.evaluations[claim_id]
        for upstream_first in self._upstream_order(claim_id):
            if upstream_first not in self.evaluations:
                self._evaluate_one(upstream_first)
        return self.evaluations[claim_id]

    def _upstream_order(self, claim_id: str) -> list[str]:
        """``claim_id`` and the unevaluated claims it uses (transitively), upstream first."""
        def ups(cid: str) -> Iterator[str]:
            return (u.claim_id for u in self.claims[cid].uses.values())

        order: list[str] = []
        path: list[str] = [claim_id]
        on_path = {claim_id}
        done: set[str] = set()
        stack = [(claim_id, ups(claim_id))]
        while stack:
            cid, pending = stack[-1]
            for up in pending:
                if up not in self.claims or up in self.evaluations or up in done:
                    continue
                if up in on_path:
                    self._circular(path[path.index(up):])
                    continue
                path.append(up)
                on_path.add(up)
                stack.append((up, ups(up)))
                break
            else:
                stack.pop()
                path.pop()
                on_path.discard(cid)
                done.add(cid)
                order.append(cid)
        return order

    def _circular(self, cycle: list[str]) -> None:
        """Each claim of a ``uses`` cycle fails at its entry that leads around the cycle."""
        for i, cid in enumerate(cycle):
            if cid in self.evaluations:
                continue
            claim = self.claims[cid]
            following = cycle[(i + 1) % len(cycle)]
            line = next((u.line for u in claim.uses.values() if u.claim_id == following),
                        claim.line)
            ring = " → ".join([*cycle[i:], *cycle[:i], cid])
            self.evaluations[cid] = Evaluation(
                claim, failure=ClaimFailure(ERROR, f"circular 'uses': {ring}", line))

    def _evaluate_one(self, claim_id: str) -> Evaluation:
        """Evaluate one claim whose upstream claims are evaluated, within its budget."""
        claim = self.claims[claim_id]
        if claim_id in self.in_progress:  # cannot happen after _upstream_order: a defect
            raise ClaimFailure(ERROR, f"circular 'uses' through claim {claim_id!r}")
        self.in_progress.add(claim_id)
        ev = Evaluation(claim)
        if self.budget.run_left() > 0:
            _import_checkers(claim)
        start = self.budget.clock()
        try:
            with self.budget.claim():
                self._run(ev)
        except BudgetExceeded as err:
            ev.failure = ClaimFailure(ERROR, err.message, claim.line, True)
        except JailUnavailable as err:  # this machine's, not the claim's: never cached
            ev.failure = ClaimFailure(ERROR, str(err), claim.line, True)
        except ClaimFailure as failure:
            ev.failure = failure
        except ex.ExprError as err:
            ev.failure = ClaimFailure(ERROR, err.message, getattr(err, "claim_line", None))
        except (RecursionError, MemoryError, ArithmeticError, ValueError, TypeError,
                KeyError, IndexError, AttributeError, NameError, RuntimeError) as err:
            ev.failure = ClaimFailure(ERROR, f"internal error while checking: "
                                             f"{type(err).__name__}: {err}")
        finally:
            self.in_progress.discard(claim_id)
            ev.spent = self.budget.clock() - start
        self.evaluations[claim_id] = ev
        return ev

    # -- evaluation ---------------------------------------------------------
    def _run(self, ev: Evaluation) -> None:
        claim = ev.claim
        if claim.problems:
            raise ClaimFailure(ERROR, "; ".join(str(p) for p in claim.problems))
        ev.note = self.notes.get(claim.note)
        if ev.note is None:
            raise ClaimFailure(ERROR, f"note {claim.note!r} not found")
        for use in claim.uses.values():
            self._upstream(use.claim_id, use.hole, use.line)
        scopes = [(0, len(ev.note.text))]
        if claim.section:
            scopes = ev.note.scopes(claim.section)
            if not scopes:
                raise ClaimFailure(STALE, f"section {claim.section!r} not found in the note")
        try:
            if claim.kind == "procedure":  # also found after its steps were reordered
                from verifiers.procedures.locate import locate

                ev.match = locate(ev.note, claim, scopes)
            else:
                ev.match = find(ev.note.text, claim.text, scopes, displays=ev.note.displays,
                                near=claim.near, after=claim.after)
        except ResolveError as err:
            ev.match = self._located_by_readers(ev, scopes) if err.stale else None
            if ev.match is None:
                hint = f"; closest line: {err.hint}" if err.hint else ""
                # a stale verdict is never cached: a reader added later may locate it
                failure = ClaimFailure(STALE if err.stale else ERROR, err.message + hint,
                                       None if err.stale else claim.text_line or claim.line,
                                       err.stale, where=err.where if err.stale else None)
                if failure.where is None and err.at is not None:  # a candidate of an ambiguous
                    failure.where = err.at  # quote, or where matching stopped
                raise failure from None
        if claim.computes:  # the values its formula holes are read with (formulas/inline.py)
            from verifiers.formulas.inline_spec import bind

            ev.computed = bind(claim, lambda e: _evaluate(e, self._scope(ev, POINT), POINT))
        if claim.kind in ("symbolic", "property", "procedure"):
            return  # values: the relations of its formulas / the law's search, in _verdict
        for name, (tree, line) in claim.check.items():
            against = self._checked_against_itself(ev, name, tree)
            if against is not None:
                raise ClaimFailure(ERROR, f"check: {name!r} is checked against itself "
                                   f"({against}): compare it with a computation, or make it "
                                   "an input", line)
        scope = self._scope(ev, POINT)
        if claim.run is not None:
            scope._model_outputs()  # a run always runs: an example may enforce what it checks
        for name in claim.hole_names:
            ev.global_values[name] = scope[name]
        for name in claim.check:
            self._assess(ev, name)

    def _located_by_readers(self, ev: Evaluation, scopes: list[tuple[int, int]]) -> Match | None:
        """A stale quote found with the tokens other claims read as the note prints them
        (:mod:`verifiers.readers`); the readers of a note are located once per engine."""
        from verifiers.readers import relocate

        if ev.claim.kind == "procedure":
            return None
        memo = self.readers.setdefault(ev.note.name, {})
        match = relocate(ev.note, ev.claim, scopes, self.claims.values(), memo)
        if match is not None:
            self.by_readers.add(ev.claim.id)
        return match

    def _checked_against_itself(self, ev: Evaluation, name: str, tree: ex.Expr) -> str | None:
        """Why a check's expression is only the hole's own printed value, else None: the
        hole itself (``x: x``, also through ``where:`` aliases), or a ``uses:`` of a value
        printed at the same place of the same note (taken as printed: an input upstream)."""
        claim, seen = ev.claim, set()
        while isinstance(tree, ex.Name) and tree.id in claim.where and tree.id not in seen:
            seen.add(tree.id)
            tree = claim.where[tree.id][0]
        if not isinstance(tree, ex.Name):
            return None
        if tree.id == name:
            return "its expression is the hole itself"
        use = claim.uses.get(tree.id)
        if use is None:
            return None
        up = self._upstream(use.claim_id, use.hole, use.line)
        if not (use.as_printed or use.hole not in up.claim.check) or up.note is not ev.note:
            return None  # upstream computes it: a real (if repeated) check
        own = {(p.start, p.end) for k, p in ev.match.values.items() if _base(k) == name}
        theirs = {(p.start, p.end) for k, p in up.match.values.items() if _base(k) == use.hole}
        if own and own == theirs:
            return f"{tree.id} is {use.claim_id}.{use.hole}, the same printed value"
        return None

    def _scope(self, ev: Evaluation, mode: str, route: rt.Route | None = None) -> Scope:
        key = mode if route is None else route.key
        if key not in ev.scopes:
            ev.scopes[key] = Scope(self, ev, mode, route)
        return ev.scopes[key]

    def _upstream(self, claim_id: str, hole: str, line: int | None = None) -> Evaluation:
        """The evaluated claim a ``uses:`` entry (at ``line`` of the claim file) names."""
        if claim_id not in self.claims:
            raise ClaimFailure(ERROR, f"uses: unknown claim {claim_id!r}"
                               f"{did_you_mean(claim_id, sorted(self.claims))}", line)
        up = self.evaluate(claim_id)
        if hole not in up.claim.hole_names:
            raise ClaimFailure(ERROR, f"uses: claim {claim_id!r} has no hole {hole!r}"
                               f"{did_you_mean(hole, up.claim.hole_names)}", line)
        if up.failure is not None:  # blocked: named by the claim where the failure starts
            root = up.failure.root or claim_id
            status = up.failure.status if up.failure.root is None else up.failure.root_status
            through = f" (through {claim_id})" if root != claim_id else ""
            raise ClaimFailure(BLOCKED, f"blocked by {root}, which is {status}{through}", line,
                               up.failure.depends_on_time, root=root, root_status=status)
        return up

    def _assess(self, ev: Evaluation, name: str) -> None:
        """Compare each printed number of a checked hole with the value of every honest
        route (:mod:`verifiers.arithmetic.routes`); the exact route is the global value."""
        claim = ev.claim
        values = self._route_values(ev, name)
        run = claim.run
        floating = run is not None and any(d in run.outputs for d in dependencies(claim, name))
        row: list[tuple[str, int, set[str]]] = []  # (hole key, number, routes giving it)
        for ref in (h for h in claim.holes if h.name == name):
            printed = ev.match.values[ref.key]
            parts = {key: part_of(v, ref, printed) for key, v in values.items()}
            numbers = {key: flat(part) for key, part in parts.items()}
            approx = approximate(ev, ref)
            used: list[str] = []
            unrouted: list[int] = []
            global_ok = local_ok = True
            for i, pn in enumerate(printed.numbers):
                def admits(v: Any, pn: PrintedNumber = pn, approx: bool = approx) -> bool:
                    return rounds_to(pn, v, claim.widen.get(name), approx, floating)
                if not approx:
                    row.append((ref.key, i, {k for k, n in numbers.items() if admits(n[i])}))
                key = rt.first_admitting({k: n[i] for k, n in numbers.items()}, admits)
                global_ok &= key == "exact"
                local_ok &= key is not None
                if key is None:
                    unrouted.append(i)
                if key is not None and key not in used:
                    used.append(key)
            root = None
            if local_ok and not global_ok:
                root = self._inherited_root(ev, name, ref)
            ev.states[ref.key] = HoleState(ref.key, local_ok, global_ok, "", root,
                                           ",".join(used) if local_ok else None, parts,
                                           tuple(unrouted))
        mixed, leaders = rt.one_route([a for _, _, a in row])
        for k in mixed:  # one printed row, one route (routes.one_route)
            key, i, admitted = row[k]
            state = ev.states[key]
            state.local_ok = state.global_ok = False
            state.root = state.route = None
            state.unrouted = tuple(sorted({*state.unrouted, i}))
            state.mixed[i] = admitted
            state.leaders = tuple(leaders)

    def _route_values(self, ev: Evaluation, name: str) -> dict[str, Any]:
        """The checked name's value along each route that can differ from the exact one
        (a route that substitutes nothing the expression reads is skipped; one that
        cannot be computed, e.g. a log of a printed 0, does not exist)."""
        claim = ev.claim
        values: dict[str, Any] = {"exact": ev.global_values[name]}
        for route in rt.routes_for(bool(claim.hidden))[1:]:
            if not self.route_applies(claim, name, route):
                continue
            try:
                values[route.key] = self.route_value(ev, name, route)
            except (ex.ExprError, ArithmeticError, ValueError):
                continue
        return values

    def route_value(self, ev: Evaluation, name: str, route: rt.Route) -> Any:
        """A checked value on ``route`` (memoised). A check that only repeats other values
        (``x: y``, ``x: Q[0]``) reads each checked value it names as recomputed on the
        route, never as printed (:mod:`verifiers.arithmetic.recompute`)."""
        from verifiers.arithmetic import recompute

        memo, key = ev.on_route, (name, route.key)
        if key in memo:
            return memo[key]
        tree, line = ev.claim.check[name]
        scope = recompute.Recomputing(ev.claim, self._scope(ev, POINT, route),
                                      lambda n: self._recomputed(ev, n, route),
                                      lambda entry, names: _evaluate(entry, names, POINT))
        if recompute.is_reference(ev.claim, name):
            memo[key] = _evaluate((tree, line), scope, POINT)
        elif self.route_applies(ev.claim, name, route):
            value = _evaluate((tree, line), self._scope(ev, POINT, route), POINT)
            for i in recompute.reference_items(ev.claim, name):  # [w0, softmax(S[1])]: w0
                value = (*value[:i], _evaluate((tree.items[i], line), scope, POINT),
                         *value[i + 1:])
            memo[key] = value
        else:
            memo[key] = ev.global_values[name]
        return memo[key]

    def _recomputed(self, ev: Evaluation, name: str, route: rt.Route) -> Any | None:
        """A checked value a reference names, on ``route``: this claim's, or a ``uses:``
        entry's upstream hole; None for an input or a value taken ``as: printed``. A printed
        number of it that no route gives (an error starts there) is carried as printed: a
        printing that repeats it inherits that error, as a computation from it does."""
        if name in ev.claim.check:
            up, hole = ev, name
        else:
            use = ev.claim.uses[name]
            up, hole = self._upstream(use.claim_id, use.hole, use.line), use.hole
            if use.as_printed or hole not in up.claim.check:
                return None
        if any(h.key not in up.states for h in up.claim.holes if h.name == hole):
            self._assess(up, hole)
        return wrong_as_printed(up, hole, self.route_value(up, hole, route))

    @staticmethod
    def route_applies(claim: Claim, name: str, route: rt.Route) -> bool:
        """Does ``route`` substitute anything the check of ``name`` reads?"""
        deps = set(dependencies(claim, name))
        carried = {n for n in deps if n in claim.check
                   or (n in claim.uses and not claim.uses[n].as_printed)}
        hidden = deps & set(claim.hidden)
        return bool((carried and route.carry != rt.EXACT) or (hidden and route.hidden))

    def _inherited_root(
        self, ev: Evaluation, name: str, ref: HoleRef
    ) -> tuple[str, str] | None:
        """The upstream value that is wrong, followed to where its error starts.

        Dependencies are known per name, not per element; among the wrong parts
        of a name, the one printed at the same index (row i from row i) is preferred.
        """
        own_index = ref.key[len(ref.name):]
        candidates: list[tuple[str, HoleState]] = []
        for dep in dependencies(ev.claim, name):
            if dep in ev.claim.check and dep != name:
                states = [s for k, s in ev.states.items() if _base(k) == dep]
                if not states:
                    self._assess(ev, dep)
                    states = [s for k, s in ev.states.items() if _base(k) == dep]
                owner = ev.claim.id
            elif dep in ev.claim.uses and not ev.claim.uses[dep].as_printed:
                use = ev.claim.uses[dep]
                up = self.evaluate(use.claim_id)
                states = [s for k, s in up.states.items() if _base(k) == use.hole]
                owner = use.claim_id
            else:
                continue
            candidates.extend((owner, state) for state in states)
        candidates.sort(key=lambda c: not (own_index and c[1].key.endswith(own_index)))
        for owner, state in candidates:
            if not state.global_ok and not state.local_ok:
                return owner, state.key
            if not state.global_ok and state.root is not None:
                return state.root
        return None

    def _through_readers(self, claim_id: str) -> bool:
        """Was this claim, or one it uses at any depth, located by its readers
        (verifiers/readers.py)? Iterative: a ``uses:`` chain may be thousands deep."""
        if not self.by_readers:
            return False
        todo, seen = [claim_id], {claim_id}
        while todo:
            cid = todo.pop()
            if cid in self.by_readers:
                return True
            claim = self.claims.get(cid)
            for use in claim.uses.values() if claim is not None else ():
                if use.claim_id not in seen:
                    seen.add(use.claim_id)
                    todo.append(use.claim_id)
        return False

    # -- verdicts -----------------------------------------------------------
    def _verdict(self, ev: Evaluation) -> Verdict:
        claim = ev.claim
        verdict = Verdict(
            id=claim.id, file=claim.file, line=claim.line, note=claim.note, kind=claim.kind,
            says=claim.says, status=VERIFIED, section=claim.section,
        )
        if ev.failure is not None:
            verdict.status = ev.failure.status
            verdict.message = ev.failure.message
            verdict.depends_on_time = ev.failure.depends_on_time
            if claim.problems:
                first = claim.problems[0]
                verdict.claim_place = (first.line, first.col)
                verdict.message = "; ".join(p.message for p in claim.problems)
            elif ev.failure.line is not None:  # an expression failed: point at its YAML line
                verdict.claim_place = (ev.failure.line, 1)
            if ev.failure.where is not None and ev.note is not None:  # stale: closest line
                verdict.where = ev.note.position(ev.failure.where)
            verdict.root_cause = ev.failure.root
            return verdict
        note, match = ev.note, ev.match
        verdict.span = (note.position(match.start), note.position(match.end))
        verdict.where = verdict.span[0]
        sec = note.section_at(match.start)
        verdict.section = sec.label if sec else claim.section
        if claim.kind == "symbolic":
            from verifiers.symbolic.claims import check_formulas

            verdict.values.extend(check_formulas(claim, match, note))
        if claim.kind == "property":  # Hypothesis and torch are imported only here
            from verifiers.properties import check_claim

            verdict.values.append(check_claim(claim, match, note))
        if claim.kind == "procedure":  # tinygpt is imported only here
            from verifiers.procedures.check import check_claim as check_procedure

            verdict.values.extend(check_procedure(claim, match, note))
        if claim.computes:  # read here, not when only a value is used: the reader is SymPy
            from verifiers.formulas.inline import check as check_computes

            try:
                with self.budget.claim(ev.spent):
                    verdict.values.extend(check_computes(claim, match, note, ev.computed))
            except BudgetExceeded as err:
                verdict.status, verdict.message = ERROR, err.message
                verdict.depends_on_time, verdict.values = True, []
                return verdict
        if claim.read_by:  # formula holes another claim checks (formulas/readby.py)
            from verifiers.formulas.readby import check as check_read_by

            verdict.values.extend(check_read_by(self, claim, match, note))
        if match.fixed and claim.kind != "property":  # a changed law word no law reads
            from verifiers.properties.fixedwords import unread_verdicts

            verdict.values.extend(unread_verdicts(claim.id, match, note))
        if claim.code is not None:  # findings located in the block come first (verdict.where)
            from verifiers.programs.codehole import block_values

            verdict.values.extend(block_values(claim, match, note))
        for ref in claim.holes:
            if not (ref.formula or ref.word):  # word holes: read by the property's check
                verdict.values.append(self._value(ev, ref))
            elif ref.name in claim.convention:  # judged after the run (notation/conventions)
                word = match.words[ref.name]
                verdict.values.append(ValueVerdict(ref.name, word.text, "", GIVEN,
                                                   note.position(word.start),
                                                   note.position(word.end)))
        if claim.states:  # words about the printed values (verifiers/printed_data.py)
            from verifiers.printed_data import judge

            verdict.values.extend(judge(claim, match, note, _Printed(self, ev),
                                        lambda name, at, expected, status, message: ValueVerdict(
                                            name, at.text, expected, status,
                                            note.position(at.start), note.position(at.end),
                                            message)))
        verdict.depends_on_time |= any(v.depends_on_time for v in verdict.values)
        # located through other claims' quotes, which its cache key does not hash: not cached
        verdict.depends_on_time |= self._through_readers(claim.id)
        if claim.kind != "given" and all(v.status == GIVEN for v in verdict.values):
            # no hole compared with a computation, no symbolic step, no property search
            verdict.status = ERROR
            verdict.message = ("checks nothing: no value is compared with a computation "
                               "(add check: entries, or declare the inputs with kind: given)")
            verdict.claim_place = (claim.line, 1)
            verdict.values.clear()
            return verdict
        return settle(verdict)

    def _value(self, ev: Evaluation, ref: HoleRef) -> ValueVerdict:
        if ref.key not in ev.values:
            ev.values[ref.key] = self._value_verdict(ev, ref)
        return ev.values[ref.key]

    def _value_verdict(self, ev: Evaluation, ref: HoleRef) -> ValueVerdict:
        claim, note = ev.claim, ev.note
        printed = ev.match.values[ref.key]
        vv = ValueVerdict(
            name=ref.key, printed=printed.text, expected=printed.text, status=GIVEN,
            start=note.position(printed.start), end=note.position(printed.end),
        )
        if ref.name not in claim.check:
            vv.message = f"{ref.key}: input {' '.join(printed.text.split())}"
            return vv
        state = ev.states[ref.key]
        vv.approximate = approximate(ev, ref)
        vv.local = "ok" if state.local_ok else "wrong"
        exp_part = part_of(ev.global_values[ref.name], ref, printed)
        vv.expected = render(exp_part)
        others = tuple(n for k, p in ev.match.values.items() if k != ref.key for n in p.numbers)
        texts = {key: suggest(printed, part, others) for key, part in state.candidates.items()}
        exact_text = texts["exact"]
        vv.suggestion = exact_text
        if "printed" in texts and self._chain_sound(ev, ref.name):
            vv.suggestion = texts["printed"]  # the note's own honest chain (issue 14)
        if state.mixed:  # a row mixing routes: its leading route's text, none in a tie
            vv.suggestion = texts.get(state.leaders[0]) if len(state.leaders) == 1 else None
        vv.route = state.route
        if state.global_ok:
            status, why = VERIFIED, ""
        elif not state.local_ok:
            status = DISCREPANCY
            why = f"the arithmetic of this step is wrong: {self._no_route(ref, printed, state)}"
            vv.root_cause = claim.id
        elif state.root is not None:
            status = DISCREPANCY
            vv.root_cause = state.root[0]
            why = f"inherited from {state.root[0]} ({state.root[1]})"
        else:
            status, why = VERIFIED, ""
        pin = claim.known.get(ref.key)
        root_status = self._root_status(state.root) if state.root else None
        if pin is not None:  # a pin may name the exact value or the chain's
            named = next((t for t in (vv.suggestion, exact_text)
                          if same_text(pin.expected or "", t)), vv.suggestion)
            status, why = self._apply_pin(pin, printed.text, named, status, why)
        elif status == DISCREPANCY and root_status == KNOWN:
            status, why = KNOWN, f"inherits the known discrepancy of {state.root[0]}"
        vv.status = status
        state.status = status
        shown = " ".join(printed.text.split())
        if vv.approximate:  # the note's 约/≈/about: checked to one unit of its last digit
            shown += " (approximate)"
        if status == VERIFIED:
            vv.message = f"{ref.key}: {shown} verified"
            if state.route and state.route != "exact":
                vv.message += " " + " / ".join(rt.label_of(k) for k in state.route.split(","))
        else:
            vv.message = f"{ref.key}: printed {shown}, expected {vv.suggestion}"
            if state.mixed and vv.suggestion is None:  # a tie of routes: nothing to suggest
                vv.message = f"{ref.key}: printed {shown}"
            if why:
                vv.message += f" — {why}"
        return vv

    @staticmethod
    def _no_route(ref: HoleRef, printed: Printed, state: HoleState) -> str:
        """"no honest route gives 5.54 (5.55 exact, 5.53 from the printed inputs)", for
        each printed number that no route gives (a vector's by its index)."""
        values = {key: flat(part) for key, part in state.candidates.items()}
        parts, mixed = [], []
        for i in state.unrouted:
            pn = printed.numbers[i]
            texts = {key: like(pn, v[i]) for key, v in values.items()}
            where = "" if printed.shape == () else f"{ref.key}{_index(printed.shape, i)} = "
            if i in state.mixed:
                mixed.append(where + rt.mixed_message(pn.text, state.mixed[i], state.leaders))
                continue
            parts.append(f"{where}{pn.text} ({rt.describe(texts)})")
        said = ["no honest route gives " + "; ".join(parts)] if parts else []
        return "; ".join(said + mixed)

    def _chain_sound(self, ev: Evaluation, name: str) -> bool:
        """Are the checked values this one reads (here and upstream) all right by some
        route? Then the printed chain is honest and its value is the one to suggest."""
        for dep in dependencies(ev.claim, name):
            if dep in ev.claim.check and dep != name:
                states = [s for k, s in ev.states.items() if _base(k) == dep]
            elif dep in ev.claim.uses and not ev.claim.uses[dep].as_printed:
                use = ev.claim.uses[dep]
                up = self.evaluate(use.claim_id)
                states = [s for k, s in up.states.items() if _base(k) == use.hole]
            else:
                continue
            if any(not s.local_ok or (not s.global_ok and s.root is not None) for s in states):
                return False
        return True

    _apply_pin = staticmethod(apply_pin)  # verifiers.pins: symbolic claims pin steps too

    def _root_status(self, root: tuple[str, str]) -> str | None:
        """The status of the hole where an inherited error starts (local ✗, so no cycle)."""
        claim_id, key = root
        ev = self.evaluate(claim_id)
        if ev.failure is not None:
            return None
        ref = next(h for h in ev.claim.holes if h.key == key)
        return self._value(ev, ref).status


# The modules a claim's checker needs, imported before its budget starts: a deadline must
# never interrupt the import of a C extension (a half-initialised torch or NumPy crashes
# the interpreter later), nor may SIGINT/SIGTERM (torch's import aborts the process), and
# the import floor is not the claim's time.
_CHECKERS = {"symbolic": ("verifiers.symbolic.claims",),
             "property": ("verifiers.properties", "verifiers.properties.runner"),
             "procedure": ("verifiers.procedures.check", "tinygpt"),
             "model": ("verifiers.modelrun",)}


def _import_checkers(claim: Claim) -> None:
    import importlib

    kind = "model" if claim.run is not None else claim.kind
    modules = _CHECKERS.get(kind, ())
    if any(ref.startswith("tinygpt-") for ref in claim.reference.values()):
        modules += ("verifiers.formulas.code",)  # LaTeX checked against tinygpt: torch
    with lifecycle.held():  # a signal waits for the import's end, never lands inside torch's
        for module in modules:
            try:
                importlib.import_module(module)
            except ImportError:  # the checker reports what is missing, as the claim's error
                return


class Scope(Mapping[str, Any]):
    """The names an expression may read, computed lazily in one mode."""

    def __init__(self, engine: Engine, ev: Evaluation, mode: str,
                 route: rt.Route | None = None) -> None:
        self.engine, self.ev, self.mode = engine, ev, mode
        self.route = route  # None: the exact route
        self.cache: dict[str, Any] = {}
        self.busy: set[str] = set()

    def __getitem__(self, name: str) -> Any:
        if name in self.cache:
            return self.cache[name]
        if name in self.busy:
            raise ex.ExprError(f"{name!r} is defined in terms of itself")
        self.busy.add(name)
        try:
            value = self._compute(name)
        finally:
            self.busy.discard(name)
        self.cache[name] = value
        return value

    def _compute(self, name: str) -> Any:
        claim, ev = self.ev.claim, self.ev
        if name in claim.uses:
            use = claim.uses[name]
            up = self.engine._upstream(use.claim_id, use.hole, use.line)
            if use.as_printed or use.hole not in up.claim.check:
                return printed_value(up, use.hole, self.mode)
            if self.route is not None and self.route.carry != rt.EXACT:
                return carried_value(up, use.hole, self.route)
            return up.global_values[use.hole]
        if name in claim.where:
            value = _evaluate(claim.where[name], self, self.mode)
            if self.route is not None and self.route.hidden and name in claim.hidden:
                return rt.round_hidden(value, claim.hidden[name])
            return value
        if claim.run is not None and name in claim.run.outputs:
            return self._model_outputs()[name]
        if claim.iterate is not None and name in claim.iterate.state:
            return self._iterated()[name]
        if name in claim.constants:  # exact in both modes: the note's figure shows it
            return _evaluate((claim.constants[name].expr, claim.constants[name].line), self,
                             self.mode)
        if name in claim.check:
            if self.route is not None and self.route.carry != rt.EXACT:
                return carried_value(ev, name, self.route)
            if name in ev.global_values:
                return ev.global_values[name]
            return _evaluate(claim.check[name], self, POINT)
        if name in claim.hole_names:
            return printed_value(ev, name, self.mode)
        raise KeyError(name)

    def _model_outputs(self) -> dict[str, Any]:
        """Run the claim's tinygpt example once per mode (torch is imported only here)."""
        if "\0run" not in self.cache:
            from verifiers.modelrun import run_example

            run = self.ev.claim.run
            inputs = {key: _evaluate(entry, self, self.mode)
                      for key, entry in run.inputs.items()}
            extra = {}
            if run.with_text:
                match = self.ev.match
                extra["text"] = self.ev.note.text[match.start:match.end]
            if self.ev.claim.code is not None:  # a code hole: the block as the note prints it now
                from verifiers.programs.codehole import block_text

                extra[self.ev.claim.code.name] = block_text(self.ev.claim, self.ev.match,
                                                            self.ev.note)
            values = run_example(run.example, inputs, tuple(run.outputs.values()), self.mode,
                                 extra)
            self.cache["\0run"] = {alias: values[key] for alias, key in run.outputs.items()}
        return self.cache["\0run"]

    def _iterated(self) -> dict[str, Any]:
        """The claim's ``iterate:`` run once per mode (bounded in verifiers.expr.iterate)."""
        if "\0iterate" not in self.cache:
            it = self.ev.claim.iterate
            try:
                self.cache["\0iterate"] = ex.iterate(
                    {k: t for k, (t, _) in it.state.items()},
                    {k: t for k, (t, _) in it.step.items()},
                    it.times, self, self.mode, self.ev.claim.user_functions)
            except ex.ExprError as err:
                if getattr(err, "claim_line", None) is None:
                    err.claim_line = it.line  # type: ignore[attr-defined]
                raise
        return self.cache["\0iterate"]

    def _names(self) -> list[str]:
        c = self.ev.claim
        outputs = list(c.run.outputs) if c.run else []
        results = list(c.iterate.state) if c.iterate else []
        return list(dict.fromkeys([*c.uses, *c.where, *c.hole_names, *outputs, *results,
                                   *c.constants]))

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return sum(1 for _ in self)


# -- values ---------------------------------------------------------------

class _Printed(Mapping[str, Any]):
    """A claim's names as the note prints them (holes, ``uses:``, ``where:`` over those)."""

    def __init__(self, engine: Engine, ev: Evaluation) -> None:
        self.engine, self.ev, self.cache = engine, ev, {}

    def __getitem__(self, name: str) -> Any:
        if name not in self.cache:
            claim = self.ev.claim
            if name in claim.hole_names:
                self.cache[name] = printed_value(self.ev, name, POINT)
            elif name in claim.uses:
                use = claim.uses[name]
                up = self.engine._upstream(use.claim_id, use.hole, use.line)
                self.cache[name] = printed_value(up, use.hole, POINT)
            elif name in claim.where:
                self.cache[name] = _evaluate(claim.where[name], self, POINT)
            else:
                raise KeyError(name)
        return self.cache[name]

    def __iter__(self):  # type: ignore[no-untyped-def]
        claim = self.ev.claim
        return iter([*claim.hole_names, *claim.uses, *claim.where])

    def __len__(self) -> int:
        return len(list(iter(self)))


def printed_value(ev: Evaluation, name: str, mode: str) -> Any:
    """The note's printed digits of a hole name (an input, or ``as: printed``), exactly;
    parts that are not printed take the exact expected value."""
    claim = ev.claim
    refs = [h for h in claim.holes if h.name == name]

    def numbers(p: Printed, ref: HoleRef) -> list[Any]:
        if mode == POINT:
            return [to_point(pn.value) for pn in p.numbers]
        return [to_interval(pn.value, Fraction(0)) for pn in p.numbers]

    if len(refs) == 1 and not refs[0].index:
        p = ev.match.values[refs[0].key]
        return shape_numbers(p, numbers(p, refs[0]))
    if name in ev.global_values:
        base = ev.global_values[name]
    elif name in claim.check:
        raise ex.ExprError(f"{name!r} is only partly printed and depends on itself")
    else:
        base = assemble_input(ev, name, refs)
    value = nested_list(base)
    for ref in refs:
        p = ev.match.values[ref.key]
        value = replace_part(value, ref.index, shape_numbers(p, numbers(p, ref)))
    return frozen(convert_mode(value, mode) if mode == INTERVAL else value)


def carried_value(ev: Evaluation, name: str, route: rt.Route) -> Any:
    """A checked value as a route carries it forward: each printed number as printed,
    or (finer routes) its exact value rounded past the printed digits when the printed
    digits are right; parts that are not printed take the exact value."""
    claim = ev.claim
    exact = ev.global_values[name]
    refs = [h for h in claim.holes if h.name == name]

    def numbers(p: Printed, ref: HoleRef) -> list[Any]:
        approx = approximate(ev, ref)
        out = []
        for pn, e in zip(p.numbers, flat(part_of(exact, ref, p)), strict=True):
            right = rounds_to(pn, e, claim.widen.get(name), approx)
            out.append(rt.carry_number(pn, e, right, route))
        return out

    if len(refs) == 1 and not refs[0].index:
        p = ev.match.values[refs[0].key]
        return shape_numbers(p, numbers(p, refs[0]))
    value = nested_list(exact)
    for ref in refs:
        p = ev.match.values[ref.key]
        value = replace_part(value, ref.index, shape_numbers(p, numbers(p, ref)))
    return frozen(value)


def wrong_as_printed(ev: Evaluation, name: str, value: Any) -> Any:
    """``value`` (a checked name's value on a route) with each printed number of the name
    that no honest route gives replaced by its printed digits."""
    refs = [h for h in ev.claim.holes if h.name == name and ev.states[h.key].unrouted]
    if not refs:
        return value
    out = nested_list(value)
    for ref in refs:
        p = ev.match.values[ref.key]
        numbers = flat(part_of(value, ref, p))
        for i in ev.states[ref.key].unrouted:
            numbers[i] = to_point(p.numbers[i].value)
        part = shape_numbers(p, numbers)
        out = replace_part(out, ref.index, part) if ref.index else nested_list(part)
    return frozen(out)


def approximate(ev: Evaluation, ref: HoleRef) -> bool:
    """Does the note mark this hole's printed value approximate (约, ≈, about, 左右 …)?"""
    printed = ev.match.values[ref.key]
    return approximate_at(ev.note.text, printed.start, printed.end)


def assemble_input(ev: Evaluation, name: str, refs: list[HoleRef]) -> Any:
    """An input printed in parts (rows of a table, elements of a vector)."""
    depth = len(refs[0].index)
    if depth == 1:
        rows = sorted(refs, key=lambda r: r.index)
        if [r.index[0] for r in rows] != list(range(len(rows))):
            raise ex.ExprError(f"input {name!r} is printed in parts with gaps")
        return tuple(
            shape_numbers(ev.match.values[r.key],
                          [to_point(pn.value) for pn in ev.match.values[r.key].numbers])
            for r in rows)
    cells = {r.index: ev.match.values[r.key] for r in refs}
    n_rows = max(i for i, _ in cells) + 1
    n_cols = max(j for _, j in cells) + 1
    if len(cells) != n_rows * n_cols:
        raise ex.ExprError(f"input {name!r} is printed in parts with gaps")
    return tuple(tuple(to_point(cells[(i, j)].numbers[0].value) for j in range(n_cols))
                 for i in range(n_rows))


def shape_numbers(p: Printed, numbers: list[Any]) -> Any:
    if p.shape == ():
        return numbers[0]
    if len(p.shape) == 1:
        return tuple(numbers)
    rows, cols = p.shape
    return tuple(tuple(numbers[r * cols:(r + 1) * cols]) for r in range(rows))


def nested_list(value: Any) -> Any:
    if isinstance(value, tuple):
        return [nested_list(v) for v in value]
    return value


def frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    return value


def convert_mode(value: Any, mode: str) -> Any:
    """Points become zero-width intervals where a partly printed value needs them."""
    if isinstance(value, (list, tuple)):
        return [convert_mode(v, mode) for v in value]
    if isinstance(value, mpmath.mpf):
        old = iv.dps
        iv.dps = DPS
        try:
            return iv.mpf(value)
        finally:
            iv.dps = old
    return value


def replace_part(value: Any, index: tuple[int, ...], part: Any) -> Any:
    if not isinstance(value, list):
        raise ex.ExprError("a hole index points into a scalar")
    target = value
    for i in index[:-1]:
        target = target[i]
    try:
        target[index[-1]] = nested_list(part)
    except IndexError:
        raise ex.ExprError(f"hole index {list(index)} is out of range") from None
    return value


def part_of(value: Any, ref: HoleRef, printed: Printed) -> Any:
    """The piece of a computed value that one hole prints, checked for shape."""
    piece = value
    try:
        for i in ref.index:
            if not isinstance(piece, tuple):
                raise IndexError
            piece = piece[i]
    except IndexError:
        raise ClaimFailure(ERROR, f"hole ⟨{ref.key}⟩: index out of range for the "
                           f"computed value of shape {shape_of(value)}",
                           where=printed.start) from None  # at the hole: the note prints more
    if shape_of(piece) != printed.shape:
        raise ClaimFailure(ERROR, f"hole ⟨{ref.key}⟩ prints shape {printed.shape} "
                           f"but the check computes shape {shape_of(piece)}", where=printed.start)
    return piece


def shape_of(value: Any) -> tuple[int, ...]:
    if isinstance(value, tuple):
        if value and isinstance(value[0], tuple):
            return (len(value), len(value[0]))
        return (len(value),)
    return ()


def flat(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [x for v in value for x in flat(v)]
    return [value]


def tolerance(pn: PrintedNumber, expected: Any, widen: Any,
              approx: bool = False) -> mpmath.mpf:
    """Half a unit of the last printed digit (0 for integers), widened if the claim says why.

    ``approx`` (the note marks the number approximate): one unit of its last significant
    digit (:func:`verifiers.numbers.approximate_unit`); a bare power of ten, a factor of
    √10 on the side of ``expected`` (log10 of the true value rounds to the exponent).

    The "hair" for ties and 40-digit rounding is relative, so that values near
    1e-324 are compared as strictly as values near 1.
    """
    tol = Fraction(0) if pn.exact else pn.half_unit
    with mp.workdps(DPS):
        t = to_point(tol)
        if approx:
            unit = approximate_unit(pn)
            if unit is not None:
                t = max(t, to_point(unit))
            elif is_bare_power(pn):
                v = abs(to_point(pn.value))
                root = mp.sqrt(10)
                t = v * (root - 1) if abs(expected) >= v else v * (1 - 1 / root)
        if widen is not None:
            t = max(t, to_point(widen.abs or Fraction(0)), to_point(widen.rel or Fraction(0))
                    * abs(expected))
        scale = max(abs(expected), abs(to_point(pn.value)))
        return t * (1 + mp.mpf(10) ** -20) + scale * to_point(HAIR)


INTEGER_NOISE = mp.mpf(10) ** -30
"""How far a computed value may sit from a one-digit printed integer and still be it:
round-off of the engine's 40-digit arithmetic (a row of a Jacobian summing to 6e-42)."""


def rounds_to(pn: PrintedNumber, value: Any, widen: Any, approx: bool = False,
              floating: bool = False) -> bool:
    """Does ``value`` round to the printed number (at the engine's 40 digits: 0.9625 is
    a tie that rounds to 0.963, not 0.000500…01 away from it in binary)?

    ``floating``: the value comes from a float64 model run, whose round-off
    (:data:`FLOAT_SLACK`, relative) is no route's error: a + c = 0.9999999999999999 is 1.
    """
    with mp.workdps(DPS):
        tol = tolerance(pn, value, widen, approx)
        if floating:
            tol += FLOAT_SLACK * max(abs(value), abs(to_point(pn.value)))
        if pn.kind == "integer" and abs(value - mpmath.nint(value)) > tol:
            if abs(pn.value) >= 10:  # 2143 for 2143.08: rounded to units, as printed
                tol = max(tol, mp.mpf(1) / 2)
            else:  # a one-digit integer is no rounding ("= 1" for 0.901 is wrong); only
                tol = max(tol, INTEGER_NOISE)  # the 40-digit round-off of an exact result
        return abs(to_point(pn.value) - value) <= tol


def overlaps(interval: Any, printed: Fraction, tol: mpmath.mpf) -> bool:
    """Does some value in the local interval round to the printed value?"""
    with mp.workdps(DPS):
        p = to_point(printed)
        lo, hi = mp.mpf(interval.a), mp.mpf(interval.b)
        return lo <= p + tol and hi >= p - tol


def dependencies(claim: Claim, name: str) -> list[str]:
    """Names a checked hole's expression reads, through ``where`` definitions."""
    seen: list[str] = []
    stack = sorted(ex.free_names(claim.check[name][0]))
    while stack:
        dep = stack.pop(0)
        if dep in seen:
            continue
        seen.append(dep)
        if dep in claim.where:
            stack.extend(sorted(ex.free_names(claim.where[dep][0])))
        if claim.run is not None and dep in claim.run.outputs:
            for tree, _ in claim.run.inputs.values():
                stack.extend(sorted(ex.free_names(tree)))
        if claim.iterate is not None and dep in claim.iterate.state:
            for tree, _ in [*claim.iterate.state.values(), *claim.iterate.step.values()]:
                stack.extend(sorted(ex.free_names(tree)))
    return seen


def _index(shape: tuple[int, ...], i: int) -> str:
    """The index of the i-th number (row-major) of a printed vector or matrix."""
    return f"[{i}]" if len(shape) == 1 else f"[{i // shape[1]},{i % shape[1]}]"


def _base(key: str) -> str:
    return key.split("[", 1)[0]


# -- rendering ------------------------------------------------------------

def render(value: Any, digits: int = 15) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(render(v, digits) for v in value) + "]"
    return mpmath.nstr(value, digits)


def suggest(printed: Printed, expected: Any, neighbours: tuple[PrintedNumber, ...] = ()) -> str:
    """The expected value written the way the note writes it (:func:`numbers.format_like`).

    ``neighbours``: the numbers printed in the claim's other holes; with the other cells
    of ``printed`` they give a wrong value their decimals (:func:`numbers.neighbour_decimals`).
    """
    values = flat(expected)
    numbers = printed.numbers
    texts = [like(pn, e, (*numbers[:i], *numbers[i + 1:], *neighbours))
             for i, (pn, e) in enumerate(zip(numbers, values, strict=True))]
    if printed.shape == ():
        return texts[0]
    if len(printed.shape) == 1:
        return "[" + ", ".join(texts) + "]"
    cols = printed.shape[1]
    rows = [texts[i:i + cols] for i in range(0, len(texts), cols)]
    return "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]"


def like(pn: PrintedNumber, expected: Any, neighbours: tuple[PrintedNumber, ...] = ()) -> str:
    with mp.workdps(DPS):  # at the engine's 40 digits: 10^30 is exact, not 1e30 as a float
        text = mpmath.nstr(expected, 40, strip_zeros=False)
    try:
        d = Decimal(text)
    except ArithmeticError:
        return mpmath.nstr(expected, 6)
    try:
        own = format_like(pn, d)
        places = neighbour_decimals(pn, neighbours)
        if places is not None and (own is None or parse_printed(own).value != pn.value):
            return format_like(pn, d, places) or mpmath.nstr(expected, 6)
    except ArithmeticError:  # beyond the decimal context (1e+3999956568380): say it plainly
        return mpmath.nstr(expected, 6)
    if pn.kind == "integer" and expected != mpmath.nint(expected):
        return mpmath.nstr(expected, 6)  # "expected 0" for 0.5 would mislead
    return own or mpmath.nstr(expected, 6)

