"""A parenthesised layer or head index ``X^{(1)}``, ``W_{Q}^{(h)}`` is part of the name.

architecture-and-training.txt writes the layers of 7.5 as ``X^{(1)} = F_{1} (X^{(0)})`` and the
heads of 6.4 as ``W_{Q}^{(h)}``. Read as powers, ``X^{(0)}`` was ``1`` and every layer the same
``X`` to some power, so an edit that feeds a layer the wrong input could not be told apart;
and a function named ``F_{1}`` did not read back as written. Expected trees are built with
SymPy constructors, never by parsing a string.
"""

from __future__ import annotations

import sympy

from verifiers.latex import parse_latex, round_trip_ok

LAYERS = ("F_1", "F_2", "F_3")


def _name(text: str) -> sympy.Symbol:
    return sympy.Symbol(text, real=True)


def test_a_layer_index_is_part_of_the_name():
    assert parse_latex("X^{(1)}") == _name("X^(1)")
    assert parse_latex("W_{Q}^{(h)}") == _name("W_Q^(h)")
    assert parse_latex("X^{(0)}") != parse_latex("X^{(1)}")
    for text in ("X^{(1)}", "W_{Q}^{(h)}", "Z^{(H)}"):
        assert round_trip_ok(text, parse_latex(text))


def test_a_layer_call_reads_back_as_written():
    """7.5, line 1365: F_{1} (X^{(0)}) is the call F_1(X^(0)), not F_1 applied to X**0 = 1."""
    text = "F_{3} (F_{2} (F_{1} (X^{(0)})))"
    expr = parse_latex(text, functions=LAYERS)
    f1, f2, f3 = (sympy.Function(n) for n in LAYERS)
    assert expr == f3(f2(f1(_name("X^(0)"))))
    assert round_trip_ok(text, expr, functions=LAYERS)


def test_powers_are_unchanged():
    x, a, b = _name("x"), _name("a"), _name("b")
    assert parse_latex("x^{2}") == sympy.Pow(x, 2, evaluate=False)
    assert parse_latex("x^{(ab)}") == sympy.Pow(x, sympy.Mul(a, b, evaluate=False),
                                                evaluate=False)


def test_a_layer_fed_the_wrong_input_is_caught(tmp_path):
    """The composition of the layers is checked on the names: X^(2) = F_2(X^(0)) (a planted
    error: layer 2 reads the input instead of layer 1) does not give F_3(F_2(F_1(X^(0))))."""
    from tests.test_engine import project
    from verifiers.run import run

    note = ("第 1 章：层\n1.1 复合\n第一层：\nX^{(1)} = F_{1} (X^{(0)})\n第二层：\n"
            "X^{(2)} = F_{2} (X^{(SRC)})\n第三层：\nX^{(3)} = F_{3} (X^{(2)})\n最终形成：\n"
            "X^{(3)} = F_{3} (F_{2} (F_{1} (X^{(0)})))\n")
    claim = """note: n.txt
claims:
  - id: layers
    kind: symbolic
    section: "1.1"
    text: |
      第一层：
      ⟪A⟫
      第二层：
      ⟪B⟫
      第三层：
      ⟪C⟫
      最终形成：
      ⟪F⟫
    define: {'X^(1)': A, 'X^(2)': B, 'X^(3)': C}
    functions: [F_1, F_2, F_3]
"""
    good = run(*_roots(project(tmp_path / "good", claim, note.replace("SRC", "1")))).verdicts
    bad = run(*_roots(project(tmp_path / "bad", claim, note.replace("SRC", "0")))).verdicts
    assert good[0].status == "verified", good[0].message
    assert bad[0].status in ("error", "discrepancy"), bad[0].message


def _roots(root):
    return root / "notes", root / "claims"
