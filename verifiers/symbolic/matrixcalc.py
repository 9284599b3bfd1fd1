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

Rules may also be written entry by entry (``{\\bar{S}}_{i j} = a_{i j} (…)``):
``M_{ij}`` is an entry of a matrix M (``a_{ij}`` of A when only A is a matrix of the
claim, ``x_{r}`` of a vector x), ``\\sum_{r}`` runs over the range of the entries it
indexes, and a side with free indices becomes the matrix of its values for every
index value (1-based, as the notes count). A definition may be a scalar
(``μ = \\frac{1}{d} \\sum_{r} x_{r}``) or given entry by entry (``y_{r} = …``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from verifiers.deadline import can_bound, deadline
from verifiers.latex import SUM_UPPER
from verifiers.symbolic import ratzero

__all__ = ["BoundError", "EntryDefinition", "MatrixError", "MatrixInstance", "ShapeError",
           "compare", "compare_entries", "names_to_read"]

BAR = "bar"


class MatrixError(ValueError):
    """A formula that cannot be instantiated (a name without a size, an unknown operation)."""


class ShapeError(MatrixError):
    """Shapes that do not fit (a 1×2 times a 1×3): the formula itself is wrong."""


class BoundError(MatrixError):
    """A sum's upper bound that is not the range it sums over: ``unread`` when it names no
    size of the claim (the note's bound cannot be read), else the bound is wrong."""

    def __init__(self, message: str, unread: bool) -> None:
        super().__init__(message)
        self.unread = unread


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


_INDEX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz123456789")


def _index(char: str) -> Any:
    return sympy.Integer(int(char)) if char.isdigit() else sympy.Symbol(char, real=True)


@dataclass(frozen=True)
class EntryDefinition:
    """``y_{r} = …``: the matrix y given entry by entry, over the free indices of ``expr``."""

    indices: tuple[str, ...]
    expr: Any


def _leaf(name: str, rows: int, cols: int) -> sympy.Matrix:
    return sympy.Matrix(rows, cols, lambda i, j: sympy.Symbol(f"{name}[{i},{j}]", real=True))


class MatrixInstance:
    """Explicit matrices for the names of one claim, and the gradients of its loss."""

    def __init__(self, sizes: Mapping[str, tuple[int, int]], definitions: Mapping[str, Any],
                 upstream: str | None, loss: str = "L",
                 functions: Mapping[str, tuple[tuple[Any, ...], Any]] | None = None) -> None:
        self.sizes = dict(sizes)
        # name -> (parameters, body): R (θ) = [\begin{matrix} …], called with scalars
        self.functions = dict(functions or {})
        # name -> parsed right side (a matrix or scalar expression, or an EntryDefinition)
        self.definitions = dict(definitions)
        self.upstream = upstream
        self.loss = sympy.Symbol(loss, real=True)
        self._leaves = {n: _leaf(n, *s) for n, s in self.sizes.items()}
        self._grads: dict[str, sympy.Matrix] = {}
        self._values: dict[tuple[str, str | None], Any] = {}
        # a size name a sum's upper bound stands for (n of \sum_{j = 1}^{n}) -> its size
        self._bound_sizes: dict[str, int] = {}

    # -- values ---------------------------------------------------------------------------
    def value(self, name: str, stop: str | None = None) -> Any:
        """A name as an explicit matrix: a leaf, or its definition written out down to the
        leaves -- except ``stop``, kept as its own symbols (to differentiate with respect
        to an intermediate such as Z in R = X + Z W_O). A definition may be a scalar."""
        if name in self.definitions and name != stop:
            key = (name, stop)
            if key not in self._values:
                definition = self.definitions[name]
                if isinstance(definition, EntryDefinition):
                    ranges = dict(self.free_indices(definition.expr))
                    if set(ranges) != set(definition.indices):
                        raise MatrixError(f"{name}: the free indices of its definition are "
                                          f"{sorted(ranges)}, not {list(definition.indices)}")
                    order = [(i, ranges[i]) for i in definition.indices]
                    self._values[key] = self._grid(definition.expr, order, stop)
                else:
                    self._values[key] = self.instantiate(definition, stop)
            return self._values[key]
        if name in self._leaves:
            return self._leaves[name]
        if name in self.definitions:
            return self._intermediate_leaf(name)
        raise MatrixError(f"no size for {name!r}: give it in 'matrices' or define it")

    def _intermediate_leaf(self, name: str) -> sympy.Matrix:
        """An intermediate kept as its own symbols; its size is that of its value."""
        if name not in self._leaves:
            self._leaves[name] = _leaf(name, *self._as_matrix(self.value(name), name).shape)
        return self._leaves[name]

    def gradient(self, name: str) -> sympy.Matrix:
        """∂L/∂M for L = Σ Ū ⊙ U (U the upstream matrix, Ū its given gradient)."""
        if self.upstream is None:
            raise MatrixError(f"the gradient of {name!r} needs 'upstream' (whose gradient "
                              "is given)")
        if name not in self._grads:
            up = self._as_matrix(self.value(self.upstream), self.upstream)
            given = _leaf(bar_name(self.upstream), *up.shape)
            if name == self.upstream:
                self._grads[name] = given
            else:
                through = self._as_matrix(self.value(self.upstream, stop=name), self.upstream)
                loss = sum((given[i, j] * through[i, j] for i in range(up.rows)
                            for j in range(up.cols)), sympy.Integer(0))
                leaf = self._leaves[name] if name in self.sizes else self._intermediate_leaf(name)
                grad = leaf.applyfunc(_derivatives_of(loss))
                if name not in self.sizes:  # evaluated where the intermediate has its value
                    value = self.value(name)
                    grad = grad.xreplace({leaf[k]: value[k] for k in range(len(leaf))})
                self._grads[name] = grad
        return self._grads[name]

    # -- entries --------------------------------------------------------------------------
    def _matrix_of(self, head: str, stop: str | None = None) -> sympy.Matrix | None:
        """The matrix whose entries ``head_{..}`` names: M, a bar M̄ (its gradient), or
        A for ``a`` when ``a`` is not a name of the claim but ``A`` is."""
        for name in (head, head.upper() if len(head) == 1 and head.islower()
                     and head not in self.sizes and head not in self.definitions else None):
            if name is None:
                continue
            if name in self.sizes or name in self.definitions:
                value = self.value(name, stop)
                return value if isinstance(value, sympy.MatrixBase) else None
            base = unbar(name)
            if base is not None and (base in self.sizes or base in self.definitions):
                return self.gradient(base)
        return None

    def _is_name(self, name: str) -> bool:
        """A name of the claim (q_{i} declared as a vector is not an entry of q)."""
        base = unbar(name)
        return name in self.sizes or name in self.definitions or (
            base is not None and (base in self.sizes or base in self.definitions))

    def _entry_parts(self, name: str) -> tuple[str, tuple[str, ...]] | None:
        """``Sbar_ij`` -> ("Sbar", ("i", "j")), ``E_21`` -> ("E", ("2", "1")): a name with
        one-character indices, lowercase letters or the digits 1-9."""
        head, sep, idx = name.partition("_")
        if not sep or not 1 <= len(idx) <= 2 or not all(c in _INDEX_CHARS for c in idx):
            return None
        return head, tuple(idx)

    def _entry_indices(self, expr: Any, stop: str | None = None
                       ) -> tuple[sympy.Matrix, tuple[Any, ...]] | None:
        """(matrix, index expressions) when ``expr`` is an entry of a matrix of the claim."""
        if isinstance(expr, sympy.Symbol):
            parts = self._entry_parts(expr.name)
            if parts is None or self._is_name(expr.name):
                return None
            matrix = self._matrix_of(parts[0], stop)
            indices: tuple[Any, ...] = tuple(_index(i) for i in parts[1])
        elif isinstance(expr, sympy.Indexed):
            matrix = self._matrix_of(expr.base.label.name, stop)
            indices = tuple(expr.indices)
        elif isinstance(expr, AppliedUndef) and expr.func.__name__ == "entry" \
                and len(expr.args) in (2, 3):  # (Q K^{T})_{i j}: an entry of a product
            value = self.instantiate(expr.args[0], stop)
            matrix = value if isinstance(value, sympy.MatrixBase) else None
            indices = tuple(expr.args[1:])
        else:
            return None
        if matrix is None:
            return None
        return matrix, indices

    @staticmethod
    def _dims(matrix: sympy.Matrix, count: int, what: str) -> tuple[int, ...]:
        if count == 2:
            return matrix.shape
        if count == 1 and 1 in matrix.shape:
            return (len(matrix),)
        raise ShapeError(f"{what}: {count} index(es) on a {_shape(matrix)} matrix")

    def free_indices(self, *exprs: Any) -> list[tuple[str, int]]:
        """The indices of entries not bound by a sum, in order of appearance, with their
        ranges (the size of the dimension each one indexes)."""
        found: dict[str, int] = {}

        def note(name: str, size: int, where: Any) -> None:
            if found.setdefault(name, size) != size:
                raise ShapeError(f"index {name} runs over {found[name]} and {size} ({where})")

        def walk(expr: Any, bound: frozenset[str]) -> None:
            entry = self._entry_indices(expr)
            if entry is not None:
                matrix, indices = entry
                for index, size in zip(indices, self._dims(matrix, len(indices), str(expr)),
                                       strict=True):
                    if isinstance(index, sympy.Symbol) and index.name not in bound:
                        note(index.name, size, expr)
                return
            if isinstance(expr, sympy.Sum):
                inner = bound | {str(v[0]) for v in expr.limits}
                walk(expr.function, inner)
                return
            if isinstance(expr, sympy.Derivative):
                for v in expr.variables:
                    self._derivative_entry(v, bound, note)
                return
            for arg in getattr(expr, "args", ()):
                walk(arg, bound)

        for expr in exprs:
            walk(expr, frozenset())
        return list(found.items())

    def _derivative_entry(self, var: Any, bound: frozenset[str], note: Any) -> None:
        parts = self._entry_parts(var.name) if isinstance(var, sympy.Symbol) else None
        if parts is None or (parts[0] not in self.sizes and parts[0] not in self.definitions):
            return
        matrix = self.value(parts[0])
        for index, size in zip(parts[1], self._dims(matrix, len(parts[1]), str(var)),
                               strict=True):
            if not index.isdigit() and index not in bound:
                note(index, size, var)

    def _at(self, matrix: sympy.Matrix, indices: tuple[Any, ...], env: Mapping[str, int],
            what: Any) -> Any:
        """The entry at 1-based index expressions evaluated in ``env``."""
        positions = []
        for index in indices:
            value = index.xreplace({s: sympy.Integer(env[s.name]) for s in index.free_symbols
                                    if s.name in env})
            if not isinstance(value, sympy.Integer):
                raise MatrixError(f"{what}: index {index} has no value here")
            positions.append(int(value) - 1)
        dims = self._dims(matrix, len(positions), str(what))
        if any(not 0 <= p < d for p, d in zip(positions, dims, strict=True)):
            raise ShapeError(f"{what}: index out of range of a {_shape(matrix)} matrix")
        return matrix[positions[0], positions[1]] if len(positions) == 2 \
            else matrix[positions[0]]

    def _grid(self, expr: Any, order: list[tuple[str, int]], stop: str | None = None) -> Any:
        """A side with free indices: the matrix of its values (one index: a row)."""
        if not order:
            return self.instantiate(expr, stop)
        if len(order) > 2:
            raise MatrixError(f"more than two free indices: {', '.join(n for n, _ in order)}")
        sizes = [s for _, s in order] if len(order) == 2 else [1, order[0][1]]
        names = [n for n, _ in order]

        def cell(i: int, j: int) -> Any:
            env = dict(zip(names, (i + 1, j + 1) if len(names) == 2 else (j + 1,), strict=True))
            value = self.instantiate(expr, stop, env)
            if isinstance(value, sympy.MatrixBase):
                raise ShapeError(f"an entry of {expr} is a matrix")
            return value

        return sympy.Matrix(sizes[0], sizes[1], cell)

    def instantiate_indexed(self, expr: Any, order: list[tuple[str, int]]) -> Any:
        """A side of a rule, with the rule's free indices (see :meth:`free_indices`)."""
        return self._grid(expr, order)

    # -- evaluation of the reader's tree --------------------------------------------------
    def instantiate(self, expr: Any, stop: str | None = None,
                    env: Mapping[str, int] | None = None) -> Any:
        """The reader's tree with every matrix name replaced by its explicit matrix."""
        env = env or {}
        if isinstance(expr, (sympy.Symbol, sympy.Indexed)):
            entry = self._entry_indices(expr, stop)
            if entry is not None and all(
                    not isinstance(i, sympy.Symbol) or i.name in env for i in entry[1]):
                return self._at(entry[0], entry[1], env, expr)
            if isinstance(expr, sympy.Indexed):
                raise MatrixError(f"{expr}: not an entry of a matrix of the claim")
            return self._symbol(expr, stop)
        if isinstance(expr, sympy.Derivative):
            return self._derivative(expr, env)
        if isinstance(expr, sympy.Sum):
            return self._sum(expr, stop, env)
        if not expr.args:
            return expr
        if isinstance(expr, AppliedUndef) and expr.func.__name__ == "entry":
            entry = self._entry_indices(expr, stop)
            if entry is None:
                raise MatrixError(f"{expr}: an entry of something that is no matrix")
            return self._at(entry[0], entry[1], env, expr)
        if isinstance(expr, AppliedUndef):
            return self._function(expr, stop, env)
        args = [self.instantiate(a, stop, env) for a in expr.args]
        if isinstance(expr, sympy.Add):
            return self._add(args)
        if isinstance(expr, sympy.Mul):
            return self._mul(args)
        if any(isinstance(a, sympy.MatrixBase) for a in args):
            if isinstance(expr, sympy.Pow) and not isinstance(args[1], sympy.MatrixBase):
                return args[0].applyfunc(lambda x: x ** args[1])  # e.g. an entrywise square
            raise MatrixError(f"{type(expr).__name__} of a matrix is not defined here: {expr}")
        return expr.func(*args)

    def _sum(self, expr: sympy.Sum, stop: str | None, env: Mapping[str, int]) -> Any:
        """A sum over entries: bounds that are numbers are kept; a sum written without
        them (``\\sum_{r}``, ``\\sum_{r \\in J_{i}}``) runs over the whole range of the
        entries it indexes (every position allowed). A symbolic upper bound is read
        (:meth:`_upper`): a size name stands for that whole range, anything else must
        evaluate."""
        (var, lo, hi), *rest = expr.limits
        body = sympy.Sum(expr.function, *rest) if rest else expr.function
        name = str(var)
        if lo.is_Integer and hi.is_Integer:
            values = range(int(lo), int(hi) + 1)
        else:
            ranges = dict(self.free_indices(body))
            if lo != 1 or name not in ranges:
                raise MatrixError(f"{expr}: the range of {name} is not that of an entry")
            values = range(1, self._upper(expr, hi, ranges[name], env) + 1)
        terms = [self.instantiate(body, stop, {**env, name: k}) for k in values]
        return self._add(terms) if terms else sympy.Integer(0)

    def _upper(self, expr: sympy.Sum, hi: Any, size: int, env: Mapping[str, int]) -> int:
        """The last value of a sum's index whose upper bound is not a number. The upper
        bound of a sum written without bounds (the reader's placeholder), or one size name
        (``n``, ``d_{k}``), is the whole range ``size`` of the entries the index runs over; a
        size name stands for one size throughout the claim. Any other bound (``n - 1``,
        ``i`` of a causal sum) is evaluated from those sizes and the index values; one it
        cannot evaluate, or a range past the entries, is a BoundError (never the whole
        range, which would read ``\\sum_{j = 1}^{n - 1}`` as ``\\sum_{j = 1}^{n}``)."""
        if hi == SUM_UPPER or (isinstance(hi, AppliedUndef) and hi.func.__name__ == "card"):
            return size  # \\sum_{r}, \\sum_{r \\in J_{i}}: no bound written, the whole range
        if isinstance(hi, sympy.Symbol) and hi.name not in env:
            known = self._bound_sizes.setdefault(hi.name, size)
            if known != size:
                raise BoundError(f"{expr}: {hi.name} is {known} in one sum and {size} here",
                                 unread=False)
            return size
        values = {s: env.get(s.name, self._bound_sizes.get(s.name)) for s in hi.free_symbols}
        unknown = sorted(s.name for s, v in values.items() if v is None)
        if unknown:
            raise BoundError(f"{expr}: the upper bound {hi} names {', '.join(unknown)}, "
                             "which is no size of the claim's matrices", unread=True)
        last = hi.subs(values)
        if not last.is_Integer or not 0 <= int(last) <= size:
            raise BoundError(f"{expr}: the upper bound {hi} is {last}, the entries run to "
                             f"{size}", unread=False)
        return int(last)

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

    def _derivative(self, expr: sympy.Derivative, env: Mapping[str, int]) -> Any:
        variables = expr.variables
        if len(variables) == 1 and expr.expr != self.loss \
                and getattr(expr.expr, "name", None) != self.loss.name \
                and getattr(variables[0], "name", None) in self.sizes:
            return self._jacobian(expr.expr, variables[0].name, env)
        if (expr.expr != self.loss and getattr(expr.expr, "name", None) != self.loss.name) \
                or len(variables) != 1:
            raise MatrixError(f"only ∂{self.loss}/∂M is read in a matrix rule, not {expr}")
        name = variables[0].name
        parts = self._entry_parts(name)
        if name not in self.sizes and name not in self.definitions and parts is not None \
                and (parts[0] in self.sizes or parts[0] in self.definitions):
            indices = tuple(_index(i) for i in parts[1])
            return self._at(self.gradient(parts[0]), indices, env, variables[0])
        return self.gradient(name)

    def _jacobian(self, target: Any, name: str, env: Mapping[str, int]) -> sympy.Matrix:
        """``\\frac{\\partial y}{\\partial x}`` for a vector (or scalar) y of a declared
        vector x: the Jacobian, one row per entry of y (column-vector convention)."""
        leaf = self._leaves[name]
        if 1 not in leaf.shape:
            raise MatrixError(f"∂/∂{name}: a Jacobian is taken with respect to a vector")
        value = self.instantiate(target, None, env)
        outputs = list(value) if isinstance(value, sympy.MatrixBase) else [value]
        if isinstance(value, sympy.MatrixBase) and 1 not in value.shape:
            raise MatrixError(f"∂{target}/∂{name}: the Jacobian of a vector, not of a matrix")
        return sympy.Matrix(len(outputs), len(leaf),
                            lambda k, m: primed(sympy.diff(outputs[k], leaf[m])))

    def _function(self, expr: AppliedUndef, stop: str | None, env: Mapping[str, int]) -> Any:
        name = expr.func.__name__
        if name == "matrix" and len(expr.args) == 1 and isinstance(expr.args[0], sympy.Tuple):
            return sympy.Matrix([[self.instantiate(x, stop, env) for x in row]
                                 for row in expr.args[0]])  # [\begin{matrix} …]
        args = [self.instantiate(a, stop, env) for a in expr.args]
        if name in self.functions:
            params, body = self.functions[name]
            if tuple(expr.args) == tuple(params):  # Attention (Q, K, V) called as defined
                return self.instantiate(body, stop, env)
            if len(params) != len(args) or any(isinstance(a, sympy.MatrixBase) for a in args):
                raise MatrixError(f"{expr}: {name} takes {len(params)} scalar argument(s)")
            return self.instantiate(body.xreplace(dict(zip(params, args, strict=True))),
                                    stop, env)
        if name == "transpose" and len(args) == 1:
            return args[0].T if isinstance(args[0], sympy.MatrixBase) else args[0]
        if name == "hadamard" and len(args) == 2:
            a, b = (self._as_matrix(x, "⊙") for x in args)
            if a.shape != b.shape:
                raise ShapeError(f"⊙ of a {_shape(a)} and a {_shape(b)} matrix")
            return a.multiply_elementwise(b)
        if name == "softmax" and len(args) == 1 and isinstance(args[0], sympy.MatrixBase):
            return _row_softmax(args[0])
        if name == "mean" and len(args) == 1 and isinstance(args[0], sympy.MatrixBase):
            return sympy.Add(*args[0]) / len(args[0])  # the mean of the entries
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
        scalars = [a for a in args if not isinstance(a, sympy.MatrixBase)]
        if scalars and not all(1 in m.shape for m in matrices):
            raise ShapeError("a matrix plus a scalar")
        rows = max(m.rows for m in matrices)
        total = sympy.zeros(rows, matrices[0].cols)
        for m in matrices:
            if m.rows == 1 and rows > 1:  # a bias row added to every row
                m = sympy.ones(rows, 1) * m
            if m.shape != total.shape:
                raise ShapeError(f"sum of a {_shape(total)} and a {_shape(m)} matrix")
            total += m
        for a in scalars:  # x - μ: a scalar taken from every coordinate of a vector
            total += a * sympy.ones(*total.shape)
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


def _derivatives_of(loss: Any) -> Any:
    """``x -> primed(diff(loss, x))`` for the leaves of one gradient, the same trees made
    cheaper: SymPy differentiates a sum term by term (``Add._eval_derivative``), then asks
    whether the whole result is zero and walks it once more, for each leaf. Here each term
    is differentiated only by the leaves it holds (its free symbols, computed once), and
    the terms' derivatives are added as SymPy adds them."""
    terms = loss.args if isinstance(loss, sympy.Add) else None
    if terms is None:
        return lambda x: primed(sympy.diff(loss, x))
    frees = [t.free_symbols for t in terms]

    def derivative(x: Any) -> Any:
        if not isinstance(x, sympy.Symbol):
            return primed(sympy.diff(loss, x))
        return primed(sympy.Add(*[t.diff(x) for t, free in zip(terms, frees, strict=True)
                                  if x in free]))

    return derivative


def _row_softmax(m: sympy.Matrix) -> sympy.Matrix:
    """Softmax of each row (the attention weights of the scores of one position)."""
    out = sympy.zeros(*m.shape)
    for i in range(m.rows):
        exps = [sympy.exp(m[i, j]) for j in range(m.cols)]
        total = sympy.Add(*exps)
        for j in range(m.cols):
            out[i, j] = exps[j] / total
    return out


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
    status, detail = compare_entries(lhs, rhs)
    return status in (PROVED, NUMERIC), detail


PROVED, NUMERIC, FAILED, TIMEOUT, UNDECIDED = "proved", "numeric", "failed", "timeout", "undecided"


def compare_entries(lhs: Any, rhs: Any, seconds: float | None = None) -> tuple[str, str]:
    """Entry by entry: (proved | numeric | failed | timeout, what differs).

    An entry is proved equal when the difference, with each ``exp(c·a)`` written as a
    power ``E_a^c`` of one symbol per ``a``, is a rational function whose numerator
    expands to 0. A difference that does not is evaluated at three pseudo-random points
    (no integer coordinates) with 40 digits: a real difference fails at one of them
    (the point is shown); agreement at all three is only ``numeric`` evidence (the
    exponentials may hide an identity). Each entry gets ``seconds`` of SymPy (where a
    timer can interrupt it).
    """
    if isinstance(lhs, sympy.MatrixBase) != isinstance(rhs, sympy.MatrixBase):
        return FAILED, "a matrix on one side and a scalar on the other"
    if not isinstance(lhs, sympy.MatrixBase):
        lhs, rhs = sympy.Matrix([[lhs]]), sympy.Matrix([[rhs]])
    if lhs.shape != rhs.shape:
        return FAILED, f"shapes differ: {_shape(lhs)} vs {_shape(rhs)}"
    worst = PROVED
    for i in range(lhs.rows):
        for j in range(lhs.cols):
            where = f"entry [{i},{j}]" if lhs.shape != (1, 1) else "the two sides"
            status, point = _entry_zero(lhs[i, j] - rhs[i, j], seconds)
            if status == FAILED:
                sides = f"{lhs[i, j]} vs {rhs[i, j]}"
                return FAILED, (f"{where}: {sides}{point}" if len(sides) <= 200
                                else f"{where}: the sides differ{point}")
            if status == TIMEOUT:
                return TIMEOUT, f"{where}: SymPy was cut off after {seconds} s"
            if status == UNDECIDED:
                return UNDECIDED, f"{where}: neither proved nor evaluated{point}"
            if status == NUMERIC:
                worst = NUMERIC
    return worst, ""


def _entry_zero(diff: Any, seconds: float | None) -> tuple[str, str]:
    if diff == 0:
        return PROVED, ""
    try:
        zero = _bounded(lambda: _rational_zero(diff), seconds)
    except TimeoutError:
        return TIMEOUT, ""
    if zero:
        return PROVED, ""
    for point in _sample_points(diff):
        if _exactly_zero_at(diff, point):
            continue  # the point agrees: no 40-digit evaluation needed
        value = diff.xreplace({k: v for k, v in point.items() if isinstance(k, AppliedUndef)})
        value = value.evalf(40, subs={k: v for k, v in point.items()
                                      if not isinstance(k, AppliedUndef)})
        if not value.is_number:  # an atom the point does not give a value: no evidence
            return UNDECIDED, f" (no value at a sample point: {sympy.N(value, 6)})"
        if abs(value) > sympy.Float("1e-25"):
            shown = [f"{k}={v}" for k, v in sorted(point.items(), key=lambda kv: str(kv[0]))]
            more = f", … ({len(shown) - 6} more)" if len(shown) > 6 else ""
            at = f" at {', '.join(shown[:6])}{more}" if shown else ""
            return FAILED, f" (differ by {sympy.N(value, 6)}{at})"
    return NUMERIC, ""


def _exactly_zero_at(diff: Any, point: dict[Any, Any]) -> bool:
    """Is ``diff`` exactly 0 with the point's rationals put in (SymPy's automatic evaluation
    only)? An agreeing point of a large entry (an expanded Jacobian's) is settled ~50x
    faster than by ``evalf(subs=…)``; anything else (not 0, undefined, not reduced) takes
    the 40-digit evaluation, which alone decides a disagreement and words its message."""
    try:
        return bool(diff.xreplace(point) == 0)
    except Exception:  # noqa: BLE001 - e.g. an undefined operation: the evaluation decides
        return False


def _rational_zero(diff: Any) -> bool:
    """Is ``diff`` 0 as a rational function, each exp(c·a) read as E_a^c -- and, when
    sines and cosines remain, once more after the addition formulas (cos((j - i)ω))?"""
    if _exp_rational_zero(diff):
        return True
    trig = (sympy.sin, sympy.cos)
    if not diff.has(*trig):
        return False
    expanded = sympy.expand_trig(diff.replace(
        lambda e: isinstance(e, trig), lambda e: e.func(sympy.expand(e.args[0]))))
    return _exp_rational_zero(expanded)


def _exp_rational_zero(diff: Any) -> bool:
    if ratzero.zero(diff):  # the common case, decided on sparse polynomials
        return True
    if not diff.has(sympy.exp):  # a polynomial is settled by expanding it
        expanded = sympy.expand(diff)
        if expanded == 0:
            return True
        if not any(p.exp.is_negative for p in expanded.atoms(sympy.Pow)):
            return False
    powers = {}
    names: dict[Any, sympy.Symbol] = {}
    for e in sorted(diff.atoms(sympy.exp), key=sympy.default_sort_key):
        coeff, rest = e.args[0].as_coeff_Mul()
        if rest not in names:
            names[rest] = sympy.Symbol(f"_E{len(names)}", positive=True)
        powers[e] = names[rest] ** coeff
    numerator = sympy.together(diff.xreplace(powers)).as_numer_denom()[0]
    return sympy.expand(numerator) == 0


def _sample_points(expr: Any, count: int = 3) -> list[dict[Any, Any]]:
    """Deterministic pseudo-random rationals (p/q, never 0 or 1) for the free symbols,
    and for the values of undefined functions (σ, σ'), which a rule must hold for
    whatever they are."""
    import random
    rng = random.Random(20240611)
    atoms = sorted(expr.free_symbols, key=str) + sorted(expr.atoms(AppliedUndef), key=str)

    def value() -> sympy.Rational:
        q = rng.choice((3, 7, 11, 13))
        p = rng.randint(5, 60)
        return sympy.Rational(p + 1 if p % q == 0 else p, q)  # never an integer

    return [{s: value() for s in atoms} for _ in range(count)]


def _bounded(fn: Any, seconds: float | None) -> Any:
    """fn() with a deadline in the main thread. Symbolic claims only get here in a main
    thread (symbolic.claims runs a claim from another thread in a forked worker), under the
    claim's budget, which this deadline nests in."""
    if not seconds or not can_bound():
        return fn()
    with deadline(seconds):
        return fn()
