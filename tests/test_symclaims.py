"""Symbolic claims end to end: formulas read from the note, each relation checked."""

from __future__ import annotations

from tests.test_engine import check, project

NOTE = """第 1 章：代数
1.1 展开
平方：(a + b)^{2} = a^{2} + 2 a b + b^{2}
错的：(a + b)^{2} = a^{2} + b^{2}
1.2 定义
令 p = \\frac{e^{w}}{e^{w} + 1}
于是 - 1 + \\frac{e^{w}}{e^{w} + 1} = p - 1
读不懂：\\foo{x} = 1
"""

CLAIMS = """note: n.txt
claims:
  - id: square
    kind: symbolic
    says: the binomial square
    text: 平方：⟪F⟫
  - id: square-wrong
    kind: symbolic
    text: 错的：⟪F⟫
  - id: logistic
    kind: symbolic
    section: "1.2"
    text: |
      令 ⟪P⟫
      于是 ⟪G⟫
    define: {p: P}
  - id: unreadable
    kind: symbolic
    text: 读不懂：⟪F⟫
"""


def test_symbolic_verdicts(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["square"]["status"] == "verified"
    assert by_id["square"]["values"][0]["expected"] == "proved"
    assert by_id["logistic"]["status"] == "verified"
    wrong = by_id["square-wrong"]
    assert wrong["status"] == "discrepancy"
    assert wrong["values"][0]["name"] == "F.step1" and "failed at" in wrong["message"]
    assert by_id["unreadable"]["status"] == "unparsed"
    assert code == 1
    assert data["summary"]["unparsed"] == 1


def test_editing_a_formula_rechecks_it(tmp_path, capsys):
    note = NOTE.replace("+ 2 a b +", "+ 3 a b +")
    code, out, data = check(project(tmp_path, CLAIMS, note), capsys)
    square = next(c for c in data["claims"] if c["id"] == "square")
    assert square["status"] == "discrepancy"


def test_formula_holes_need_kind_symbolic(tmp_path, capsys):
    claims = "note: n.txt\nclaims:\n  - id: x\n    text: 平方：⟪F⟫\n"
    code, out, _ = check(project(tmp_path, claims, NOTE), capsys)
    assert code == 1 and "need kind: symbolic" in out


def test_a_wrong_step_can_be_pinned(tmp_path, capsys):
    pinned = CLAIMS.replace(
        "    text: 错的：⟪F⟫\n",
        "    text: 错的：⟪F⟫\n    known: {F.step1: {printed: '(a + b)^{2} = a^{2} + b^{2}',"
        " expected: failed, why: 'drops 2ab'}}\n")
    pinned = pinned.replace("  - id: unreadable\n    kind: symbolic\n    text: 读不懂：⟪F⟫\n", "")
    code, out, data = check(project(tmp_path, pinned, NOTE), capsys)
    wrong = next(c for c in data["claims"] if c["id"] == "square-wrong")
    assert wrong["status"] == "known" and code == 0, out


def test_approximations_use_printed_precision_and_decimals_are_exact(tmp_path, capsys):
    note = ("好近似：e\\approx2.718\n错近似：e\\approx2.719\n精确：0.1^{400}=10^{-400}\n"
            "无反斜杠：sin(0.0001)\n")
    claims = """note: n.txt
claims:
  - id: e-approx
    kind: symbolic
    text: 好近似：⟪F⟫
  - id: e-wrong
    kind: symbolic
    text: 错近似：⟪F⟫
  - id: exact
    kind: symbolic
    text: 精确：⟪F⟫
  - id: plain-sin
    kind: symbolic
    text: 无反斜杠：⟪F⟫
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"e-approx": "verified", "e-wrong": "discrepancy", "exact": "verified",
                      "plain-sin": "unparsed"}, out


def test_expectations_follow_the_stated_assumptions(tmp_path, capsys):
    note = ("独立时：Var (X + Y) = E [(X + Y)^{2}] = E [X^{2}] + 2 E [X Y] + E [Y^{2}] = 2\n"
            "错误：Var (X + Y) = Var (X) + Var (Y) + 1\n")
    claims = """note: n.txt
claims:
  - id: var-sum
    kind: symbolic
    text: 独立时：⟪F⟫
    assume: {independent: [X, Y], zero_mean: [X, Y], unit_variance: [X, Y]}
  - id: var-wrong
    kind: symbolic
    text: 错误：⟪F⟫
    assume: {independent: [X, Y], zero_mean: [X, Y], unit_variance: [X, Y]}
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"var-sum": "verified", "var-wrong": "discrepancy"}, out


def test_a_defined_function_and_its_derivative(tmp_path, capsys):
    note = ("定义：L (w) = - w + \\ln (e^{w} + 1)\n"
            "求导：\\frac{d L}{d w} = - 1 + \\frac{e^{w}}{e^{w} + 1}\n"
            "错导：\\frac{d L}{d w} = 1 + \\frac{e^{w}}{e^{w} + 1}\n")
    claims = """note: n.txt
claims:
  - id: deriv
    kind: symbolic
    text: |
      定义：⟪L⟫
      求导：⟪D⟫
    define: {L: L}
  - id: deriv-wrong
    kind: symbolic
    text: |
      定义：⟪L⟫
      求导：⟪D0⟫
      错导：⟪D⟫
    define: {L: L}
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"deriv": "verified", "deriv-wrong": "discrepancy"}, out


RESTATE_NOTE = ("省略号：\\sum_{i = 1}^{n} x_{i} = x_{1} + \\dots + x_{n}\n"
                "可读：(a + b)^{2} = a^{2} + 2 a b + b^{2}\n")


def restate_claims(restated: str, reason: str = "the reader does not read \\dots",
                   hole_text: str = "省略号：⟪F⟫") -> str:
    return f"""note: n.txt
claims:
  - id: r
    kind: symbolic
    text: {hole_text}
    restate:
      F: {{as: '{restated}', reason: '{reason}'}}
"""


def test_a_restatement_is_checked_and_counted(tmp_path, capsys):
    claims = restate_claims("\\sum_{i = 1}^{3} x_{i} = x_{1} + x_{2} + x_{3}")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    value = data["claims"][0]["values"][0]
    assert data["claims"][0]["status"] == "verified", out
    assert value["restated"].startswith("\\sum_{i = 1}^{3}")
    assert value["printed"].startswith("\\sum_{i = 1}^{3}")  # the step as restated
    assert "restated: the reader does not read" in value["message"]
    assert data["steps"]["restated"] == 1 and data["steps"]["read"] == 0


def test_a_wrong_restatement_fails(tmp_path, capsys):
    claims = restate_claims("\\sum_{i = 1}^{3} x_{i} = x_{1} + x_{2} - x_{3}")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    assert data["claims"][0]["status"] == "discrepancy" and code == 1


def test_a_readable_formula_cannot_be_restated(tmp_path, capsys):
    claims = restate_claims("a = a", hole_text="可读：⟪F⟫")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    assert data["claims"][0]["status"] == "error"
    assert "reads as written" in data["claims"][0]["message"]


def test_a_restatement_needs_a_reason(tmp_path, capsys):
    claims = restate_claims("a = a", reason="")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    assert code == 1 and "a 'reason' is required" in out and "claims/" in out


MATRIX_NOTE = """15.3 矩阵反传
对于简化模块 $R = X + Z W_{O}, Z = A V$ ，给定 $\\bar{R}$ ：
{\\bar{W}}_{O} = Z^{T} \\bar{R}, \\bar{Z} = \\bar{R} W_{O}^{T}, \\bar{A} = \\bar{Z} V^{T}, \
\\bar{V} = A^{T} \\bar{Z} .
错的：\\bar{V} = \\bar{Z} A^{T} .
"""

MATRIX_CLAIMS = """note: n.txt
claims:
  - id: block
    kind: symbolic
    text: |
      对于简化模块 $⟪D⟫$ ，给定 $\\bar{R}$ ：
      ⟪G⟫
    define: {R: D, Z: D}
    matrices: {X: [2, 3], W_O: [3, 3], A: [2, 2], V: [2, 3]}
    upstream: R
  - id: block-wrong
    kind: symbolic
    text: |
      对于简化模块 $⟪D⟫$ ，给定 $\\bar{R}$ ：
      ⟪G0⟫
      错的：⟪G⟫
    define: {R: D, Z: D}
    matrices: {X: [2, 3], W_O: [3, 3], A: [2, 2], V: [2, 3]}
    upstream: R
"""


def test_matrix_rules_on_an_instance(tmp_path, capsys):
    code, out, data = check(project(tmp_path, MATRIX_CLAIMS, MATRIX_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["block"]["status"] == "verified", out
    assert len(by_id["block"]["values"]) == 4
    assert "X 2×3" in by_id["block"]["values"][0]["message"]
    wrong = by_id["block-wrong"]
    assert wrong["status"] == "discrepancy"
    assert "product of a 2×3 and a 2×2" in wrong["message"] or "shapes" in wrong["message"]


def test_matrix_sizes_are_validated(tmp_path, capsys):
    claims = MATRIX_CLAIMS.replace("X: [2, 3], W_O", "X: [2, 30], W_O", 1)
    code, out, data = check(project(tmp_path, claims, MATRIX_NOTE), capsys)
    assert "[rows, columns], each 1 to 6" in out and code == 1
