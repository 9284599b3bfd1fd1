"""Tests for verifiers.symbolic.prove: proved derivations, planted errors caught at their step.

Every planted error is a mistake a note could make (a dropped minus, ``1 + a``
for ``1 - a``, a missing ``1/sqrt(d_k)``, variance additivity without zero
covariance); each must be reported at the step that introduces it. Expected
values are written out by hand, not computed by the module under test.
"""

from __future__ import annotations

import time

import pytest
import sympy as sp

from verifiers.symbolic.prove import (
    Assumptions,
    StepVerdict,
    check_chain,
    check_step,
    compare_matrices,
    covariance,
    enumerate_sum,
    expectation,
    finite_covariance,
    finite_expectation,
    finite_variance,
    limit_check,
    matrix_grad,
    product_distribution,
    symbol_matrices,
    tolerance_from_printed,
    var_of_dot,
    var_of_sum,
    var_sum_counterexample,
    variance,
)

T = 2.0  # symbolic timeout for the ordinary steps: generous, none should come near it

z = sp.symbols("z_1:4", real=True)
Z_SUM = sum(sp.exp(v) for v in z)
P = [sp.exp(v) / Z_SUM for v in z]


def first_failure(verdicts: list[StepVerdict]) -> int | None:
    return next((v.index for v in verdicts if v.status == "failed"), None)


# ------------------------------------------------------------- proved steps


@pytest.mark.parametrize("i", range(3))
@pytest.mark.parametrize("j", range(3))
def test_softmax_derivative_by_quotient_rule(i: int, j: int) -> None:
    delta = int(i == j)
    chain = [
        sp.diff(P[i], z[j]),
        (delta * sp.exp(z[i]) * Z_SUM - sp.exp(z[i]) * sp.exp(z[j])) / Z_SUM**2,
        sp.exp(z[i]) / Z_SUM * (delta - sp.exp(z[j]) / Z_SUM),
        P[i] * (delta - P[j]),
    ]
    verdicts = check_chain(chain, "=", timeout=T)
    assert [v.status for v in verdicts] == ["proved"] * 3, verdicts


def test_cross_entropy_gradient_is_p_minus_y_for_one_hot_y() -> None:
    y = sp.symbols("y_1:4")
    a = Assumptions(one_hot=tuple(s.name for s in y))
    loss = -sum(y[k] * sp.log(P[k]) for k in range(3))
    for j in range(3):
        chain = [
            sp.diff(loss, z[j]),
            -sum(y[k] * (int(k == j) - P[j]) for k in range(3)),
            P[j] * sum(y) - y[j],
            P[j] - y[j],
        ]
        verdicts = check_chain(chain, "=", a, timeout=T)
        assert [v.status for v in verdicts] == ["proved"] * 3, verdicts
    # Without the one-hot assumption the last step needs sum y = 1 and is not true.
    v = check_step(P[0] * sum(y) - y[0], P[0] - y[0], timeout=T)
    assert v.status == "failed" and v.counterexample


def test_scalar_loss_derivative_is_p_minus_one() -> None:
    w = sp.Symbol("w")
    p = sp.exp(w) / (sp.exp(w) + 1)
    chain = [sp.diff(-w + sp.log(sp.exp(w) + 1), w), -1 + sp.exp(w) / (sp.exp(w) + 1), p - 1]
    assert [v.status for v in check_chain(chain, "=", timeout=T)] == ["proved", "proved"]


def test_probability_vector_eliminates_last_entry() -> None:
    p = sp.symbols("p_1:4")
    a = Assumptions(sum_to_one=tuple(s.name for s in p))
    # Softmax Jacobian rows sum to zero only because sum p = 1.
    row = sum(p[0] * (int(j == 0) - p[j]) for j in range(3))
    assert check_step(row, 0, assumptions=a, timeout=T).status == "proved"
    assert check_step(row, 0, timeout=T).status == "failed"
    # Positivity of the entries is part of the assumption.
    assert check_step(0, p[1], "<", a, timeout=T).status == "proved"


def test_variance_of_sum_of_four_signs_by_enumeration() -> None:
    half = sp.Rational(1, 2)
    law = enumerate_sum([-1, 1], [half, half], 4)
    assert law == {-4: sp.Rational(1, 16), -2: sp.Rational(1, 4), 0: sp.Rational(3, 8),
                   2: sp.Rational(1, 4), 4: sp.Rational(1, 16)}
    assert finite_expectation(law) == 0
    assert finite_variance(law) == 4
    assert enumerate_sum([-1, 1], [0.5, 0.5], 4) == law  # float table entries read exactly
    joint = product_distribution([-1, 1], [half, half], 2)
    assert finite_covariance(joint, 0, 1) == 0
    assert check_step(finite_variance(law), 4, timeout=T).status == "proved"
    with pytest.raises(ValueError, match="sum to"):
        enumerate_sum([-1, 1], [half, sp.Rational(1, 3)], 2)


def test_variance_of_dot_product_is_d_k_and_scaling_makes_it_one() -> None:
    for d_k in (1, 4, 16):
        assert var_of_dot(d_k) == d_k
        assert check_step(var_of_dot(d_k, 1 / sp.sqrt(d_k)), 1, timeout=T).status == "proved"
    assert var_of_dot(16, sp.Rational(1, 16)) == sp.Rational(1, 16)  # dividing by d_k overshoots


def test_moments_linearity_needs_no_independence_but_products_do() -> None:
    a = Assumptions(independent={"X", "Y"}, zero_mean={"X"}, unit_variance={"X", "Y"})
    x, y = sp.symbols("X Y", real=True)
    mu = sp.Symbol("mu_Y", real=True)
    assert expectation(3 * x + 2 * y + 1, a) == 2 * mu + 1
    assert variance(x + y, a) == 2
    assert covariance(x, x + y, a) == 1
    # An unstated moment stays visible instead of being assumed Gaussian.
    assert variance(x**2, a) == sp.Symbol("E[X^4]", real=True) - 1
    # Without independence a product does not factor: E[XY] stays an unknown joint moment,
    # so additivity of the variance keeps its covariance term.
    dependent = Assumptions(zero_mean={"X", "Y"})
    assert expectation(x * y, dependent) == sp.Symbol("E[X*Y]", real=True)
    assert expectation(x + y, dependent) == 0  # linearity needs no independence
    assert sp.expand(variance(x + y, dependent) - variance(x, dependent)
                     - variance(y, dependent)) == 2 * sp.Symbol("E[X*Y]", real=True)
    assert var_of_sum(4) == 4
    assert var_of_sum(4, independent=False) == 16


# ------------------------------------------------------------ planted errors


def test_dropped_minus_sign_caught_at_its_step() -> None:
    w = sp.Symbol("w")
    p = sp.exp(w) / (sp.exp(w) + 1)
    chain = [
        sp.diff(-w + sp.log(sp.exp(w) + 1), w),
        -1 + sp.exp(w) / (sp.exp(w) + 1),
        1 + sp.exp(w) / (sp.exp(w) + 1) - 2,  # still right
        sp.exp(w) / (sp.exp(w) + 1) + 1,  # dropped minus
        p + 1,
    ]
    verdicts = check_chain(chain, "=", timeout=T)
    assert [v.status for v in verdicts] == ["proved", "proved", "failed", "proved"]
    bad = verdicts[2]
    assert bad.index == 3 and set(bad.counterexample) == {"w"}
    assert "lhs =" in bad.detail and "rhs =" in bad.detail


def test_sigmoid_derivative_one_plus_a_caught() -> None:
    x = sp.Symbol("x")
    a_j = 1 / (1 + sp.exp(-x))
    good = check_chain([sp.diff(a_j, x), sp.exp(-x) / (1 + sp.exp(-x)) ** 2, a_j * (1 - a_j)],
                       "=", timeout=T)
    assert [v.status for v in good] == ["proved", "proved"]
    bad = check_chain([sp.diff(a_j, x), sp.exp(-x) / (1 + sp.exp(-x)) ** 2, a_j * (1 + a_j)],
                      "=", timeout=T)
    assert first_failure(bad) == 2 and bad[0].status == "proved"


def test_missing_inverse_sqrt_d_k_caught() -> None:
    d_k = 8
    q = sp.symbols(f"q_1:{d_k + 1}", real=True)
    k = sp.symbols(f"k_1:{d_k + 1}", real=True)
    names = {s.name for s in q + k}
    a = Assumptions(independent=names, zero_mean=names, unit_variance=names)
    dot = sum(qi * ki for qi, ki in zip(q, k, strict=True))
    # Var(q.k / sqrt(d_k)) = Var(q.k) / d_k = d_k / d_k = 1
    chain = [variance(dot / sp.sqrt(d_k), a), variance(dot, a) / d_k, sp.Integer(d_k) / d_k, 1]
    assert [v.status for v in check_chain(chain, "=", timeout=T)] == ["proved"] * 3
    planted = [variance(dot, a), sp.Integer(d_k) / d_k, 1]  # the scale forgotten in step 1
    assert first_failure(check_chain(planted, "=", timeout=T)) == 1


def test_variance_additivity_without_zero_covariance_fails() -> None:
    ce = var_sum_counterexample()
    assert (ce.lhs, ce.rhs, ce.covariance) == (4 * ce.sigma**2, 2 * ce.sigma**2, ce.sigma**2)
    v = check_step(ce.lhs, ce.rhs, assumptions=Assumptions(positive={"sigma"}), timeout=T)
    assert v.status == "failed" and "sigma" in v.counterexample
    fixed = check_step(ce.lhs, ce.rhs + 2 * ce.covariance, timeout=T)
    assert fixed.status == "proved"


def test_unevaluated_sympy_stats_objects_are_evaluated_in_the_worker() -> None:
    from sympy.stats import Normal, Variance

    x = Normal("X", 0, 1)
    assert check_step(Variance(x + x), 2 * Variance(x), timeout=T).status == "failed"
    assert check_step(Variance(x + x), 4 * Variance(x), timeout=T).status == "proved"


# ------------------------------------------------------- numeric and timeout


def test_step_only_decidable_numerically_is_numeric_not_proved() -> None:
    x = sp.Symbol("x")
    a = Assumptions(positive={"x"})
    v = check_step(sp.atan(x) + sp.atan(1 / x), sp.pi / 2, assumptions=a, timeout=T)
    assert v.status == "numeric" and not v.counterexample and v.passed
    assert "30 of 30" in v.detail
    # On all reals the identity is false (x < 0 gives -pi/2): the sampler finds it.
    v = check_step(sp.atan(x) + sp.atan(1 / x), sp.pi / 2, timeout=T)
    assert v.status == "failed" and sp.Rational(v.counterexample["x"].split("e")[0]) < 0


PATHOLOGICAL = sp.symbols("a b c d")
BASE = sum(PATHOLOGICAL) + 1
SLOW_LHS = BASE**40
SLOW_RHS = BASE**20 * sp.expand(BASE**2) ** 10  # equal, but expand needs ~135k terms


def test_pathological_simplify_times_out_and_numeric_fallback_decides() -> None:
    # The watchdog (0.4 s of the worker's CPU time) ends the proof: the verdict is "timeout", the
    # numeric fallback decides. No wall-clock assertion: a loaded machine must not fail the test.
    v = check_step(SLOW_LHS, SLOW_RHS, timeout=0.4)
    assert v.status == "timeout" and v.symbolic == "timeout" and v.numeric == "agree"
    assert not v.passed
    bad = check_step(SLOW_LHS, SLOW_RHS * (1 + sp.Rational(1, 10**20)), timeout=0.4)
    assert bad.status == "failed" and bad.symbolic == "timeout" and bad.counterexample


# ------------------------------------------------------------ relations


def test_approx_uses_printed_precision() -> None:
    assert tolerance_from_printed("0.333") == pytest.approx(5e-4)
    assert tolerance_from_printed("12.50") == pytest.approx(5e-3)
    assert tolerance_from_printed("1.5e-3") == pytest.approx(5e-5)
    third = sp.Rational(1, 3)
    assert check_step(third, sp.Float("0.333", ""), "≈").status == "numeric"
    assert check_step(third, sp.Float("0.334", ""), "\\approx").status == "failed"
    assert check_step(sp.log(2), sp.Float("0.69", ""), "≈").status == "numeric"  # 0.6931...
    assert check_step(sp.log(2), sp.Float("0.70", ""), "≈").status == "failed"
    assert check_step(sp.log(2), sp.Float("0.70", ""), "≈", tolerance=0.01).status == "numeric"


def test_inequalities() -> None:
    x = sp.Symbol("x")
    assert check_step(2 * x, x**2 + 1, "<=", timeout=T).status in ("proved", "numeric")
    assert check_step(0, sp.exp(x), "<", timeout=T).status == "proved"
    v = check_step(x, x**2, "≤", timeout=T)
    assert v.status == "failed" and 0 < float(v.counterexample["x"]) < 1
    # each cross-entropy gradient component lies in [-1, 1]
    y = sp.symbols("y_1:4")
    a = Assumptions(one_hot=tuple(s.name for s in y))
    g = P[0] - y[0]
    assert check_step(g, 1, "<=", a, timeout=T).passed
    assert check_step(-1, g, "<=", a, timeout=T).passed
    assert check_step(g, 0, ">=", a, timeout=T).status == "failed"


def test_bad_input_is_refused() -> None:
    with pytest.raises(TypeError, match="string"):
        check_step("x + 1", 1)
    with pytest.raises(ValueError, match="unknown relation"):
        check_step(1, 1, "=~=")
    with pytest.raises(ValueError, match="needs"):
        check_chain([1, 1, 1], ["="])


# ------------------------------------------------------------ matrices


def test_matrix_gradient_entry_by_entry() -> None:
    shapes = {"X": (2, 3), "W": (3, 2), "C": (2, 2)}

    def loss(X: sp.Matrix, W: sp.Matrix, C: sp.Matrix) -> sp.Expr:  # noqa: N803
        return sum((X * W).multiply_elementwise(C))  # <XW, C>: dL/dX = C W^T, dL/dW = X^T C

    grads = matrix_grad(loss, shapes)
    m = symbol_matrices(shapes)
    assert str(m["X"][0, 1]) == "X_{1,2}"
    assert compare_matrices(grads["X"], m["C"] * m["W"].T, timeout=T) == []
    assert compare_matrices(grads["W"], m["X"].T * m["C"], timeout=T) == []
    diffs = compare_matrices(grads["X"], m["C"].T * m["W"].T, timeout=T)  # transposed C
    assert diffs and {(d.row, d.col) for d in diffs} == {(i, j) for i in range(2)
                                                         for j in range(3)}
    assert all(d.verdict.status == "failed" and d.verdict.counterexample for d in diffs)
    with pytest.raises(ValueError, match="shapes differ"):
        compare_matrices(grads["X"], m["W"])


# -------------------------------------------------------------- limits


def test_temperature_limits() -> None:
    t, gap = sp.symbols("T a", positive=True)
    z2 = sp.Symbol("z_2", real=True)
    z1 = z2 + gap  # a unique maximum: z_1 > z_2

    def p1(u: sp.Expr, v: sp.Expr) -> sp.Expr:
        return sp.exp(u / t) / (sp.exp(u / t) + sp.exp(v / t))

    assert limit_check(p1(z1, z2), t, 0, 1, timeout=T).status == "proved"
    assert limit_check(p1(z2, z2), t, 0, sp.Rational(1, 2), timeout=T).status == "proved"
    assert limit_check(p1(z1, z2), t, sp.oo, sp.Rational(1, 2), timeout=T).status == "proved"
    wrong = limit_check(p1(z1, z2), t, 0, sp.Rational(1, 2), timeout=T)
    assert wrong.status == "failed" and "the limit is 1" in wrong.detail
    # A worker with no time at all: the numeric approach still decides both ways.
    cut = limit_check(p1(z1, z2), t, 0, 1, timeout=0.0)
    assert cut.status == "timeout" and cut.numeric == "agree"
    cut_wrong = limit_check(p1(z1, z2), t, 0, 0, timeout=0.0)
    assert cut_wrong.status == "failed" and cut_wrong.numeric == "differ"


def test_numeric_evidence_is_time_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A step whose numeric evaluation never ends is cut off, not a hung gate."""
    import verifiers.symbolic.prove as S

    def forever(*args: object, **kwargs: object) -> object:
        while True:
            pass

    monkeypatch.setattr(S, "_numeric", forever)
    monkeypatch.setattr(S, "NUMERIC_SECONDS", 0.3)
    x = sp.Symbol("x", real=True)
    verdict = S.check_step(sp.sin(x) ** 2, 1 - sp.cos(x) ** 2, "≈", timeout=0.5)
    assert verdict.status == "timeout" and not verdict.passed


def test_kronecker_identities_are_sampled_at_integer_indices() -> None:
    """At real points every δ is 0, so a false δ identity would pass; indices are integers."""
    from verifiers.symbolic.prove import check_step

    i, j, k = sp.symbols("i j k", real=True)
    false = check_step(sp.KroneckerDelta(i, k) * sp.KroneckerDelta(j, k), sp.Integer(0), "=",
                       timeout=1.0)
    assert false.status == "failed"
    true = check_step(sp.KroneckerDelta(i, j) ** 2, sp.KroneckerDelta(i, j), "=", timeout=1.0)
    assert true.passed


def test_check_cases_proves_every_case_and_names_the_failing_one() -> None:
    from verifiers.symbolic.prove import check_cases

    p1, p2, p3 = sp.symbols("p_1 p_2 p_3", real=True)
    probs = Assumptions(sum_to_one=("p_1", "p_2", "p_3"))
    # lesson1 :188 on N = 3: p_i - p_i (p_1 + p_2 + p_3) = 0 for i = 1, 2, 3
    pairs = [(p - p * (p1 + p2 + p3), sp.Integer(0)) for p in (p1, p2, p3)]
    ok = check_cases(pairs, ["i=1", "i=2", "i=3"], "=", probs)
    assert ok.status == "proved" and "each of the 3 cases" in ok.detail
    # planted: a plus sign; the first case already fails, and is named
    bad = check_cases([(p + p * (p1 + p2 + p3), sp.Integer(0)) for p in (p1, p2, p3)],
                      ["i=1", "i=2", "i=3"], "=", probs)
    assert bad.status == "failed" and bad.counterexample["case"] == "i=1"


# -- deadlines: a computation that runs out of time is an error, never a pass or a hang ------


def _spin(seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds  # a generous watchdog: the deadline ends it long before
    while time.monotonic() < end:
        pass


def test_a_deadline_interrupts_and_nests():
    from verifiers.deadline import DeadlineExceeded, deadline, remaining

    with pytest.raises(DeadlineExceeded, match="took longer than 0.05 s"):
        with deadline(0.05):
            _spin()
    assert remaining() is None
    # An inner deadline never outlives the outer one; when the inner block swallows the
    # timeout, the outer one still fires as soon as the inner block ends.
    with pytest.raises(DeadlineExceeded, match="0.1 s"):
        with deadline(0.1):
            try:
                with deadline(30):
                    assert remaining() <= 0.1
                    _spin()
            except TimeoutError:
                pass  # swallowed, as `except Exception` deep in SymPy would
            _spin()
    # Code that swallows the exception is interrupted again until its block ends.
    with pytest.raises(DeadlineExceeded):
        with deadline(0.05):
            for _ in range(3):
                try:
                    _spin()
                except TimeoutError:
                    pass
            _spin()


SLOW_NOTE = """第 1 章：例子
1.1 求和
a = 0.25, b = 0.5
1.2 公式
式为 E [(X + Y + Z + W)^{100}] = 1
"""
SLOW_CLAIM = """note: n.txt
claims:
  - id: slow
    kind: symbolic
    section: "1.2"
    text: 式为 ⟪F⟫
"""


def _slow_verdict(tmp_path):
    from tests.test_engine import project
    from verifiers.run import run

    root = project(tmp_path, SLOW_CLAIM, SLOW_NOTE)
    (verdict,) = run(root / "notes", root / "claims").verdicts
    return verdict


def test_a_claim_out_of_its_budget_is_an_error_that_depends_on_time(tmp_path, monkeypatch):
    import verifiers.symbolic.claims as symclaims

    monkeypatch.setattr(symclaims, "CLAIM_SECONDS", 0.5)
    t0 = time.monotonic()
    verdict = _slow_verdict(tmp_path)
    assert time.monotonic() - t0 < 120  # a watchdog (unbounded, this runs for minutes)
    assert verdict.status == "error" and verdict.depends_on_time
    assert "took longer than 0.5 s" in verdict.message
    assert verdict.where == (5, 4)  # the formula, in the note
    bad = [v for v in verdict.values if v.status == "error"]
    assert bad and all(v.depends_on_time for v in bad)


def test_a_claim_off_the_main_thread_runs_bounded_in_a_worker(tmp_path, monkeypatch):
    """SIGALRM cannot interrupt another thread: the claim runs in a forked worker instead."""
    import threading

    import verifiers.symbolic.claims as symclaims

    monkeypatch.setattr(symclaims, "CLAIM_SECONDS", 0.5)
    out: list = []
    thread = threading.Thread(target=lambda: out.append(_slow_verdict(tmp_path)))
    thread.start()
    thread.join(120)  # a watchdog
    assert not thread.is_alive() and out
    assert out[0].status == "error" and out[0].depends_on_time
    assert "took longer than 0.5 s" in out[0].message


def test_step_time_is_capped(monkeypatch):
    from types import SimpleNamespace

    import verifiers.symbolic.claims as symclaims
    from verifiers.deadline import deadline

    assert symclaims._step_seconds(SimpleNamespace(timeout=3.0)) == 3.0
    assert symclaims._step_seconds(SimpleNamespace(timeout=1e9)) == symclaims.MAX_STEP_SECONDS
    with deadline(1.0):  # never more than what is left of the claim's budget
        assert symclaims._step_seconds(SimpleNamespace(timeout=20.0)) <= 1.0


def test_a_claim_file_cannot_ask_for_more_than_20_s_per_step(tmp_path, capsys):
    from tests.test_engine import check, project
    from verifiers.schema import MAX_STEP_SECONDS
    from verifiers.symbolic.claims import MAX_STEP_SECONDS as STEP

    assert MAX_STEP_SECONDS == STEP == 20
    claim = SLOW_CLAIM + "    timeout: 30\n"
    code, out, data = check(project(tmp_path, claim, SLOW_NOTE), capsys)
    assert code == 1 and "'timeout' is seconds in (0, 20]" in out
