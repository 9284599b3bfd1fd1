"""verifiers.symbolic.ratzero: a fast yes for "is this 0 as a rational function", never a
wrong yes (a planted error in an identity is not called 0), and no answer where its
arithmetic is not exact."""

from __future__ import annotations

import pickle

import pytest
import sympy as sp

from verifiers.symbolic import matrixcalc
from verifiers.symbolic.ratzero import zero

x, y, z = sp.symbols("x y z", real=True)
a, b = sp.symbols("a b", positive=True)
sigma = sp.Function("sigma")


def softmax_jacobian_gap(planted: sp.Expr | int = 0) -> sp.Expr:
    """∂p_1/∂z_1 - p_1 (1 - p_1) for p = softmax(z_1, z_2), written as SymPy leaves it."""
    z1, z2 = sp.symbols("z_1 z_2", real=True)
    p1 = sp.exp(z1) / (sp.exp(z1) + sp.exp(z2))
    return sp.diff(p1, z1) - (p1 + planted) * (1 - p1)


@pytest.mark.parametrize("expr", [
    (x + y) ** 2 - x**2 - 2 * x * y - y**2,
    1 / (x + 1) + 1 / (x - 1) - 2 * x / (x**2 - 1),
    (x / (1 + 1 / y)) - x * y / (y + 1),
    sp.exp(2 * x) - sp.exp(x) ** 2,
    sp.exp(-x) * sp.exp(x) - 1,
    sp.exp(x / 2) ** 2 - sp.exp(x),
    sigma(x + y) * (z + 1) - sigma(x + y) * z - sigma(x + y),
    sp.sqrt(a) * sp.sqrt(a) * x - a * x,  # SymPy joins sqrt(a)**2 = a itself
    a ** sp.Rational(3, 2) / sp.sqrt(a) - a,
    softmax_jacobian_gap(),
])
def test_identities_are_zero(expr: sp.Expr) -> None:
    assert zero(expr) is True
    assert matrixcalc._exp_rational_zero(expr)


@pytest.mark.parametrize("expr", [
    (x + y) ** 2 - x**2 - y**2,  # the cross term dropped
    1 / (x + 1) + 1 / (x - 1) - 2 / (x**2 - 1),
    sp.exp(2 * x) - sp.exp(x) ** 3,
    sp.exp(x) * sp.exp(y) - sp.exp(x + 2 * y),
    sigma(x) - sigma(y),
    softmax_jacobian_gap(planted=sp.Rational(1, 1000)),
    x + sp.Rational(1, 10**30),
])
def test_planted_errors_are_not_zero(expr: sp.Expr) -> None:
    assert zero(expr) is False
    assert not matrixcalc._exp_rational_zero(expr)


def test_no_answer_where_the_arithmetic_is_not_exact() -> None:
    assert zero(sp.Float("0.1") * x + y) is None  # a Float is no exact rational
    assert zero(sp.Add(sp.oo * x, -sp.oo * x, evaluate=False)) is None  # oo - oo is no 0
    assert zero(sp.Integer(1) / (x - x + 0 * y)) is None  # 1/0 (zoo): nothing claimed
    unevaluated = sp.Pow(sp.Add(x, -x, evaluate=False), -1, evaluate=False)
    assert zero(sp.Add(unevaluated, -x, x, evaluate=False)) is None  # 1/(x - x): no answer
    assert zero("x - x") is None  # text is never read


def test_tied_atoms_are_left_to_the_slow_procedure() -> None:
    """log(ab) = log a + log b ties three atoms; taken as independent they give no yes, and
    the caller's own procedure (expand, which knows a, b > 0) decides as before."""
    tied = sp.log(a * b) - sp.log(a) - sp.log(b)
    assert zero(tied) is False
    assert matrixcalc._exp_rational_zero(tied)


def test_a_wrong_rule_entry_still_fails_entry_by_entry() -> None:
    """compare_entries keeps its verdicts: a proved identity, a planted error caught with
    its point."""
    good = sp.Matrix([[softmax_jacobian_gap() + x, x]])
    assert matrixcalc.compare_entries(good, sp.Matrix([[x, x]]))[0] == matrixcalc.PROVED
    bad = sp.Matrix([[softmax_jacobian_gap(sp.Rational(1, 7)) + x, x]])
    status, detail = matrixcalc.compare_entries(bad, sp.Matrix([[x, x]]))
    assert status == matrixcalc.FAILED and "entry [0,0]" in detail and "differ by" in detail


def test_picklable_inputs_only_are_read() -> None:
    """The answer depends on the expression only (what the worker would be sent)."""
    expr = softmax_jacobian_gap()
    assert zero(pickle.loads(pickle.dumps(expr))) is zero(expr) is True
