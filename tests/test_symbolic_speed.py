"""The symbolic stage's shortcuts change no answer: a gradient is the same tree SymPy
gives, a formula read once reads the same (and an unreadable one stays unreadable), and a
planted error in a matrix rule is still caught."""

from __future__ import annotations

import pytest
import sympy

from verifiers.symbolic import claims, matrixcalc


def _softmax_loss() -> tuple[sympy.Expr, list[sympy.Symbol]]:
    z = sympy.symbols("z1:4", real=True)
    g = sympy.symbols("g1:4", real=True)
    total = sum(sympy.exp(v) for v in z)
    sigma = sympy.Function("sigma")
    loss = sum(gi * sympy.exp(zi) / total for gi, zi in zip(g, z, strict=True))
    return loss + g[0] * sigma(z[1] * z[2]), list(z)


def test_gradient_terms_are_the_trees_sympy_gives() -> None:
    loss, leaves = _softmax_loss()
    derivative = matrixcalc._derivatives_of(loss)
    for x in leaves + [sympy.Symbol("unused", real=True)]:
        assert sympy.srepr(derivative(x)) == sympy.srepr(
            matrixcalc.primed(sympy.diff(loss, x)))


def test_a_planted_gradient_error_is_caught() -> None:
    loss, (z1, z2, z3) = _softmax_loss()
    loss = loss.subs(z3, 0)  # no σ: its values are sampled, a point may miss a difference
    right = matrixcalc._derivatives_of(loss)(z1)
    assert matrixcalc.compare_entries(right, sympy.diff(loss, z1))[0] == matrixcalc.PROVED
    status, detail = matrixcalc.compare_entries(right, sympy.diff(loss, z2))
    assert status == matrixcalc.FAILED and "differ by" in detail


def test_a_formula_read_twice_reads_the_same() -> None:
    first = claims._parse(r"\frac{a}{b} + c")
    assert claims._parse(r"\frac{a}{b} + c") is first
    for _ in range(2):  # unreadable, and again unreadable with the same message
        with pytest.raises(claims._Unparsed, match="cannot read"):
            claims._parse(r"\frac{a}{")


def test_a_read_under_an_expired_deadline_is_not_kept(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """A round trip cut by a deadline says False: such a result must not be reused."""
    monkeypatch.setattr(claims, "remaining", lambda: 0.0)
    claims._parse(r"x^{2} + 7 y")
    assert not any(key[0] == r"x^{2} + 7 y" for key in claims._PARSED)
