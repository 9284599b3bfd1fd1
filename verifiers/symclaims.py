"""Symbolic claims: read the note's LaTeX derivations and check every relation in them.

A symbolic claim binds formula holes ``⟪F⟫`` to LaTeX in the note. Each
formula is split into its chains (``A = B = C``, aligned rows), each side is
parsed by our own LaTeX reader (:mod:`verifiers.latex`) and must print back to
what the note says (a formula that does not parse or round-trip is
``unparsed``, never a pass), and each adjacent pair is checked by
:mod:`verifiers.symbolic`: ``proved`` by SymPy under the claim's assumptions,
or supported by ``numeric evidence`` at many high-precision points, or failed
with a point where the two sides differ. SymPy is imported only here.
"""

from __future__ import annotations

import re
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from verifiers.holes import Match
from verifiers.latex import LatexError, parse_latex, round_trip_ok, split_chains
from verifiers.matrixcalc import MatrixError, MatrixInstance, ShapeError, compare, names_to_read
from verifiers.notes import Note
from verifiers.schema import Claim
from verifiers.symbolic import (
    Assumptions,
    StepVerdict,
    check_step,
    covariance,
    expectation,
    variance,
)
from verifiers.verdicts import DISCREPANCY, ERROR, UNPARSED, VERIFIED, ValueVerdict

EXPECTED = {"proved": "proved", "numeric": "numeric evidence"}


class _Unparsed(Exception):
    pass


def assumptions(claim: Claim) -> Assumptions:
    return Assumptions(**claim.assume)  # type: ignore[arg-type]


def _parse(text: str, functions: tuple[str, ...] = (), matrices: frozenset[str] = frozenset()
           ) -> Any:
    try:
        expr = parse_latex(text, functions=functions, matrices=matrices)
    except LatexError as err:
        raise _Unparsed(f"cannot read {text!r}: {err}") from None
    if not round_trip_ok(text, expr, functions=functions, matrices=matrices):
        raise _Unparsed(f"{text!r} does not read back as written (parsed as {expr})")
    return expr


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
        self.functions = function_names(claim, match)
        self.matrices = frozenset(names_to_read(claim.matrices, claim.define))
        self.symbols: dict[Any, Any] = {}
        self.calls: dict[str, tuple[tuple[Any, ...], Any]] = {}
        self.instance: MatrixInstance | None = None
        matrix_defs: dict[str, Any] = {}
        for name, hole in claim.define.items():
            lhs, rhs = self._definition(name, hole, match)
            if claim.matrices:
                if getattr(lhs, "name", None) != name:
                    raise _Unparsed(f"define: {name}: formula {hole} does not read "
                                    f"'{name} = …'")
                matrix_defs[name] = rhs
            elif name in self.functions and isinstance(lhs, AppliedUndef) \
                    and all(isinstance(a, sympy.Symbol) for a in lhs.args):
                self.calls[name] = (lhs.args, rhs)
                # The bare name stands for the function of its own variables (dL/dw).
                self.symbols[sympy.Symbol(name, real=True)] = rhs
            elif lhs == sympy.Symbol(name, real=True):
                self.symbols[lhs] = rhs
            else:
                raise _Unparsed(f"define: {name}: formula {hole} does not read '{name} = …'")
        if claim.matrices:
            self.instance = MatrixInstance(claim.matrices, matrix_defs, claim.upstream)

    def _definition(self, name: str, hole: str, match: Match) -> tuple[Any, Any]:
        """The chain ``name = …`` of a define hole (a hole may hold several: R = …, Z = …)."""
        chains = split_chains(match.formulas[hole].text)
        for chain in chains:
            if len(chain) == 3 and chain[1] == "=":
                lhs = _parse(chain[0], self.functions, self.matrices)
                if len(chains) == 1 or getattr(lhs, "name", None) == name or (
                        isinstance(lhs, AppliedUndef) and lhs.func.__name__ == name):
                    return lhs, _parse(chain[2], self.functions, self.matrices)
        raise _Unparsed(f"define: {name}: formula {hole} does not read '{name} = …'")

    def apply(self, expr: Any) -> Any:
        """Replace defined symbols and calls, then take any derivative that became concrete."""
        for name, (params, body) in self.calls.items():
            expr = expr.replace(
                lambda x, name=name: isinstance(x, AppliedUndef) and x.func.__name__ == name,
                lambda x, params=params, body=body: body.subs(dict(zip(params, x.args,
                                                                        strict=True))))
        expr = expr.subs(self.symbols)
        return expr.replace(lambda x: isinstance(x, sympy.Derivative), lambda x: x.doit())


def check_formulas(claim: Claim, match: Match, note: Note) -> list[ValueVerdict]:
    """One value per relation of every formula hole that is not a definition.

    A wrong step may be pinned like a wrong number: ``known: {G.step2: {printed:
    "<the step as printed>", expected: failed, why: ...}}``.
    """
    return [_pinned(claim, v) for v in _values(claim, match, note)]


def _pinned(claim: Claim, value: ValueVerdict) -> ValueVerdict:
    from verifiers.engine import Engine

    pin = claim.known.get(value.name)
    if pin is None or value.status not in (DISCREPANCY, VERIFIED):
        return value
    value.suggestion = value.expected
    value.status, why = Engine._apply_pin(pin, value.printed, value.expected, value.status,
                                          value.message)
    value.message = f"{value.name}: {why}"
    return value


def _values(claim: Claim, match: Match, note: Note) -> list[ValueVerdict]:
    values: list[ValueVerdict] = []
    try:
        subs = Definitions(claim, match)
    except (_Unparsed, LatexError, ValueError) as err:
        first = match.formulas[next(iter(claim.define.values()))]
        return [_value(note, first, "define", first.text, UNPARSED, "", str(err))]
    defined = set(claim.define.values())
    for name in claim.formulas:
        if name in defined:
            continue
        printed = match.formulas[name]
        restated = claim.restate.get(name)
        if restated is not None and _reads(printed.text, subs):
            values.append(_value(note, printed, name, printed.text, ERROR, "",
                                 "restate: the note's formula reads as written; check it "
                                 "instead of the restatement (remove 'restate')"))
            continue
        source = restated.text if restated is not None else printed.text
        try:
            chains = split_chains(source)
        except LatexError as err:
            values.append(_value(note, printed, name, printed.text, UNPARSED, "", str(err)))
            continue
        for c, chain in enumerate(chains):
            label = name if len(chains) == 1 else f"{name}.{c + 1}"
            chain_values = _check_chain(claim, note, printed, label, chain, subs)
            if restated is not None:
                for value in chain_values:
                    value.restated = source
                    value.message += f" (restated: {restated.reason})"
            values.extend(chain_values)
    return values


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
    try:
        exprs = [subs.apply(_parse(side, subs.functions, subs.matrices)) for side in sides]
    except _Unparsed as err:
        return [_value(note, printed, label, " ".join(chain), UNPARSED, "", str(err))]
    if subs.instance is not None:
        return _check_matrix_chain(claim, note, printed, label, sides, relations, exprs,
                                   subs.instance)
    exprs = [_link_indexed(e) for e in exprs]
    if assumptions(claim).random_variables:
        exprs = [_moments(e, assumptions(claim)) for e in exprs]
    steps = []
    for k, relation in enumerate(relations):
        lhs, rhs = exprs[k], exprs[k + 1]
        tolerance = None
        if relation in ("\\approx", "≈"):
            tolerance = _printed_tolerance(sides[k + 1])
        else:  # "=" with decimals is exact arithmetic on the printed digits
            lhs, rhs = _exact(lhs), _exact(rhs)
        try:
            steps.append(check_step(lhs, rhs, relation, assumptions(claim), claim.timeout,
                                    tolerance=tolerance, index=k + 1))
        except ValueError as err:  # e.g. a relation we do not check (\to, \ne)
            return [_value(note, printed, label, " ".join(chain), ERROR, "", str(err))]
    return [_step_value(note, printed, label, sides, relations, step) for step in steps]


def _check_matrix_chain(claim: Claim, note: Note, printed: Any, label: str, sides: list[str],
                        relations: list[str], exprs: list[Any], instance: MatrixInstance
                        ) -> list[ValueVerdict]:
    """Each '=' of a matrix rule, on the claim's instance, entry by entry."""
    sizes = ", ".join(f"{n} {r}×{c}" for n, (r, c) in claim.matrices.items())
    values = []
    explicit: list[Any] = []
    for side, expr in zip(sides, exprs, strict=True):
        try:
            explicit.append(instance.instantiate(expr))
        except ShapeError as err:  # the formula cannot be formed: the rule is wrong
            explicit.append(ShapeError(f"{side}: {err}"))
        except MatrixError as err:
            return [_value(note, printed, label, " ".join(sides), ERROR, "", str(err))]
    for k, relation in enumerate(relations, start=1):
        text = f"{sides[k - 1]} {relation} {sides[k]}"
        if relation != "=":
            values.append(_value(note, printed, f"{label}.step{k}", text, ERROR, "",
                                 f"step {k}: a matrix rule is checked for '=' only"))
            continue
        bad = [e for e in explicit[k - 1:k + 1] if isinstance(e, ShapeError)]
        equal, detail = (False, str(bad[0])) if bad else compare(explicit[k - 1], explicit[k])
        if equal:
            values.append(_value(note, printed, f"{label}.step{k}", text, VERIFIED, "proved",
                                 f"step {k}: proved entry by entry ({sizes})"))
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
                        and x.func.__name__ in ("E", "Var", "SD", "Cov"), evaluate)


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
    if step.passed:
        return _value(note, printed, f"{label}.step{k}", text, VERIFIED,
                      EXPECTED[step.status], f"step {k}: {EXPECTED[step.status]}")
    where = ""
    if step.counterexample:
        where = " at " + ", ".join(f"{s}={v}" for s, v in sorted(step.counterexample.items()))
    detail = f"step {k} ({text}): {step.status}{where}; {step.detail}"
    return _value(note, printed, f"{label}.step{k}", text, DISCREPANCY if step.status == "failed"
                  else ERROR, step.status, detail)


def _value(note: Note, printed: Any, name: str, text: str, status: str, expected: str,
           message: str) -> ValueVerdict:
    return ValueVerdict(
        name=name, printed=text, expected=expected, status=status,
        start=note.position(printed.start), end=note.position(printed.end),
        message=f"{name}: {message}", suggestion=None,
    )
