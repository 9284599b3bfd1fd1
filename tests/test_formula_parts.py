"""A fragment the prose names is checked as a part of a formula the claim reads (issue 12 item 2).

``parts: {C: F}``: formula hole C (``$e^{c}$`` in "分子分母都多了同一个因子 $e^{c}$") has no
relation of its own; it must occur, as read, in formula hole F. An edit of the fragment that
makes it another formula is a discrepancy at the fragment, never ``stale``.
"""

from __future__ import annotations

import pytest
import sympy

from tests.test_engine import check, project
from verifiers.formulas.parts import contains
from verifiers.latex import parse_latex

NOTE = """第 3 章：Softmax
3.5 平移
如果把所有分数都加c，则分子分母都多了同一个因子 $e^{c}$ ，它会约去：
\\frac{e^{s_{j} + c}}{\\sum_{r} e^{s_{r} + c}} = \\frac{e^{c} e^{s_{j}}}{e^{c} \\sum_{r} e^{s_{r}}}
这里 $x_{r} - μ$ 是偏差，$\\sqrt{v + ε}$ 是分母：
y_{r} = \\frac{x_{r} - μ + 1}{\\sqrt{v + ε}}
"""

CLAIMS = """note: n.txt
claims:
  - id: shift
    kind: symbolic
    text: |
      同一个因子 $⟪C⟫$ ，它会约去：
      ⟪F⟫
    parts: {C: F}
  - id: glossary
    kind: symbolic
    text: |
      这里 $⟪D⟫$ 是偏差，$⟪S⟫$ 是分母：
      ⟪Y⟫
    define: {y_r: Y}
    parts: {D: Y, S: Y}
"""


def _claims(tmp_path, capsys, note: str = NOTE, claims: str = CLAIMS) -> dict:
    code, out, data = check(project(tmp_path, claims, note), capsys)
    return {c["id"]: c for c in data["claims"]}


def test_fragments_that_are_parts_of_their_formula_verify(tmp_path, capsys):
    by_id = _claims(tmp_path, capsys)
    assert by_id["shift"]["status"] == "verified", by_id["shift"]["message"]
    assert by_id["glossary"]["status"] == "verified", by_id["glossary"]["message"]
    names = {v["name"] for v in by_id["glossary"]["values"]}
    assert {"D.part", "S.part"} <= names


@pytest.mark.parametrize(("cid", "find", "replace", "line"), [
    ("shift", "因子 $e^{c}$", "因子 $e^{-c}$", 3),          # sign flipped
    ("glossary", "$x_{r} - μ$", "$x_{r} + μ$", 5),          # sign flipped in the glossary
    ("glossary", "$\\sqrt{v + ε}$", "$\\sqrt{v - ε}$", 5),  # sign flipped under the root
])
def test_an_edited_fragment_is_a_discrepancy_at_it(tmp_path, capsys, cid, find, replace, line):
    assert NOTE.count(find) == 1
    claim = _claims(tmp_path, capsys, NOTE.replace(find, replace))[cid]
    assert claim["status"] == "discrepancy", claim["message"]
    bad = [v for v in claim["values"] if v["status"] == "discrepancy"]
    assert bad and all(v["name"].endswith(".part") and v["start"]["line"] == line for v in bad)
    assert "is not a part of" in bad[0]["message"]


def test_an_unreadable_fragment_is_unparsed_never_a_pass(tmp_path, capsys):
    claim = _claims(tmp_path, capsys, NOTE.replace("因子 $e^{c}$", "因子 $e^{c$"))["shift"]
    assert claim["status"] in ("unparsed", "stale"), claim["message"]


def test_parts_must_name_two_formula_holes(tmp_path, capsys):
    bad = CLAIMS.replace("parts: {C: F}", "parts: {C: C}")
    code, out, data = check(project(tmp_path, bad, NOTE), capsys)
    assert code != 0 and "parts: C: name a formula hole" in out, out


def test_a_fragment_cut_down_to_a_smaller_part_still_passes(tmp_path, capsys):
    # the known limit of the check: √(v + ε) written as v + ε is still a part of the formula
    claim = _claims(tmp_path, capsys, NOTE.replace("$\\sqrt{v + ε}$", "$v + ε$"))["glossary"]
    assert claim["status"] == "verified"


def test_contains_terms_and_factors_not_other_formulas():
    whole = parse_latex(r"\frac{x_{r} - μ + 1}{\sqrt{v + ε}}", {})
    assert contains(whole, parse_latex(r"x_{r} - μ", {}))      # some terms of a sum
    assert contains(whole, parse_latex(r"\sqrt{v + ε}", {}))   # a subexpression
    assert not contains(whole, parse_latex(r"x_{r} + μ", {}))
    assert not contains(whole, parse_latex(r"v + ε + 1", {}))
    assert contains(sympy.Symbol("a") * sympy.Symbol("b") * 2, sympy.Symbol("a") * 2)
