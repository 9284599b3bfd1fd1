"""Matrix rules on small symbolic instances: right rules pass, planted errors fail."""

from __future__ import annotations

import pytest
import sympy

from verifiers.symbolic.matrixcalc import (
    EntryDefinition,
    MatrixError,
    MatrixInstance,
    ShapeError,
    bar_name,
    compare,
    compare_entries,
    unbar,
)

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


# ------------------------------------------------------------------- entries, definitions, more

S_, A_ = nc("S", "A")
SM = sympy.Function("softmax")


def entry(name: str) -> sympy.Symbol:
    """An entry as the reader names it outside a sum: {\\bar{S}}_{i j} -> Sbar_ij."""
    return sympy.Symbol(name, real=True)


def idx(base: str, *indices: str) -> sympy.Indexed:
    """An entry as the reader builds it inside a sum: a_{i r} -> a[i, r]."""
    return sympy.Indexed(sympy.IndexedBase(sympy.Symbol(base, real=True)),
                         *(sympy.Symbol(s, real=True) for s in indices))


def softmax_rule(sign: int = -1, one: int = 0):
    """15.3: S̄_ij = a_ij (Ā_ij - Σ_r a_ir Ā_ir), the sign and a stray 1 plantable."""
    i_, j_, r_ = (sympy.Symbol(s, real=True) for s in "ijr")
    total = sympy.Sum(idx("a", "i", "r") * idx("Abar", "i", "r"),
                      (r_, 1, sympy.Function("card")(sympy.Symbol("J_i"))))
    del i_, j_
    return entry("a_ij") * (one + entry("Abar_ij") + sign * total)


def entry_rule_holds(lhs, rhs) -> bool:
    inst = MatrixInstance({"S": (2, 3)}, {"A": SM(S_)}, upstream="A")
    order = inst.free_indices(lhs, rhs)
    return compare(inst.instantiate_indexed(lhs, order), inst.instantiate_indexed(rhs, order))[0]


def test_the_softmax_score_rule_entry_by_entry():
    """15.3's S̄_ij on A = softmax of each row of S (2×3): every (i, j), the sum over r."""
    assert entry_rule_holds(entry("Sbar_ij"), softmax_rule())
    assert not entry_rule_holds(entry("Sbar_ij"), softmax_rule(sign=+1))  # planted sign
    assert not entry_rule_holds(entry("Sbar_ij"), softmax_rule(one=1))  # a_ij (1 + ...)
    inst = MatrixInstance({"S": (2, 3)}, {"A": SM(S_)}, upstream="A")
    assert inst.free_indices(entry("Sbar_ij"), softmax_rule()) == [("i", 2), ("j", 3)]


def test_entry_indices_must_fit_and_names_win():
    h, U = nc("h", "U")
    inst = MatrixInstance({"h": (1, 3), "U": (3, 4), "q_i": (2, 1)}, {}, upstream=None)
    with pytest.raises(ShapeError, match="index j runs over 4 and 3"):
        inst.free_indices(entry("U_rj"), entry("h_j"))
    # a declared q_i is the vector, not entry i of some q
    assert inst.free_indices(nc("q_i")[0]) == []
    # digits are fixed indices (1-based): E_21 is row 2, column 1
    inst = MatrixInstance({"E": (3, 2)}, {}, upstream=None)
    assert inst.instantiate(entry("E_21")) == inst.value("E")[1, 0]
    with pytest.raises(ShapeError, match="out of range"):
        inst.instantiate(entry("E_41"))


def test_scalar_and_entry_definitions_broadcast_and_mean():
    """15.5 LayerNorm on d = 3: x̄ = (u - mean(u) - x̂ mean(u ⊙ x̂)) / s, by differentiation."""
    x_, u_, xhat, g = nc("x", "u", "xhat", "g")
    mu, v, s, d, eps = (sympy.Symbol(n, real=True) for n in ("mu", "v", "s", "d", "epsilon"))
    r_ = sympy.Symbol("r", real=True)
    mean = sympy.Function("mean")
    defs = {
        "d": sympy.Integer(3),
        "mu": sympy.Sum(idx("x", "r"), (r_, 1, sympy.Symbol("N_sum"))) / d,
        "v": sympy.Sum((idx("x", "r") - mu) ** 2, (r_, 1, sympy.Symbol("N_sum"))) / d,
        "y": EntryDefinition(("r",), entry("gamma_r") * (entry("x_r") - mu)
                             / sympy.sqrt(v + eps) + entry("beta_r")),
        "s": sympy.sqrt(v + eps),
        "xhat": (x_ - mu) / s,
        "g": nc("ybar")[0],
        "u": H(g, nc("gamma")[0]),
    }
    inst = MatrixInstance({"x": (1, 3), "gamma": (1, 3), "beta": (1, 3)}, defs, upstream="y")
    xbar = inst.instantiate(nc("xbar")[0])
    right = (u_ - mean(u_) - xhat * mean(H(u_, xhat))) / s
    assert compare(xbar, inst.instantiate(right))[0]
    wrong = (u_ - xhat * mean(H(u_, xhat))) / s  # planted: the mean(u) term dropped
    assert not compare(xbar, inst.instantiate(wrong))[0]
    assert inst.value("mu") == sum(inst.value("x")) / 3  # a scalar definition
    with pytest.raises(ShapeError, match="a matrix plus a scalar"):  # only vectors broadcast
        MatrixInstance({"X": (2, 2)}, {}, None).instantiate(X + mu)


def test_jacobians_and_functions_given_by_a_matrix():
    """15.7 J_y = I + J_F; 15.6 R_iᵀ R_j = R((j - i) ω) with R(θ) a rotation."""
    x_, y_, Jy, JF, I_ = nc("x", "y", "J_y", "J_F", "I")
    F = sympy.Function("F")
    D = sympy.Derivative
    inst = MatrixInstance({"x": (3, 1)}, {"y": x_ + F(x_), "J_y": D(y_, x_),
                                          "J_F": D(F(x_), x_), "I": D(x_, x_)}, None)
    assert compare(inst.instantiate(Jy), inst.instantiate(I_ + JF))[0]
    assert not compare(inst.instantiate(Jy), inst.instantiate(I_ - JF))[0]  # planted sign
    theta, i_, j_, w = (sympy.Symbol(n, real=True) for n in ("theta", "i", "j", "omega"))
    matrix = sympy.Function("matrix", commutative=False)
    rotation = matrix(sympy.Tuple(sympy.Tuple(sympy.cos(theta), -sympy.sin(theta)),
                                  sympy.Tuple(sympy.sin(theta), sympy.cos(theta))))
    R_ = sympy.Function("R")
    Ri, Rj = nc("R_i", "R_j")
    inst = MatrixInstance({"q": (2, 1)}, {"R_i": R_(i_ * w), "R_j": R_(j_ * w)}, None,
                          functions={"R": ((theta,), rotation)})
    lhs = inst.instantiate(mul(T(Ri), Rj))
    assert compare_entries(lhs, inst.instantiate(R_((j_ - i_) * w)))[0] == "proved"
    assert not compare(lhs, inst.instantiate(R_((i_ + j_) * w)))[0]  # planted: i + j


def test_compare_entries_statuses():
    a_, b_ = sympy.symbols("a b", positive=True)
    one = sympy.Matrix([[a_ * b_ + a_]])
    assert compare_entries(one, sympy.Matrix([[a_ * (b_ + 1)]]))[0] == "proved"
    status, why = compare_entries(one, sympy.Matrix([[a_ * (b_ + 2)]]))
    assert status == "failed" and "differ by" in why and "a=" in why
    # exp(2t) = exp(t)^2: read as powers of one symbol, a proof
    t = sympy.Symbol("t", real=True)
    e2 = sympy.Matrix([[sympy.exp(2 * t)]])
    assert compare_entries(e2, sympy.Matrix([[sympy.exp(t) ** 2]]))[0] == "proved"


def test_sampled_points_agree_exactly_or_by_evaluation_and_a_planted_error_still_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries the rational-function proof cannot settle are sampled: a point where the exact
    rationals make the difference 0 needs no evaluation; one where they do not (sin² + cos²)
    is evaluated; a wrong entry fails at a point, with the message of the evaluation."""
    from verifiers.symbolic import matrixcalc

    x, y = sympy.symbols("x y", positive=True)
    exact_calls: list[bool] = []
    screen = matrixcalc._exactly_zero_at
    monkeypatch.setattr(matrixcalc, "_exactly_zero_at",
                        lambda d, p: exact_calls.append(screen(d, p)) or exact_calls[-1])
    # exp(x)·exp(y) = exp(x + y): three exponentials the proof reads as unrelated powers
    right = sympy.Matrix([[sympy.exp(x) * sympy.exp(y)]])
    assert compare_entries(right, sympy.Matrix([[sympy.exp(x + y)]]))[0] == "numeric"
    assert exact_calls == [True, True, True]
    exact_calls.clear()
    trig = sympy.Matrix([[sympy.sin(x) ** 2 + sympy.cos(x) ** 2]])
    assert compare_entries(trig, sympy.Matrix([[1]]))[0] == "numeric"
    assert exact_calls == [False, False, False]  # not reduced exactly: evaluated, and agrees
    status, why = compare_entries(right, sympy.Matrix([[sympy.exp(x + 2 * y)]]))  # planted 2y
    assert status == "failed" and "differ by" in why and "x=" in why and "y=" in why
    status, why = compare_entries(trig, sympy.Matrix([[sympy.Rational(101, 100)]]))  # planted
    assert status == "failed" and "differ by -0.0100000" in why


def test_an_entry_without_a_value_at_the_sample_points_is_no_evidence():
    """A difference holding an atom the sample point cannot give a value (an unreplaced
    derivative of an undefined function) used to count as agreement ("numeric", a pass)
    however wrong the entry; it is undecided now, and the step is not verified."""
    import sympy

    from verifiers.symbolic import matrixcalc

    z1, z2, g = sympy.symbols("z1 z2 g", real=True)
    sigma = sympy.Function("sigma")
    loss = g * sigma(z1 * z2) + sympy.exp(z1) / (sympy.exp(z1) + sympy.exp(z2))
    wrong = 3 * sympy.diff(loss, z1)  # raw Derivative/Subs atoms, and a wrong factor
    status, detail = matrixcalc.compare_entries(matrixcalc.primed(sympy.diff(loss, z1)), wrong)
    assert status == matrixcalc.UNDECIDED and "no value at a sample point" in detail
    assert not matrixcalc.compare(matrixcalc.primed(sympy.diff(loss, z1)), wrong)[0]
