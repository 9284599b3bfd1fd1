"""Formula holes inside arithmetic, model and property claims (``computes:``).

A worked line prints numbers *and* a formula: ``L = - \\ln (0.3)``, ``s = q \\cdot k /
\\sqrt{d_{k}}``. Its numbers are value holes, but a formula quoted as literal text is only
matched character by character, so a sign flip or a dropped root made the claim ``stale``
(issue 12 item 2). Here the formula is a formula hole ``⟪F⟫`` that the claim reads and
checks against what it computes::

    text: ⟪F⟫ \\approx ⟨gs1⟩ .
    computes:
      F:
        value: gs1                    # every side of F must equal this (the claim's value)
        names: {a: a, c: c}           # the note's symbols -> the claim's expressions

The hole is read by the LaTeX reader (:func:`verifiers.latex.parse_latex`, read back as
written or ``unparsed``) and split into its chains. Each side is evaluated with ``names``
substituted (a key is LaTeX, read by the same reader, so ``'\\frac{\\partial L}{\\partial
w}'`` binds a derivative) and compared with ``value``. A first side that is one unbound name
(``L``, ``\\frac{\\partial L}{\\partial s_{1}}``) is the name being computed and is skipped; any
other side with a name left unbound is ``unparsed`` (never a pass). The comparison allows
what the side's printed numbers allow: half a unit of each one's last printed digit,
propagated to first order (plus 10⁻⁹ relative); a sign flip, a dropped factor or a swapped
name is a ``discrepancy`` at the formula. Nothing is evaluated from text: SymPy trees only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy
from sympy.core.function import AppliedUndef

from verifiers.formulas.inline_matrix import number as _float40
from verifiers.formulas.inline_plain import plain_text
from verifiers.formulas.inline_spec import Computes
from verifiers.formulas.inline_tuple import run_length
from verifiers.latex import (
    SUM_UPPER,
    LatexError,
    check_size,
    parse_latex,
    round_trip_ok,
    split_chains,
)
from verifiers.numbers import parse_printed
from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

__all__ = ["Computes", "check"]

REL_SLACK = mpmath.mpf("1e-9")
_RELATIONS = ("=", "\\approx")
_NUMERAL = re.compile(r"(?<![\w.])\d+(?:\.(\d+))?")


def check(claim: Any, match: Any, note: Any, bound: Mapping[str, Any]) -> list[ValueVerdict]:
    """One value per relation of each ``computes:`` formula hole."""
    values: list[ValueVerdict] = []
    for hole, spec in claim.computes.items():
        if spec.piece_of:
            continue  # read as part of the formula of the hole it belongs to
        printed = match.formulas[hole]
        if spec.through:  # one formula around value holes: from this hole to the last piece
            end = match.formulas[spec.through].end
            printed = dataclasses.replace(printed, text=note.text[printed.start:end], end=end)
        target, names = bound[hole]

        def verdict(name: str, status: str, expected: str, message: str,
                    printed: Any = printed) -> ValueVerdict:
            return ValueVerdict(name=name, printed=printed.text, expected=expected,
                                status=status, start=note.position(printed.start),
                                end=note.position(printed.end), message=f"{name}: {message}")

        text = plain_text(printed.text)  # Z₁, Q_猫 of a plain-text note: Z_{1}, Q_{猫}
        if spec.matrices:
            from verifiers.formulas.inline_matrix import check_matrix_hole

            values.extend(check_matrix_hole(hole, text, spec, target, names, verdict))
        else:
            slack = _rounding(match, spec.rounded)
            if slack is None:
                values.append(verdict(hole, UNPARSED, "?", f"rounded: {spec.rounded!r} is no "
                                      "printed number of the claim"))
                continue
            values.extend(_check_hole(hole, text, spec, target, names, verdict, slack))
    return values


def _rounding(match: Any, name: str) -> Any:
    """Half a unit of the last digit of value hole ``name`` (``rounded:``), 0 without one
    or for a one-digit integer (``= 1`` for 0.9 is wrong, not rounded); None when ``name`` is
    no printed number of the match."""
    if not name:
        return mpmath.mpf(0)
    printed = match.values.get(name)
    if printed is None or len(printed.numbers) != 1:
        return None
    number = printed.numbers[0]
    if number.kind == "integer" and abs(number.value) < 10:
        return mpmath.mpf(0)  # a one-digit integer is no rounding (engine.rounds_to's rule)
    half = number.half_unit
    return mpmath.mpf(half.numerator) / half.denominator


def _check_hole(hole: str, text: str, spec: Computes, target: Any, names: Mapping[str, Any],
                verdict: Callable[..., ValueVerdict], slack: Any = 0) -> list[ValueVerdict]:
    try:
        rows = _entries(target, names)
    except (TypeError, ValueError) as err:
        return [verdict(hole, UNPARSED, "?", f"the values it computes: {err}")]
    try:
        chains = split_chains(text)
        keys = {k: parse_latex(k, _plain(names), functions=spec.functions) for k in names}
    except LatexError as err:
        return [verdict(hole, UNPARSED, "?", f"cannot read {text!r}: {err}")]
    out: list[ValueVerdict] = []
    step = 0
    for chain in chains:
        for k in range(0, len(chain), 2):
            side = chain[k]
            if k and chain[k - 1] not in _RELATIONS:
                step += 1
                out.append(verdict(f"{hole}.step{step}", UNPARSED, "?",
                                   f"relation {chain[k - 1]} is not = or ≈"))
                continue
            result = None
            for entry, (want, bound) in enumerate(rows):  # the first entry that fails
                subs = {keys[key]: _float40(v) for key, v in bound.items()}
                result = _side(side, spec, subs, want, k == 0, (entry, len(rows)), slack)
                if result is not None and result[0] != VERIFIED:
                    if len(rows) > 1:
                        result = (result[0], result[1], f"entry {entry}: {result[2]}")
                    break
            if result is None:
                continue
            if result[0] == VERIFIED and len(rows) > 1:
                result = (VERIFIED, f"{len(rows)} entries", f"{side!r} equals the claim's value "
                          f"in each of its {len(rows)} entries")
            step += 1
            status, expected, message = result
            out.append(verdict(f"{hole}.step{step}", status, expected, message))
    if not out:
        out.append(verdict(hole, UNPARSED, "?", "no side of the formula is evaluated"))
    return out


def _entries(target: Any, names: Mapping[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """(value, bindings) per entry: a vector value (or bound vector) is checked entrywise."""
    target, names = _flat(target), {k: _flat(v) for k, v in names.items()}
    values = {"value": target, **names}
    lengths = {len(v) for v in values.values() if isinstance(v, (list, tuple))}
    if not lengths:
        return [(_number(target), {k: _number(v) for k, v in names.items()})]
    if len(lengths) > 1:
        raise ValueError(f"vectors of different lengths {sorted(lengths)}")
    (n,) = lengths

    def at(v: Any, i: int) -> Any:
        return _number(v[i] if isinstance(v, (list, tuple)) else v)

    return [(at(target, i), {k: at(v, i) for k, v in names.items()}) for i in range(n)]


def _side(side: str, spec: Computes, subs: dict[Any, Any], want: Any, first: bool,
          entry: tuple[int, int] = (0, 1), slack: Any = 0) -> tuple[str, str, str] | None:
    """(status, expected, message) for one side; None for the name being computed. A tuple
    side ``(a, 1 + c, - a)`` of a vector value gives entry ``entry[0]`` of ``entry[1]``."""
    length = run_length(side)  # (q_{1}, q_{2}, \dots, q_{64}): a vector of 64 entries
    if length is not None:
        ok = length == want
        return (VERIFIED if ok else DISCREPANCY), mpmath.nstr(want, 8), (
            f"{side!r} has {length} entries" + ("" if ok else f", the claim computes "
                                                            f"{mpmath.nstr(want, 8)}"))
    symbols = _plain({str(k): k for k in subs if isinstance(k, sympy.Symbol)})
    try:
        expr = parse_latex(side, symbols, functions=spec.functions)
        check_size(expr)
    except LatexError as err:
        return UNPARSED, "?", f"cannot read {side!r}: {err}"
    if not round_trip_ok(side, expr, symbols, functions=spec.functions):
        return UNPARSED, "?", f"{side!r} does not read back as written (read as {expr})"
    value = _substitute(expr, subs)
    if isinstance(value, sympy.Tuple):
        if len(value) != entry[1]:
            return DISCREPANCY, "?", (f"{side!r} has {len(value)} entries, the claim computes "
                                      f"{entry[1]}")
        value = value[entry[0]]
    left = _unbound(value)
    if left:
        if first and expr not in subs and _is_name(expr) and not any(
                _is_name(k) and not isinstance(k, sympy.Symbol) for k in subs):
            return None  # the name being computed (a bound derivative/call must match)
        return UNPARSED, "?", (f"{side!r}: {', '.join(sorted(left))} not bound (computes: "
                               "names)")
    try:
        got = _evaluate(value)
    except (TypeError, ValueError, ArithmeticError) as err:
        return UNPARSED, "?", f"{side!r} has no value: {err}"
    tol = _tolerance(side, expr, subs, want) if not isinstance(expr, sympy.Tuple) else (
        REL_SLACK * max(abs(want), mpmath.mpf(1)))
    tol += slack
    shown = mpmath.nstr(want, 8)
    if abs(got - want) <= tol:
        return VERIFIED, shown, f"{side!r} = {mpmath.nstr(got, 8)}, as computed"
    return DISCREPANCY, shown, (f"{side!r} = {mpmath.nstr(got, 8)}, but the claim computes "
                                f"{shown}")


def _plain(names: Mapping[str, Any]) -> dict[str, Any]:
    """Multi-letter plain names bound by the claim (``pos``, ``d_model``): read whole where
    the note writes them so (LaTeX would read ``d_{m} o d e l``)."""
    return {k: sympy.Symbol(k, real=True) for k in names
            if re.fullmatch(r"[A-Za-z]{2,}(?:_[A-Za-z]+)?|[A-Za-z]_[A-Za-z]{2,}", k)}


def _substitute(expr: Any, subs: dict[Any, Any]) -> Any:
    """``subs`` in ``expr``; an entry ``q_{r}`` of a sum (``q[r]``) takes the value bound to
    its name ``q`` (the same for every r)."""
    by_name = {str(k): v for k, v in subs.items() if isinstance(k, sympy.Symbol)}
    entries = {a: by_name[str(a.base.label)] for a in expr.atoms(sympy.Indexed)
               if str(a.base.label) in by_name}
    return _numbered_entries(expr.xreplace(entries).xreplace(subs), by_name)


def _numbered_entries(expr: Any, by_name: Mapping[str, Any]) -> Any:
    """``\\sum_{i=1}^{3} x_{i}`` with ``x_1``, ``x_2``, ``x_3`` bound (each entry its own
    printed value): a sum or product over whole-number bounds is expanded and entry ``x[k]``
    takes the value bound to ``x_k``. A sum written without bounds (``\\sum_i x_i``) runs over
    the entries bound, ``x_1`` up to the last consecutive one. Anything else is unchanged."""
    if not expr.has(sympy.Sum, sympy.Product):
        return expr

    def count(e: Any) -> int | None:
        """Consecutive bound entries ``x_1, x_2, …`` of every name the term indexes."""
        found = set()
        for a in e.function.atoms(sympy.Indexed):
            k = 0
            while f"{a.base.label}_{k + 1}" in by_name:
                k += 1
            found.add(k)
        return found.pop() if len(found) == 1 and 0 not in found else None

    def whole(v: Any) -> Any:
        if isinstance(v, int):  # a bound written as a Python int by the reader
            return sympy.Integer(v)
        return sympy.Integer(int(v)) if v.is_number and float(v).is_integer() else None

    def expand(e: Any) -> Any:
        limits = []
        for var, lo, hi in e.limits:
            if hi == SUM_UPPER and lo == 1:
                hi = count(e)
            lo, hi = whole(lo), None if hi is None else whole(hi)
            if lo is None or hi is None or not 0 <= hi - lo < 10_000:
                return e
            limits.append((var, lo, hi))
        return e.func(e.function, *limits).doit()

    done = expr.replace(lambda e: isinstance(e, (sympy.Sum, sympy.Product)), expand)
    numbered = {a: by_name[f"{a.base.label}_{a.indices[0]}"]
                for a in done.atoms(sympy.Indexed) if len(a.indices) == 1
                and a.indices[0].is_Integer and f"{a.base.label}_{a.indices[0]}" in by_name}
    return done.xreplace(numbered) if numbered else expr


def _is_name(expr: Any) -> bool:
    return isinstance(expr, (sympy.Symbol, sympy.Derivative, sympy.Indexed, AppliedUndef))


def _unbound(expr: Any) -> set[str]:
    names = {str(s) for s in expr.free_symbols}
    names |= {str(f.func) for f in expr.atoms(AppliedUndef)}
    return names


def _flat(value: Any) -> Any:
    """A matrix as its entries, row by row (a vector or a number as it is)."""
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
        return [x for row in value for x in row]
    return value


def _number(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        raise TypeError("a matrix, not a number or a vector")
    return mpmath.mpmathify(value)


def _evaluate(expr: Any) -> Any:
    z = sympy.N(expr, 40)
    if not z.is_number:
        raise ValueError("not a number")
    c = complex(z)
    if abs(c.imag) > 1e-30 or c.real != c.real:
        raise ValueError(f"not a real number: {z}")
    return mpmath.mpf(str(sympy.re(z)))


def _tolerance(side: str, expr: Any, subs: dict[Any, Any], want: Any) -> Any:
    """Half a unit of each printed numeral's last digit, propagated to first order."""
    tol = REL_SLACK * max(abs(want), mpmath.mpf(1))
    units: dict[Any, Any] = {}
    for m in _NUMERAL.finditer(side):
        if m.group(1):  # a decimal: rounded at its last digit (an integer is exact)
            half = parse_printed(m.group(0)).half_unit
            units[sympy.Float(m.group(0), 40)] = mpmath.mpf(half.numerator) / half.denominator
    if not units:
        return tol
    try:
        base = _evaluate(_substitute(expr, subs))
    except (TypeError, ValueError, ArithmeticError):
        return tol
    for f in expr.atoms(sympy.Float):
        half = next((u for v, u in units.items() if abs(float(v) - float(f)) < 1e-12), None)
        if half is None:
            continue
        try:
            up = _evaluate(_substitute(expr.xreplace({f: sympy.Float(f + _float40(half), 40)}),
                                       subs))
        except (TypeError, ValueError, ArithmeticError):
            continue
        tol += abs(up - base) * mpmath.mpf("1.01")
    return tol
