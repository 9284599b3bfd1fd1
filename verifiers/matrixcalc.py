"""Matrix calculus on small symbolic instances: the note's matrix rules, entry by entry.

A rule such as ``\\bar{W}_{O} = Z^{T} \\bar{R}`` (for ``R = X + Z W_{O}``) is
about matrices of any size; we check it on an instance of the sizes the claim
states (``matrices: {X: [2, 3], ...}``), every entry a SymPy symbol. The loss
is an arbitrary scalar function of the ``upstream`` matrix R whose gradient
R̄ is given, so to first order ``L = Σ_ij R̄_ij R_ij`` with R̄ free symbols: the
gradient of L with respect to any other matrix M is then what the chain rule
says it is, computed by SymPy differentiation of L written out in M's entries.
A bar (``\\bar{M}``) and ``\\frac{\\partial L}{\\partial M}`` both mean that
gradient. Both sides of a rule become explicit matrices and are compared entry
by entry; shapes that do not match are a failure of the rule, not an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

__all__ = ["MatrixError", "MatrixInstance", "ShapeError", "compare", "names_to_read"]

BAR = "bar"


class MatrixError(ValueError):
    """A formula that cannot be instantiated (a name without a size, an unknown operation)."""


class ShapeError(MatrixError):
    """Shapes that do not fit (a 1×2 times a 1×3): the formula itself is wrong."""


def bar_name(name: str) -> str:
    """The reader's name for ``\\bar{M}``: ``Zbar``, and ``Wbar_O`` for ``{\\bar{W}}_{O}``."""
    head, sep, tail = name.partition("_")
    return f"{head}{BAR}{sep}{tail}"


def unbar(name: str) -> str | None:
    head, sep, tail = name.partition("_")
    return f"{head[:-len(BAR)]}{sep}{tail}" if head.endswith(BAR) and len(head) > len(BAR) \
        else None


def names_to_read(sizes: Mapping[str, Any], defined: Mapping[str, Any]) -> set[str]:
    """Every name the reader must read as a matrix (non-commutative), bars included."""
    base = set(sizes) | set(defined) if sizes else set()
    return base | {bar_name(n) for n in base}


def _leaf(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}[{i},{j}]", real=True))


class MatrixInstance:
    """Explicit matrices for the names of one claim, and the gradients of its loss."""

    def __init__(self, sizes: Mapping[str, tuple[int, int]], definitions: Mapping[str, Any],
                 upstream: str | None, loss: str = "L") -> None:
        self.sizes = dict(sizes)
        self.definitions = dict(definitions)  # name -> parsed right side (matrix expression)
        self.upstream = upstream
        self.loss = sympy.Symbol(loss, real=True)
        self._leaves = {n: _leaf(n, *s) for n, s in self.sizes.items()}
        self._grads: dict[str, sympy.Matrix] = {}

    # -- values ---------------------------------------------------------------------------
    def value(self, name: str, stop: str | None = None) -> sympy.Matrix:
        """A name as an explicit matrix: a leaf, or its definition written out down to the
        leaves -- except ``stop``, kept as its own symbols (to differentiate with respect
        to an intermediate such as Z in R = X + Z W_O)."""
        if name in self.definitions and name != stop:
            return self._as_matrix(self.instantiate(self.definitions[name], stop), name)
        if name in self._leaves:
            return self._leaves[name]
        if name in self.definitions:
            return self._intermediate_leaf(name)
        raise MatrixError(f"no size for {name!r}: give it in 'matrices' or define it")

    def _intermediate_leaf(self, name: str) -> sympy.Matrix:
        """An intermediate kept as its own symbols; its size is that of its value."""
        if name not in self._leaves:
            self._leaves[name] = _leaf(name, *self.value(name).shape)
        return self._leaves[name]

    def gradient(self, name: str) -> sympy.Matrix:
        """∂L/∂M for L = Σ Ū ⊙ U (U the upstream matrix, Ū its given gradient)."""
        if self.upstream is None:
            raise MatrixError(f"the gradient of {name!r} needs 'upstream' (whose gradient "
                              "is given)")
        if name not in self._grads:
            up = self.value(self.upstream)
            given = _leaf(bar_name(self.upstream), *up.shape)
            if name == self.upstream:
                self._grads[name] = given
            else:
                through = self.value(self.upstream, stop=name)
                loss = sum((given[i, j] * through[i, j] for i in range(up.rows)
                            for j in range(up.cols)), sympy.Integer(0))
                leaf = self._leaves[name] if name in self.sizes else self._intermediate_leaf(name)
                grad = leaf.applyfunc(lambda x: primed(sympy.diff(loss, x)))
                if name not in self.sizes:  # evaluated where the intermediate has its value
                    value = self.value(name)
                    grad = grad.xreplace({leaf[k]: value[k] for k in range(len(leaf))})
                self._grads[name] = grad
        return self._grads[name]

    # -- evaluation of the reader's tree --------------------------------------------------
    def instantiate(self, expr: Any, stop: str | None = None) -> Any:
        """The reader's tree with every matrix name replaced by its explicit matrix."""
        if isinstance(expr, sympy.Symbol):
            return self._symbol(expr, stop)
        if isinstance(expr, sympy.Derivative):
            return self._derivative(expr)
        if not expr.args:
            return expr
        if isinstance(expr, AppliedUndef):
            return self._function(expr, stop)
        args = [self.instantiate(a, stop) for a in expr.args]
        if isinstance(expr, sympy.Add):
            return self._add(args)
        if isinstance(expr, sympy.Mul):
            return self._mul(args)
        if any(isinstance(a, sympy.MatrixBase) for a in args):
            if isinstance(expr, sympy.Pow) and not isinstance(args[1], sympy.MatrixBase):
                return args[0].applyfunc(lambda x: x ** args[1])  # e.g. an entrywise square
            raise MatrixError(f"{type(expr).__name__} of a matrix is not defined here: {expr}")
        return expr.func(*args)

    def _symbol(self, sym: sympy.Symbol, stop: str | None) -> Any:
        name = sym.name
        if name in self.sizes or name in self.definitions:
            return self.value(name, stop)
        base = unbar(name)
        if base is not None and (base in self.sizes or base in self.definitions):
            return self.gradient(base)
        if not sym.is_commutative:
            raise MatrixError(f"no size for {name!r}: give it in 'matrices' or define it")
        return sympy.Symbol(name, real=True)

    def _derivative(self, expr: sympy.Derivative) -> sympy.Matrix:
        variables = expr.variables
        if (expr.expr != self.loss and getattr(expr.expr, "name", None) != self.loss.name) \
                or len(variables) != 1:
            raise MatrixError(f"only ∂{self.loss}/∂M is read in a matrix rule, not {expr}")
        return self.gradient(variables[0].name)

    def _function(self, expr: AppliedUndef, stop: str | None) -> Any:
        name = expr.func.__name__
        args = [self.instantiate(a, stop) for a in expr.args]
        if name == "transpose" and len(args) == 1:
            return args[0].T if isinstance(args[0], sympy.MatrixBase) else args[0]
        if name == "hadamard" and len(args) == 2:
            a, b = (self._as_matrix(x, "⊙") for x in args)
            if a.shape != b.shape:
                raise ShapeError(f"⊙ of a {_shape(a)} and a {_shape(b)} matrix")
            return a.multiply_elementwise(b)
        if len(args) == 1 and isinstance(args[0], sympy.MatrixBase):  # σ (B): entrywise
            return args[0].applyfunc(lambda x: expr.func(x))
        return expr.func(*args)

    @staticmethod
    def _as_matrix(value: Any, what: str) -> sympy.Matrix:
        if not isinstance(value, sympy.MatrixBase):
            raise MatrixError(f"{what} should be a matrix, read a scalar {value}")
        return value

    @staticmethod
    def _add(args: list[Any]) -> Any:
        matrices = [a for a in args if isinstance(a, sympy.MatrixBase)]
        if not matrices:
            return sympy.Add(*args)
        if len(matrices) != len(args):
            raise ShapeError("a matrix plus a scalar")
        rows = max(m.rows for m in matrices)
        total = sympy.zeros(rows, matrices[0].cols)
        for m in matrices:
            if m.rows == 1 and rows > 1:  # a bias row added to every row
                m = sympy.ones(rows, 1) * m
            if m.shape != total.shape:
                raise ShapeError(f"sum of a {_shape(total)} and a {_shape(m)} matrix")
            total += m
        return total

    @staticmethod
    def _mul(args: list[Any]) -> Any:
        scalar: Any = sympy.Integer(1)
        product: sympy.Matrix | None = None
        for a in args:
            if not isinstance(a, sympy.MatrixBase):
                scalar = scalar * a
            elif product is None:
                product = a
            elif product.cols != a.rows:
                raise ShapeError(f"product of a {_shape(product)} and a {_shape(a)} matrix")
            else:
                product = product * a
        return scalar if product is None else product * scalar


def primed(expr: Any) -> Any:
    """σ'(b) for SymPy's derivative of an undefined σ at b: the function named ``sigma'``.

    SymPy writes it ``Derivative(σ(b), b)`` at a symbol and ``Subs(…)`` at an
    expression; one name for both keeps entries comparable, and is what the
    note's ``σ^{'} (B)`` reads as.
    """
    def is_prime(x: Any) -> bool:
        return isinstance(x, sympy.Derivative) and isinstance(x.expr, AppliedUndef) \
            and len(x.expr.args) == 1 and x.variables == x.expr.args
    expr = expr.replace(
        lambda x: isinstance(x, sympy.Subs) and is_prime(x.expr),
        lambda x: sympy.Function(x.expr.expr.func.__name__ + "'")(x.point[0]))
    return expr.replace(is_prime,
                        lambda x: sympy.Function(x.expr.func.__name__ + "'")(x.expr.args[0]))


def _shape(m: sympy.MatrixBase) -> str:
    return f"{m.rows}×{m.cols}"


def compare(lhs: Any, rhs: Any) -> tuple[bool, str]:
    """Entry by entry: (equal, what differs)."""
    if isinstance(lhs, sympy.MatrixBase) != isinstance(rhs, sympy.MatrixBase):
        return False, "a matrix on one side and a scalar on the other"
    if not isinstance(lhs, sympy.MatrixBase):
        diff = sympy.simplify(sympy.expand(lhs - rhs))
        return diff == 0, "" if diff == 0 else f"differ by {diff}"
    if lhs.shape != rhs.shape:
        return False, f"shapes differ: {_shape(lhs)} vs {_shape(rhs)}"
    for i in range(lhs.rows):
        for j in range(lhs.cols):
            diff = sympy.expand(lhs[i, j] - rhs[i, j])
            if diff != 0 and sympy.simplify(diff) != 0:
                return False, f"entry [{i},{j}]: {lhs[i, j]} vs {rhs[i, j]}"
    return True, ""
