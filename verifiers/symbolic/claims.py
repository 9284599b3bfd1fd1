"""Symbolic claims: read the note's LaTeX derivations and check every relation in them.

A symbolic claim binds formula holes ``⟪F⟫`` to LaTeX in the note. Each
formula is split into its chains (``A = B = C``, aligned rows), each side is
parsed by our own LaTeX reader (:mod:`verifiers.latex`) and must print back to
what the note says (a formula that does not parse or round-trip is
``unparsed``, never a pass), and each adjacent pair is checked by
:mod:`verifiers.symbolic.prove`: ``proved`` by SymPy under the claim's assumptions,
or supported by ``numeric evidence`` at many high-precision points, or failed
with a point where the two sides differ. SymPy is imported only here.
"""

from __future__ import annotations

import contextvars
import dataclasses
import itertools
import re
import time
from collections.abc import Mapping
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from verifiers.deadline import (
    WALL_FACTOR,
    DeadlineExceeded,
    can_bound,
    cpu_seconds,
    deadline,
    remaining,
)
from verifiers.formulas import frames
from verifiers.formulas.ellipsis import length_cases
from verifiers.formulas.fprimes import function_primes
from verifiers.formulas.restated_words import side_differs, words_differ
from verifiers.formulas.updates import assigned, updated
from verifiers.formulas.vecdot import check_components, dot_products
from verifiers.holes import Match
from verifiers.latex import (
    ELLIPSIS,
    SUM_UPPER,
    LatexError,
    canonical,
    check_size,
    parse_interval,
    parse_latex,
    parse_limit_point,
    round_trip_ok,
    split_chains,
)
from verifiers.notes import Note
from verifiers.pins import apply_pin
from verifiers.schema import Claim
from verifiers.symbolic.indices import (
    IndexError_,
    IndexSetting,
    ShapeMismatch,
    instances,
    matrix_names,
    pairs_of,
    size_of,
)
from verifiers.symbolic.matrixcalc import (
    FAILED,
    NUMERIC,
    PROVED,
    TIMEOUT,
    UNDECIDED,
    BoundError,
    EntryDefinition,
    MatrixError,
    MatrixInstance,
    ShapeError,
    compare_entries,
    names_to_read,
)
from verifiers.symbolic.prove import (
    Assumptions,
    StepVerdict,
    check_cases,
    check_step,
    covariance,
    expectation,
    limit_check,
    moment,
    run_streaming,
    variance,
)
from verifiers.verdicts import DISCREPANCY, ERROR, UNPARSED, VERIFIED, ValueVerdict

EXPECTED = {"proved": "proved", "numeric": "numeric evidence"}

#: What a claim file may ask for: ``timeout:`` is SymPy's time per step, at most this...
MAX_STEP_SECONDS = 20.0  # the schema refuses more (schema.MAX_STEP_SECONDS)
#: ...and all the symbolic work of one claim (reading, substituting, every step, the
#: numeric evidence) runs under this budget; a claim that exceeds it is an ``error``
#: that depends on time (never cached), located at the formula being checked.
CLAIM_SECONDS = 60.0


class _Unparsed(Exception):
    pass


class _RestatedReadable(Exception):
    """A restatement of a definition the reader can read as printed: a broken claim."""


def assumptions(claim: Claim) -> Assumptions:
    return Assumptions(**claim.assume)  # type: ignore[arg-type]


#: Multi-letter names the claim declares (``define:``/``assume:`` keys such as ``pos``,
#: ``d_model``): the reader takes them whole, as a plain-text note writes them.
_NAMES: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar("names",
                                                                                 default=None)


def declared_names(claim: Claim) -> dict[str, Any]:
    """Names of ``define:`` and ``assume:`` that LaTeX would split (``pos`` is p·o·s,
    ``d_model`` is d_{m}·o·d·e·l): the claim declares them, so they are names."""
    if claim.matrices:
        return {}
    found = set(claim.define)
    for value in claim.assume.values():
        if isinstance(value, tuple):
            found |= set(value)
    plain = re.compile(r"[A-Za-z]{2,}|[A-Za-z]+_[A-Za-z]{2,}")
    return {n: sympy.Symbol(n, real=True) for n in found if plain.fullmatch(n)}


#: What :func:`_parse` made of each input in this process: the tree, or the message of its
#: _Unparsed. A claim reads its sides several times (the chain, the definitions it uses, a
#: restatement's comparison) and claims share formulas; reading and the round trip are pure.
_PARSED: dict[tuple[Any, ...], tuple[bool, Any]] = {}


def _parse(text: str, functions: tuple[str, ...] = (), matrices: frozenset[str] = frozenset()
           ) -> Any:
    names = {n: s for n, s in (_NAMES.get() or {}).items() if n not in functions}
    key = (text, tuple(sorted(names.items())), tuple(functions), frozenset(matrices))
    done = _PARSED.get(key)
    if done is None:
        done = _read(text, names, functions, matrices)
        if remaining() != 0.0:  # an expired deadline may have cut the round trip: not kept
            _PARSED[key] = done
    ok, value = done
    if not ok:
        raise _Unparsed(value)
    return value


def _read(text: str, names: dict[str, Any], functions: tuple[str, ...],
          matrices: frozenset[str]) -> tuple[bool, Any]:
    """``(True, tree)`` or ``(False, why it is unreadable)``."""
    try:
        expr = parse_latex(text, names, functions=functions, matrices=matrices)
    except LatexError as err:
        return False, f"cannot read {text!r}: {err}"
    if not round_trip_ok(text, expr, names, functions=functions, matrices=matrices):
        return False, f"{text!r} does not read back as written (parsed as {expr})"
    return True, expr


def _parse_part(text: str, subs: Definitions) -> Any:
    """:func:`_parse` for :mod:`verifiers.formulas.parts`, which knows unreadable as ValueError."""
    try:
        return _parse(text, subs.functions, subs.matrices)
    except _Unparsed as err:
        raise ValueError(str(err)) from None


def _bounded(expr: Any, values: Mapping[Any, Any]) -> None:
    """Refuse a substitution whose result would be too large to compute (see
    :func:`verifiers.latex.check_size`) before ``subs`` evaluates it."""
    try:
        check_size(expr, values)
    except LatexError as err:
        shown = sympy.sstr(expr)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise _Unparsed(f"with its definitions substituted into {shown!r}: "
                        f"{err.message}") from None


def function_names(claim: Claim, match: Match) -> tuple[str, ...]:
    """Names read as functions: the claim's ``functions:`` and defined names the note
    writes as functions, ``L (w) = …`` (read ``L (x)`` as a call)."""
    names = list(claim.functions)
    for name, hole in claim.define.items():
        if claim.matrices:
            continue
        try:
            heads = [chain[0].strip() for chain in split_chains(match.formulas[hole].text)]
        except LatexError:
            continue  # reported when the definition is read
        if any(re.fullmatch(re.escape(name) + r"\s*\(.*\)", head) for head in heads):
            names.append(name)
    return tuple(names)


class Definitions:
    """``define: {p: P, L: F}``: P reads ``p = …``; F reads ``L (w) = …`` (a function)."""

    def __init__(self, claim: Claim, match: Match) -> None:
        self.claim = claim
        self.functions = function_names(claim, match)
        self.matrices = frozenset(names_to_read(claim.matrices, claim.define))
        self.symbols: dict[Any, Any] = {}
        self.calls: dict[str, tuple[tuple[Any, ...], Any]] = {}
        # PE(pos, 2i+1) = …: more patterns of a function, each with its define key
        self.alternatives: dict[str, list[tuple[tuple[Any, ...], Any, str]]] = {}
        self.instance: MatrixInstance | None = None
        matrix_defs: dict[str, Any] = {}
        self.patterns: dict[Any, Any] = {}  # q \cdot k = …: a left side that is no name
        self.givens: dict[Any, Any] = {}  # E [X] = 2: the mean mu_X of a random variable
        self.restated: list[str] = []  # definitions the claim restates, with the reason
        self.mismatches: dict[str, str] = {}  # restated hole -> how the note's formula differs
        self.integers = frozenset(claim.assume.get("integer", ()))  # PE(pos, 2i): i integer
        self.hypotheses = Hypotheses()  # i ≠ j, T → 0⁺, z_j - z_k < 0, (e_i)_m = …
        for name, hole in claim.define.items():
            restated = claim.restate.get(hole)
            if not claim.matrices and self.hypotheses.read(
                    name, restated.text if restated else match.formulas[hole].text,
                    self.functions):
                if restated:  # a hypothesis the note states in words (z_i - z_k < 0)
                    self.restated.append(f"{restated.text} (restated: {restated.reason})")
                continue
            lhs, rhs = self._definition(name, hole, match, claim)
            if claim.matrices:
                lhs_name = getattr(lhs, "name", None)
                head, _, indices = (lhs_name or "").partition("_")
                if isinstance(lhs, AppliedUndef) and lhs.func.__name__ == name \
                        and name in self.functions \
                        and all(isinstance(a, sympy.Symbol) for a in lhs.args):
                    self.calls[name] = (lhs.args, rhs)  # R (θ) = [\begin{matrix} …]
                elif lhs_name == name:
                    matrix_defs[name] = rhs
                elif head == name and indices.isascii() and indices.isalpha() \
                        and indices.islower():  # y_{r} = …: y given entry by entry
                    matrix_defs[name] = EntryDefinition(tuple(indices), rhs)
                else:
                    raise _Unparsed(f"define: {name}: formula {hole} does not read "
                                    f"'{name} = …'")
            elif name in self.functions and isinstance(lhs, AppliedUndef) \
                    and all(isinstance(a, sympy.Symbol) for a in lhs.args):
                self.calls[name] = (lhs.args, rhs)
                # The bare name stands for the function of its own variables (dL/dw).
                self.symbols[sympy.Symbol(name, real=True)] = rhs
            elif name in self.functions and isinstance(lhs, AppliedUndef) \
                    and all(a.free_symbols for a in lhs.args):
                # PE(pos, 2i) = …: a pattern; PE(1, 2) has pos = 1, i = 1 (an integer when
                # assume: {integer: [i]}); PE(1, 3) does not match and stays PE(1, 3)
                self.calls[name] = (lhs.args, rhs)
            elif isinstance(lhs, AppliedUndef) and lhs.func.__name__ in self.calls \
                    and name.replace(" ", "").startswith(f"{lhs.func.__name__}(") \
                    and all(a.free_symbols for a in lhs.args):
                # {PE: F, 'PE(pos, 2i+1)': G}: another pattern of a function defined on one
                # (the key is the left side as the note writes it); a call takes the first
                # pattern it matches
                self.alternatives.setdefault(lhs.func.__name__, []).append((lhs.args, rhs, name))
            elif lhs in (sympy.Symbol(name, real=True), updated(name)):
                self.symbols[lhs] = rhs  # x = …, or the update x ← … (x^{new})
            elif not self._given(name, lhs, rhs):
                raise _Unparsed(f"define: {name}: formula {hole} does not read '{name} = …'")
        self.symbols = {k: sympy.Function("vec")(*v) if isinstance(v, sympy.Tuple) else v
                        for k, v in self.symbols.items()}  # v_{1} = (2, 0): a vector
        if claim.matrices:
            self.instance = MatrixInstance(claim.matrices, matrix_defs, claim.upstream,
                                           functions=self.calls)

    def _definition(self, name: str, hole: str, match: Match, claim: Claim
                    ) -> tuple[Any, Any]:
        """The chain ``name = …`` of a define hole (a hole may hold several: R = …, Z = …).

        A define hole the reader cannot read -- words such as 「输入X通过…三条投影路径」
        that state the definition -- may be restated (``restate:``) with a reason; a
        readable one may not."""
        text = match.formulas[hole].text
        restated = claim.restate.get(hole)
        if restated is not None:
            if _reads(text, self):
                raise _RestatedReadable(f"restate: {hole}: the note's formula reads as "
                                        "written; use it instead of the restatement")
            note = f"{restated.text} (restated: {restated.reason})"
            if note not in self.restated:
                self.restated.append(note)
            differs = restatement_differs(text, restated.text, self, restated.reason)
            if differs is not None:
                self.mismatches[hole] = differs
            text = restated.text
        chains = split_chains(text)
        for chain in chains:
            if len(chain) == 3 and chain[1] == "\\gets":  # θ ← θ - η g: defines θ^{new}
                try:
                    return assigned(_parse(chain[0], self.functions, self.matrices), chain[0],
                                    _parse(chain[2], self.functions, self.matrices))
                except ValueError as err:
                    raise _Unparsed(f"define: {name}: {err}") from err
            if len(chain) == 3 and chain[1] == "=":
                lhs = _parse(chain[0], self.functions, self.matrices)
                lhs_name = getattr(lhs, "name", None)
                if len(chains) == 1 or lhs_name == name or _names_lhs(name, lhs) or (
                        isinstance(lhs, AppliedUndef) and lhs.func.__name__ == name) or (
                        claim.matrices and (lhs_name or "").partition("_")[0] == name):
                    return lhs, _parse(chain[2], self.functions, self.matrices)
        raise _Unparsed(f"define: {name}: formula {hole} does not read '{name} = …'")

    def apply(self, expr: Any, unknowns: Mapping[Any, Any] | None = None) -> Any:
        """Replace defined symbols and calls, then take any derivative that became concrete.
        A matrix rule is left as read: its instance gives ∂L/∂M and its functions their
        meaning. ``unknowns`` (see :func:`undefined_functions`) maps a name with no
        definition to the unknown function it stands for: it is put in before and after
        the definitions, so that a derivative of it is never the derivative of a constant."""
        if self.instance is not None:
            return expr
        unknowns = unknowns or {}
        expr = expr.xreplace(unknowns)
        for _ in range(8):  # a definition may use another (a_j = e^{s_j} / D, D = …)
            before = expr
            for name, (params, body) in self.calls.items():  # y = x + F (x), F (x) = - x
                expr = expr.replace(
                    lambda x, name=name: isinstance(x, AppliedUndef) and x.func.__name__ == name,
                    lambda x, name=name, params=params, body=body: self._call_any(
                        name, params, body, x))
            _bounded(expr, self.symbols)  # subs evaluates: a^{1000}, a = 99^{99}
            expr = expr.subs(self.symbols)
            for lhs, rhs in self.patterns.items():
                expr = expr.xreplace({lhs: rhs})
                if expr.has(*lhs.free_symbols) and canonical(expr).has(canonical(lhs)):
                    expr = canonical(expr).subs(canonical(lhs), rhs)
            if expr == before:
                break
        expr = expr.xreplace(unknowns)  # E = E_1 + E_2: E_1, E_2 are unknown functions too
        return expr.replace(lambda x: isinstance(x, sympy.Derivative), lambda x: x.doit())

    def defines(self, sym: Any) -> bool:
        """Whether a definition of the claim gives ``sym`` a value."""
        if sym in self.symbols or sym in self.givens:
            return True
        try:
            return self.apply(sym) != sym
        except Exception:  # noqa: BLE001 -- a definition that fails is reported elsewhere
            return True

    def _call_any(self, name: str, params: tuple[Any, ...], body: Any, call: Any) -> Any:
        """``call`` by the first pattern of ``name`` it matches (PE(pos, 2i), PE(pos, 2i+1));
        unchanged when it matches none."""
        for p, b, _ in [(params, body, name), *self.alternatives.get(name, ())]:
            out = self._call(p, b, call)
            if out is not call:
                return out
        return call

    def pattern_key(self, call: Any) -> str:
        """The define key of the pattern ``call`` matches (its name when it has one only)."""
        name = call.func.__name__
        for params, body, key in self.alternatives.get(name, ()):
            if self._call(*self.calls[name], call) is call \
                    and self._call(params, body, call) is not call:
                return key
        return name

    def _call(self, params: tuple[Any, ...], body: Any, call: Any) -> Any:
        """``body`` at the arguments of ``call``; a parameter written as an expression
        (``2 i``) is solved for its one symbol, which must be an integer if declared so."""
        if len(params) != len(call.args):
            return call
        if all(isinstance(p, sympy.Symbol) for p in params):
            values = dict(zip(params, call.args, strict=True))
            _bounded(body, values)
            return body.subs(values)
        values: dict[Any, Any] = {}
        for param, arg in zip(params, call.args, strict=True):
            param = param.xreplace(values)
            free = param.free_symbols
            if not free:
                if sympy.simplify(param - arg) != 0:
                    return call
                continue
            if len(free) != 1:
                return call
            (sym,) = free
            solved = sympy.solve(param - arg, sym)
            if len(solved) != 1:
                return call
            if sym.name in self.integers and not solved[0].is_integer:
                return call
            values[sym] = solved[0]
        return body.xreplace(values)

    def _given(self, name: str, lhs: Any, rhs: Any) -> bool:
        """``define: {q \\cdot k: D}`` (a left side that is no name: replaced wherever it
        occurs), ``define: {E [X]: M}`` (the mean of X is given: mu_X is replaced after
        the moments are taken) or ``define: {Cov (X, Y): C}`` (the covariance is given:
        the joint moment E[X*Y] is, and nothing else about X and Y)."""
        if not _names_lhs(name, lhs, self.claim.functions):
            return False
        args = lhs.args if isinstance(lhs, AppliedUndef) else ()
        if not all(isinstance(a, sympy.Symbol) for a in args):
            args = ()
        if lhs.func.__name__ == "E" and len(args) == 1:
            self.givens[sympy.Symbol(f"mu_{args[0].name}", real=True)] = rhs
        elif lhs.func.__name__ == "Cov" and len(args) == 2 and args[0] != args[1]:
            names = sorted(a.name for a in args)
            means = [moment(n, 1, assumptions(self.claim)) for n in names]
            self.givens[sympy.Symbol(f"E[{names[0]}*{names[1]}]", real=True)] = (
                rhs + means[0] * means[1])
        else:
            self.patterns[lhs] = rhs
        return True


def _step_seconds(claim: Claim) -> float:
    """SymPy's time for one step: the claim's ``timeout:`` (at most MAX_STEP_SECONDS),
    and never more than what is left of the claim's budget."""
    seconds = min(claim.timeout, MAX_STEP_SECONDS)
    left = remaining()
    return seconds if left is None else max(min(seconds, left), 0.01)


def check_formulas(claim: Claim, match: Match, note: Note) -> list[ValueVerdict]:
    """One value per relation of every formula hole that is not a definition.

    A wrong step may be pinned like a wrong number: ``known: {G.step2: {printed:
    "<the step as printed>", expected: failed, why: ...}}``.

    Everything runs under the claim's budget (CLAIM_SECONDS): in this process when a
    deadline can interrupt it (the main thread), else in a forked worker that is killed
    at the budget. Running out is an ``error`` with ``depends_on_time``, never a pass.
    """
    if not can_bound():
        return _in_worker(claim, match, note)
    token = _NAMES.set(declared_names(claim))
    values: list[ValueVerdict] = []
    progress = _Progress(claim, match)
    try:
        with deadline(CLAIM_SECONDS):
            values = _values(claim, match, note, values, progress)
            values = [_pinned(claim, v) for v in values]
            values = _blame_definitions(claim, match, note, values, progress.uses)
    except DeadlineExceeded:
        return [_pinned(claim, v) for v in values] + [progress.out_of_time(note)]
    finally:
        _NAMES.reset(token)
    if progress.overran():  # the deadline hit code that swallowed it
        values.append(progress.out_of_time(note))
    return values


class _Progress:
    """Which formula hole is being checked, to locate a deadline hit."""

    def __init__(self, claim: Claim, match: Match) -> None:
        self.start = time.monotonic()
        self.cpu_start = cpu_seconds()
        first = next(iter(claim.formulas), None)
        self.name = first or "formula"
        self.printed = match.formulas[first] if first is not None else None
        self.match = match
        self.uses: dict[int, tuple[str, ...]] = {}  # id(value) -> define holes its chain used

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def overran(self) -> bool:
        """Past the budget by the deadline's own clocks (CPU time, or WALL_FACTOR times it
        of wall time): a busy machine that stretches the wall time is no overrun."""
        return (cpu_seconds() - self.cpu_start >= CLAIM_SECONDS
                or self.elapsed() >= CLAIM_SECONDS * WALL_FACTOR)

    def at(self, name: str, printed: Any) -> None:
        self.name, self.printed = name, printed

    def out_of_time(self, note: Note) -> ValueVerdict:
        message = (f"symbolic checking took longer than {CLAIM_SECONDS:g} s (the claim's "
                   f"budget; stopped after {self.elapsed():.0f} s)")
        return _timed_out(note, self.printed, self.match, self.name, message)


def _timed_out(note: Note, printed: Any, match: Match, name: str, message: str
               ) -> ValueVerdict:
    if printed is None:
        value = ValueVerdict(name=name, printed="", expected="timeout", status=ERROR,
                             start=note.position(match.start), end=note.position(match.end),
                             message=f"{name}: {message}")
    else:
        value = _value(note, printed, name, printed.text, ERROR, "timeout", message)
    value.depends_on_time = True
    return value


def _job_formulas(claim: Claim, match: Match, note: Note) -> Any:
    yield check_formulas(claim, match, note)  # in the worker: the main thread, bounded


def _in_worker(claim: Claim, match: Match, note: Note) -> list[ValueVerdict]:
    """check_formulas from a thread SIGALRM cannot interrupt: in a forked process (whose
    only thread is its main thread), killed a little after the claim's budget."""
    items, finished = run_streaming(_job_formulas, (claim, match, note), CLAIM_SECONDS + 5)
    if items and isinstance(items[0], list):
        return items[0]
    first = next(iter(claim.formulas), None)
    printed = match.formulas[first] if first is not None else None
    if not finished:
        return [_timed_out(note, printed, match, first or "formula",
                           f"symbolic checking took longer than {CLAIM_SECONDS:g} s "
                           "(the claim's budget, in a worker process)")]
    detail = items[0][1] if items else "the worker returned nothing"
    value = _timed_out(note, printed, match, first or "formula",
                       f"symbolic checking failed in its worker process: {detail}")
    value.depends_on_time = False
    return [value]


def _pinned(claim: Claim, value: ValueVerdict) -> ValueVerdict:
    pin = claim.known.get(value.name)
    if pin is None or value.status not in (DISCREPANCY, VERIFIED):
        return value
    value.suggestion = value.expected
    value.status, why = apply_pin(pin, value.printed, value.expected, value.status,
                                  value.message)
    value.message = f"{value.name}: {why}"
    return value


def _values(claim: Claim, match: Match, note: Note, values: list[ValueVerdict],
            progress: _Progress) -> list[ValueVerdict]:
    """The values of :func:`check_formulas`, appended to ``values`` as they are decided
    (so that a deadline hit keeps those already decided)."""
    try:
        subs = Definitions(claim, match)
    except _RestatedReadable as err:
        first = match.formulas[next(iter(claim.define.values()))]
        return [_value(note, first, "define", first.text, ERROR, "", str(err))]
    except (_Unparsed, LatexError, ValueError) as err:
        first = match.formulas[next(iter(claim.define.values()))]
        return [_value(note, first, "define", first.text, UNPARSED, "", str(err))]
    for hole, differs in subs.mismatches.items():
        printed = match.formulas[hole]
        values.append(_value(note, printed, hole, printed.text, DISCREPANCY, "the restatement",
                             f"restate: {differs}"))
    defined = set(claim.define.values()) | frames.filled_only(claim.frame)
    printed_text = {hole: p.text for hole, p in match.formulas.items()}
    # A formula hole opening with `=` continues the last side of the hole before it, and so
    # does one that the quote joins to it with a bare `=` (⟪Q⟫ = ⟪P⟫: one chain in two holes).
    previous: tuple[str, Any] | None = None  # (last side, its restatement or None)
    previous_end = match.start
    for name in claim.formulas:
        printed = match.formulas[name]
        restated = claim.restate.get(name)
        between = note.text[previous_end:printed.start]
        last = previous if not _RELATION_MARK.search(between) or between.strip() == "=" \
            else None  # another display in between: `=` would continue that one
        joiner = "=" if between.strip() == "=" else ""
        previous_end = printed.end
        own = restated.text if restated is not None else printed.text
        if name in claim.frame:  # the note's fragment, read into the claim's frame
            own = frames.fill(claim.frame[name], printed_text)
        previous = (side, restated) if (side := _last_side(own)) is not None else None
        if name in claim.reference:  # a plain-text definition, evaluated against tinygpt
            if claim.reference[name].startswith("tinygpt-"):  # a LaTeX one: formulas/code.py
                from verifiers.formulas.code import reference_value
            else:
                from verifiers.formulas.holes import reference_value

            values.append(reference_value(claim, name, printed, note))
            continue
        if name in claim.printing:  # compared with its other printings after the run
            from verifiers.formulas.printings import printing_value

            values.append(printing_value(claim, name, printed, note))
            continue
        if name in claim.parts:  # a fragment named in prose: a part of a formula it reads
            from verifiers.formulas.parts import part_value

            values.append(part_value(claim, name, match, note,
                                     lambda text: _parse_part(text, subs)))
            continue
        if name in defined:
            continue
        progress.at(name, printed)
        if restated is not None and _reads(printed.text, subs):
            values.append(_value(note, printed, name, printed.text, ERROR, "",
                                 "restate: the note's formula reads as written; check it "
                                 "instead of the restatement (remove 'restate')"))
            continue
        if restated is not None and (differs := restatement_differs(
                printed.text, restated.text, subs, restated.reason)) is not None:
            values.append(_value(note, printed, name, printed.text, DISCREPANCY,
                                 "the restatement", f"restate: {differs}"))
        source = own
        if last is not None and (joiner or _CONTINUES.match(source)):
            source = f"{last[0]} {joiner} {source}"  # "= E [X^{2}] + …" goes on from above
            previous = (side, restated) if (side := _last_side(source)) is not None else None
            restated = restated or last[1]
        try:
            chains = split_chains(source)
        except LatexError as err:
            values.append(_value(note, printed, name, printed.text, UNPARSED, "", str(err)))
            continue
        for c, chain in enumerate(chains):
            label = name if len(chains) == 1 else f"{name}.{c + 1}"
            chain_values = _check_chain(claim, note, printed, label, chain, subs)
            used = _used_definitions(claim, chain, subs)
            for value in chain_values:
                progress.uses[id(value)] = used
            if restated is not None:
                for value in chain_values:
                    value.restated = source
                    value.message += f" (restated: {restated.reason})"
            elif name in claim.frame:
                for value in chain_values:
                    value.message += f" (the note's {printed.text!r} read as {source!r})"
            values.extend(chain_values)
    if subs.restated:  # steps read from the note, on definitions the note states in words
        given = "; ".join(subs.restated)
        for value in values:
            value.message += f" [with the definition {given}]"
    return values


_WORDS = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")  # CJK text and punctuation: words


def restatement_differs(note_text: str, restated: str, subs: Definitions,
                        reason: str | None = None) -> str | None:
    """How a restatement fails to cover the note's own formula, or None.

    A restatement (``restate:`` with a reason) is checked instead of the note's text, so an
    edit of the note would never be seen. Where the note's text is a formula (no words), every
    side of it that the reader reads as printed (``γ_{r} \\frac{x_{r} - μ}{\\sqrt{v + ε}} +
    β_{r}`` of ``LN (x)_{r} = …``, whose left side it cannot read) must be, structurally, a
    side of the restatement: the restatement may rename what the reader cannot read, never
    change what it can. A side that is one name or holds a sum or product (to ``n``) may be
    written out for an instance, and a note that states the formula in words has nothing
    to compare.
    """
    if _WORDS.search(note_text):  # words: their own formulas must be the restatement's
        return None if reason is None else words_differ(note_text, restated, reason)
    try:
        note_chains = split_chains(note_text)
        ours = [_parse(side, subs.functions, subs.matrices)
                for chain in split_chains(restated) for side in chain[0::2]]
    except (_Unparsed, LatexError, ValueError):
        return None
    for chain in note_chains:
        for side in chain[0::2]:
            try:
                expr = _parse(side, subs.functions, subs.matrices)
            except (_Unparsed, LatexError, ValueError):  # what the restatement is there for
                if reason is not None and (unquoted := side_differs(side, restated, reason)):
                    return unquoted
                continue
            if expr.is_Atom or expr.has(sympy.Sum, sympy.Product, ELLIPSIS):
                if reason is not None and (unquoted := side_differs(side, restated, reason)):
                    return unquoted  # quoted, since it cannot be compared
                continue  # a name (E̅_{w, :}), a sum to n or t_{2}, …, t_{m}: written out
            if not any(expr == other for other in ours):
                return (f"the note's formula {side!r} is not in the restatement "
                        f"{restated!r}: the note's text changed, or the restatement "
                        "does not say what the note says")
    return None


def _used_definitions(claim: Claim, chain: list[str], subs: Definitions) -> tuple[str, ...]:
    """The define holes, read from the note (not restated), whose name a chain uses."""
    names: set[str] = set()
    for side in chain[0::2]:
        try:
            expr = _parse(side, subs.functions, subs.matrices)
        except (_Unparsed, LatexError, ValueError):
            continue
        names |= {getattr(x, "name", "") for x in expr.free_symbols}
        names |= {subs.pattern_key(f) if f.func.__name__ in subs.calls else f.func.__name__
                  for f in expr.atoms(AppliedUndef)}
    defined = {getattr(k, "name", "") for k in subs.symbols} | set(subs.calls) \
        | {key for alternatives in subs.alternatives.values() for *_, key in alternatives}
    return tuple(dict.fromkeys(hole for name, hole in claim.define.items()
                               if name in names and name in defined
                               and hole not in claim.restate))


def _blame_definitions(claim: Claim, match: Match, note: Note, values: list[ValueVerdict],
                       uses: Mapping[int, tuple[str, ...]]) -> list[ValueVerdict]:
    """A step that fails on a definition the note prints blames the definition too.

    The note's definition (``PE(pos, 2i) = sin(pos / 10000^(2i/d_model))``) is read and
    substituted, never checked on its own: if a step that uses it fails, the error is in the
    step or in the definition. So each definition used by a failing step (after pins) gets a
    ``discrepancy`` at its own line, ``<hole>.used``, naming the step: an edit of a
    definition is reported where it was made, not only where it is used.
    """
    blamed: dict[str, ValueVerdict] = {}
    for value in values:
        if value.status != DISCREPANCY:
            continue
        for hole in uses.get(id(value), ()):
            if hole in blamed or hole not in match.formulas:
                continue
            printed = match.formulas[hole]
            blamed[hole] = _value(
                note, printed, f"{hole}.used", printed.text, DISCREPANCY,
                "a definition its steps agree with",
                f"the definition {printed.text.strip()!r} is used by the failing step "
                f"{value.name} (line {value.start[0]}): the definition or that step is wrong")
    return values + list(blamed.values())


def _reads(text: str, subs: Definitions) -> bool:
    """Whether the reader reads every side of a formula exactly as printed."""
    try:
        for chain in split_chains(text):
            for side in chain[0::2]:
                _parse(side, subs.functions, subs.matrices)
    except (_Unparsed, LatexError):
        return False
    return True


def _check_chain(claim: Claim, note: Note, printed: Any, label: str, chain: list[str],
                 subs: Definitions) -> list[ValueVerdict]:
    sides, relations = chain[0::2], chain[1::2]
    special = _special_chain(claim, note, printed, label, sides, relations, subs)
    if special is not None:  # shapes, limits, formulas over indices
        return special
    try:
        read = [None if k and relations[k - 1] == "\\in"
                else _parse(side, subs.functions, subs.matrices) for k, side in enumerate(sides)]
        unknowns = undefined_functions([r for r in read if r is not None], subs)
        exprs = [_interval(side, subs) if read[k] is None
                 else primes(subs.apply(read[k], unknowns), claim.functions)
                 for k, side in enumerate(sides)]
    except _Unparsed as err:
        return [_value(note, printed, label, " ".join(chain), UNPARSED, "", str(err))]
    if subs.instance is not None:
        return _check_matrix_chain(claim, note, printed, label, sides, relations, exprs,
                                   subs.instance)
    exprs = [dot_products(function_primes(e)) for e in exprs]  # f^{'} (w); q \cdot k_{1}
    parts = None  # the components of vector sides, for ≈ at each element's printed precision
    if any(isinstance(e, sympy.Tuple) or e.has(_VEC) for e in exprs):  # (2, 0) + (0, 2)
        try:
            parts = [_components(e) for e in exprs]
            exprs = _vectors(exprs)
        except ValueError as err:
            return [_value(note, printed, f"{label}.step{k}", f"{sides[k - 1]} = {sides[k]}",
                           DISCREPANCY, "failed", f"step {k}: {err}")
                    for k in range(1, len(sides))]
    if any(e.has(sympy.Function("given")) for e in exprs):  # p (a ∣ b) = p (b, a) / p (b)
        exprs = _conditionals(exprs)
    if "o" in claim.functions and any(_little_o(e) for e in exprs):  # A = B + o (η)
        return _check_first_order(claim, note, printed, label, sides, relations, exprs)
    exprs = [_link_indexed(e) for e in exprs]
    length_labels, lengths = length_cases(exprs)  # p_{1} \dots p_{n}: n = 1, 2, 3, 4
    assume = _with_random(assumptions(claim), exprs)
    if assume.random_variables:
        exprs = [_moments(e, assume).subs(subs.givens) for e in exprs]
    steps = []
    for k, relation in enumerate(relations):
        lhs, rhs = exprs[k], exprs[k + 1]
        tolerance = None
        if relation in ("\\approx", "≈") and parts is not None:
            steps.append(check_components(  # (a, 1 + c) \approx (0.731059, 1.268941)
                [_link_indexed(c) for c in parts[k]], [_link_indexed(c) for c in parts[k + 1]],
                sides[k + 1], lambda a, b, tol, rel=relation, at=k + 1: check_step(
                    a, b, rel, assume, _step_seconds(claim), tolerance=tol, index=at)))
            continue
        if relation in ("\\approx", "≈"):
            tolerance = _printed_tolerance(sides[k + 1])
        else:  # "=" with decimals is exact arithmetic on the printed digits
            lhs, rhs = _exact(lhs), _exact(rhs)
        if lengths and relation == "=":
            pairs = [(_link_indexed(lhs.xreplace(c)), _link_indexed(rhs.xreplace(c)))
                     for c in lengths]
            steps.append(check_cases(pairs, length_labels, relation, assume, _step_seconds(claim),
                                     index=k + 1, shown=(sides[k], sides[k + 1])))
            continue
        try:
            if relation == "\\in" or lhs.has(sympy.Limit) or rhs.has(sympy.Limit):
                steps.append(_bound_or_limit(lhs, rhs, relation, assume,
                                             _step_seconds(claim), k + 1))
            else:
                steps.append(check_step(lhs, rhs, relation, assume, _step_seconds(claim),
                                        tolerance=tolerance, index=k + 1))
        except ValueError as err:  # e.g. a relation we do not check (\to, \ne)
            return [_value(note, printed, label, " ".join(chain), ERROR, "", str(err))]
    steps = [_not_on_unknowns(step, exprs[step.index - 1], exprs[step.index], unknowns)
             for step in steps]
    return [_step_value(note, printed, label, sides, relations, step) for step in steps]


def undefined_functions(exprs: list[Any], subs: Definitions) -> dict[Any, Any]:
    """The names the chain differentiates that nothing defines, each as an unknown function.

    ``\\frac{\\partial E}{\\partial out}`` with no ``define:`` for ``E`` is the derivative of
    an unknown function ``E(out, …)`` of every variable the chain differentiates by, never
    the derivative of a constant (which would make ``∂E/∂out = ∂E_1/∂out + ∂E_2/∂out`` the
    vacuous ``0 = 0 + 0``). A name that is itself a variable of the chain stays a name."""
    named = (sympy.Symbol, sympy.Indexed)  # z_i of a sum is the entry z[i]: a name too
    targets: set[Any] = set()
    variables: set[Any] = set()
    for expr in exprs:
        for d in expr.atoms(sympy.Derivative):
            variables |= {v for v in d.variables if isinstance(v, named)}
            if isinstance(d.expr, named) and d.expr not in d.variables:
                targets.add(d.expr)
    targets = {t for t in targets if not subs.defines(t)}
    if not targets:
        return {}
    args = sorted(variables, key=str)
    # marked unknown: an undefined ``E`` is a function, not the expectation operator E[·]
    unknowns: dict[Any, Any] = {
        t: sympy.Function(_written(t), real=True, unknown=True)(*args)
        for t in sorted(targets - variables, key=str)}
    for t in sorted(targets & variables, key=str):  # dy/du · du/dx: u is a variable and, in
        for expr in exprs:                           # du/dx, an unknown function of x
            for d in expr.atoms(sympy.Derivative):
                if d.expr == t and t not in d.variables:
                    call = sympy.Function(_written(t), real=True, unknown=True)(
                        *[v for v in args if v != t])
                    unknowns[d] = sympy.Derivative(call, *d.variable_count)
    return unknowns


def _written(name: Any) -> str:
    """``z_i`` for the entry ``z[i]``, as the note writes it; a symbol's own name."""
    if isinstance(name, sympy.Indexed):
        return f"{name.base.label}_" + "".join(str(i) for i in name.indices)
    return name.name


def _undefined_in(expr: Any, unknowns: Mapping[Any, Any]) -> list[str]:
    """``∂E/∂out: E has no definition`` for each unknown function in ``expr``."""
    heads = {(call.expr if isinstance(call, sympy.Derivative) else call).func
             for call in unknowns.values()}
    found: dict[str, str] = {}
    for node in sorted(expr.atoms(sympy.Derivative, AppliedUndef), key=str):
        call = node.expr if isinstance(node, sympy.Derivative) else node
        if not (isinstance(call, AppliedUndef) and call.func in heads):
            continue
        name = call.func.__name__
        if isinstance(node, sympy.Derivative):
            by = "∂".join(_written(v) if isinstance(v, sympy.Indexed) else str(v)
                          for v in node.variables)
            found.setdefault(f"{name}/{by}", f"∂{name}/∂{by}: {name} has no definition")
        elif name not in {k.split("/")[0] for k in found}:
            found.setdefault(name, f"{name}: {name} has no definition")
    return list(found.values())


def _not_on_unknowns(step: StepVerdict, lhs: Any, rhs: Any,
                     unknowns: Mapping[Any, Any]) -> StepVerdict:
    """A step over unknown functions is proved when it follows for every function; else it
    fails, naming the undefined names (numeric evidence over unknown functions is none)."""
    if step.status == PROVED or not unknowns:
        return step
    names = _undefined_in(lhs, unknowns)
    names += [n for n in _undefined_in(rhs, unknowns) if n not in names]
    if not names:
        return step
    detail = ("not proved for every function: " + "; ".join(names)
              + "; add define: or the note's own definition")
    return dataclasses.replace(step, status=FAILED, detail=detail, counterexample=None)


def _interval(side: str, subs: Definitions) -> Any:
    """The right side of ``x \\in [a, b]`` (``(a, b]``, ...) as a SymPy Interval."""
    try:
        lo, hi, lo_in, hi_in = parse_interval(side)
    except LatexError as err:
        raise _Unparsed(f"cannot read {side!r}: {err}") from None
    a, b = (subs.apply(_parse(t, subs.functions, subs.matrices)) for t in (lo, hi))
    return sympy.Interval(a, b, not lo_in, not hi_in)


def _bound_or_limit(lhs: Any, rhs: Any, relation: str, assume: Assumptions, timeout: float,
                    index: int) -> StepVerdict:
    """``x \\in [a, b]`` as ``a <= x`` and ``x <= b`` (``<`` at an open end; an infinite end
    holds), each proved or shown at sample points; ``\\lim_{x \\to a} f = L`` by
    :func:`limit_check` (sympy.limit in a bounded worker, else approach at sample points)."""
    if relation == "\\in":
        if not isinstance(rhs, sympy.Interval):
            raise ValueError(f"'\\in' needs an interval [a, b] on its right, not {rhs}")
        ends = []
        x = sympy.sstr(lhs)
        if rhs.start != -sympy.oo:
            rel = "<" if rhs.left_open else "<="
            ends.append((f"lower end {sympy.sstr(rhs.start)} {rel} {x}",
                         check_step(rhs.start, lhs, rel, assume, timeout, index=index)))
        if rhs.end != sympy.oo:
            rel = "<" if rhs.right_open else "<="
            ends.append((f"upper end {x} {rel} {sympy.sstr(rhs.end)}",
                         check_step(lhs, rhs.end, rel, assume, timeout, index=index)))
        bad = next(((what, v) for what, v in ends if not v.passed), None)
        if bad is not None:
            what, v = bad
            return dataclasses.replace(v, lhs=sympy.sstr(lhs), rhs=sympy.sstr(rhs),
                                       relation="∈", detail=f"{what}: {v.detail}")
        status = "proved" if all(v.status == "proved" for _, v in ends) else "numeric"
        detail = "; ".join(f"{what}: {v.detail}" for what, v in ends)
        return StepVerdict(index, sympy.sstr(lhs), sympy.sstr(rhs), "∈", status, detail,
                           symbolic=status, numeric="agree" if status == "numeric" else "skipped")
    limits = [side for side in (lhs, rhs) if isinstance(side, sympy.Limit)]
    if relation != "=" or len(limits) != 1 or (lhs if limits[0] is rhs else rhs).has(sympy.Limit):
        raise ValueError("a limit \\lim_{x \\to a} f is checked as one side of '=' whose "
                         "other side has no limit")
    body, var, point, direction = limits[0].args
    other = lhs if limits[0] is rhs else rhs
    step = limit_check(body, var, point, other, str(direction), assume, timeout)
    return dataclasses.replace(step, index=index)


def _check_matrix_chain(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                        relations: list[str], exprs: list[Any], instance: MatrixInstance
                        ) -> list[ValueVerdict]:
    """Each '=' of a matrix rule, on the claim's instance, entry by entry."""
    sizes = ", ".join(f"{n} {r}×{c}" for n, (r, c) in claim.matrices.items())
    values = []
    explicit: list[Any] = []
    try:  # an entry rule ({\bar{S}}_{i j} = …) is checked for every value of i, j
        indices = instance.free_indices(*exprs)
    except ShapeError as err:
        return [_value(note, printed, f"{label}.step{k}", f"{sides[k - 1]} = {sides[k]}",
                       DISCREPANCY, "failed", f"step {k}: {err}")
                for k in range(1, len(sides))]
    except MatrixError as err:
        return [_value(note, printed, label, " ".join(sides), ERROR, "", str(err))]
    for side, expr in zip(sides, exprs, strict=True):
        try:
            explicit.append(instance.instantiate_indexed(expr, indices))
        except ShapeError as err:  # the formula cannot be formed: the rule is wrong
            explicit.append(ShapeError(f"{side}: {err}"))
        except BoundError as err:  # a sum's printed bound: unreadable, or not its range
            return [_value(note, printed, label, " ".join(sides),
                           UNPARSED if err.unread else DISCREPANCY, "", str(err))]
        except MatrixError as err:
            return [_value(note, printed, label, " ".join(sides), ERROR, "", str(err))]
    for k, relation in enumerate(relations, start=1):
        text = f"{sides[k - 1]} {relation} {sides[k]}"
        if relation != "=":
            values.append(_value(note, printed, f"{label}.step{k}", text, ERROR, "",
                                 f"step {k}: a matrix rule is checked for '=' only"))
            continue
        bad = [e for e in explicit[k - 1:k + 1] if isinstance(e, ShapeError)]
        status, detail = (FAILED, str(bad[0])) if bad else compare_entries(
            explicit[k - 1], explicit[k], _step_seconds(claim))
        if status == PROVED:
            values.append(_value(note, printed, f"{label}.step{k}", text, VERIFIED, "proved",
                                 f"step {k}: proved entry by entry ({sizes})"))
        elif status == NUMERIC:
            values.append(_value(note, printed, f"{label}.step{k}", text, VERIFIED,
                                 EXPECTED["numeric"], f"step {k}: the entries agree at a "
                                 f"40-digit sample point ({sizes}); SymPy did not prove it"))
        elif status in (TIMEOUT, UNDECIDED):
            values.append(_value(note, printed, f"{label}.step{k}", text, ERROR, status,
                                 f"step {k} ({text}): {detail} ({sizes})"))
        else:
            values.append(_value(note, printed, f"{label}.step{k}", text, DISCREPANCY, "failed",
                                 f"step {k} ({text}): failed on the instance ({sizes}): "
                                 f"{detail}"))
    return values


def _link_indexed(expr: Any) -> Any:
    """``\\sum_{i = 1}^{3} x_{i}`` is ``x_{1} + x_{2} + x_{3}``: a sum with number bounds
    is written out, and ``x[1]`` becomes the symbol the reader makes of ``x_{1}``."""
    def bounded(x: Any) -> bool:
        return isinstance(x, (sympy.Sum, sympy.Product)) and all(
            lim[1].is_Integer and lim[2].is_Integer and 0 <= lim[2] - lim[1] <= 50
            for lim in x.limits)
    expr = expr.replace(bounded, lambda x: x.doit())
    return expr.replace(
        lambda x: isinstance(x, sympy.Indexed) and all(i.is_Integer for i in x.indices),
        lambda x: sympy.Symbol(f"{x.base.label}_{''.join(str(i) for i in x.indices)}",
                               real=True))


_NUMBER_SIDE = re.compile(r"\s*[-−]?\s*\d+(?:\.(\d+))?\s*\.?\s*\Z")


_MOMENTS = {"E": expectation, "Var": variance}


def _moments(expr: Any, assume: Assumptions) -> Any:
    """E[·], Var(·), SD(·), Cov(·,·) of polynomials in the declared random variables.

    Computed exactly from the assumptions (independence, zero mean, unit
    variance); one that cannot be computed (dependence not declared) stays as
    written, and the step is then undecided rather than passed.
    """
    def evaluate(node: Any) -> Any:
        name = node.func.__name__
        try:
            if name in ("E", "Var", "SD") and len(node.args) == 1 and node.args[0].has(
                    sympy.Sum):
                return _sum_moment(name, node.args[0], assume)
            if name in _MOMENTS and len(node.args) == 1:
                return _MOMENTS[name](node.args[0], assume)
            if name == "SD" and len(node.args) == 1:
                return sympy.sqrt(variance(node.args[0], assume))
            if name == "Cov" and len(node.args) == 2:
                return covariance(node.args[0], node.args[1], assume)
        except ValueError:
            pass
        return node

    return expr.replace(lambda x: isinstance(x, AppliedUndef)
                        and x.func.__name__ in ("E", "Var", "SD", "Cov")
                        and not getattr(x.func, "unknown", False), evaluate)


def _printed_tolerance(side: str) -> float | None:
    """Half a unit of the last printed digit when the right side is a printed number."""
    m = _NUMBER_SIDE.match(side)
    if m is None:
        return None
    return 0.5 * 10.0 ** -len(m.group(1) or "")


def _exact(expr: Any) -> Any:
    """Decimals as the exact values they print (0.1 is 1/10), for '=' steps."""
    return expr.replace(lambda x: isinstance(x, sympy.Float),
                        lambda x: sympy.Rational(str(x)))


def _step_value(note: Note, printed: Any, label: str, sides: list[str], relations: list[str],
                step: StepVerdict) -> ValueVerdict:
    k = step.index
    text = f"{sides[k - 1]} {relations[k - 1]} {sides[k]}"
    printed = _step_span(printed, sides[k - 1], sides[k])
    if step.passed:
        return _value(note, printed, f"{label}.step{k}", text, VERIFIED,
                      EXPECTED[step.status], f"step {k}: {EXPECTED[step.status]}")
    where = ""
    if step.counterexample:
        where = " at " + ", ".join(f"{s}={v}" for s, v in sorted(step.counterexample.items()))
    detail = f"step {k} ({text}): {step.status}{where}; {step.detail}"
    return _value(note, printed, f"{label}.step{k}", text, DISCREPANCY if step.status == "failed"
                  else ERROR, step.status, detail)


def _step_span(printed: Any, left: str, right: str) -> Any:
    """A step of a display over several lines is located at its right side's row (a
    Markdown ``aligned`` chain); a one-line formula keeps its own span."""
    body = getattr(printed, "text", "")
    if "\n" not in body:
        return printed
    at = body.find(left)
    at = body.find(right, at + len(left)) if at >= 0 else -1
    if at < 0:
        return printed
    start = printed.start + at
    return dataclasses.replace(printed, start=start, end=start + len(right))


def _value(note: Note, printed: Any, name: str, text: str, status: str, expected: str,
           message: str) -> ValueVerdict:
    return ValueVerdict(
        name=name, printed=text, expected=expected, status=status,
        start=note.position(printed.start), end=note.position(printed.end),
        message=f"{name}: {message}", suggestion=None,
        depends_on_time=status == ERROR and expected == TIMEOUT,  # a step cut off
    )



# ------------------------------------------------ hypotheses, primes, shapes, limits, indices


class Hypotheses:
    """What a define hole states other than ``name = …`` (read, never checked):

    * ``i \\ne j`` -- index cases with ``i = j`` are excluded (formulas over indices);
    * ``T \\to 0^{+}`` -- the variable and point of the claim's limits ``A \\to B``;
    * ``z_j - z_k \\lt 0`` (``\\gt``, ``\\le``, ``\\ge``) -- a sign: ``z_j`` becomes
      ``z_k - u`` with ``u > 0`` (``u ≥ 0``) in the claim's limits;
    * ``(e_i)_m = \\delta_{im}`` -- the components of ``e_i`` (formulas over indices).
    """

    def __init__(self) -> None:
        self.distinct: list[tuple[str, str]] = []
        self.limit: tuple[Any, Any, str] | None = None
        self.signs: dict[Any, Any] = {}
        self.components: list[tuple[Any, Any]] = []
        self.small: Any = None  # η of "η small enough": ≈ is then first order in η

    def read(self, name: str, text: str, functions: tuple[str, ...]) -> bool:
        """Store the hypothesis of a define hole; False when it is a definition ``name = …``."""
        try:
            chains = split_chains(text)
        except LatexError:
            return False
        if len(chains) == 1 and len(chains[0]) == 1:  # 只要 $\eta$ 足够小: the small one
            try:
                sym = _parse(chains[0][0], functions)
            except _Unparsed:  # words that state a definition: restated, read elsewhere
                return False
            if getattr(sym, "name", None) != name:
                return False
            self.small = sym
            return True
        if len(chains) != 1 or len(chains[0]) != 3:
            return False
        left, rel, right = chains[0]
        if rel == "=":
            try:
                lhs = _parse(left, functions)
            except _Unparsed:
                return False  # reported where the definition is read
            if isinstance(lhs, sympy.Indexed) and getattr(lhs.base.label, "name", "") == name:
                self.components.append((lhs, _parse(right, functions)))
                return True
            return False
        if rel == "\\to":
            lhs = _parse(left, functions)
            if getattr(lhs, "name", None) != name:
                raise _Unparsed(f"define: {name}: '{left} \\to …' does not name {name}")
            point_text, direction = parse_limit_point(right)
            self.limit = (lhs, _parse(point_text, functions), direction)
            return True
        lhs, rhs = _parse(left, functions), _parse(right, functions)
        if rel == "\\ne":
            if not (isinstance(lhs, sympy.Symbol) and isinstance(rhs, sympy.Symbol)
                    and name in (lhs.name, rhs.name)):
                raise _Unparsed(f"define: {name}: '{left} \\ne {right}' is read for two "
                                "index names only")
            self.distinct.append((lhs.name, rhs.name))
            return True
        if rel in ("<", ">", "\\le", "\\ge"):
            sym = sympy.Symbol(name, real=True)
            strict = rel in ("<", ">")
            gap = sympy.Symbol(f"u_{{{name}}}", **({"positive": True} if strict
                                                   else {"nonnegative": True}))
            sign = -1 if rel in ("<", "\\le") else 1
            solved = sympy.solve(lhs - rhs - sign * gap, sym)
            if len(solved) != 1:
                raise _Unparsed(f"define: {name}: cannot solve '{left} {rel} {right}' for "
                                f"{name}")
            self.signs[sym] = solved[0]
            return True
        return False


def primes(expr: Any, functions: tuple[str, ...]) -> Any:
    """``(e^x)'``, ``(u/v)'``: the reader's ``prime(…)`` as a derivative.

    Names in ``functions`` under a prime (``u``, ``v``) are functions of one variable
    ``t``; the result is written in their values (``u``, ``u'``), so ``(u/v)' =
    (u'v - uv')/v^2`` is an identity between ``u, u', v, v'``. Without declared
    functions the prime is the derivative by the one variable of its argument.
    """
    prime = sympy.Function("prime")
    if not expr.has(prime):
        return expr
    t = sympy.Dummy("t", real=True)

    def derivative(node: Any) -> Any:
        arg = node.args[0]
        names = sorted({s.name for s in arg.free_symbols} & set(functions))
        if names:
            calls = {sympy.Symbol(n, real=True): sympy.Function(n)(t) for n in names}
            value = sympy.diff(arg.xreplace(calls), t)
            value = value.replace(
                lambda x: isinstance(x, sympy.Derivative) and isinstance(x.expr, AppliedUndef)
                and x.variables == (t,) and x.derivative_count == 1,
                lambda x: sympy.Symbol(x.expr.func.__name__ + "'", real=True))
            return value.xreplace({v: k for k, v in calls.items()})
        free = [s for s in arg.free_symbols if isinstance(s, sympy.Symbol)]
        if len(free) != 1:
            raise _Unparsed(f"a prime needs one variable or functions: [..] ({arg})")
        return sympy.diff(arg, free[0])

    return expr.replace(lambda x: isinstance(x, AppliedUndef) and x.func == prime, derivative)


def _special_chain(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                   relations: list[str], subs: Definitions) -> list[ValueVerdict] | None:
    """Chains checked otherwise than side by side: shapes, limits, formulas over indices."""
    if subs.instance is not None:
        return None
    try:
        if _shape_chain(sides, relations):
            return _check_shapes(note, printed, label, sides, relations, subs)
        if "\\to" in relations:
            return _check_limit(claim, note, printed, label, sides, relations, subs)
        if subs.hypotheses.small is not None and "\\approx" in relations:
            return _check_small(claim, note, printed, label, sides, relations, subs)
        return _check_indexed(claim, note, printed, label, sides, relations, subs)
    except _Unparsed as err:
        return [_value(note, printed, label, " ".join(_chain_text(sides, relations)), UNPARSED,
                       "", str(err))]


def _chain_text(sides: list[str], relations: list[str]) -> list[str]:
    out = [sides[0]]
    for rel, side in zip(relations, sides[1:], strict=True):
        out += [rel, side]
    return out


_DIM = r"(?:[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?|\d+)"
_SHAPE = rf"\s*({_DIM})\s*(?:\\times|×)\s*({_DIM})\s*"  # × as printed in plain text
_SHAPE_FACTOR = re.compile(rf"\({_SHAPE}\)")
_SHAPE_SIDE = re.compile(rf"(?:\s*\({_SHAPE}\)\s*)+|{_SHAPE}")


def _shape_chain(sides: list[str], relations: list[str]) -> bool:
    """``(d\\times1)(1\\times V)=d\\times V``: every side a shape or a product of shapes,
    one side a product of at least two, related by ``=`` or ``\\to``."""
    return (all(_SHAPE_SIDE.fullmatch(s) for s in sides)
            and any(len(_SHAPE_FACTOR.findall(s)) >= 2 for s in sides)
            and all(r in ("=", "\\to") for r in relations))


def _check_shapes(note: Note, printed: Any, label: str, sides: list[str], relations: list[str],
                  subs: Definitions) -> list[ValueVerdict]:
    """A product of shapes is defined when each inner pair of sizes agrees; its shape is
    (first rows) × (last columns). Each relation compares the shapes of its sides."""
    def shape(side: str) -> tuple[Any, Any] | str:
        factors = _SHAPE_FACTOR.findall(side) or [_SHAPE_SIDE.fullmatch(side).groups()[-2:]]
        dims = [(_parse(a, subs.functions), _parse(b, subs.functions)) for a, b in factors]
        for (_, cols), (rows, _) in itertools.pairwise(dims):
            if sympy.simplify(cols - rows) != 0:
                return f"({side}) is not defined: inner sizes {cols} and {rows} differ"
        return dims[0][0], dims[-1][1]

    shapes = [shape(s) for s in sides]
    values = []
    for k, rel in enumerate(relations, start=1):
        text = f"{sides[k - 1]} {rel} {sides[k]}"
        a, b = shapes[k - 1], shapes[k]
        bad = next((x for x in (a, b) if isinstance(x, str)), None)
        if bad is None and all(sympy.simplify(x - y) == 0 for x, y in zip(a, b, strict=True)):
            values.append(_value(note, printed, f"{label}.step{k}", text, VERIFIED, "proved",
                                 f"step {k}: proved (shapes: {a[0]}×{a[1]}; inner sizes agree)"))
        else:
            why = bad or f"shapes {a[0]}×{a[1]} and {b[0]}×{b[1]} differ"
            values.append(_value(note, printed, f"{label}.step{k}", text, DISCREPANCY,
                                 "failed", f"step {k} ({text}): failed: {why}"))
    return values


def _check_limit(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                 relations: list[str], subs: Definitions) -> list[ValueVerdict]:
    """``A \\to B`` as ``lim A = B`` for the claim's limit (``define: {T: 'T \\to 0^+'}``)."""
    text = " ".join(_chain_text(sides, relations))
    hyp = subs.hypotheses
    if relations != ["\\to"] or hyp.limit is None:
        return [_value(note, printed, label, text, ERROR, "",
                       "a limit 'A \\to B' needs define: {T: <hole reading 'T \\to a'>}"
                       if hyp.limit is None else "a limit is one 'A \\to B'")]
    var, point, direction = hyp.limit
    lhs = primes(subs.apply(_parse(sides[0], subs.functions)), claim.functions)
    lhs = _link_indexed(lhs).xreplace(hyp.signs)
    target = _link_indexed(subs.apply(_parse(sides[1], subs.functions)))
    step = limit_check(lhs, var, point, target, direction, assumptions(claim), _step_seconds(claim))
    value = _step_value(note, printed, label, sides, relations, step)
    if step.passed:
        side = "" if direction == "+-" or not point.is_finite else direction
        value.message += f" (the limit {var} → {sympy.sstr(point)}{side})"
    return value and [value]


def _check_indexed(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                   relations: list[str], subs: Definitions) -> list[ValueVerdict] | None:
    """A chain over indices (``assume: {integer: [i, j]}``) with a sum without bounds, a
    Kronecker δ, a derivative or a definition by components: checked on an instance, in
    every case of its free indices (:mod:`verifiers.symbolic.indices`)."""
    letters = frozenset(n for n in claim.assume.get("integer", ()) if len(n) == 1)
    if not letters or subs.calls:
        return None
    hyp = subs.hypotheses
    raw = [primes(_parse(side, subs.functions), claim.functions) for side in sides]
    matrices = matrix_names(raw, letters)
    if matrices:  # p of (pp^\top)_{ij} = p_i p_j: a vector, read in the order written
        raw = [primes(_parse(side, subs.functions, matrices), claim.functions)
               for side in sides]
    defined = list(subs.symbols.values()) + [v for _, v in hyp.components] + [
        rhs for _, rhs in _templates(subs).values()]
    if not (hyp.components or matrices or any(
            e.has(sympy.KroneckerDelta, sympy.Derivative, sympy.Function("entry"))
            or SUM_UPPER in e.free_symbols for e in raw + defined)):
        return None
    plain = {k: v for k, v in subs.symbols.items() if _entry_name(k, letters) is None}
    entries = [(k, v) for k, v in subs.symbols.items() if _entry_name(k, letters) is not None]
    entries += [(sympy.Indexed(sympy.IndexedBase(sympy.Symbol(base, real=True)), *indices), rhs)
                for base, (indices, rhs) in _templates(subs).items()]
    text = " ".join(_chain_text(sides, relations))
    undefined = _undefined_entries(raw, letters, {*plain, *(k for k, _ in entries),
                                                  *(k for k, _ in hyp.components)})
    if undefined:  # on the instance, z_1 and x_1 would be independent: ∂z_i/∂x_j = 0
        return [_value(note, printed, label, text, DISCREPANCY, "failed",
                       "failed: not proved for every function: " + "; ".join(undefined)
                       + "; add define: or the note's own definition")]
    try:
        setting = IndexSetting(letters, size_of(claim.assume), list(hyp.distinct), plain,
                               entries + list(hyp.components))
        labels, cases = instances(raw, setting)
    except ShapeMismatch as err:  # the formula cannot be formed: it is wrong
        return [_value(note, printed, label, text, DISCREPANCY, "failed", f"failed: {err}")]
    except IndexError_ as err:
        return [_value(note, printed, label, text, ERROR, "", str(err))]
    values = []
    for k, relation in enumerate(relations):
        pairs, names = [], []
        for case, c in zip(labels, cases, strict=True):
            found = pairs_of(c[k], c[k + 1])
            if isinstance(found, str):
                step_text = f"{sides[k]} {relation} {sides[k + 1]}"
                return [_value(note, printed, f"{label}.step{k + 1}", step_text, DISCREPANCY,
                               "failed", f"step {k + 1} ({step_text}): failed in case "
                               f"{case}: {found}")]
            pairs += [(_exact(a), _exact(b)) for a, b, _ in found]
            names += [case + where for _, _, where in found]
        try:
            step = check_cases(pairs, names, relation, assumptions(claim), _step_seconds(claim),
                               index=k + 1, shown=(sides[k], sides[k + 1]))
        except ValueError as err:
            return [_value(note, printed, label, text, ERROR, "", str(err))]
        value = _step_value(note, printed, label, sides, relations, step)
        if step.passed:
            value.message += (f" (on N = {setting.size})" if labels == [f"N={setting.size}"]
                              else f" (on N = {setting.size}, in each of the {len(cases)} "
                              "index cases)")
        values.append(value)
    return values


def _undefined_entries(exprs: list[Any], letters: frozenset[str], defined: set[Any]
                       ) -> list[str]:
    """``∂L/∂x_j: L has no definition`` for each derivative of a name (or entry) that no
    definition gives: written out on an instance, it would be the derivative of an
    independent symbol, 0 (or δ), and the step vacuous. ``∂x_j/∂x_k`` (a name by an entry
    of itself) is the δ it means."""
    def head(sym: Any) -> str | None:
        if isinstance(sym, sympy.Indexed):
            return str(sym.base.label)
        if isinstance(sym, sympy.Symbol):
            return _entry_name(sym, letters) or sym.name
        return None

    known = {head(k) for k in defined} - {None}
    found: dict[str, str] = {}
    for expr in exprs:
        for d in sorted(expr.atoms(sympy.Derivative), key=str):
            name = head(d.expr)
            if name is None or name in known or name in {head(v) for v in d.variables}:
                continue
            by = "∂".join(_written(v) if isinstance(v, sympy.Indexed) else str(v)
                          for v in d.variables)
            written = _written(d.expr) if isinstance(d.expr, sympy.Indexed) else str(d.expr)
            found.setdefault(f"{written}/{by}",
                             f"∂{written}/∂{by}: {written} has no definition")
    return list(found.values())


def _check_small(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                 relations: list[str], subs: Definitions) -> list[ValueVerdict]:
    """``A \\approx B`` to first order in the claim's small η (``define: {eta: S}``, S the
    note's ``\\eta`` of "η small enough"): A - B and its η-derivative vanish at η = 0.

    A function name (``functions: [Lbar]``) is a function of one variable: ``\\partial\\bar
    L/\\partial\\theta`` is its derivative, ``\\lVert g\\rVert`` of a number is ``|g|``; the
    result is written in the values ``Lbar``, ``Lbar'``, ... so a wrong step has a point."""
    eta = subs.hypotheses.small
    funcs = set(claim.functions)

    def prepare(expr: Any) -> Any:
        expr = expr.replace(
            lambda x: isinstance(x, sympy.Derivative) and isinstance(x.expr, sympy.Symbol)
            and x.expr.name in funcs and len(x.variables) == 1,
            lambda x: sympy.Derivative(sympy.Function(x.expr.name)(x.variables[0]),
                                       x.variables[0]))
        return expr.replace(lambda x: isinstance(x, AppliedUndef) and x.func.__name__ == "norm"
                            and len(x.args) == 1, lambda x: sympy.Abs(x.args[0]))

    defs = {k: prepare(v) for k, v in subs.symbols.items()}

    def read(side: str) -> Any:
        expr = prepare(_parse(side, subs.functions))
        for _ in range(8):
            before, expr = expr, expr.xreplace(defs)
            if expr == before:
                break
        return expr

    def values(expr: Any) -> Any:
        expr = expr.doit()
        for order in (3, 2, 1):
            expr = expr.replace(
                lambda x, n=order: isinstance(x, sympy.Derivative)
                and isinstance(x.expr, AppliedUndef) and x.derivative_count == n
                and len(x.expr.args) == 1 and x.variables == (x.expr.args[0],) * n,
                lambda x, n=order: sympy.Symbol(x.expr.func.__name__ + "'" * n, real=True))
        return expr.replace(lambda x: isinstance(x, AppliedUndef) and len(x.args) == 1
                            and x.func.__name__ in funcs,
                            lambda x: sympy.Symbol(x.func.__name__, real=True))

    exprs = [read(side) for side in sides]
    out = []
    for k, relation in enumerate(relations):
        diff = exprs[k] - exprs[k + 1]
        if relation == "\\approx":
            parts = [values(diff.subs(eta, 0)), values(sympy.diff(diff, eta).subs(eta, 0))]
        else:
            parts = [values(diff)]
        steps = [check_step(p, sympy.Integer(0), "=", assumptions(claim), _step_seconds(claim),
                            index=k + 1) for p in parts]
        bad = next((st for st in steps if not st.passed), None)
        step = bad or next((st for st in steps if st.status == "numeric"), steps[0])
        value = _step_value(note, printed, label, sides, relations, step)
        if bad is not None and len(parts) == 2:
            which = "at η = 0" if bad is steps[0] else "in the first derivative at η = 0"
            value.message += f" (first order in {eta}: the sides differ {which})"
        elif relation == "\\approx":
            value.message += (f" (equal to first order in {eta}: at {eta} = 0 and in "
                              f"d/d{eta} at {eta} = 0)")
        out.append(value)
    return out


def _templates(subs: Definitions) -> dict[str, tuple[tuple[Any, ...], Any]]:
    """Definitions for every index another part of the reader keeps (``a_{j} = …``)."""
    index = getattr(subs, "index", None)
    return dict(getattr(index, "templates", None) or {})


def _entry_name(sym: Any, letters: frozenset[str]) -> str | None:
    head, _, sub = getattr(sym, "name", "").partition("_")
    return head if head and sub and all(c in letters for c in sub) else None


def _names_lhs(name: str, lhs: Any, functions: tuple[str, ...] = ()) -> bool:
    """Does the define key, read as LaTeX (``q \\cdot k``, ``E [X]``, ``LN (x)_{r}`` of a
    declared LN), say ``lhs``?"""
    if isinstance(lhs, sympy.Symbol) or not any(c in name for c in " \\[("):
        return False
    try:
        return canonical(parse_latex(name, functions=functions)) == canonical(lhs)
    except LatexError:
        return False



_CONTINUES = re.compile(r"\s*(?:=|≈|\\approx(?![A-Za-z]))")
_RELATION_MARK = re.compile(r"=|≈|\\approx")


def _last_side(text: str) -> str | None:
    """The last side of a display (what a next display opening with ``=`` continues)."""
    try:
        chains = split_chains(text)
    except LatexError:
        return None
    return chains[-1][-1] if chains and len(chains[-1]) % 2 == 1 else None


_MOMENT_NAMES = ("E", "Var", "SD", "Cov")


def _with_random(assume: Assumptions, exprs: list[Any]) -> Assumptions:
    """The claim's assumptions, plus every name met inside E/Var/SD/Cov that it does not
    declare: a random variable about which nothing is assumed (dependent on the others,
    unknown mean and variance), so ``E [X + Y] = E [X] + E [Y]`` is checked without any
    assumption and ``Var (X + Y)`` keeps its covariance."""
    extra: set[str] = set()
    for expr in exprs:
        for node in expr.atoms(AppliedUndef):
            if node.func.__name__ not in _MOMENT_NAMES or getattr(node.func, "unknown", False):
                continue
            labels = {x.base.label for arg in node.args for x in arg.atoms(sympy.Indexed)}
            extra |= {s.name for arg in node.args for s in arg.free_symbols
                      if isinstance(s, sympy.Symbol) and s not in labels}
    extra -= assume.random_variables
    extra -= assume.positive | assume.nonzero | assume.integer  # declared numbers (d_k > 0)
    return dataclasses.replace(assume, random=assume.random | extra) if extra else assume


def _sum_moment(name: str, arg: Any, assume: Assumptions) -> Any:
    """E, Var, SD of ``c \\sum_{i} f(X_i, Y_i, …)`` over a family the claim declares
    (``independent: [q_i, k_i]`` names every member q_1, q_2, …): the expectation is the
    sum of the members' (linearity); the variance is the sum of the members' variances
    only when the family is declared independent, else it is not computed."""
    coeff: Any = sympy.Integer(1)
    total = None
    for factor in sympy.Mul.make_args(canonical(arg)):
        if isinstance(factor, sympy.Sum) and total is None:
            total = factor
        elif factor.has(sympy.Sum) or any(getattr(s, "name", None) in assume.random_variables
                                          for s in factor.free_symbols):
            raise ValueError(f"{arg} is not a multiple of one sum")
        else:
            coeff *= factor
    if total is None or len(total.limits) != 1:
        raise ValueError(f"{arg} is not a sum over one index")
    index, lo, hi = total.limits[0]
    body = total.function.replace(
        lambda x: isinstance(x, sympy.Indexed) and x.indices == (index,),
        lambda x: sympy.Symbol(f"{x.base.label}_{index}", real=True))
    members = {s.name for s in body.free_symbols if isinstance(s, sympy.Symbol)} - {str(index)}
    declared = assume.independent | assume.zero_mean | assume.unit_variance
    if body.has(sympy.Indexed) or not members or not members <= declared:
        raise ValueError(f"the terms of {total} are not a declared family")
    if name == "E":
        return coeff * sympy.Sum(expectation(body, assume), (index, lo, hi)).doit()
    if not members <= assume.independent:
        raise ValueError(f"the terms of {total} are not declared independent")
    var = coeff**2 * sympy.Sum(variance(body, assume), (index, lo, hi)).doit()
    return var if name == "Var" else sympy.sqrt(var)


# -- first order: A = B + o (η) -------------------------------------------------------------


def _little_o(expr: Any) -> set[Any]:
    """The ``o (η)`` terms of a side (``o`` listed in the claim's ``functions``)."""
    return {x for x in expr.atoms(AppliedUndef)
            if x.func.__name__ == "o" and len(x.args) == 1 and isinstance(x.args[0],
                                                                           sympy.Symbol)}


def _scalar_calculus(expr: Any) -> Any:
    """On a scalar instance: ``\\nabla F (x)`` is ``dF/dx`` and ``‖ g ‖`` is ``|g|``."""
    nabla = sympy.Symbol("nabla", real=True)

    def gradient(x: Any) -> bool:  # a product with ∇ and one call F (x): ∇ acts on it
        args = x.args if isinstance(x, sympy.Mul) else ()
        calls = [a for a in args if isinstance(a, AppliedUndef)]
        return (nabla in args and len(calls) == 1 and len(calls[0].args) == 1
                and isinstance(calls[0].args[0], sympy.Symbol))

    def derivative(x: Any) -> Any:
        call = next(a for a in x.args if isinstance(a, AppliedUndef))
        rest = [a for a in x.args if a not in (nabla, call)]
        return sympy.Mul(*rest, sympy.Derivative(call, call.args[0]))

    expr = expr.replace(gradient, derivative)
    return expr.replace(lambda x: isinstance(x, AppliedUndef) and x.func.__name__ == "norm"
                        and len(x.args) == 1, lambda x: sympy.sqrt(x.args[0] ** 2))


def _unknowns(*exprs: Any) -> list[Any]:
    """L (θ), L'(θ) of an undefined L are unknown numbers, independent of each other: each
    becomes a symbol, so a wrong identity is refuted at a point, not left undecided."""
    nodes: set[Any] = set()
    for expr in exprs:
        nodes |= expr.atoms(sympy.Derivative, sympy.Subs)
    mapping = {n: sympy.Symbol(sympy.sstr(n), real=True) for n in nodes}
    exprs = [e.xreplace(mapping) for e in exprs]
    calls = {x for e in exprs for x in e.atoms(AppliedUndef)}
    mapping = {c: sympy.Symbol(sympy.sstr(c), real=True) for c in calls}
    return [e.xreplace(mapping) for e in exprs]


def _check_first_order(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                       relations: list[str], exprs: list[Any]) -> list[ValueVerdict]:
    """``A = B + o (η)``: A − B vanishes at η = 0 and so does its derivative in η. Checked
    on a scalar instance (θ, g numbers; ``\\nabla L (θ)`` is L'(θ), ``‖ g ‖`` is |g|): one
    identity ``(A − B)(0) + t (A − B)'(0) = 0`` in a fresh t, proved or refuted as any step."""
    values = []
    for k, relation in enumerate(relations):
        lhs, rhs = (_scalar_calculus(e) for e in exprs[k:k + 2])
        small = _little_o(lhs) | _little_o(rhs)
        text = f"{sides[k]} {relation} {sides[k + 1]}"
        variables = {x.args[0] for x in small}
        if relation != "=" or len(variables) != 1:
            values.append(_value(note, printed, f"{label}.step{k + 1}", text, ERROR, "",
                                 f"step {k + 1}: 'A = B + o (η)' is read for '=' and one "
                                 "variable"))
            continue
        var = variables.pop()
        t = sympy.Dummy("t", real=True)

        def jet(e: Any, var: Any = var, small: set[Any] = small, t: Any = t) -> Any:
            e = e.xreplace(dict.fromkeys(small, sympy.Integer(0)))
            return (e.subs(var, 0) + t * sympy.diff(e, var).subs(var, 0)).doit()

        left, right = _unknowns(jet(lhs), jet(rhs))
        step = check_step(left, right, "=", assumptions(claim), _step_seconds(claim), index=k + 1)
        value = _step_value(note, printed, label, sides, relations, step)
        value.message += f" (to first order in {var}: value and derivative at {var} = 0)"
        values.append(value)
    return values


# -- conditional probabilities: p (a ∣ b) ----------------------------------------------------


def _conditionals(exprs: list[Any]) -> list[Any]:
    """``p (a ∣ b)`` is ``p (b, a) / p (b)``: the definition of a conditional probability,
    with p (…) the joint probability of its arguments in order. Each application of such
    a p is then an unknown positive number (a distinct symbol), so a chain-rule identity
    is proved by cancelling, or refuted at a point."""
    names: set[str] = set()

    def is_given(x: Any) -> bool:
        return (isinstance(x, AppliedUndef) and x.func.__name__ == "given"
                and isinstance(x.args[0], AppliedUndef))

    def expand(x: Any) -> Any:
        call, given = x.args[0], x.args[1:]
        names.add(call.func.__name__)
        joint = call.func(*given, *call.args)
        return joint / call.func(*given)

    exprs = [e.replace(is_given, expand) for e in exprs]

    def unknown(x: Any) -> Any:
        shown = ", ".join(sympy.sstr(a) for a in x.args)
        return sympy.Symbol(f"{x.func.__name__}({shown})", positive=True)

    return [e.replace(lambda x: isinstance(x, AppliedUndef) and x.func.__name__ in names,
                      unknown) for e in exprs]


# -- vectors: 0.665 (2, 0) + 0.245 (0, 2) = (1.33, 0.49) -------------------------------------

_VEC = sympy.Function("vec")


def _components(expr: Any) -> list[Any] | None:
    """The components of a linear combination of vectors; None for a scalar."""
    if isinstance(expr, sympy.Tuple) or (isinstance(expr, AppliedUndef)
                                         and expr.func == _VEC):
        return list(expr.args)
    if not expr.has(_VEC):
        return None
    if isinstance(expr, sympy.Add):
        parts = [_components(a) for a in expr.args]
        if any(p is None for p in parts) or len({len(p) for p in parts}) != 1:
            raise ValueError(f"{expr}: a sum of vectors of different lengths, or with a number")
        return [sympy.Add(*c) for c in zip(*parts, strict=True)]
    if isinstance(expr, sympy.Mul):
        vectors = [c for c in (_components(a) for a in expr.args) if c is not None]
        scale = sympy.Mul(*(a for a in expr.args if _components(a) is None))
        if len(vectors) == 1:
            return [scale * x for x in vectors[0]]
    raise ValueError(f"{expr}: only linear combinations of vectors are read")


def _vectors(exprs: list[Any]) -> list[Any]:
    """Sides that are vectors: each step compares every component. A vector side becomes
    ``Σ_k t_k x_k`` with fresh t_k, so one identity holds exactly when all components
    agree; a vector against a number, or lengths that differ, is a failed step."""
    parts = [_components(e) for e in exprs]
    lengths = {len(p) if p is not None else None for p in parts}
    if len(lengths) != 1 or None in lengths:
        shown = ", ".join("a number" if p is None else f"{len(p)} components" for p in parts)
        raise ValueError(f"the sides do not have one shape ({shown})")
    weights = [sympy.Dummy(f"t{k + 1}", real=True) for k in range(lengths.pop())]
    return [sympy.Add(*(w * x for w, x in zip(weights, p, strict=True))) for p in parts]
