"""Formulas over indices, checked on an instance: every free index takes every value.

The notes write identities for any size and any index: ``\\sum_j p_i (\\delta_{ij} - p_j)
= 0``, ``\\sum_i \\mathbf y_i \\delta_{ij} = \\mathbf y_j``, ``\\frac{\\partial z_j}{\\partial
x_k} = (W_U)_{kj}`` with ``z_j = \\sum_k x_k (W_U)_{kj}``. SymPy cannot use ``sum p = 1``
inside a ``Sum`` of unknown length, and differentiating a ``Sum`` by an entry whose index
is also the sum's index gives a wrong answer (the bound and the free ``k`` clash). So a
claim that declares its index names (``assume: {integer: [i, j]}``) is checked on an
instance instead, the way matrix rules are:

* every sum without bounds runs over ``N`` terms: the length of a declared probability or
  one-hot vector (``sum_to_one: [p_1, p_2, p_3]`` gives ``N = 3``), else ``DEFAULT_SIZE``;
* a name subscripted by index names is an entry (``p_i`` is ``p[i]``, ``E_{mn}`` is
  ``E[m, n]``, ``(e_i)_m`` is ``e[i, m]``), and after the cases below an entry with number
  indices is the name the reader gives ``p_{1}`` (``p_1``), so the assumptions on ``p_1 ..
  p_N`` apply;
* every free index takes every value ``1..N`` (a finite case split, so a case-by-case proof
  is a proof for that ``N``), except where a hypothesis ``i \\ne j`` of the claim excludes it;
* definitions given for an index (``p_i = e^{z_i}/S``, ``(e_i)_m = \\delta_{im}``) hold for
  every index value; a name given by its components used without its last index
  (``e_i`` of ``(e_i)_m``) is the vector of its ``N`` components: a product of two such
  vectors is their dot product, ``‖v‖`` the Euclidean norm;
* derivatives are taken last, with respect to the entry symbols, so ``∂z_2/∂(W_U)_{12}``
  is an ordinary partial derivative.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from verifiers.latex import SUM_UPPER

__all__ = ["DEFAULT_SIZE", "IndexError_", "IndexSetting", "ShapeMismatch", "instances",
           "matrix_names", "pairs_of", "size_of"]

DEFAULT_SIZE = 3
MAX_CASES = 729  # 3^6: more free indices than that is not an instance we check


class IndexError_(ValueError):  # noqa: N801 - IndexError is a builtin
    """The formula cannot be written out on the instance (too many cases, a bad vector)."""


class ShapeMismatch(IndexError_):
    """Sizes that do not fit (a 1×3 times a 1×3, entry (2, 1) of a 1×1): the formula is
    wrong, not the claim."""


@dataclass
class IndexSetting:
    """What the claim says about its indices."""

    letters: frozenset[str]  # index names (assume: integer)
    size: int = DEFAULT_SIZE  # N
    distinct: list[tuple[str, str]] = field(default_factory=list)  # hypotheses i ≠ j
    symbols: dict[Any, Any] = field(default_factory=dict)  # plain definitions S = …
    entries: list[tuple[Any, Any]] = field(default_factory=list)  # p_i = …, (e_i)_m = …


_ENTRY_NAME = re.compile(r"(?P<base>.+?)_(?P<sub>[A-Za-z](?:,?[A-Za-z]){0,3})")  # p_i,y too
_LINE_NAME = re.compile(r"(?P<base>[^_]+)_(?:(?P<row>[a-z]),:|:,(?P<col>[a-z]))")


def size_of(assume: Mapping[str, Any]) -> int:
    """``N``: the length of the declared probability / one-hot vectors (``p_1 .. p_N``)."""
    sizes = set()
    for key in ("sum_to_one", "one_hot"):
        names = assume.get(key) or ()
        bases = {n.rsplit("_", 1)[0] for n in names}
        numbers = sorted(n.rsplit("_", 1)[1] for n in names if "_" in n)
        if names and len(bases) == 1 and numbers == [str(k) for k in range(1, len(names) + 1)]:
            sizes.add(len(names))
        elif names:
            raise IndexError_(f"{key}: name the entries {names[0].rsplit('_', 1)[0]}_1, "
                              f"…_{len(names)} to use them with index sums")
    if len(sizes) > 1:
        raise IndexError_(f"the declared vectors have different lengths {sorted(sizes)}")
    return sizes.pop() if sizes else DEFAULT_SIZE


# -------------------------------------------------------------------------- rewriting


def _dummify(expr: Any) -> Any:
    """Bound indices of sums/products become Dummies, so fixing a free index never
    touches a bound one of the same name (``z_j = \\sum_k …`` against ``∂/∂(W_U)_{kl}``)."""
    if not isinstance(expr, sympy.Basic) or not expr.args:
        return expr
    if isinstance(expr, (sympy.Sum, sympy.Product)):
        body = _dummify(expr.function)
        limits = []
        for var, lo, hi in expr.limits:
            dummy = sympy.Dummy(var.name, integer=True)
            body = body.xreplace({var: dummy})
            limits.append((dummy, _dummify(lo), _dummify(hi)))
        return expr.func(body, *limits)
    if isinstance(expr, sympy.Indexed):
        return sympy.Indexed(expr.base, *(_dummify(i) for i in expr.indices))
    return expr.func(*(_dummify(a) for a in expr.args))


def _split_name(name: str, letters: frozenset[str]) -> tuple[str, list[str]] | None:
    m = _ENTRY_NAME.fullmatch(name)
    subs = m.group("sub").replace(",", "") if m is not None else ""
    if m is None or not all(c in letters for c in subs):
        return None
    return m.group("base"), list(subs)


def _entries(expr: Any, letters: frozenset[str]) -> Any:
    """``p_i`` -> ``p[i]``, ``E_mn`` -> ``E[m, n]``, ``(e_i)_m`` -> ``e[i, m]``."""
    def index_symbol(c: str) -> sympy.Symbol:
        return sympy.Symbol(c, real=True)

    def to_entry(sym: sympy.Symbol) -> Any:
        line = _LINE_NAME.fullmatch(sym.name)
        if line is not None and (line.group("row") or line.group("col")) in letters:
            # E_{i,:} / A_{:,j}: row i / column j of the matrix E / A
            kind = "row" if line.group("row") else "col"
            return sympy.Function(kind)(sympy.Symbol(line.group("base"), commutative=False),
                                        index_symbol(line.group("row") or line.group("col")))
        split = _split_name(sym.name, letters)
        if split is None:
            return sym
        base, subs = split
        return sympy.Indexed(sympy.IndexedBase(sympy.Symbol(base, real=True)),
                             *(index_symbol(c) for c in subs))

    def flatten(x: sympy.Indexed) -> Any:
        label = x.base.label
        split = _split_name(getattr(label, "name", ""), letters)
        if split is None:
            return x
        base, subs = split
        return sympy.Indexed(sympy.IndexedBase(sympy.Symbol(base, real=True)),
                             *(index_symbol(c) for c in subs), *x.indices)

    expr = expr.replace(lambda x: isinstance(x, sympy.Indexed), flatten)
    return expr.replace(lambda x: isinstance(x, sympy.Symbol) and x != SUM_UPPER
                        and not isinstance(x, sympy.Dummy), to_entry)


@dataclass(frozen=True)
class _Family:
    """Entries given for every index: ``p_i = body`` (params ``(i,)``)."""

    params: tuple[Any, ...]
    body: Any


class _Vector(sympy.Function):
    """Placeholder: the vector of a family's components (``e_i`` of ``(e_i)_m``)."""


def _families(setting: IndexSetting) -> tuple[dict[str, _Family], dict[Any, Any]]:
    families: dict[str, _Family] = {}
    for lhs, rhs in setting.entries:
        entry = _entries(lhs, setting.letters)
        if not isinstance(entry, sympy.Indexed) or not all(
                isinstance(i, sympy.Symbol) for i in entry.indices):
            raise IndexError_(f"a definition for every index reads 'p_i = …', not {lhs}")
        families[entry.base.label.name] = _Family(
            tuple(entry.indices), _dummify(_entries(rhs, setting.letters)))
    symbols = {k: _dummify(_entries(v, setting.letters)) for k, v in setting.symbols.items()}
    return families, symbols


def _substitute(expr: Any, families: Mapping[str, _Family], symbols: Mapping[Any, Any]) -> Any:
    """Definitions in, until none is left (each round replaces one level)."""
    for _ in range(8):
        before = expr
        expr = expr.xreplace(symbols)

        def is_family(x: Any) -> bool:
            return isinstance(x, sympy.Indexed) and x.base.label.name in families

        def value(x: sympy.Indexed) -> Any:
            fam = families[x.base.label.name]
            args = x.indices
            if len(args) == len(fam.params):
                return _dummify(fam.body).xreplace(dict(zip(fam.params, args, strict=True)))
            if len(args) == len(fam.params) - 1:
                return _Vector(sympy.Symbol(x.base.label.name), *args)
            raise IndexError_(f"{x} has {len(args)} indices; its definition has "
                              f"{len(fam.params)}")

        expr = expr.replace(is_family, value)
        expr = expr.replace(lambda x: _numbered(x, families) is not None,
                            lambda x: _numbered(x, families))
        if expr == before:
            return expr
    raise IndexError_("definitions refer to each other without end")


def _numbered(x: Any, families: Mapping[str, _Family]) -> Any:
    """The value of a family's entry written with number indices (``z_1`` of ``z_i = …``),
    or None. Without it ``L = f (z_{1}, z_{2})`` kept ``z_1`` a free symbol beside the family
    ``z_i = g_i (x)``, and ``∂L/∂x_j`` was 0: a vacuous proof."""
    if not isinstance(x, sympy.Symbol) or isinstance(x, sympy.Dummy):
        return None
    base, _, digits = x.name.rpartition("_")
    fam = families.get(base)
    if fam is None or not digits.isdigit() or len(digits) != len(fam.params) \
            or "0" in digits:
        return None
    indices = [sympy.Integer(int(c)) for c in digits]
    return _dummify(fam.body).xreplace(dict(zip(fam.params, indices, strict=True)))


def _free_letters(exprs: Sequence[Any], letters: frozenset[str]) -> list[sympy.Symbol]:
    found: set[sympy.Symbol] = set()
    for e in exprs:
        found |= {s for s in e.atoms(sympy.Symbol)
                  if isinstance(s, sympy.Symbol) and not isinstance(s, sympy.Dummy)
                  and s.name in letters}
    return sorted(found, key=lambda s: s.name)


def _write_out(expr: Any, size: int, families: Mapping[str, _Family],
               ranks: Mapping[str, int]) -> Any:
    """Sums over N terms; entries with number indices as the reader's names; vectors."""
    expr = expr.xreplace({SUM_UPPER: sympy.Integer(size)})
    for _ in range(8):
        before = expr
        expr = expr.replace(
            lambda x: isinstance(x, (sympy.Sum, sympy.Product)) and all(
                lim[1].is_Integer and lim[2].is_Integer for lim in x.limits),
            lambda x: x.doit(deep=False))
        expr = _substitute(expr, families, {})
        if expr == before:
            break
    expr = expr.replace(
        lambda x: isinstance(x, sympy.Indexed) and all(i.is_Integer for i in x.indices),
        lambda x: sympy.Symbol(f"{x.base.label}_{''.join(str(i) for i in x.indices)}",
                               real=True))
    if not expr.is_commutative or expr.has(_Vector, *(sympy.Function(f) for f in (
            "entry", "row", "col", "norm", "transpose", "diag"))):
        expr = _vectors(expr, size, families, ranks)
    return expr.replace(lambda x: isinstance(x, sympy.Derivative), lambda x: x.doit())


def _vectors(expr: Any, size: int, families: Mapping[str, _Family],
             ranks: Mapping[str, int]) -> Any:
    """Evaluate vectors and matrices: a family's components (``e_i``), a declared name
    (``X`` of ``X_{bk}``: N×N, ``p`` of ``p_i``: N×1), ``M^\\top``, entries ``(M)_{kl}``.
    A product of two column vectors of one length is their dot product (``e_i \\cdot
    e_j``, also when equal indices made it a square); other products are matrix products
    in the order written."""
    def leaf(name: str) -> sympy.Matrix:
        rank = ranks.get(name)
        if rank == 1:
            return sympy.Matrix(size, 1, lambda r, c: sympy.Symbol(f"{name}_{r + 1}", real=True))
        if rank == 2:
            return sympy.Matrix(size, size, lambda r, c: sympy.Symbol(f"{name}_{r + 1}{c + 1}",
                                                                      real=True))
        raise IndexError_(f"{name}: a matrix needs its entries ({name}_{{ij}}) in the claim")

    def ev(node: Any) -> Any:
        if isinstance(node, _Vector):
            fam = families[node.args[0].name]
            fixed = dict(zip(fam.params[:-1], node.args[1:], strict=True))
            return sympy.Matrix([_write_out(_dummify(fam.body).xreplace(
                {**fixed, fam.params[-1]: sympy.Integer(m)}), size, families, ranks)
                for m in range(1, size + 1)])
        if isinstance(node, sympy.Symbol) and not node.is_commutative:
            return leaf(node.name)
        if not isinstance(node, sympy.Basic) or not node.args:
            return node
        args = [ev(a) for a in node.args]
        vecs = [a for a in args if isinstance(a, sympy.MatrixBase)]
        name = node.func.__name__ if isinstance(node, AppliedUndef) else ""
        if name == "entry":
            m, where = args[0], [int(a) - 1 for a in args[1:]]
            if not isinstance(m, sympy.MatrixBase):
                raise IndexError_(f"an entry {node} of something that is no matrix")
            if len(where) == 1 and 1 in m.shape:
                where = [where[0], 0] if m.cols == 1 else [0, where[0]]
            if len(where) != 2 or not (0 <= where[0] < m.rows and 0 <= where[1] < m.cols):
                raise ShapeMismatch(f"entry ({', '.join(str(w + 1) for w in where)}) of a "
                                    f"{m.rows}×{m.cols} matrix does not exist")
            return m[where[0], where[1]]
        if name == "norm" and not vecs:  # ‖e_i - e_i‖: the difference is already 0
            return sympy.Abs(args[0])
        if not vecs:
            return node.func(*args)
        if isinstance(node, sympy.Pow) and args[1] == 2 and args[0].cols == 1:
            return args[0].dot(args[0])  # e_i·e_j with i = j
        if isinstance(node, sympy.Add):
            if len(vecs) != len(args) or len({v.shape for v in vecs}) > 1:
                raise ShapeMismatch("a sum of a vector and a number, or of two shapes")
            return sum(vecs[1:], vecs[0])
        if isinstance(node, sympy.Mul):
            scalar = sympy.Mul(*(a for a in args if not isinstance(a, sympy.MatrixBase)))
            if len(vecs) == 2 and vecs[0].shape == vecs[1].shape and vecs[0].cols == 1:
                return scalar * vecs[0].dot(vecs[1])
            product = vecs[0]
            for v in vecs[1:]:
                if product.cols != v.rows:
                    raise ShapeMismatch(f"a product of a {product.rows}×{product.cols} and a "
                                      f"{v.rows}×{v.cols} matrix")
                product = product * v
            return product * scalar
        if name == "transpose":
            return vecs[0].T
        if name in ("row", "col"):
            k = int(args[1]) - 1
            return vecs[0][k, :] if name == "row" else vecs[0][:, k]
        if name == "diag" and vecs[0].cols == 1:
            return sympy.diag(*vecs[0])
        if name == "norm":
            return sympy.sqrt(sum(x**2 for x in vecs[0]))
        raise IndexError_(f"{type(node).__name__} of a vector is not read")

    return ev(expr)  # a matrix side is compared entry by entry (claims)


def matrix_names(exprs: Sequence[Any], letters: frozenset[str]) -> frozenset[str]:
    """Bare names that some entry, row or column of the same chain indexes (``p`` of
    ``(pp^\top)_{ij} = p_i p_j``, ``E`` of ``e_i^\top E = E_{i,:}``): vectors and matrices,
    to be read in the order written."""
    bases: set[str] = set()
    for e in exprs:
        bases |= {str(x.base.label) for x in e.atoms(sympy.Indexed)}
        for sym in e.free_symbols:
            name = getattr(sym, "name", "")
            line = _LINE_NAME.fullmatch(name)
            split = _split_name(name, letters)
            if line is not None:
                bases.add(line.group("base"))
            elif split is not None:
                bases.add(split[0])
    return frozenset(s.name for e in exprs for s in e.free_symbols
                     if isinstance(s, sympy.Symbol) and s.name in bases)


def pairs_of(lhs: Any, rhs: Any) -> list[tuple[Any, Any, str]] | str:
    """The scalar pairs to compare (an entry label each), or why the sides cannot be."""
    left, right = isinstance(lhs, sympy.MatrixBase), isinstance(rhs, sympy.MatrixBase)
    if not left and not right:
        return [(lhs, rhs, "")]
    if left != right:
        return "a matrix on one side and a number on the other"
    if lhs.shape != rhs.shape:
        return f"shapes differ: {lhs.rows}×{lhs.cols} and {rhs.rows}×{rhs.cols}"
    return [(lhs[r, c], rhs[r, c], f", entry ({r + 1},{c + 1})")
            for r in range(lhs.rows) for c in range(lhs.cols)]


# ----------------------------------------------------------------------------- cases


def instances(exprs: Sequence[Any], setting: IndexSetting) -> tuple[list[str], list[list[Any]]]:
    """The chain's sides on the instance, once per case of its free indices.

    Returns ``(labels, sides)``: ``labels[c]`` reads ``"i=1, j=2"`` (``"N=3"`` when no
    index is free) and ``sides[c]`` the chain's expressions in that case.
    """
    families, symbols = _families(setting)
    prepared = [_substitute(_dummify(_entries(e, setting.letters)), families, symbols)
                for e in exprs]
    free = _free_letters(prepared + [f.body for f in families.values()], setting.letters)
    # an index only a derivative's variable names (∂L/∂x_j, L written out in x_1 … x_N) is
    # free too: left symbolic, x[j] is independent of x_1 … x_N and the derivative 0
    free = [s for s in free if any(s in e.atoms(sympy.Symbol) for e in prepared)]
    ranks: dict[str, int] = {}
    for e in prepared:
        for x in e.atoms(sympy.Indexed):
            ranks.setdefault(str(x.base.label), len(x.indices))
        for x in e.atoms(AppliedUndef):
            if x.func.__name__ in ("row", "col"):
                ranks.setdefault(x.args[0].name, 2)
    values = range(1, setting.size + 1)
    total = setting.size ** len(free)
    if total > MAX_CASES:
        raise IndexError_(f"{len(free)} free indices give {total} cases (at most {MAX_CASES})")
    labels, sides = [], []
    for combo in itertools.product(values, repeat=len(free)):
        case = dict(zip(free, combo, strict=True))
        by_name = {s.name: v for s, v in case.items()}
        if any(a in by_name and b in by_name and by_name[a] == by_name[b]
               for a, b in setting.distinct):
            continue
        fixed = {s: sympy.Integer(v) for s, v in case.items()}
        sides.append([_write_out(e.xreplace(fixed), setting.size, families, ranks)
                      for e in prepared])
        labels.append(", ".join(f"{s.name}={v}" for s, v in case.items())
                      or f"N={setting.size}")
    if not sides:
        raise IndexError_("the hypotheses exclude every case")
    return labels, sides
