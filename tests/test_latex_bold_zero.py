"""The zero vector ``\\mathbf0`` is 0 in every entry (issue 13: 梯度 $p-\\mathbf y\\to\\mathbf0$).

The reader read it as an opaque name ``0bold``, so a limit "→ 𝟎" could never be checked
against the components it names; ``\\mathbf 1`` (the all-ones vector) stays a name.
"""

from __future__ import annotations

import sympy

from verifiers.latex import parse_latex


def test_the_zero_vector_is_zero():
    assert sympy.simplify(parse_latex(r"p - \mathbf y + \mathbf0")
                          - parse_latex(r"p - \mathbf{y}")) == 0
    assert parse_latex(r"\mathbf{0}") == 0


def test_all_ones_and_a_declared_zero_stay_names():
    assert str(parse_latex(r"\mathbf 1")) == "1bold"
    assert str(parse_latex(r"\mathbf{0}", matrices=["0bold"])) != "0"
