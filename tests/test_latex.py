"""Tests for verifiers.latex: the notes' LaTeX read into SymPy by our own grammar.

Expected trees are built by hand with SymPy constructors, never by parsing a
string, so a parser error cannot hide in its own expectation. Real formulas are
copied verbatim from notes/*.txt (line numbers in the comments).
"""

from __future__ import annotations

import functools
import operator
import time

import pytest
import sympy
from sympy import E, Function, Indexed, IndexedBase, KroneckerDelta, Rational, Sum, exp, log

from verifiers.latex import (
    SUM_UPPER,
    LatexError,
    atoms_multiset,
    canonical,
    check_size,
    parse_latex,
    round_trip_ok,
    split_chain,
    split_chains,
    to_latex_text,
)


def R(name: str) -> sympy.Symbol:  # noqa: N802 - reads like the Symbol it builds
    return sympy.Symbol(name, real=True)


def M(name: str) -> sympy.Symbol:  # noqa: N802 - a matrix, as matrices= declares it
    return sympy.Symbol(name, commutative=False)


def same(source: str, expected: object, **kw: object) -> None:
    """source parses to expected (after evaluation on both) and round-trips."""
    got = parse_latex(source, **kw)  # type: ignore[arg-type]
    assert canonical(got) == canonical(expected), (source, got, expected)
    rest = {key: kw[key] for key in ("functions", "matrices", "sets") if key in kw}
    assert round_trip_ok(source, got, kw.get("symbols"), **rest), (  # type: ignore[arg-type]
        source, to_latex_text(got))


def zero(expr: object) -> bool:
    return sympy.simplify(canonical(expr)) == 0


x, y, a, b, c, w, p, n, i, j, k, r = (R(s) for s in "x y a b c w p n i j k r".split())


# ----------------------------------------------------------------------------- constructs


@pytest.mark.parametrize(("source", "expected"), [
    ("3", sympy.Integer(3)),
    ("0.665", sympy.Float("0.665")),
    ("2 x", 2 * x),
    ("x y", x * y),
    ("xy", x * y),  # LaTeX: a run of letters is a product
    ("2ndm", 2 * n * R("d") * R("m")),
    ("a (b + c)", a * (b + c)),
    ("a − b", a - b),  # Unicode minus
    ("a \\times b \\cdot c * x", a * b * c * x),
    ("a / b", a / b),
    ("x^{2}", x**2),
    ("x^2", x**2),
    ("x^23", 3 * x**2),  # LaTeX reads one digit after ^
    ("x_{1}", R("x_1")),
    ("W_{Q}", R("W_Q")),
    ("d_{k}", R("d_k")),
    ("s_{i j}", R("s_ij")),
    ("d_{model}", R("d_model")),
    ("W_{Q}^{new}", R("W_Q^new")),
    ("\\frac{a}{b}", a / b),
    ("\\dfrac{a}{b}", a / b),
    ("\\frac12", Rational(1, 2)),
    ("\\frac1B", 1 / R("B")),
    ("\\sqrt{x}", sympy.sqrt(x)),
    ("\\sqrt[3]{x}", x ** Rational(1, 3)),
    ("\\sqrt2", sympy.sqrt(2)),
    ("\\ln x", log(x)),
    ("\\log (x + 1)", log(x + 1)),
    ("\\ln 2 x", log(2) * x),  # a bare function takes one factor
    ("\\exp(x)", exp(x)),
    ("e^{x}", exp(x)),
    ("e", E),
    ("\\cos\\theta", sympy.cos(R("theta"))),
    ("\\left( a + b \\right) c", (a + b) * c),
    ("\\big[ a \\big]", a),
    ("\\{ a + b \\} c", (a + b) * c),
    ("\\alpha + α", 2 * R("alpha")),
    ("ℓ_{j}", R("ell_j")),
    ("a \\quad b \\, c \\; x \\ y", a * b * c * x * y),
    ("\\mathrm{softmax} (x)", Function("softmax")(x)),
    ("\\mathrm{m}", R("m")),
    ("\\bar{x} + \\hat{x} + \\mathbf y", R("xbar") + R("xhat") + R("ybold")),
    ("|x|", sympy.Abs(x)),
    ("(\\frac{1}{2}, 3)", sympy.Tuple(Rational(1, 2), 3)),
    ("a_{j} (1 - a_{j}) .", R("a_j") * (1 - R("a_j"))),  # sentence full stop
    ("$x + 1$", x + 1),
])
def test_construct(source: str, expected: object) -> None:
    same(source, expected)


def test_functions_and_random_variable_operators() -> None:
    X, Y, S = R("X"), R("Y"), R("S")  # noqa: N806
    Var, Ef, Cov = Function("Var"), Function("E"), Function("Cov")  # noqa: N806
    same("Var (X)", Var(X))
    same("E (X)", Ef(X))
    same("E [X]", Ef(X))
    same("\\operatorname{Var}(X)", Var(X))
    same("Cov (X, Y)", Cov(X, Y))
    same("E [(S - E [S])^{2}]", Ef((S - Ef(S)) ** 2))
    same("E_{i}", R("E_i"))  # a subscripted E is a name, not the expectation
    # f(x) for declared functions only; otherwise juxtaposition multiplies
    same("L (w)", Function("L")(w), functions={"L"})
    same("L (w)", R("L") * w)


def test_symbols_mapping_overrides_real_default() -> None:
    pos = sympy.Symbol("d_k", positive=True)
    got = parse_latex("\\sqrt{d_{k}}", {"d_k": pos})
    assert canonical(got) == sympy.sqrt(pos)
    assert parse_latex("x").is_real


def test_sum_and_product() -> None:
    P = IndexedBase(R("p"))  # noqa: N806
    same("\\sum_{i = 1}^{n} \\ln p_{i}", Sum(log(P[i]), (i, 1, n)))
    same("\\prod_{i=1}^{n} p_{i}", sympy.Product(P[i], (i, 1, n)))
    # no bounds: the shared SUM_UPPER; the body is the product, it stops at '+'
    s = IndexedBase(R("s"))
    same("\\sum_{r} e^{s_{r}} + 1", Sum(exp(s[r]), (r, 1, SUM_UPPER)) + 1)
    same("\\sum_jp_j", Sum(IndexedBase(p)[j], (j, 1, SUM_UPPER)))
    # a subscript without the bound index stays a plain name
    same("\\sum_{r} p_{i} x_{r}", Sum(R("p_i") * IndexedBase(x)[r], (r, 1, SUM_UPPER)))
    got = parse_latex("\\sum_{i = 1}^{3} x_{i}")
    assert canonical(got).doit() == sum(IndexedBase(x)[m] for m in (1, 2, 3))


def test_kronecker_indicator_norm_derivative() -> None:
    same("δ_{j k}", KroneckerDelta(j, k))
    same("\\delta_{jk}", KroneckerDelta(j, k))
    same("1_{j = y}", KroneckerDelta(j, y))
    norm = Function("norm")
    same("‖ g ‖", norm(R("g")))
    same("\\lVert g\\rVert^2", norm(R("g")) ** 2)
    L = R("L")  # noqa: N806
    same("\\frac{\\partial L}{\\partial w}", sympy.Derivative(L, w))
    same("\\frac{d L}{d w}", sympy.Derivative(L, w))
    same("\\partial L/\\partial w", sympy.Derivative(L, w))
    same("\\dfrac{d}{dp}\\log p", sympy.Derivative(log(p), p))
    same("\\frac{d_{model}}{8}", R("d_model") / 8)  # not a derivative
    same("\\dfrac{\\partial z_j}{\\partial(W_U)_{kl}}",
         sympy.Derivative(R("z_j"), Indexed(IndexedBase(R("W_U")), k, R("l"))))


def test_underset_underbrace_keep_the_body() -> None:
    Q, K, V, dk = R("Q"), R("K"), R("V"), R("d_k")  # noqa: N806
    softmax = Function("softmax")
    # architecture-and-training.txt:1039 (Chinese labels under the braces)
    src = ("\\underset{计算注意力权重 A}{\\underset{⏟}{softmax (\\frac{Q K^{T}}{\\sqrt{d_{k}}})}}"
           " \\underset{提供待整合的信息}{\\underset{⏟}{V}}")
    same(src, softmax(Q * K ** R("T") / sympy.sqrt(dk)) * V)
    same("\\underbrace{a + b}_{\\text{label}} c", (a + b) * c)


# ----------------------------------------------------------------------------- real formulas


def test_var_s_chain_architecture_4_3() -> None:
    # architecture-and-training.txt:524
    src = ("\\begin{aligned} Var (S) & = E (S^{2}) \\\\ = \\frac{1}{16} (16 + 4 \\times 4 + "
           "6 \\times 0 + 4 \\times 4 + 16) \\\\ = 4 \\end{aligned}")
    chain = split_chain(src)
    assert chain[1::2] == ["=", "=", "="]
    assert chain[0::2] == ["Var (S)", "E (S^{2})",
                           "\\frac{1}{16} (16 + 4 \\times 4 + 6 \\times 0 + 4 \\times 4 + 16)",
                           "4"]
    S = R("S")  # noqa: N806
    same(chain[0], Function("Var")(S))
    same(chain[2], Function("E")(S**2))
    third = parse_latex(chain[4])
    assert round_trip_ok(chain[4], third)
    assert canonical(third) == 4  # the tree keeps the terms; its value is 4
    assert sympy.Add in {type(arg) for arg in third.args}


def test_var_xi_chain_architecture_4_2() -> None:
    # architecture-and-training.txt:495
    src = ("\\begin{aligned} Var (X_{i}) & = E [(X_{i} - E (X_{i}))^{2}] \\\\ = 0.5 (1)^{2} + "
           "0.5 (- 1)^{2} \\\\ = 1 \\end{aligned}")
    sides = split_chain(src)[0::2]
    Xi, Ef = R("X_i"), Function("E")  # noqa: N806
    same(sides[1], Ef((Xi - Ef(Xi)) ** 2))
    assert canonical(parse_latex(sides[2])) == sympy.Float(1)  # decimals are Floats


def test_scalar_loss_architecture_11_3() -> None:
    L = Function("L")  # noqa: N806
    # :2126 and :2130
    same("L (w) = - \\ln (\\frac{e^{w}}{e^{w} + 1})".split(" = ")[1],
         -log(exp(w) / (exp(w) + 1)))
    sides = split_chain("\\begin{aligned} L (w) & = - \\ln e^{w} + \\ln (e^{w} + 1) \\\\ "
                        "= - w + \\ln (e^{w} + 1) \\end{aligned}")[0::2]
    lw, mid, last = (parse_latex(s, functions={"L"}) for s in sides)
    assert canonical(lw) == L(w)
    assert canonical(mid) == -w + log(exp(w) + 1)  # ln(e^w) = w for real w
    assert zero(mid - last)
    # :2134 and :2144
    d1 = split_chain("\\begin{aligned} \\frac{d L}{d w} & = - 1 + \\frac{e^{w}}{e^{w} + 1} "
                     "\\\\ = - 1 + p \\end{aligned}")
    assert len(d1) == 5
    same(d1[2], -1 + exp(w) / (exp(w) + 1))
    steps = split_chain("\\frac{d L}{d w} = 0.3 - 1 = - 0.7")
    assert canonical(parse_latex(steps[2])) == sympy.Float("-0.7")
    # :2160 w_old = ln(0.3/0.7) ~ -0.8473
    chain = split_chain("w_{old} = \\ln \\frac{0.3}{0.7} \\approx - 0.8473")
    assert chain[1::2] == ["=", "\\approx"]
    assert abs(canonical(parse_latex(chain[2])) - sympy.Float("-0.8473")) < 1e-4


def test_softmax_derivative_architecture_15_1() -> None:
    # :2800 and :2804
    sj, sk, D = R("s_j"), R("s_k"), R("D")  # noqa: N806
    aj, ak = R("a_j"), R("a_k")
    own = split_chain("\\frac{\\partial a_{j}}{\\partial s_{j}} = \\frac{e^{s_{j}} D - "
                      "e^{2 s_{j}}}{D^{2}} = a_{j} (1 - a_{j}) .")[0::2]
    same(own[0], sympy.Derivative(aj, sj))
    same(own[1], (exp(sj) * D - exp(2 * sj)) / D**2)
    same(own[2], aj * (1 - aj))
    defs = {aj: exp(sj) / D}
    assert zero(parse_latex(own[1]) - parse_latex(own[2]).subs(defs))
    chains = split_chains("\\frac{\\partial a_{j}}{\\partial s_{k}} = - \\frac{e^{s_{j}} "
                          "e^{s_{k}}}{D^{2}} = - a_{j} a_{k}, k \\neq j .")
    assert len(chains) == 2 and chains[1] == ["k", "\\ne", "j"]
    other = chains[0][0::2]
    assert zero(parse_latex(other[1])
                - parse_latex(other[2]).subs({aj: exp(sj) / D, ak: exp(sk) / D}))
    # :750 the Kronecker form
    same("a_{j} (δ_{j k} - a_{k}) .", aj * (KroneckerDelta(j, k) - ak))


def test_cross_entropy_architecture_15_2() -> None:
    ell = IndexedBase(R("ell"))
    # :2814
    sides = split_chain("L = - \\ln \\frac{e^{ℓ_{y}}}{\\sum_{r} e^{ℓ_{r}}} = - ℓ_{y} + "
                        "\\ln \\sum_{r} e^{ℓ_{r}} .")[0::2]
    total = Sum(exp(ell[r]), (r, 1, SUM_UPPER))
    same(sides[1], -log(exp(R("ell_y")) / total))
    same(sides[2], -R("ell_y") + log(total))
    # :2818 and :2645
    same("p_{j} - 1_{j = y} .", R("p_j") - KroneckerDelta(j, y))


def test_softmax_shift_invariance_architecture_3_5() -> None:
    # :364
    src = ("\\frac{e^{s_{j} + c}}{\\sum_{r} e^{s_{r} + c}} = \\frac{e^{c} e^{s_{j}}}{e^{c} "
           "\\sum_{r} e^{s_{r}}} = \\frac{e^{s_{j}}}{\\sum_{r} e^{s_{r}}} .")
    first, second, third = (parse_latex(s) for s in split_chain(src)[0::2])
    s = IndexedBase(R("s"))
    assert canonical(third) == exp(R("s_j")) / Sum(exp(s[r]), (r, 1, SUM_UPPER))
    assert zero(second - third)
    assert all(round_trip_ok(t, parse_latex(t)) for t in split_chain(src)[0::2])
    assert first.has(Sum)


def test_layernorm_and_attention_lines() -> None:
    # :2884 mean of a row, :2888 LayerNorm, :172 scaled score
    first = split_chains("μ = \\frac{1}{d} \\sum_{r} x_{r}, v = \\frac{1}{d} \\sum_{r} "
                         "(x_{r} - μ)^{2} .")
    assert [ch[0] for ch in first] == ["μ", "v"]
    X = IndexedBase(x)  # noqa: N806
    same(first[1][2], Sum((X[r] - R("mu")) ** 2, (r, 1, SUM_UPPER)) / R("d"))
    same("γ_{r} \\frac{x_{r} - μ}{\\sqrt{v + ε}} + β_{r}",
         R("gamma_r") * (R("x_r") - R("mu")) / sympy.sqrt(R("v") + R("epsilon")) + R("beta_r"))
    same("\\frac{q_{i} \\cdot k_{j}}{\\sqrt{d_{k}}}",
         R("q_i") * R("k_j") / sympy.sqrt(R("d_k")))


def test_lesson1_inline_formulas() -> None:
    theta, A, B = R("theta"), R("a"), R("b")  # noqa: N806
    norm = Function("norm")
    # §3: a·b = ‖a‖‖b‖cosθ and ‖a‖ = sqrt(a·a)
    left, _, right = split_chain("a\\cdot b=\\lVert a\\rVert\\,\\lVert b\\rVert\\cos\\theta")
    same(left, A * B)
    same(right, norm(A) * norm(B) * sympy.cos(theta))
    same(split_chain("\\lVert a\\rVert=\\sqrt{a\\cdot a}")[2], sympy.sqrt(A * A))
    same("\\lVert a-b\\rVert^2", norm(A - B) ** 2)
    # §6: uniform guess, -ln(1/V) = ln V
    lhs, _, rhs = split_chain("-\\ln(1/V)=\\ln V")
    positive = {"V": sympy.Symbol("V", positive=True)}  # as the claim declares it
    assert zero(parse_latex(lhs, positive) - parse_latex(rhs, positive))
    # §5: Jacobian row sums and sum to one
    chain = split_chain("\\sum_jp_i(\\delta_{ij}-p_j)=p_i-p_i\\sum_jp_j=0")
    P = IndexedBase(p)  # noqa: N806
    same(chain[0], Sum(R("p_i") * (KroneckerDelta(i, j) - P[j]), (j, 1, SUM_UPPER)))
    same(chain[2], R("p_i") - R("p_i") * Sum(P[j], (j, 1, SUM_UPPER)))
    Z = IndexedBase(R("z"))  # noqa: N806
    sums = split_chain("\\sum_ip_i=\\dfrac{\\sum_ie^{z_i}}{\\sum_je^{z_j}}=1")
    same(sums[2], Sum(exp(Z[i]), (i, 1, SUM_UPPER)) / Sum(exp(Z[j]), (j, 1, SUM_UPPER)))
    # §7 (a): z_j = sum_k x_k (W_U)_{kj}
    same("\\sum_kx_k(W_U)_{kj}",
         Sum(IndexedBase(x)[k] * Indexed(IndexedBase(R("W_U")), k, j), (k, 1, SUM_UPPER)))
    # §2 one-hot lookups
    same("\\sum_k\\delta_{ik}\\delta_{jk}",
         Sum(KroneckerDelta(i, k) * KroneckerDelta(j, k), (k, 1, SUM_UPPER)))
    same("\\lVert e_i-e_j\\rVert", norm(R("e_i") - R("e_j")))


@pytest.mark.parametrize("source", [
    "[\\begin{matrix} 0.3 & - 0.2 \\\\ - 0.5 & 0.1 \\end{matrix}]",  # :2208 a matrix
    "P (t_{n + 1} = j)",  # :1758 an event inside P(..)
    "x_{i} \\in R^{512}",  # :392 set membership
    "f^{'} (w)",  # :2087 a prime
])
def test_note_formulas_that_do_not_parse_are_errors(source: str) -> None:
    with pytest.raises(LatexError):
        for side in split_chain(source)[0::2]:
            parse_latex(side)


# ----------------------------------------------------------------------------- matrices


transpose, hadamard, card = Function("transpose"), Function("hadamard"), Function("card")


def as_matrix(expr: object, env: dict[str, sympy.Matrix]) -> object:
    """Evaluate a parsed tree on concrete matrices: names from env, a tuple is a row
    vector, transpose/hadamard are .T/elementwise. Only what these tests need."""
    if isinstance(expr, sympy.Symbol):
        return env[expr.name]
    if isinstance(expr, sympy.Tuple):
        return sympy.Matrix([list(expr)])
    assert isinstance(expr, sympy.Basic)
    if expr.is_Number:
        return expr
    args = [as_matrix(arg, env) for arg in expr.args]
    if isinstance(expr, sympy.Mul):
        return functools.reduce(operator.mul, args)
    if isinstance(expr, sympy.Add):
        return functools.reduce(operator.add, args)
    name = getattr(expr.func, "__name__", "")
    if name == "transpose":
        return args[0].T  # type: ignore[attr-defined]
    if name == "hadamard":
        return args[0].multiply_elementwise(args[1])  # type: ignore[attr-defined]
    raise AssertionError(f"not evaluated here: {expr}")


def test_declared_matrices_keep_the_order_of_a_product() -> None:
    mats = {"X", "W_Q"}
    xw = parse_latex("X W_{Q}", matrices=mats)
    assert xw == sympy.Mul(M("X"), M("W_Q"), evaluate=False)
    same("X W_{Q}", M("X") * M("W_Q"), matrices=mats)
    # planted: the factors swapped are another formula once the names are matrices..
    assert canonical(xw) != canonical(parse_latex("W_{Q} X", matrices=mats))
    # ..and the same one when they are not (why matrices= exists)
    assert canonical(parse_latex("X W_{Q}")) == canonical(parse_latex("W_{Q} X"))
    # an entry of a matrix is a scalar: :1153 (Q K^T)_{ij} = sum_r Q_{ir} K_{jr}
    dk = R("d_k")
    src = "\\sum_{r = 1}^{d_{k}} Q_{i r} K_{j r}"
    got = parse_latex(src, matrices={"Q", "K"})
    assert got.is_commutative
    same(src, Sum(Indexed(IndexedBase(R("Q")), i, r) * Indexed(IndexedBase(R("K")), j, r),
                  (r, 1, dk)), matrices={"Q", "K"})
    same("(W_U)_{kj}", Indexed(IndexedBase(R("W_U")), k, j), matrices={"W_U"})


@pytest.mark.parametrize("source", ["M^{T}", "M^T", "M^{\\top}", "M^\\top", "M^{⊤}", "M^⊤",
                                    "M^{\\mathsf{T}}", "M^\\mathsf{T}"])
def test_transpose_marks_on_a_matrix(source: str) -> None:
    same(source, transpose(M("M")), matrices={"M"})


def test_transpose_on_plain_names_and_expressions() -> None:
    # \top is unambiguous: a transpose on a plain (commutative) name too
    same("e_{i}^{\\top} e_{j}", transpose(R("e_i")) * R("e_j"))
    same("q^{\\top} k", transpose(R("q")) * k)
    same("M^{\\mathsf{T}}", transpose(R("M")))
    # a plain T stays the exponent T unless the base is a matrix (:1039 is unchanged)
    same("K^{T}", R("K") ** R("T"))
    same("(X W)^{T}", (R("X") * R("W")) ** R("T"))
    same("(X W)^{T}", transpose(M("X") * M("W")), matrices={"X", "W"})
    same("{W_{Q}^{new}}^{T}", transpose(M("W_Q^new")), matrices={"W_Q^new"})
    # :2938 a row vector written as a tuple, transposed
    same("(1, 0)^{T}", transpose(sympy.Tuple(1, 0)))
    # a bare e is Euler's number; as a declared vector it can be transposed
    same("e^{\\top} e", transpose(M("e")) * M("e"), matrices={"e"})
    with pytest.raises(LatexError, match="Euler"):
        parse_latex("e^{\\top}")
    with pytest.raises(LatexError, match="transpose mark"):
        parse_latex("\\top")


def test_attention_score_architecture_lines() -> None:
    mats = {"X", "W_Q", "W_K", "W_V"}
    X, WQ, WK, WV = (M(s) for s in ("X", "W_Q", "W_K", "W_V"))  # noqa: N806
    softmax = Function("softmax")
    # :1333
    src = "Z = softmax (\\frac{X W_{Q} W_{K}^{T} X^{T}}{\\sqrt{d_{k}}}) X W_{V}"
    right = split_chain(src)[2]
    same(right, softmax(X * WQ * transpose(WK) * transpose(X) / sympy.sqrt(R("d_k")))
         * X * WV, matrices=mats)
    planted = right.replace("X W_{Q} W_{K}^{T}", "X W_{K} W_{Q}^{T}")
    assert canonical(parse_latex(planted, matrices=mats)) != canonical(
        parse_latex(right, matrices=mats))
    # :2275 dL/dW_Q = X^T dL/dQ
    lhs, _, rhs = split_chain("\\frac{\\partial L}{\\partial W_{Q}} = X^{T} "
                              "\\frac{\\partial L}{\\partial Q}")
    same(lhs, sympy.Derivative(R("L"), WQ), matrices={"W_Q", "Q", "X"})
    same(rhs, transpose(X) * sympy.Derivative(R("L"), M("Q")), matrices={"W_Q", "Q", "X"})


def test_bilinear_score_architecture_with_the_notes_example() -> None:
    # :2934 q_i k_j^T = x_i W_Q W_K^T x_j^T, evaluated on :2938's example
    mats = {"q_i", "k_j", "x_i", "x_j", "W_Q", "W_K"}
    left, _, right = split_chain("q_{i} k_{j}^{T} = x_{i} W_{Q} W_{K}^{T} x_{j}^{T} .")
    same(right, M("x_i") * M("W_Q") * transpose(M("W_K")) * transpose(M("x_j")),
         matrices=mats)
    # :2938 x_a = (1, 0), x_b = (0, 1), W_Q = (1, 0)^T, W_K = (0, 1)^T: a reads b -> 1
    wq = as_matrix(parse_latex("(1, 0)^{T}"), {})
    wk = as_matrix(parse_latex("(0, 1)^{T}"), {})
    env = {"x_i": sympy.Matrix([[1, 0]]), "x_j": sympy.Matrix([[0, 1]]), "W_Q": wq, "W_K": wk}
    env["q_i"], env["k_j"] = env["x_i"] * wq, env["x_j"] * wk  # type: ignore[operator]
    lhs = as_matrix(parse_latex(left, matrices=mats), env)
    assert lhs == as_matrix(parse_latex(right, matrices=mats), env) == sympy.Matrix([[1]])
    # planted: the projections swapped -- "b reads a", which the note says is 0
    planted = "x_{i} W_{K} W_{Q}^{T} x_{j}^{T}"
    assert as_matrix(parse_latex(planted, matrices=mats), env) == sympy.Matrix([[0]])


def test_lesson1_transposes() -> None:
    # lesson1 :351 the softmax Jacobian diag(p) - p p^T
    src = "\\mathrm{diag}(p)-pp^\\top"
    diag = Function("diag")
    same(src, diag(M("p")) - M("p") * transpose(M("p")), matrices={"p"})
    same(src, diag(p) - p * transpose(p))
    # planted p^T p (a number): distinct only once p is declared a matrix
    planted = "\\mathrm{diag}(p)-p^\\top p"
    assert canonical(parse_latex(src, matrices={"p"})) != canonical(
        parse_latex(planted, matrices={"p"}))
    assert canonical(parse_latex(src)) == canonical(parse_latex(planted))
    # :353 dL/dW_U = x^T g (x 1 x d, g 1 x V): an outer product, not g^T x
    mats = {"x", "g", "W_U"}
    lhs, _, rhs = split_chain("\\partial L/\\partial W_U=x^\\top g")
    same(lhs, sympy.Derivative(R("L"), M("W_U")), matrices=mats)
    env = {"x": sympy.Matrix([[1, 2]]), "g": sympy.Matrix([[3, 4, 5]])}
    assert as_matrix(parse_latex(rhs, matrices=mats), env).shape == (2, 3)  # type: ignore
    assert as_matrix(parse_latex("g^\\top x", matrices=mats), env).shape == (3, 2)  # type: ignore
    # :95 e_i^T E picks row i of E; :262 G W_U^T
    same("e_i^\\top E", transpose(M("e_i")) * M("E"), matrices={"e_i", "E"})
    same("GW_U^\\top", M("G") * transpose(M("W_U")), matrices={"G", "W_U"})


def test_diag_and_bold_one() -> None:
    # lesson1 :188 / :351 \mathrm{diag}(p); :41 the all-ones \mathbf 1
    same("\\mathrm{diag}(p)", Function("diag")(p))
    same("\\operatorname{diag}(p)", Function("diag")(p))
    # :188 an entry of diag(p) is entry(diag(p), i, j) (evaluated by verifiers.symbolic.indices)
    same("\\mathrm{diag}(p)_{ij}", Function("entry")(Function("diag")(p), i, j))
    with pytest.raises(LatexError):  # an entry of another call is not read
        parse_latex("\\mathrm{softmax}(p)_{ij}")
    same("\\mathbf 1", R("1bold"))
    same("\\mathbf{1}^{\\top} x", transpose(M("1bold")) * M("x"), matrices={"1bold", "x"})


# ----------------------------------------------------------------------------- Hadamard


def test_hadamard_product() -> None:
    g, gamma, u, xhat, s = R("g"), R("gamma"), R("u"), R("xhat"), R("s")
    # :2900 u = g ⊙ γ, and \odot is the same operator
    same("g ⊙ γ", hadamard(g, gamma))
    same("g \\odot \\gamma", hadamard(g, gamma))
    assert canonical(parse_latex("g ⊙ γ")) != canonical(parse_latex("g γ"))  # not a product
    # :2902 the LayerNorm backward step
    src = "\\bar{x} = \\frac{1}{s} [u - mean (u) 1 - \\hat{x} mean (u ⊙ \\hat{x})] ."
    mean = Function("mean")
    same(split_chain(src)[2], (u - mean(u) * 1 - xhat * mean(hadamard(u, xhat))) / s)
    # precedence of '*', left-associative: a ⊙ b c is (a ⊙ b) c, like a / b c
    same("a ⊙ b c", hadamard(a, b) * c)
    same("a ⊙ b ⊙ c", hadamard(hadamard(a, b), c))
    same("a - b \\odot c", a - hadamard(b, c))
    same("c (a ⊙ b)", c * hadamard(a, b))
    same("(a ⊙ b)^{2} + a ⊙ (b + c)", hadamard(a, b) ** 2 + hadamard(a, b + c))
    # planted: the other grouping is another formula, and evaluates differently
    mats = {"X", "Y", "W"}
    env = {"X": sympy.Matrix([[1, 2], [3, 4]]), "Y": sympy.Matrix([[0, 1], [1, 0]]),
           "W": sympy.Matrix([[1, 1], [0, 1]])}
    left = parse_latex("X ⊙ Y W", matrices=mats)
    assert left == sympy.Mul(hadamard(M("X"), M("Y")), M("W"), evaluate=False)
    right = parse_latex("X ⊙ (Y W)", matrices=mats)
    assert as_matrix(left, env) != as_matrix(right, env)
    with pytest.raises(LatexError, match="tuple"):
        parse_latex("(a, b) \\odot c")


# ----------------------------------------------------------------------------- sets


def test_sum_over_a_set_architecture_loss() -> None:
    # :2337 the mean loss over the positions in I
    src = "L = \\frac{1}{| I |} \\sum_{i \\in I} - \\ln p_{i, t_{i + 1}} ."
    right = split_chain(src)[2]
    I = sympy.Symbol("I")  # noqa: N806, E741 - a set: a plain Symbol, no 'real'
    P, T = IndexedBase(p), IndexedBase(R("t"))  # noqa: N806
    mean = Sum(-log(P[i, T[i + 1]]), (i, 1, card(I))) / card(I)
    same(right, mean, sets={"I"})
    # the body depends on i: with |I| = 2 the sum has two different terms
    two = canonical(parse_latex(right, sets={"I"})).subs(card(I), 2).doit()
    assert two == -(log(P[1, T[2]]) + log(P[2, T[3]])) / 2
    # planted: reading p_{i, t_{i+1}} as a name of its own would make the sum constant
    assert canonical(parse_latex(right, sets={"I"})) != canonical(
        Sum(-log(R("p_i,ti+1")), (i, 1, card(I))) / card(I))
    # undeclared, |I| is an absolute value -- another formula than card(I)
    assert parse_latex(right).has(sympy.Abs)
    assert not parse_latex(right, sets={"I"}).has(sympy.Abs)


def test_sum_over_an_indexed_set_architecture_masked_softmax() -> None:
    # :2840 the masked-softmax backward step, r ranging over J_i
    src = ("{\\bar{S}}_{i j} = a_{i j} ({\\bar{A}}_{i j} - \\sum_{r \\in J_{i}} a_{i r} "
           "{\\bar{A}}_{i r}) .")
    left, _, right = split_chain(src)
    same(left, R("Sbar_ij"))
    A, Abar = IndexedBase(R("a")), IndexedBase(R("Abar"))  # noqa: N806
    inner = Sum(A[i, r] * Abar[i, r], (r, 1, card(sympy.Symbol("J_i"))))
    same(right, R("a_ij") * (R("Abar_ij") - inner))
    # nested sums print outermost first and read back the same
    same("\\sum_{i=1}^{n} \\sum_{j=1}^{i} a_{i j}",
         Sum(Sum(Indexed(A, i, j), (j, 1, i)), (i, 1, n)))
    with pytest.raises(LatexError, match="no upper bound"):
        parse_latex("\\sum_{i \\in I}^{n} x_{i}")
    with pytest.raises(LatexError, match="name of a set"):
        parse_latex("\\sum_{i \\in \\mathbb{R}} x_{i}")


# ----------------------------------------------------------------------------- ellipses


@pytest.mark.parametrize(("source", "shown"), [
    ("x_{1 \\dots n}", "\\dots"),
    ("a_{1} + ... + a_{n}", "..."),
])
def test_an_ellipsis_asks_for_a_restatement(source: str, shown: str) -> None:
    # (a run of terms, a_{1} + \\dots + a_{n}, is folded into a sum: test_latex_reader_more.py)
    message = f"ellipsis '{shown}' is not read: restate the formula with a reason"
    with pytest.raises(LatexError, match=message.replace("\\", "\\\\").replace(".", "\\.")):
        parse_latex(source)


# ----------------------------------------------------------------------------- chains


def test_split_chain_relations_and_rows() -> None:
    assert split_chain("A = B \\approx C") == ["A", "=", "B", "\\approx", "C"]
    assert split_chain("a \\le b < c ≈ d") == ["a", "\\le", "b", "<", "c", "\\approx", "d"]
    assert split_chain("$$x = 1$$") == ["x", "=", "1"]
    # relations inside brackets or subscripts do not split
    assert split_chain("1_{j = y} = f (a = b)") == ["1_{j = y}", "=", "f (a = b)"]
    # :314 -- three statements in one aligned block
    src = ("\\begin{aligned} a_{1} & = \\frac{2.718}{4.086} \\approx 0.665 \\\\ a_{2} & = "
           "\\frac{1}{4.086} \\approx 0.245 \\\\ a_{3} & = \\frac{0.368}{4.086} \\approx "
           "0.090 \\end{aligned}")
    chains = split_chains(src)
    assert [ch[0] for ch in chains] == ["a_{1}", "a_{2}", "a_{3}"]
    assert chains[2] == ["a_{3}", "=", "\\frac{0.368}{4.086}", "\\approx", "0.090"]
    with pytest.raises(LatexError, match="split_chains"):
        split_chain(src)
    # :887 statements separated by a top-level comma; commas in brackets stay
    assert split_chains("k_{1} = (\\ln 2, 0), k_{2} = (0, 1)") == [
        ["k_{1}", "=", "(\\ln 2, 0)"], ["k_{2}", "=", "(0, 1)"]]


@pytest.mark.parametrize("source", ["= a", "a = ", "a = (b", "\\begin{aligned} = 1 \\end{aligned}"])
def test_split_chain_errors(source: str) -> None:
    with pytest.raises(LatexError):
        split_chain(source)


def test_parse_rejects_a_relation() -> None:
    with pytest.raises(LatexError, match="split_chain"):
        parse_latex("a = b")


# ----------------------------------------------------------------------------- round trip


def test_round_trip_catches_a_dropped_summand() -> None:
    source = "\\frac{1}{16} (16 + 4 \\times 4 + 6 \\times 0 + 4 \\times 4 + 16)"
    good = parse_latex(source)
    assert round_trip_ok(source, good)
    # simulate a parser that lost the last "+ 16" (SymPy issue 26366 style)
    lossy = parse_latex("\\frac{1}{16} (16 + 4 \\times 4 + 6 \\times 0 + 4 \\times 4)")
    assert canonical(parse_latex(to_latex_text(lossy))) == canonical(lossy)  # prints fine..
    assert not round_trip_ok(source, lossy)  # ..but the numerals do not match the source
    assert atoms_multiset(source) - atoms_multiset(to_latex_text(lossy)) == {"16": 1}


def test_round_trip_catches_dropped_symbols_and_changed_meaning() -> None:
    source = "- w + \\ln (e^{w} + 1)"
    assert round_trip_ok(source, parse_latex(source))
    assert not round_trip_ok(source, -w + log(exp(w)))  # lost "+ 1"
    assert not round_trip_ok(source, log(exp(w) + 1))  # lost "- w"
    # The limit, stated: the same atoms with another operator are not a dropped term.
    # A sign flip is caught where meaning is compared -- the chain check of each '='.
    assert round_trip_ok("a_{j} (1 - a_{j})", R("a_j") * (1 + R("a_j")))


def test_atoms_multiset_ignores_notation_only() -> None:
    assert atoms_multiset("\\frac{d L}{d w}") == atoms_multiset("\\frac{\\partial L}{\\partial w}")
    assert atoms_multiset("1_{j = y}") == atoms_multiset("\\delta_{j y}")
    assert atoms_multiset("0.090") == atoms_multiset("0.09")
    assert atoms_multiset("\\exp(x)") == atoms_multiset("e^{x}")
    assert atoms_multiset("x_{1} + 2") == {"x": 1, "1": 1, "2": 1}


# ----------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize(("source", "message"), [
    ("\\input{/etc/passwd}", "unknown LaTeX command \\input"),
    ("\\def\\x{1}", "unknown LaTeX command \\def"),
    ("x" * 5001, "longer than 5000"),
    ("(" * 200 + "x" + ")" * 200, "nested too deeply"),
    ("{" * 200 + "x" + "}" * 200, "nested too deeply"),
    ("x^{" * 100 + "2" + "}" * 100, "nested too deeply"),
    ("+".join(["x"] * 2400), "nodes"),
    ("1" * 60, "digits"),
    ("\\text{hi}", "unsupported"),
    ("a + 黑便", "unexpected character"),
    ("\\frac{a}", "unexpected"),
    ("x^{2}^{3}", "double superscript"),
    ("", "empty"),
], ids=lambda v: v[:24] if isinstance(v, str) else None)
def test_hostile_and_malformed(source: str, message: str) -> None:
    with pytest.raises(LatexError, match=message.replace("\\", "\\\\")):
        parse_latex(source)


def test_errors_carry_a_column() -> None:
    with pytest.raises(LatexError) as info:
        parse_latex("a + \\foo b")
    assert info.value.col == 5
    assert str(info.value) == "unknown LaTeX command \\foo (column 5)"


@pytest.mark.parametrize("source", ["10^{10^{10}}", "2^{100000} + 1", "x^{-20000}"])
def test_huge_constant_exponents_are_refused_quickly(source: str) -> None:
    start = time.perf_counter()
    with pytest.raises(LatexError, match="exponent beyond"):
        parse_latex(source)
    # a watchdog, not a speed target: evaluating 10^{10^{10}} would never end
    assert time.perf_counter() - start < 30


def test_large_but_real_exponents_are_fine() -> None:
    # lesson1 §5/§6: 1.8 x 10^308 and 10^-400
    assert canonical(parse_latex("1.8\\times10^{308}")) > 0
    assert round_trip_ok("10^{-400}", parse_latex("10^{-400}"))


def test_no_string_evaluation_anywhere() -> None:
    """The module never hands formula text to an evaluator (checked on its syntax tree)."""
    import ast
    import inspect

    import verifiers.latex as mod

    tree = ast.parse(inspect.getsource(mod))
    banned = {"eval", "exec", "compile", "sympify", "parse_expr", "parse_latex_lark"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            assert name not in banned, name
        if isinstance(node, ast.ImportFrom | ast.Import):
            names = [getattr(node, "module", None) or ""] + [a.name for a in node.names]
            assert not any("parsing" in n for n in names), names


# ----------------------------------------------------------------------------- limits, intervals


def test_lim_points_one_sided_two_sided_and_infinite() -> None:
    from verifiers.latex import parse_limit_point

    T, z1, z2 = R("T"), R("z_1"), R("z_2")  # noqa: N806
    same("\\lim_{T \\to 0^{+}} e^{- 1 / T}", sympy.Limit(exp(-1 / T), T, 0, "+"))
    same("\\lim_{T \\to 0^+} e^{- 1 / T}", sympy.Limit(exp(-1 / T), T, 0, "+"))
    same("\\lim_{x \\to 0^{-}} \\frac{1}{x}", sympy.Limit(1 / x, x, 0, "-"))
    same("\\lim_{x \\to 1} \\frac{x^{2} - 1}{x - 1}", sympy.Limit((x**2 - 1) / (x - 1), x, 1, "+-"))
    same("\\lim_{T \\to \\infty} \\frac{z_{1} - z_{2}}{T}", sympy.Limit((z1 - z2) / T, T, sympy.oo))
    same("\\lim_{x \\to -\\infty} e^{x}", sympy.Limit(exp(x), x, -sympy.oo))
    # the body is the product that follows, as for \sum: 2 lim x + 1 is (2 lim x) + 1
    same("2 \\lim_{x \\to 0^{-}} x + 1", 2 * sympy.Limit(x, x, 0, "-") + 1)
    # planted: the side of the approach is part of the formula
    assert canonical(parse_latex("\\lim_{x \\to 0^{+}} \\frac{1}{x}")) != canonical(
        parse_latex("\\lim_{x \\to 0^{-}} \\frac{1}{x}"))
    with pytest.raises(LatexError, match="\\\\to"):
        parse_latex("\\lim_{x = 0} x")
    with pytest.raises(LatexError, match="infinity"):
        parse_latex("\\lim_{x \\to \\infty^{+}} x")
    # the point of a relation 'T \to 0^+' (lesson1 :171), read by the claim checker
    assert parse_limit_point("0^+") == ("0", "+")
    assert parse_limit_point("0^{-}") == ("0", "-")
    assert parse_limit_point("\\infty") == ("\\infty", "-")
    assert parse_limit_point("-\\infty") == ("-\\infty", "+")
    assert parse_limit_point("1") == ("1", "+-")


def test_membership_of_an_interval_is_a_relation() -> None:
    from verifiers.latex import parse_interval

    # lesson1 :224 says each component of p - y lies in [-1, 1]
    assert split_chains("p_{j} - y_{j} \\in [-1, 1]") == [["p_{j} - y_{j}", "\\in", "[-1, 1]"]]
    assert parse_interval("[-1, 1]") == ("-1", "1", True, True)
    assert parse_interval("(0,1]") == ("0", "1", False, True)  # lesson1 :160
    # set membership stays unread (architecture :392): only an interval is a relation
    assert split_chains("x_{i} \\in R^{512}") == [["x_{i} \\in R^{512}"]]
    with pytest.raises(LatexError):
        parse_interval("[0, 1, 2]")


# ----------------------------------------------------------------------------- plain text


def test_plain_text_pe_formula_matrix_by_matrix() -> None:
    # matrix-by-matrix :52, plain text: sin( declared, pos and d_model declared names,
    # ^(...) a plain-text exponent group
    src = "sin(pos / 10000^(2i/d_model))"
    pos, d_model = R("pos"), R("d_model")
    names = {"pos": pos, "d_model": d_model}
    same(src, sympy.sin(pos / 10000 ** (2 * i / d_model)), functions=("sin",), symbols=names)
    # undeclared, sin( is refused, never read as s·i·n
    with pytest.raises(LatexError, match="without a backslash"):
        parse_latex(src)
    # undeclared, d_model is LaTeX's d_{m} o d e l: another formula
    assert canonical(parse_latex(src, names, functions=("sin",))) != canonical(
        parse_latex(src, {"pos": pos}, functions=("sin",)))
    # planted: a dropped factor 2 in the exponent is another formula
    assert canonical(parse_latex(src, names, functions=("sin",))) != canonical(
        parse_latex("sin(pos / 10000^(i/d_model))", names, functions=("sin",)))
    # :66 the printed line, its exponent 2 and its argument 0.0001
    same("sin(1 / 10000^2)", sympy.sin(1 / sympy.Integer(10000) ** 2), functions=("sin",))
    same("cos(0.0001)", sympy.cos(sympy.Float("0.0001")), functions=("cos",))
    same("PE(1, 2)", Function("PE")(1, 2), functions=("PE",))


def test_unicode_square_root_matrix_by_matrix() -> None:
    # matrix-by-matrix :208 and :215
    same("√d_k", sympy.sqrt(R("d_k")))
    same("√3", sympy.sqrt(3))
    same("√64", sympy.Integer(8))  # the whole number, not √6 · 4
    assert canonical(parse_latex("√64")) != canonical(parse_latex("\\sqrt64"))  # LaTeX: √6·4
    same("√(x + 1)", sympy.sqrt(x + 1))
    same("\\frac{1}{√d_k}", 1 / sympy.sqrt(R("d_k")))


# ------------------------------------------------------ lesson1 primes, entries, \bar L(θ)


def test_primes_read_as_prime_and_round_trip() -> None:
    prime = Function("prime")
    u, v = R("u"), R("v")
    # lesson1 :145 (e^x)' = e^x and :182 the quotient rule (u/v)' = (u'v - uv')/v^2
    same("(e^x)'", prime(exp(x)))
    same("(u/v)'", prime(u / v), functions=["u", "v"])
    same("(u'v-uv')/v^2", (prime(u) * v - u * prime(v)) / v**2, functions=["u", "v"])
    # planted: a dropped prime (u v' read as u v) or a moved one is another formula
    assert canonical(parse_latex("(u'v-uv')/v^2")) != canonical(parse_latex("(uv-u'v)/v^2"))
    assert canonical(parse_latex("(u'v-uv')/v^2")) != canonical(parse_latex("(u'v-u'v)/v^2"))
    with pytest.raises(LatexError):  # a superscript prime is still not read
        parse_latex("f^{'} (w)")


def test_entries_of_products_and_of_diag() -> None:
    entry, transpose, diag = Function("entry"), Function("transpose"), Function("diag")
    X, G, A = M("X"), M("G"), M("A")  # noqa: N806
    # lesson1 :262 (X^T G)_{kl}, :188 (p p^T)_{ij} and diag(p)_{ij}, :25 (A^T)_{ij}
    l_ = R("l")
    same("(X^\\top G)_{kl}", entry(transpose(X) * G, k, l_), matrices={"X", "G"})
    same("(pp^\\top)_{ij}", entry(M("p") * transpose(M("p")), i, j), matrices={"p"})
    same("(A^\\top)_{ij}", entry(transpose(A), i, j), matrices={"A"})
    # planted: the other order is another entry once the names are matrices
    assert canonical(parse_latex("(X^\\top G)_{kl}", matrices={"X", "G"})) != canonical(
        parse_latex("(G X^\\top)_{kl}", matrices={"X", "G"}))
    same("\\mathrm{diag}(p)_{ij}", entry(diag(p), i, j))
    with pytest.raises(LatexError):  # a subscript on a number is not an entry
        parse_latex("(2)_{ij}")


def test_a_barred_function_prints_back_as_written() -> None:
    # lesson1 :266 \bar L(\theta - \eta \nabla): printed \bar{L}(..), not \operatorname{Lbar}
    src = "\\bar L(\\theta-\\eta\\nabla)"
    got = parse_latex(src, functions=["Lbar"])
    assert canonical(got) == Function("Lbar")(R("theta") - R("eta") * R("nabla"))
    assert to_latex_text(got).startswith("\\bar{L}")
    assert round_trip_ok(src, got, functions=["Lbar"])


def test_subscripted_functions_rows_of_their_values_and_conditionals() -> None:
    entry, given = Function("entry"), Function("given")
    F, p_ = Function("F_theta"), Function("p_theta")  # noqa: N806
    X, t1, t2, t3 = R("X"), R("t_1"), R("t_2"), R("t_3")
    # architecture-and-training :1678 h_{5} = F_{θ} (X)_{5}: row 5 of F_θ(X)
    same("F_{θ} (X)_{5}", entry(F(X), 5), functions=["F_theta"])
    # undeclared, it stays the product the reader always made of it (F_θ times X_5)
    assert canonical(parse_latex("F_{θ} (X)_{5}")) == R("F_theta") * R("X_5")
    # planted: another row is another formula
    assert canonical(parse_latex("F_{θ} (X)_{4}", functions=["F_theta"])) != entry(F(X), 5)
    # :2331 p_{θ} (t_{i + 1} ∣ t_{\leq i}), written out: the bar of a conditional
    same("p_{θ} (t_{3} ∣ t_{1}, t_{2})", given(p_(t3), t1, t2), functions=["p_theta"])
    same("p_{θ} (t_{2}, t_{3} ∣ t_{1})", given(p_(t2, t3), t1), functions=["p_theta"])
    # planted: which side of the bar an argument is on matters
    assert canonical(parse_latex("p_{θ} (t_{1} ∣ t_{2}, t_{3})", functions=["p_theta"])) != \
        given(p_(t3), t1, t2)
    with pytest.raises(LatexError):  # :1682 P (t_{6} ∣ X) with P not a function
        parse_latex("P (t_{6} ∣ X)")


def test_linear_combinations_of_tuples_are_vectors() -> None:
    vec = Function("vec")
    # architecture-and-training :350 0.665 (2, 0) + 0.245 (0, 2) + 0.090 (0, 0)
    same("0.665 (2, 0) + 0.245 (0, 2) + 0.090 (0, 0)",
         sympy.Float("0.665") * vec(2, 0) + sympy.Float("0.245") * vec(0, 2)
         + sympy.Float("0.090") * vec(0, 0))
    same("(1.33, 0.49)", sympy.Tuple(sympy.Float("1.33"), sympy.Float("0.49")))
    # planted: a dropped component is another formula
    assert canonical(parse_latex("0.665 (2) + 0.245 (0, 2)")) != canonical(
        parse_latex("0.665 (2, 0) + 0.245 (0, 2)"))
    with pytest.raises(LatexError, match="tuple"):  # a power of a tuple is not read
        parse_latex("(1, 2)^{2}")


def test_the_derivative_of_a_declared_function() -> None:
    # architecture-and-training :2894 \bar{B} = \bar{C} ⊙ σ^{'} (B): σ' is its own function
    mats = {"B", "Cbar"}
    same("\\bar{C} ⊙ σ^{'} (B)", hadamard(M("Cbar"), Function("sigma'")(M("B"))),
         functions=["sigma"], matrices=mats)
    same("σ^{\\prime} (B)", Function("sigma'")(M("B")), functions=["sigma"], matrices=mats)
    # planted: without the mark it is σ itself, another formula
    assert canonical(parse_latex("σ (B)", functions=["sigma"], matrices=mats)) != \
        Function("sigma'")(M("B"))
    with pytest.raises(LatexError):  # a prime on an undeclared name is not guessed
        parse_latex("f^{'} (x)")


def test_matrices_written_out_in_a_matrix_claim() -> None:
    matrix = Function("matrix", commutative=False)
    theta = R("theta")
    rot = matrix(sympy.Tuple(sympy.Tuple(sympy.cos(theta), -sympy.sin(theta)),
                             sympy.Tuple(sympy.sin(theta), sympy.cos(theta))))
    src = "[\\begin{matrix} \\cos θ & - \\sin θ \\\\ \\sin θ & \\cos θ \\end{matrix}]"
    same(src, rot, matrices={"q"})
    # a product keeps its order: [..] E is not E [..]
    one_hot = "[\\begin{matrix} 1 & 0 \\\\ 0 & 1 \\end{matrix}]"
    left = parse_latex(one_hot + " E", matrices={"E"})
    right = parse_latex("E " + one_hot, matrices={"E"})
    assert canonical(left) != canonical(right)
    assert round_trip_ok(one_hot + " E", left, matrices={"E"})
    # planted: another entry is another matrix
    assert canonical(parse_latex(src.replace("- \\sin", "\\sin"), matrices={"q"})) != rot
    with pytest.raises(LatexError):  # outside a matrix claim, as before
        parse_latex(src)
    with pytest.raises(LatexError, match="different lengths"):
        parse_latex("[\\begin{matrix} 1 & 0 \\\\ 1 \\end{matrix}]", matrices={"q"})


# -- sizes: a value too large to compute is refused before anything computes it ------------


def test_a_small_power_of_a_power_is_read_and_equals_its_value():
    for text in ("(2^{10})^{3}", "{(2^{10})}^{3}"):
        assert canonical(parse_latex(text)) == sympy.Integer(2) ** 30
    assert canonical(parse_latex("0.1^{400}")) != 0  # the notes' largest power reads


@pytest.mark.parametrize("text, fragment", [
    ("9999^{10000}", "about 42,144 digits (limit 10,000)"),
    ("{(9999^{10000})}^{10000}", "about 42,144 digits"),  # the inner power is already too big
    ("{({(999^{999})}^{999})}^{999}", "digits (limit 10,000)"),
    ("\\frac{99}{97}^{3000}", "digits (limit 10,000)"),  # numerator and denominator count
    ("(x + y)^{101}", "degree about 101 (limit 100)"),
    ("((x + 1)^{10})^{11}", "degree about 110"),
    ("E [(X + Y + Z)^{3000}]", "degree about 3,000"),
])
def test_a_value_too_large_to_compute_is_refused(text, fragment):
    t0 = time.monotonic()
    with pytest.raises(LatexError, match="value too large to compute") as err:
        parse_latex(text)
    assert fragment in str(err.value)
    assert err.value.col is not None  # located: the column of the '^'
    assert time.monotonic() - t0 < 60  # a watchdog, not a speed target


def test_the_size_estimate_follows_substitutions():
    a = sympy.Symbol("a", real=True)  # as the reader names it
    check_size(parse_latex("a^{99} + 1"), {a: parse_latex("99^{9}")})  # 19 * 99 digits: fine
    with pytest.raises(LatexError, match="value too large to compute"):
        check_size(parse_latex("a^{99} + 1"), {a: parse_latex("99^{999}")})
    with pytest.raises(LatexError, match="degree"):
        check_size(parse_latex("a^{50}"), {a: parse_latex("(x + 1)^{3}")})
    check_size(parse_latex("10000^{2 i / d}"))  # a symbolic exponent expands nothing


def test_the_round_trip_simplify_runs_under_a_deadline():
    """_time_boxed gives up (False: not shown equal, never a pass) at its deadline."""
    from verifiers.latex import _time_boxed

    def forever():
        while True:
            pass

    assert _time_boxed(forever, 0.05) is False
