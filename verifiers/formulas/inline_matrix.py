"""``computes:`` with ``matrices``: a formula over matrices, evaluated on the claim's values.

``X_input · W_q = Q`` and ``Q K^{T}`` are read with the named matrices kept in order (the
LaTeX reader's non-commutative names); each side is evaluated by a small walk over the read
tree -- ordered products, sums, scalar factors, ``^{T}``, ``√``/powers of scalars,
``softmax`` by rows, ``concat`` along the columns, ``exp``/``ln`` of scalars, slices
``X_{t,:}``/``X_{:,t}`` of a bound matrix -- with every name bound by ``names`` (a
matrix, a vector as one row, or a number) and compared with ``value`` entry by entry. With
``shapes: true`` a name is bound to its shape ``[rows, cols]`` and stands for a zero matrix
of that shape: the side's shape is compared with ``value`` (``[rows, cols]``). A product
whose sizes do not fit is a ``discrepancy``; anything the walk does not know is ``unparsed``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import sympy
from sympy.core.function import AppliedUndef

from verifiers.latex import LatexError, check_size, parse_latex, round_trip_ok, split_chains
from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

__all__ = ["check_matrix_hole"]

_RELATIONS = ("=", "\\approx")
REL_SLACK = 1e-9


class _Unread(ValueError):
    """Something the walk does not evaluate (never a pass)."""


class _Mismatch(ValueError):
    """Sizes that do not fit (a discrepancy)."""


def check_matrix_hole(hole: str, text: str, spec: Any, target: Any, names: Mapping[str, Any],
                      verdict: Callable[..., ValueVerdict]) -> list[ValueVerdict]:
    """One value per side of each chain of ``text`` (the first side, a bare unbound name,
    is the name being computed)."""
    try:
        chains = split_chains(text)
        env = {_key(k, spec): _bound(v, spec.shapes) for k, v in names.items()}
        want = _bound(target, spec.shapes)
    except LatexError as err:
        return [verdict(hole, UNPARSED, "?", f"cannot read {text!r}: {err}")]
    except (TypeError, ValueError) as err:
        return [verdict(hole, UNPARSED, "?", f"a bound value: {err}")]
    out: list[ValueVerdict] = []
    step = 0
    for chain in chains:
        for k in range(0, len(chain), 2):
            if k and chain[k - 1] not in _RELATIONS:
                step += 1
                out.append(verdict(f"{hole}.step{step}", UNPARSED, "?",
                                   f"relation {chain[k - 1]} is not = or ≈"))
                continue
            result = _side(chain[k], spec, env, want, first=k == 0)
            if result is None:
                continue
            step += 1
            out.append(verdict(f"{hole}.step{step}", *result))
    if not out:
        out.append(verdict(hole, UNPARSED, "?", "no side of the formula is evaluated"))
    return out


def _key(key: str, spec: Any) -> Any:
    expr = parse_latex(key, matrices=spec.matrices, functions=spec.functions)
    if not isinstance(expr, sympy.Symbol):
        raise LatexError(f"names: {key!r} is not one name")
    return expr.name


def _bound(value: Any, shapes: bool) -> Any:
    if shapes:
        if (isinstance(value, (list, tuple)) and len(value) == 2
                and all(float(x) == int(x) and int(x) > 0 for x in value)):
            return ("shape", int(value[0]), int(value[1]))
        return number(value)
    if isinstance(value, (list, tuple)):
        rows = value if value and isinstance(value[0], (list, tuple)) else [value]
        return sympy.ImmutableMatrix([[number(x) for x in row] for row in rows])
    return number(value)


def number(x: Any) -> Any:
    """A computed value as a 40-digit SymPy Float (what the formula's sides are evaluated
    against); a nested value where a number belongs is a TypeError."""
    if isinstance(x, (list, tuple)):
        raise TypeError("a nested value where a number belongs")
    return sympy.Float(mpmath.nstr(mpmath.mpmathify(x), 40), 40)


def _side(side: str, spec: Any, env: Mapping[str, Any], want: Any, first: bool
          ) -> tuple[str, str, str] | None:
    matrices = (*spec.matrices, *_slice_names(side))  # slices keep their place in a product
    try:
        expr = parse_latex(side, matrices=matrices, functions=spec.functions)
        check_size(expr)
    except LatexError as err:
        return UNPARSED, "?", f"cannot read {side!r}: {err}"
    if not round_trip_ok(side, expr, matrices=matrices, functions=spec.functions):
        return UNPARSED, "?", f"{side!r} does not read back as written (read as {expr})"
    if first and isinstance(expr, sympy.Symbol) and expr.name not in env:
        return None
    try:
        got = _walk(expr, env, spec.shapes)
    except _Mismatch as err:
        return DISCREPANCY, _show(want), f"{side!r}: {err}"
    except (_Unread, TypeError, ValueError, ArithmeticError) as err:
        return UNPARSED, "?", f"{side!r} is not evaluated: {err}"
    if spec.shapes:
        shape = _shape(got)
        ok = isinstance(want, tuple) and shape == want[1:]
        return ((VERIFIED if ok else DISCREPANCY), _show(want),
                f"{side!r} is {shape[0]}×{shape[1]}" + ("" if ok else f", not {_show(want)}"))
    if not _close(got, want):
        return DISCREPANCY, _show(want), f"{side!r} = {_show(got)}, but the claim computes " \
                                         f"{_show(want)}"
    return VERIFIED, _show(want), f"{side!r} = {_show(got)}, as computed"


def _walk(expr: Any, env: Mapping[str, Any], shapes: bool) -> Any:
    if isinstance(expr, sympy.Symbol) and expr.name not in env and _SLICE.fullmatch(expr.name):
        return _slice(expr.name, env)
    if isinstance(expr, sympy.Symbol):
        if expr.name not in env:
            raise _Unread(f"{expr.name} not bound (computes: names)")
        value = env[expr.name]
        return sympy.zeros(value[1], value[2]) if isinstance(value, tuple) else value
    if expr.is_Number:
        return expr
    if isinstance(expr, sympy.Tuple):  # (1, 0): a row vector, (1, 0)^{T} a column
        entries = [_walk(a, env, shapes) for a in expr]
        if any(isinstance(a, sympy.MatrixBase) for a in entries):
            raise _Unread("a tuple of matrices")
        return sympy.ImmutableMatrix([entries])
    if isinstance(expr, sympy.Add):
        parts = [_walk(a, env, shapes) for a in expr.args]
        if len({_shape(p) for p in parts if isinstance(p, sympy.MatrixBase)}) > 1:
            raise _Mismatch("a sum of matrices of different sizes")
        total = parts[0]
        for p in parts[1:]:
            total = total + p if _both(total, p) or not _any(total, p) else _broadcast(total, p)
        return total
    if isinstance(expr, sympy.Mul):
        result: Any = sympy.Integer(1)
        for a in expr.args:  # the reader keeps non-commutative factors in the printed order
            x = _walk(a, env, shapes)
            if _both(result, x):
                if result.shape[1] != x.shape[0]:
                    raise _Mismatch(f"a {result.shape[0]}×{result.shape[1]} matrix times a "
                                    f"{x.shape[0]}×{x.shape[1]} one")
            result = result * x
        return result
    if isinstance(expr, sympy.Pow):
        base, power = _walk(expr.base, env, shapes), _walk(expr.exp, env, shapes)
        if _any(base, power):
            raise _Unread("a power of a matrix")
        return base ** power
    if type(expr).__name__ == "transpose" or isinstance(expr, sympy.Transpose):
        x = _walk(expr.args[0], env, shapes)
        return x.T if isinstance(x, sympy.MatrixBase) else x
    if isinstance(expr, AppliedUndef) and expr.func.__name__ == "softmax" and len(expr.args) == 1:
        x = _walk(expr.args[0], env, shapes)
        if not isinstance(x, sympy.MatrixBase):
            raise _Unread("softmax of a number")
        return _softmax_rows(x)
    if isinstance(expr, AppliedUndef) and expr.func.__name__ == "concat" and expr.args:
        return _concat([_walk(a, env, shapes) for a in expr.args])
    if isinstance(expr, (sympy.exp, sympy.log)):
        x = _walk(expr.args[0], env, shapes)
        if isinstance(x, sympy.MatrixBase):
            raise _Unread(f"{type(expr).__name__} of a matrix")
        return type(expr)(x)
    raise _Unread(f"{type(expr).__name__} is not evaluated here")


_SLICE = re.compile(r"([A-Za-z]\w*?)_(?:([A-Za-z0-9]+),:|:,([A-Za-z0-9]+))")


def _slice_names(text: str) -> tuple[str, ...]:
    """The reader names of the slices ``X_{t,:}``, ``X_{:,t}`` printed in ``text``."""
    return tuple(f"{m.group(1)}_{m.group(2).replace(' ', '')}" for m in re.finditer(
        r"([A-Za-z]\w*?)_\{\s*([A-Za-z0-9]+\s*,\s*:|:\s*,\s*[A-Za-z0-9]+)\s*\}", text))


def _slice(name: str, env: Mapping[str, Any]) -> Any:
    """``X_{t,:}`` (row t of the bound matrix X) or ``X_{:,t}`` (column t), t a bound
    number or a digit, counted from 1 as the note counts rows: a row and a column are
    different names, so ``X_{:,t} W`` is read as what it says."""
    m = _SLICE.fullmatch(name)
    assert m is not None
    base, row, col = m.groups()
    matrix, index = env.get(base), row or col
    at = env.get(index, sympy.Integer(index) if index.isdigit() else None)
    if not isinstance(matrix, sympy.MatrixBase) or at is None or isinstance(at, sympy.MatrixBase):
        raise _Unread(f"{name}: {base} is not a bound matrix or {index} is not a bound number")
    k = int(round(float(at))) - 1
    size = matrix.shape[0] if row else matrix.shape[1]
    if not (0 <= k < size and abs(float(at) - (k + 1)) < 1e-9):
        raise _Mismatch(f"{name}: {index} = {mpmath.nstr(float(at), 6)} is outside the {size} "
                        f"{'rows' if row else 'columns'} of {base}")
    return sympy.ImmutableMatrix(matrix.row(k) if row else matrix.col(k))


def _concat(parts: list[Any]) -> Any:
    """``concat(Z₁, Z₂)``: the matrices side by side (along the columns, as multi-head
    attention joins its heads); different row counts cannot be joined."""
    if not all(isinstance(p, sympy.MatrixBase) for p in parts):
        raise _Unread("concat of a number")
    if len({p.shape[0] for p in parts}) > 1:
        raise _Mismatch("concat of matrices with different numbers of rows")
    out = parts[0]
    for p in parts[1:]:
        out = out.row_join(p)
    return sympy.ImmutableMatrix(out)


def _softmax_rows(m: Any) -> Any:
    rows = []
    for i in range(m.shape[0]):
        e = [sympy.exp(m[i, j]) for j in range(m.shape[1])]
        s = sum(e)
        rows.append([x / s for x in e])
    return sympy.ImmutableMatrix(rows)


def _both(a: Any, b: Any) -> bool:
    return isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase)


def _any(a: Any, b: Any) -> bool:
    return isinstance(a, sympy.MatrixBase) or isinstance(b, sympy.MatrixBase)


def _broadcast(a: Any, b: Any) -> Any:
    raise _Mismatch("a number added to a matrix")


def _shape(x: Any) -> tuple[int, int]:
    return tuple(x.shape) if isinstance(x, sympy.MatrixBase) else (1, 1)  # type: ignore[return-value]


def _close(got: Any, want: Any) -> bool:
    g = got if isinstance(got, sympy.MatrixBase) else sympy.ImmutableMatrix([[got]])
    w = want if isinstance(want, sympy.MatrixBase) else sympy.ImmutableMatrix([[want]])
    if g.shape != w.shape:
        if w.shape[0] == 1 and g.shape[1] == 1 and len(g) == len(w):  # a row printed flat
            g = g.reshape(*w.shape)
        else:
            return False
    for x, y in zip(g, w, strict=True):
        x, y = complex(sympy.N(x, 30)), complex(sympy.N(y, 30))
        if abs(x - y) > REL_SLACK * max(1.0, abs(y)):
            return False
    return True


def _show(x: Any) -> str:
    if isinstance(x, tuple):
        return f"{x[1]}×{x[2]}"
    if isinstance(x, sympy.MatrixBase):
        rows = (", ".join(mpmath.nstr(mpmath.mpf(float(v)), 6) for v in x.row(i))
                for i in range(x.shape[0]))
        return "[" + ", ".join(f"[{r}]" for r in rows) + "]"
    try:
        return mpmath.nstr(mpmath.mpf(float(x)), 8)
    except TypeError:
        return str(x)
