"""Matrix rules on small symbolic instances: right rules pass, planted errors fail."""

from __future__ import annotations

import pytest
import sympy

from verifiers.matrixcalc import MatrixError, MatrixInstance, ShapeError, bar_name, compare, unbar

T = sympy.Function("transpose")
H = sympy.Function("hadamard")


def mul(*factors):
    """An ordered product, as the reader builds it (evaluate=False keeps the order)."""
    return sympy.Mul(*factors, evaluate=False)


def nc(*names: str) -> list[sympy.Symbol]:
    return [sympy.Symbol(n, commutative=False) for n in names]


X, Z, W_O, A, V, R, Rbar, Zbar = nc("X", "Z", "W_O", "A", "V", "R", "Rbar", "Zbar")
SIZES = {"X": (2, 3), "W_O": (3, 3), "A": (2, 2), "V": (2, 3)}


def block() -> MatrixInstance:
    """R = X + Z W_O, Z = A V, with R̄ given (architecture-and-training 15.3)."""
    return MatrixInstance(SIZES, {"R": X + Z * W_O, "Z": A * V}, upstream="R")


def holds(inst: MatrixInstance, lhs, rhs) -> bool:
    try:
        return compare(inst.instantiate(lhs), inst.instantiate(rhs))[0]
    except ShapeError:
        return False


def test_bar_names_follow_the_reader():
    assert bar_name("Z") == "Zbar" and bar_name("W_O") == "Wbar_O"
    assert unbar("Wbar_O") == "W_O" and unbar("Zbar") == "Z" and unbar("bar") is None


def test_the_notes_rules_hold():
    inst = block()
    WObar, Abar, Vbar = nc("Wbar_O", "Abar", "Vbar")
    assert holds(inst, WObar, T(Z) * Rbar)
    assert holds(inst, Zbar, Rbar * T(W_O))
    assert holds(inst, Abar, Zbar * T(V))
    assert holds(inst, Vbar, T(A) * Zbar)
    Xbar, = nc("Xbar")
    assert holds(inst, Xbar, Rbar)  # X reaches R only through the residual


@pytest.mark.parametrize("wrong", [
    lambda: Z * nc("Rbar")[0],                     # no transpose: shapes differ
    lambda: T(nc("Rbar")[0]) * Z,                  # factors swapped and transposed
    lambda: -T(Z) * nc("Rbar")[0],                 # a dropped minus sign (planted)
    lambda: 2 * T(Z) * nc("Rbar")[0],              # a stray factor
])
def test_planted_errors_in_a_rule_fail(wrong):
    inst = block()
    WObar, = nc("Wbar_O")
    assert not holds(inst, WObar, wrong())


def test_a_shape_mismatch_names_both_shapes():
    inst = block()
    with pytest.raises(ShapeError, match="product of a 2×3 and a 2×3 matrix"):
        inst.instantiate(Z * Rbar)
    ok, why = compare(inst.instantiate(nc("Wbar_O")[0]), inst.instantiate(Z * T(Rbar)))
    assert not ok and why == "shapes differ: 3×3 vs 2×2"


def test_derivative_notation_and_scalars():
    Q, W_Q = nc("Q", "W_Q")
    inst = MatrixInstance({"X": (2, 3), "W_Q": (3, 2)}, {"Q": X * W_Q}, upstream="Q")
    L = sympy.Symbol("L")
    dW = sympy.Derivative(L, W_Q)
    dQ = sympy.Derivative(L, Q)
    assert holds(inst, dW, mul(T(X), dQ))
    assert not holds(inst, dW, mul(dQ, T(X)))
    d = sympy.Symbol("d_k", positive=True)
    assert holds(inst, mul(dW, 1 / sympy.sqrt(d)), mul(T(X), dQ, 1 / sympy.sqrt(d)))
    assert not holds(inst, dW, mul(T(X), dQ, 1 / sympy.sqrt(d)))


def test_entrywise_functions_and_hadamard():
    """FFN: B = X W1, C = σ(B), Y = C W2; B̄ = C̄ ⊙ σ'(B) with σ' the entrywise derivative."""
    B, C, W1, W2, Bbar, Cbar = nc("B", "C", "W_1", "W_2", "Bbar", "Cbar")
    sigma = sympy.Function("sigma")
    inst = MatrixInstance({"X": (2, 2), "W_1": (2, 3), "W_2": (3, 2)},
                          {"B": X * W1, "C": sigma(B), "Y": C * W2}, upstream="Y")
    assert inst.instantiate(H(Cbar, B)).shape == (2, 3)
    lhs = inst.instantiate(Bbar)
    cbar = inst.instantiate(Cbar)
    b = inst.instantiate(B)
    rhs = cbar.multiply_elementwise(
        b.applyfunc(sympy.Function("sigma'")))
    assert compare(lhs, rhs)[0]
    assert not compare(lhs, cbar)[0]  # forgetting σ' is caught


def test_bias_rows_broadcast_and_bad_shapes_are_errors():
    h, U, b, ell = nc("h", "U", "b", "ell")
    inst = MatrixInstance({"h": (1, 2), "U": (2, 3), "b": (1, 3)}, {"ell": h * U + b},
                          upstream="ell")
    Ubar, hbar, bbar, ellbar = nc("Ubar", "hbar", "bbar", "ellbar")
    assert holds(inst, Ubar, T(h) * ellbar)
    assert holds(inst, hbar, ellbar * T(U))
    assert holds(inst, bbar, ellbar)
    assert not holds(inst, hbar, ellbar * U.__class__("U", commutative=False))
    with pytest.raises(MatrixError, match="product of a 1×2 and a 1×3"):
        inst.instantiate(h * b)
    with pytest.raises(MatrixError, match="no size"):
        inst.instantiate(nc("K")[0])
