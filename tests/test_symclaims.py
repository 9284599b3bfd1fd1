"""Symbolic claims end to end: formulas read from the note, each relation checked."""

from __future__ import annotations

import pytest

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


# ASCII dots: the reader folds a_{1} + \\dots + a_{n} into a sum, never "..." (plain text)
RESTATE_NOTE = ("省略号：\\sum_{i = 1}^{n} x_{i} = x_{1} + ... + x_{n}\n"
                "可读：(a + b)^{2} = a^{2} + 2 a b + b^{2}\n")


def restate_claims(restated: str, reason: str = "the reader does not read ...",
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
    # what the restatement cannot compare with the note, it quotes (restated_words.py)
    claims = restate_claims("\\sum_{i = 1}^{3} x_{i} = x_{1} + x_{2} + x_{3}",
                            reason="the reader does not read \\sum_{i = 1}^{n} x_{i} = x_{1} "
                                   "+ ... + x_{n}")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    value = data["claims"][0]["values"][0]
    assert data["claims"][0]["status"] == "verified", out
    assert value["restated"].startswith("\\sum_{i = 1}^{3}")
    assert value["printed"].startswith("\\sum_{i = 1}^{3}")  # the step as restated
    assert "restated: the reader does not read" in value["message"]
    assert data["steps"]["restated"] == 1 and data["steps"]["read"] == 0


def test_a_restatement_that_does_not_quote_the_note_fails(tmp_path, capsys):
    claims = restate_claims("\\sum_{i = 1}^{3} x_{i} = x_{1} + x_{2} + x_{3}")
    code, out, data = check(project(tmp_path, claims, RESTATE_NOTE), capsys)
    assert data["claims"][0]["status"] == "discrepancy" and code == 1
    assert "does not quote it" in data["claims"][0]["values"][0]["message"]


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


# -- moments without independence, givens, families, continued displays -------------------

MOMENT_NOTE = """第 4 章：方差
4.4 定义
线性：$E [X + Y] = E [X] + E [Y]$ 。
可加：$Var (X + Y) = Var (X) + Var (Y)$ ：需要 $Cov (X, Y) = 0$ 。
例如：E [X] = 2, E [Y] = 3
那么：E [X + Y] = 5
错的：E [X + Y] = 6
必须：Var (X + Y) = E [(X + Y - 5)^{2}]
4.5 求和
那么：
Var (X + Y) = E [(X + Y)^{2}]
展开平方：
= E [X^{2} + 2 X Y + Y^{2}]
利用线性：
= E [X^{2}] + 2 E [X Y] + E [Y^{2}]
错的一行：
= E [X^{2}] + E [Y^{2}]
方差：Var (\\sum_{i = 1}^{n} X_{i}) = n
方差错：Var (\\sum_{i = 1}^{n} X_{i}) = n^{2}
点积：q \\cdot k = \\sum_{i = 1}^{64} q_{i} k_{i}
缩放：SD (\\frac{q \\cdot k}{8}) = 1
未缩放：SD (q \\cdot k) = 1
"""

MOMENT_CLAIMS = """note: n.txt
claims:
  - id: linear
    kind: symbolic
    text: 线性：$⟪F⟫$ 。
  - id: additive-without-condition
    kind: symbolic
    text: 可加：$⟪F⟫$ ：需要
  - id: additive-with-cov
    kind: symbolic
    text: 可加：$⟪F⟫$ ：需要 $⟪C⟫$ 。
    define:
      'Cov (X, Y)': C
  - id: means-given
    kind: symbolic
    text: |
      例如：⟪M⟫
      那么：⟪S⟫
    define:
      E [X]: M
      E [Y]: M
  - id: means-given-wrong
    kind: symbolic
    text: |
      例如：⟪M⟫
      那么：E [X + Y] = 5
      错的：⟪S⟫
    define:
      E [X]: M
      E [Y]: M
  - id: means-given-var
    kind: symbolic
    text: |
      例如：⟪M⟫
      那么：E [X + Y] = 5
      错的：E [X + Y] = 6
      必须：⟪W⟫
    define:
      E [X]: M
      E [Y]: M
  - id: continued
    kind: symbolic
    text: |
      Var (X + Y) = ⟪A⟫
      展开平方：
      ⟪B⟫
      利用线性：
      ⟪C⟫
      错的一行：
  - id: continued-wrong
    kind: symbolic
    text: |
      Var (X + Y) = ⟪A⟫
      展开平方：
      ⟪B⟫
      利用线性：
      ⟪C⟫
      错的一行：
      ⟪D⟫
  - id: continued-skips-a-display
    kind: symbolic
    text: |
      Var (X + Y) = ⟪A⟫
      展开平方：
      = E [X^{2} + 2 X Y + Y^{2}]
      利用线性：
      ⟪C⟫
  - id: family
    kind: symbolic
    text: 方差：⟪F⟫
    assume: {independent: [X_i], unit_variance: [X_i]}
  - id: family-wrong
    kind: symbolic
    text: 方差错：⟪F⟫
    assume: {independent: [X_i], unit_variance: [X_i]}
  - id: family-dependent
    kind: symbolic
    text: 方差：⟪F⟫
    assume: {unit_variance: [X_i]}
  - id: dot
    kind: symbolic
    text: |
      点积：⟪D⟫
      缩放：⟪F⟫
    define: {'q \\cdot k': D}
    assume: {independent: [q_i, k_i], zero_mean: [q_i, k_i], unit_variance: [q_i, k_i]}
  - id: dot-unscaled
    kind: symbolic
    text: |
      点积：⟪D⟫
      缩放：SD (\\frac{q \\cdot k}{8}) = 1
      未缩放：⟪F⟫
    define: {'q \\cdot k': D}
    assume: {independent: [q_i, k_i], zero_mean: [q_i, k_i], unit_variance: [q_i, k_i]}
"""


def test_moments_need_only_what_the_note_states(tmp_path, capsys):
    code, out, data = check(project(tmp_path, MOMENT_CLAIMS, MOMENT_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    status = {k: c["status"] for k, c in by_id.items()}
    assert status == {
        "linear": "verified",  # linearity: no assumption at all
        "additive-without-condition": "discrepancy",  # the counterexample: Cov ≠ 0
        "additive-with-cov": "verified",  # Cov (X, Y) = 0 is enough, no independence
        "means-given": "verified", "means-given-wrong": "discrepancy",
        "means-given-var": "verified",
        "continued": "verified", "continued-wrong": "discrepancy",  # the 2 E [X Y] dropped
        "continued-skips-a-display": "unparsed",  # `=` continues the display it follows
        "family": "verified", "family-wrong": "discrepancy",
        "family-dependent": "error",  # Var of a sum of dependent terms is not computed
        "dot": "verified", "dot-unscaled": "discrepancy",  # SD (q·k) = 8, not 1
    }, out
    assert "E[X*Y]" in by_id["additive-without-condition"]["message"]
    assert [v["name"] for v in by_id["continued"]["values"]] == ["B.step1", "C.step1"]
    assert "E [(X + Y)^{2}] = E [X^{2} + 2 X Y + Y^{2}]" in by_id["continued"]["values"][0][
        "printed"]
    assert [(v["name"], v["status"]) for v in by_id["continued-wrong"]["values"]] == [
        ("B.step1", "verified"), ("C.step1", "verified"), ("D.step1", "discrepancy")]


# --------------------------------------------------------------- limits and intervals

BOUNDS_NOTE = """1.1 极限
单侧：\\lim_{T \\to 0^{+}} e^{- z_{2} / T} = 0
错的极限：\\lim_{T \\to 0^{+}} e^{- z_{2} / T} = 1
无穷一：\\lim_{T \\to \\infty} \\frac{z_{1} - z_{2}}{T} = 0
无穷二：\\lim_{T \\to \\infty} e^{(z_{1} - z_{2}) / T} = 0
1.2 区间
梯度：p_{1} - y_{1} \\in [-1, 1]
错的区间：p_{1} - y_{1} \\in [0, 1]
符号一：p_{1} - y_{1} \\le 1
符号二：x^{2} \\ge x
开区间：e^{x} \\in (0, 1]
"""

BOUNDS_CLAIMS = """note: n.txt
claims:
  - id: lim
    kind: symbolic
    text: 单侧：⟪F⟫
    assume: {positive: [z_2]}
  - id: lim-wrong
    kind: symbolic
    text: 错的极限：⟪F⟫
    assume: {positive: [z_2]}
  - id: lim-inf
    kind: symbolic
    text: 无穷一：⟪F⟫
  - id: lim-inf-wrong
    kind: symbolic
    text: 无穷二：⟪F⟫
  - id: in
    kind: symbolic
    text: 梯度：⟪F⟫
    assume: {sum_to_one: [p_2, p_1], one_hot: [y_1, y_2]}
  - id: in-wrong
    kind: symbolic
    text: 错的区间：⟪F⟫
    assume: {sum_to_one: [p_2, p_1], one_hot: [y_1, y_2]}
  - id: le
    kind: symbolic
    text: 符号一：⟪F⟫
    assume: {sum_to_one: [p_2, p_1], one_hot: [y_1, y_2]}
  - id: ge-wrong
    kind: symbolic
    text: 符号二：⟪F⟫
  - id: open-wrong
    kind: symbolic
    text: 开区间：⟪F⟫
"""


def test_limits_and_intervals(tmp_path, capsys):
    code, out, data = check(project(tmp_path, BOUNDS_CLAIMS, BOUNDS_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    status = {k: c["status"] for k, c in by_id.items()}
    assert status == {
        "lim": "verified", "lim-wrong": "discrepancy",  # planted: e^{-x/T} -> 1
        "lim-inf": "verified", "lim-inf-wrong": "discrepancy",  # planted: e^0 = 1, not 0
        "in": "verified", "in-wrong": "discrepancy",  # planted: [0, 1] misses p_y - 1 < 0
        "le": "verified", "ge-wrong": "discrepancy", "open-wrong": "discrepancy",
    }, out
    assert by_id["lim"]["values"][0]["expected"] == "proved"
    assert by_id["in"]["values"][0]["expected"] in ("proved", "numeric evidence")
    # a failure names the step, the end of the interval and a point where it fails
    wrong = by_id["in-wrong"]["message"]
    assert "lower end 0 <= p_1 - y_1" in wrong and "y_1=1" in wrong, wrong
    assert "failed at x=" in by_id["ge-wrong"]["message"]
    assert "upper end" in by_id["open-wrong"]["message"]
    assert "the limit is 1" in by_id["lim-inf-wrong"]["message"], out
    assert "the limit is 0" in by_id["lim-wrong"]["message"], out
    # without z_2 > 0 the sign of -z_2/T is unknown and the limit is not 0: not proved
    unsigned = BOUNDS_CLAIMS.replace("    text: 单侧：⟪F⟫\n    assume: {positive: [z_2]}\n",
                                     "    text: 单侧：⟪F⟫\n")
    code, out, data = check(project(tmp_path / "unsigned", unsigned, BOUNDS_NOTE), capsys)
    assert next(c for c in data["claims"] if c["id"] == "lim")["status"] != "verified", out


def test_a_lim_compares_with_a_side_without_a_limit(tmp_path, capsys):
    note = "1.1 极限\n两边：\\lim_{x \\to 0^{+}} x = \\lim_{x \\to 0^{-}} x\n"
    claims = "note: n.txt\nclaims:\n  - id: both\n    kind: symbolic\n    text: 两边：⟪F⟫\n"
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert data["claims"][0]["status"] == "error" and "other side has no limit" in out, out


# --------------------------------------------------------------- plain-text formulas

PE_NOTE = """第 1 章：输入
1.4 位置编码
PE(pos, 2i) = sin(pos / 10000^(2i/d_model))
具体计算（d_model = 4，故 i = 0, 1）：
PE(1, 0) = sin(1 / 10000^0) = sin(1) ≈ 0.8415
--
PE(1, 2) = sin(1 / 10000^2) = sin(0.0001)≈ 0.0001
--
PE(2, 2) = sin(2 / 10000^(1/2)) = sin(0.02)≈ 0.0200
--
PE(2, 1) = sin(2 / 10000^0) = sin(2) ≈ 0.9093
第 3 章：分数
3.2 缩放
如果 d_k = 64，√d_k = 8
"""

PE_CLAIMS = """note: n.txt
claims:
  - id: pe
    kind: symbolic
    section: "1.4"
    text: |
      ⟪F⟫
      具体计算（⟪D⟫，故 i = 0, 1）：
      ⟪P10⟫
      --
      ⟪P12⟫
      --
      ⟪P22⟫
      --
      ⟪P21⟫
    define: {PE: F, d_model: D}
    functions: [sin]
    assume: {integer: [pos, i]}
  - id: sqrt
    kind: symbolic
    text: 如果 ⟪D⟫，⟪F⟫
    define: {d_k: D}
"""


def test_the_plain_text_pe_formula_is_applied_line_by_line(tmp_path, capsys):
    # matrix-by-matrix 1.4: the formula (plain text) defines PE(pos, 2i); each printed line
    # is checked against it. :66 uses 10000^2 for i = 1 (the formula gives 10000^0.5) and
    # writes 1/10000^2 as 0.0001; the corrected line passes; PE(2, 1) is an odd dimension,
    # which the sin formula does not define (2i = 1 has no integer i).
    code, out, data = check(project(tmp_path, PE_CLAIMS, PE_NOTE), capsys)
    pe = next(c for c in data["claims"] if c["id"] == "pe")
    steps = {v["name"]: (v["status"], v["expected"]) for v in pe["values"]}
    assert steps["P10.step1"] == ("verified", "proved")
    assert steps["P10.step3"] == ("verified", "numeric evidence")
    assert steps["P12.step1"] == ("discrepancy", "failed")  # the exponent: 2 instead of 0.5
    assert steps["P12.step2"] == ("discrepancy", "failed")  # 1/10000^2 is not 0.0001
    assert steps["P12.step3"] == ("verified", "numeric evidence")
    assert all(steps[f"P22.step{k}"][0] == "verified" for k in (1, 2, 3)), steps
    assert steps["P21.step1"][0] != "verified"  # PE(2, 1) stays undefined: never a pass
    assert next(c for c in data["claims"] if c["id"] == "sqrt")["status"] == "verified", out
    # planted: with d_k = 49, √d_k is 7, not 8
    note = PE_NOTE.replace("d_k = 64", "d_k = 49")
    code, out, data = check(project(tmp_path / "49", PE_CLAIMS, note), capsys)
    sqrt = next(c for c in data["claims"] if c["id"] == "sqrt")
    assert sqrt["status"] == "discrepancy" and "step 1" in sqrt["message"], out


VARIANCE_NOTE = """第 3 章：分数
3.2 缩放
除以 √d_k 后：
- 点积方差归一化为 1
除以 d_k 后：
- 点积方差归一化为 1
"""

VARIANCE_CLAIMS = """note: n.txt
claims:
  - id: scaled
    kind: symbolic
    text: |
      除以 √d_k 后：
      - ⟪V⟫为 1
    assume: {positive: [d_k], independent: [q_i, k_i], zero_mean: [q_i, k_i],
             unit_variance: [q_i, k_i]}
    restate:
      V: {as: 'Var (\\frac{1}{\\sqrt{d_{k}}} \\sum_{i = 1}^{d_{k}} q_{i} k_{i}) = 1',
          reason: 'in words'}
  - id: scaled-by-dk
    kind: symbolic
    text: |
      除以 d_k 后：
      - ⟪V⟫为 1
    assume: {positive: [d_k], independent: [q_i, k_i], zero_mean: [q_i, k_i],
             unit_variance: [q_i, k_i]}
    restate:
      V: {as: 'Var (\\frac{1}{d_{k}} \\sum_{i = 1}^{d_{k}} q_{i} k_{i}) = 1',
          reason: 'in words'}
"""


def test_why_divide_by_the_square_root(tmp_path, capsys):
    # matrix-by-matrix 3.2: Var(q·k / √d_k) = 1 for d_k independent standard-normal pairs;
    # planted: dividing by d_k (a missing square root) leaves 1/d_k, not 1
    code, out, data = check(project(tmp_path, VARIANCE_CLAIMS, VARIANCE_NOTE), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"scaled": "verified", "scaled-by-dk": "discrepancy"}, out


# ------------------------------------------ lesson1: indices, shapes, limits, primes, Taylor
# Each line is the note's real line (lesson1 §0-§7) under a "对" prefix, and a planted error
# under a "错" prefix: a swapped index, a wrong sign, a wrong transpose, a missing square.

LESSON1_LINES = {
    # name: (correct line, planted line, claim text with {p} for the prefix, extra YAML)
    "row-sum": (  # §5 :188, Σ p = 1 used inside an unbounded sum
        "$\\sum_jp_i(\\delta_{ij}-p_j)=p_i-p_i\\sum_jp_j=0$",
        "$\\sum_jp_i(\\delta_{ij}-p_j)=p_i+p_i\\sum_jp_j=0$",
        "{p}：$⟪F⟫$", "assume: {integer: [i, j], sum_to_one: [p_1, p_2, p_3]}"),
    "one-hot": (  # §6 :213 step (4)
        "$\\sum_i\\mathbf y_i\\delta_{ij}=\\mathbf y_j$",
        "$\\sum_i\\mathbf y_i\\delta_{ij}=\\mathbf y_i$",
        "{p}：$⟪F⟫$", "assume: {integer: [i, j], one_hot: [ybold_1, ybold_2, ybold_3]}"),
    "entry-derivative": (  # §7 :246 (a): a derivative by an entry, the bound k vs the free k
        "$z_j=\\sum_kx_k(W_U)_{kj}$，所以 $\\dfrac{\\partial z_j}{\\partial(W_U)_{kl}}=x_k\\,"
        "\\delta_{jl}$。",
        "$z_j=\\sum_kx_k(W_U)_{kj}$，所以 $\\dfrac{\\partial z_j}{\\partial(W_U)_{kl}}=x_l\\,"
        "\\delta_{jk}$。",
        "{p}：$⟪Z⟫$，所以 $⟪D⟫$。", "define: {z_j: Z}\n    assume: {integer: [j, k, l]}"),
    "orthogonal": (  # §2 :79 with :92's components and the hypothesis i ≠ j
        "对任意 $i\\ne j$，$e_i\\cdot e_j=\\sum_k\\delta_{ik}\\delta_{jk}=0$，而且 "
        "$\\lVert e_i-e_j\\rVert=\\sqrt2$，$(e_i)_m=\\delta_{im}$。",
        "对任意 $i\\ne j$，$e_i\\cdot e_j=\\sum_k\\delta_{ik}\\delta_{jk}=0$，而且 "
        "$\\lVert e_i-e_j\\rVert=2$，$(e_i)_m=\\delta_{im}$。",
        "{p}：对任意 $⟪C⟫$，$⟪D⟫$，而且 $⟪N⟫$，$⟪O⟫$。",
        "define: {i: C, e_i: O}\n    assume: {integer: [i, j, k, m]}"),
    "lookup": (  # §2 :95, a one-hot row picks a row (planted: a column)
        "$(e_i)_m=\\delta_{im}$，所以 $e_i^\\top E=E_{i,:}$。",
        "$(e_i)_m=\\delta_{im}$，所以 $e_i^\\top E=E_{:,i}$。",
        "{p}：$⟪O⟫$，所以 $⟪F⟫$。", "define: {e_i: O}\n    assume: {integer: [i, m]}"),
    "outer": (  # §5 :188 (planted: p^T p, a number, has no entry (1, 2))
        "$(pp^\\top)_{ij}=p_ip_j$", "$(p^\\top p)_{ij}=p_ip_j$",
        "{p}：$⟪F⟫$", "assume: {integer: [i, j]}"),
    "batch": (  # §7 :262 (planted: X without its transpose)
        "$(X^\\top G)_{kl}=\\sum_bX_{bk}G_{bl}$", "$(X^\\top G)_{kl}=\\sum_bX_{kb}G_{bl}$",
        "{p}：$⟪F⟫$", "assume: {integer: [b, k, l]}"),
    "shape": (  # §7 :248 (planted: inner sizes that do not fit)
        "$(d\\times1)(1\\times V)=d\\times V$", "$(d\\times1)(V\\times1)=d\\times V$",
        "{p}：$⟪F⟫$", ""),
    "limit": (  # §5 :171, T → 0⁺ with z_j - z_k < 0 (planted: the wrong limits)
        "$T\\to0^+$，$z_j-z_k\\lt0$，于是 $(z_j-z_k)/T\\to-\\infty$，$e^{(z_j-z_k)/T}\\to0$",
        "$T\\to0^+$，$z_j-z_k\\lt0$，于是 $(z_j-z_k)/T\\to+\\infty$，$e^{(z_j-z_k)/T}\\to1$",
        "{p}：$⟪V⟫$，$⟪H⟫$，于是 $⟪A⟫$，$⟪B⟫$", "define: {T: V, z_j: H}"),
    "quotient": (  # §5 :182, primes (planted: a dropped minus sign)
        "$(u/v)'=(u'v-uv')/v^2$", "$(u/v)'=(u'v+uv')/v^2$",
        "{p}：$⟪F⟫$", "functions: [u, v]"),
    "taylor": (  # §7 :266, first order in η (planted: a wrong sign)
        "$\\bar L(\\theta-\\eta\\nabla)\\approx\\bar L(\\theta)-\\eta\\lVert\\nabla\\rVert^2$，"
        "其中 $\\nabla=\\partial\\bar L/\\partial\\theta$。只要 $\\eta$ 足够小",
        "$\\bar L(\\theta-\\eta\\nabla)\\approx\\bar L(\\theta)+\\eta\\lVert\\nabla\\rVert^2$，"
        "其中 $\\nabla=\\partial\\bar L/\\partial\\theta$。只要 $\\eta$ 足够小",
        "{p}：$⟪F⟫$，其中 $⟪N⟫$。只要 $⟪S⟫$ 足够小",
        "define: {nabla: N, eta: S}\n    functions: [Lbar]"),
}


def lesson1_project(tmp_path, names, drop: str = "", replace: tuple[str, str] = ("", "")):
    """A note of the named lines and their claims; ``drop`` removes text from each claim's
    extra keys, ``replace`` = (old, new) edits the claims (e.g. a hole back into text)."""
    note, claims = [], ["note: n.txt", "claims:"]
    for name in names:
        good, bad, text, extra = LESSON1_LINES[name]
        for prefix, line in ((f"{name}-ok", good), (f"{name}-bad", bad)):
            note.append(f"{prefix}：{line}")
            claims += [f"  - id: {prefix}", "    kind: symbolic",
                       f"    text: |\n      {text.format(p=prefix)}"]
            if extra:
                claims.append("    " + extra.replace(drop, "") if drop else "    " + extra)
    text = "\n".join(claims) + "\n"
    if replace[0]:
        text = text.replace(*replace)
    return project(tmp_path, text, "\n".join(note) + "\n")


def test_lesson1_new_kinds_of_steps_pass_and_planted_errors_fail(tmp_path, capsys):
    code, out, data = check(lesson1_project(tmp_path, LESSON1_LINES), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    for name in LESSON1_LINES:
        ok, bad = by_id[f"{name}-ok"], by_id[f"{name}-bad"]
        assert ok["status"] == "verified", (name, ok["message"])
        assert all(v["expected"] == "proved" for v in ok["values"]), (name, ok["values"])
        assert bad["status"] == "discrepancy", (name, bad["message"])
    # failures name the index case or the point where the sides differ
    assert "case i=1, j=1" in by_id["one-hot-bad"]["message"] or "case" in by_id[
        "one-hot-bad"]["message"]
    assert "inner sizes 1 and V differ" in by_id["shape-bad"]["message"]
    assert "does not exist" in by_id["outer-bad"]["message"]
    assert "u'=" in by_id["quotient-bad"]["message"]
    assert "on N = 3, in each of the 27 index cases" in by_id["entry-derivative-ok"][
        "values"][0]["message"]


def test_the_hypothesis_i_ne_j_is_needed(tmp_path, capsys):
    # without "i \ne j" the case i = j is checked too, where e_i·e_i = 1 and ‖e_i - e_i‖ = 0
    root = lesson1_project(tmp_path, ["orthogonal"], drop="i: C, ",
                           replace=("对任意 $⟪C⟫$", "对任意 $i\\ne j$"))
    code, out, data = check(root, capsys)
    ok = next(c for c in data["claims"] if c["id"] == "orthogonal-ok")
    assert ok["status"] == "discrepancy" and "i=1, j=1" in ok["message"], ok["message"]


def test_a_limit_needs_its_variable(tmp_path, capsys):
    root = lesson1_project(tmp_path, ["limit"], drop="T: V, ", replace=("$⟪V⟫，", "$T\\to0^+$，"))
    code, out, data = check(root, capsys)
    ok = next(c for c in data["claims"] if c["id"] == "limit-ok")
    assert ok["status"] == "error" and "define: {T:" in ok["message"], ok["message"]


CHAIN = "p_{θ} (t_{2}, t_{3}, t_{4} ∣ t_{1}) = p_{θ} (t_{2} ∣ t_{1}) "
CALCULUS_NOTE = """第 11 章：链
11.7 链式
链式：""" + CHAIN + """p_{θ} (t_{3} ∣ t_{1}, t_{2}) p_{θ} (t_{4} ∣ t_{1}, t_{2}, t_{3})
漏掉：""" + CHAIN + """p_{θ} (t_{3} ∣ t_{2}) p_{θ} (t_{4} ∣ t_{3})
独热 $r_{w} = 1_{w = y}$ ：L_{i} = - \\sum_{w} r_{w} \\ln p_{i, w} = - \\ln p_{i, y} .
独热错 $r_{w} = 1_{w = y}$ ：L_{i} = - \\sum_{w} r_{w} \\ln p_{i, w} = - \\ln p_{i, w} .
设 $D = \\sum_{r} e^{s_{r}}$ ， $a_{j} = e^{s_{j}} / D$ ：
自己：\\frac{\\partial a_{j}}{\\partial s_{j}} = a_{j} (1 + a_{j}) .
别的：\\frac{\\partial a_{j}}{\\partial s_{k}} = a_{j} a_{k}, k \\neq j .
12.6 展开
一阶：L (θ - η g) = L (θ) - η ‖ g ‖^{2} + o (η), g = \\nabla L (θ) .
错号：L (θ - η g) = L (θ) + η ‖ g ‖^{2} + o (η), g = \\nabla L (θ) .
无平方：L (θ - η g) = L (θ) - η ‖ g ‖ + o (η), g = \\nabla L (θ) .
"""

CALCULUS_CLAIMS = """note: n.txt
claims:
  - id: chain
    kind: symbolic
    text: 链式：⟪F⟫
    functions: [p_theta]
  - id: chain-dropped
    kind: symbolic
    timeout: 1
    text: 漏掉：⟪F⟫
    functions: [p_theta]
  - id: one-hot
    kind: symbolic
    text: 独热 $⟪R⟫$ ：L_{i} = ⟪F⟫
    define: {r_w: R}
    assume: {integer: [w, y, i]}
  - id: one-hot-wrong
    kind: symbolic
    timeout: 1
    text: 独热错 $⟪R⟫$ ：L_{i} = ⟪F⟫
    define: {r_w: R}
    assume: {integer: [w, y, i]}
  - id: own-wrong
    kind: symbolic
    timeout: 1
    text: |
      设 $⟪D⟫$ ， $⟪A⟫$ ：
      自己：⟪F⟫
    define: {D: D, a_j: A}
    assume: {integer: [j, k]}
  - id: other-wrong
    kind: symbolic
    timeout: 1
    text: |
      设 $⟪D⟫$ ， $⟪A⟫$ ：
      自己：\\frac{\\partial a_{j}}{\\partial s_{j}} = a_{j} (1 + a_{j}) .
      别的：⟪G⟫, ⟪H⟫
    define: {D: D, a_j: A, k: H}
    assume: {integer: [j, k]}
  - id: first-order
    kind: symbolic
    text: 一阶：⟪F⟫, ⟪G⟫ .
    define: {g: G}
    functions: [L, o]
  - id: first-order-sign
    kind: symbolic
    timeout: 1
    text: 错号：⟪F⟫, ⟪G⟫ .
    define: {g: G}
    functions: [L, o]
  - id: first-order-square
    kind: symbolic
    timeout: 1
    text: 无平方：⟪F⟫, ⟪G⟫ .
    define: {g: G}
    functions: [L, o]
"""


def test_conditionals_index_formulas_and_first_order(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CALCULUS_CLAIMS, CALCULUS_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    status = {k: c["status"] for k, c in by_id.items()}
    assert status == {
        "chain": "verified", "chain-dropped": "discrepancy",  # p(t3 ∣ t2) is not p(t3 ∣ t1, t2)
        "one-hot": "verified", "one-hot-wrong": "discrepancy",  # p_{i, y} read as an entry
        "own-wrong": "discrepancy", "other-wrong": "discrepancy",  # a_j (1 + a_j), + a_j a_k
        "first-order": "verified", "first-order-sign": "discrepancy",
        "first-order-square": "discrepancy",
    }, out
    assert by_id["chain"]["values"][0]["expected"] == "proved"
    assert "first order in eta" in by_id["first-order"]["values"][0]["message"]


def test_linear_combinations_of_vectors(tmp_path, capsys):
    note = ("组合：v_{1} = (2, 0), v_{2} = (0, 2)\n"
            "z = 0.5 v_{1} + 0.25 v_{2}\n"
            "代入：\\begin{aligned} z & = 0.5 (2, 0) + 0.25 (0, 2) \\\\ = (1, 0.5) \\end{aligned}\n"
            "错：0.5 (2, 0) + 0.25 (0, 2) = (1, 0.25)\n"
            "混：0.5 (2, 0) + 0.25 (0, 2) = 1.5\n")
    claims = """note: n.txt
claims:
  - id: vectors
    kind: symbolic
    text: |
      组合：⟪V⟫
      ⟪Z⟫
      代入：⟪F⟫
    define: {v_1: V, v_2: V, z: Z}
  - id: vectors-wrong
    kind: symbolic
    text: 错：⟪F⟫
  - id: vector-number
    kind: symbolic
    text: 混：⟪F⟫
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert {k: c["status"] for k, c in by_id.items()} == {
        "vectors": "verified", "vectors-wrong": "discrepancy", "vector-number": "discrepancy"}
    assert len(by_id["vectors"]["values"]) == 2
    assert "one shape" in by_id["vector-number"]["message"]


# Real lines of architecture-and-training 15.3 and 15.5 (:2840-2846, :2882-2902): entry rules,
# definitions the note states in words (restated with a reason), and the LayerNorm backward.
RULES_NOTE = """15.3 反传
对允许的注意力分数，用Softmax各导数汇总：
{\\bar{S}}_{i j} = a_{i j} ({\\bar{A}}_{i j} - \\sum_{r \\in J_{i}} a_{i r} {\\bar{A}}_{i r}) .
被禁止位置梯度为0。然后：
\\bar{Q} = \\bar{S} K / \\sqrt{d_{k}}, \\bar{K} = {\\bar{S}}^{T} Q / \\sqrt{d_{k}},
15.5 LayerNorm
对一行x，LayerNorm先定义均值μ和平方偏差平均v：
μ = \\frac{1}{d} \\sum_{r} x_{r}, v = \\frac{1}{d} \\sum_{r} (x_{r} - μ)^{2} .
再逐坐标计算：
LN (x)_{r} = γ_{r} \\frac{x_{r} - μ}{\\sqrt{v + ε}} + β_{r} .
令 $s = \\sqrt{v + ε}$ 、 $\\hat{x} = (x - μ) / s$ ，已知输出梯度g，令 $u = g ⊙ γ$ ，可整理为：
\\bar{x} = \\frac{1}{s} [u - mean (u) 1 - \\hat{x} mean (u ⊙ \\hat{x})] .
"""

RULES_CLAIMS = """note: n.txt
claims:
  - id: scores
    kind: symbolic
    text: |
      对允许的⟪PS⟫，⟪PA⟫各导数汇总：
      ⟪GS⟫
      被禁止位置梯度为0。然后：
      ⟪GQ⟫
    define: {S: PS, A: PA}
    restate:
      PS: {as: 'S = Q K^{T} / \\sqrt{d_{k}}', reason: 'the scores, named in words'}
      PA: {as: 'A = softmax (S)', reason: 'Softmax of each row, in words'}
    matrices: {Q: [2, 1], K: [3, 1]}
    upstream: A
  - id: layernorm
    kind: symbolic
    text: |
      对⟪PD⟫，LayerNorm先定义均值μ和平方偏差平均v：
      ⟪M⟫
      再逐坐标计算：
      ⟪N⟫
      令 $⟪S⟫$ 、 $⟪H⟫$ ，⟪PG⟫，令 $⟪U⟫$ ，可整理为：
      ⟪G⟫
    define: {d: PD, mu: M, v: M, y: N, s: S, xhat: H, g: PG, u: U}
    restate:
      PD: {as: 'd = 3', reason: 'the instance: d = 3 coordinates'}
      N: {as: 'y_{r} = γ_{r} \\frac{x_{r} - μ}{\\sqrt{v + ε}} + β_{r}', reason: 'LN (x)_{r}'}
      PG: {as: 'g = \\bar{y}', reason: 'the output gradient, in words'}
    matrices: {x: [1, 3], gamma: [1, 3], beta: [1, 3]}
    upstream: y
"""


def test_entry_rules_and_definitions_in_words(tmp_path, capsys):
    code, out, data = check(project(tmp_path, RULES_CLAIMS, RULES_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["scores"]["status"] == "verified", out
    assert len(by_id["scores"]["values"]) == 3  # S̄_ij, Q̄, K̄
    assert "restated: the scores, named in words" in by_id["scores"]["values"][0]["message"]
    assert by_id["layernorm"]["status"] == "verified", out
    assert by_id["layernorm"]["values"][0]["expected"] == "proved"
    # the steps themselves are read from the note, on restated definitions
    assert all(v["restated"] is None for v in by_id["layernorm"]["values"])
    assert code == 0


@pytest.mark.parametrize(("old", "new", "claim"), [
    ("({\\bar{A}}_{i j} - \\sum", "({\\bar{A}}_{i j} + \\sum", "scores"),  # a sign
    ("a_{i j} ({\\bar{A}}_{i j}", "a_{i j} (1 + {\\bar{A}}_{i j}", "scores"),  # a_j (1 + ..)
    ("\\bar{S} K / \\sqrt{d_{k}},", "\\bar{S} K,", "scores"),  # a missing 1/√d_k
    ("{\\bar{S}}^{T} Q", "\\bar{S} Q", "scores"),  # a missing transpose (shapes)
    ("[u - mean (u) 1 - \\hat{x}", "[u - \\hat{x}", "layernorm"),  # a dropped term
    ("\\bar{x} = \\frac{1}{s} [", "\\bar{x} = \\frac{1}{s^{2}} [", "layernorm"),
])
def test_planted_errors_in_entry_rules_and_layernorm(tmp_path, capsys, old, new, claim):
    assert RULES_NOTE.count(old) == 1
    code, out, data = check(project(tmp_path, RULES_CLAIMS, RULES_NOTE.replace(old, new)),
                            capsys, "-k", claim)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id[claim]["status"] == "discrepancy", out
    assert code == 1


def test_a_readable_definition_cannot_be_restated(tmp_path, capsys):
    claims = RULES_CLAIMS.replace("define: {d: PD, mu: M,", "define: {d: PD, mu: M,").replace(
        "      PD: {as: 'd = 3', reason: 'the instance: d = 3 coordinates'}",
        "      PD: {as: 'd = 3', reason: 'the instance: d = 3 coordinates'}\n"
        "      M: {as: 'μ = 0, v = 1', reason: 'planted: the note prints these'}")
    code, out, data = check(project(tmp_path, claims, RULES_NOTE), capsys, "-k", "layernorm")
    layernorm = next(c for c in data["claims"] if c["id"] == "layernorm")
    assert layernorm["status"] == "error" and "reads as written" in layernorm["message"]


def test_an_entry_of_a_matrix_product(tmp_path, capsys):
    note = ("对：(Q K^{T})_{i j} = \\sum_{r = 1}^{d_{k}} Q_{i r} K_{j r} .\n"
            "乘：(A V)_{i u} = \\sum_{j = 1}^{n} a_{i j} V_{j u} .\n"
            "转置错：(Q K^{T})_{i j} = \\sum_{r = 1}^{d_{k}} Q_{i r} K_{r j} .\n"
            "下标错：(A V)_{i u} = \\sum_{j = 1}^{n} a_{j i} V_{j u} .\n")
    sizes = "    matrices: {Q: [2, 3], K: [2, 3], A: [2, 2], V: [2, 3]}\n"
    claims = "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {cid}\n    kind: symbolic\n    text: {label}：⟪F⟫\n" + sizes
        for cid, label in (("qk", "对"), ("av", "乘"), ("qk-transpose", "转置错"),
                           ("av-index", "下标错")))
    code, out, data = check(project(tmp_path, claims, note), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"qk": "verified", "av": "verified", "qk-transpose": "discrepancy",
                      "av-index": "discrepancy"}, out


# ---------------------------------------------- issue 13.1: no vacuous proof over undefined names

VACUOUS_NOTE = """第 1 章
1.1 误差之和
总误差 E = E_{1} + E_{2}
求导 DE = DE1 + DE2
错的 DE = DE1 + DE2 - 7 DE2
1.2 负对数
概率 p = \\frac{e^{w}}{e^{w} + 1}
损失 L (w) = - \\ln (\\frac{e^{w}}{e^{w} + 1})
梯度 \\frac{d L}{d w} = - 1 + \\frac{e^{w}}{e^{w} + 1} = - 1 + p
改坏的导数 \\frac{d L}{d w} = - 1 + \\frac{e^{w}}{e^{w} + 1} - 7 \\frac{d L}{d w}
少一项 \\frac{d L}{d w} = \\frac{e^{w}}{e^{w} + 1}
1.3 链式法则
复合微分 \\frac{d y}{d x} = \\frac{d y}{d u} \\frac{d u}{d x}
错链式 \\frac{d y}{d x} = \\frac{d y}{d u} \\frac{d u}{d x} - 7 \\frac{d y}{d x}
""".replace("DE1", "\\frac{\\partial E_{1}}{\\partial out_{o1}}").replace(
    "DE2", "\\frac{\\partial E_{2}}{\\partial out_{o1}}").replace(
    "DE", "\\frac{\\partial E}{\\partial out_{o1}}")


def _vacuous_claim(cid: str, text: str, define: str = "", functions: str = "") -> str:
    body = "".join(f"      {line}\n" for line in text.splitlines())
    out = f"  - id: {cid}\n    kind: symbolic\n    text: |\n{body}"
    if define:
        out += f"    define: {define}\n"
    if functions:
        out += f"    functions: {functions}\n"
    return out


VACUOUS_CLAIMS = "note: n.txt\nclaims:\n" + "".join([
    _vacuous_claim("sum-undefined", "求导 ⟪F⟫"),
    _vacuous_claim("sum-defined", "总误差 ⟪D⟫\n求导 ⟪F⟫", "{E: D}"),
    _vacuous_claim("sum-broken-defined", "错的 ⟪F⟫\n1.2", "{E: D}").replace(
        "      错的", "      总误差 ⟪D⟫\n      求导 ⟪X⟫\n      错的"),
    _vacuous_claim("sum-broken-undefined", "错的 ⟪F⟫"),
    _vacuous_claim("grad-defined", "概率 ⟪P⟫\n损失 ⟪L⟫\n梯度 ⟪G⟫", "{p: P, L: L}", "[L]"),
    _vacuous_claim("grad-broken-defined", "概率 ⟪P⟫\n损失 ⟪L⟫\n梯度 ⟪G⟫\n改坏的导数 ⟪B⟫",
                   "{p: P, L: L}", "[L]"),
    _vacuous_claim("grad-dropped-defined",
                   "概率 ⟪P⟫\n损失 ⟪L⟫\n梯度 ⟪G⟫\n改坏的导数 ⟪B⟫\n少一项 ⟪S⟫",
                   "{p: P, L: L}", "[L]"),
    _vacuous_claim("grad-undefined", "梯度 ⟪G⟫"),
    _vacuous_claim("grad-broken-undefined", "改坏的导数 ⟪B⟫"),
    _vacuous_claim("chain-undefined", "复合微分 ⟪C⟫"),
    _vacuous_claim("chain-broken-undefined", "错链式 ⟪C⟫"),
])


def _vacuous(tmp_path, capsys):
    code, out, data = check(project(tmp_path, VACUOUS_CLAIMS, VACUOUS_NOTE), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    values = {(c["id"], v["name"]): v for c in data["claims"] for v in c["values"]}
    return by_id, values


def test_derivatives_of_undefined_names_are_never_those_of_constants(tmp_path, capsys):
    by_id, values = _vacuous(tmp_path, capsys)
    # the example: without a definition, ∂E/∂out = ∂E₁/∂out + ∂E₂/∂out is not 0 = 0 + 0
    step = values[("sum-undefined", "F.step1")]
    assert step["status"] == "discrepancy", step
    assert "∂E/∂out_o1: E has no definition" in step["message"]
    assert "add define: or the note's own definition" in step["message"]
    assert "numeric evidence" not in step["message"]
    # with define: {E: E_1 + E_2} it follows by linearity
    assert by_id["sum-defined"]["status"] == "verified", by_id["sum-defined"]["message"]
    assert values[("sum-defined", "F.step1")]["expected"] == "proved"
    # the broken copy (− 7·∂E₂/∂out) fails with the definition and without it
    assert values[("sum-broken-defined", "X.step1")]["status"] == "verified"
    assert values[("sum-broken-defined", "F.step1")]["status"] == "discrepancy"
    assert values[("sum-broken-undefined", "F.step1")]["status"] == "discrepancy"
    assert "E has no definition" in values[("sum-broken-undefined", "F.step1")]["message"]


def test_broken_copies_of_real_chains(tmp_path, capsys):
    """11.3's dL/dw (architecture-and-training) and the chain rule of 12.x, each with a
    planted − 7·… term or a dropped term: with the note's definitions the original proves
    and the copies fail; without them nothing over an undefined name is proved."""
    by_id, values = _vacuous(tmp_path, capsys)
    assert by_id["grad-defined"]["status"] == "verified", by_id["grad-defined"]["message"]
    assert values[("grad-broken-defined", "B.step1")]["status"] == "discrepancy"
    assert values[("grad-dropped-defined", "S.step1")]["status"] == "discrepancy"
    for cid in ("grad-undefined", "grad-broken-undefined"):
        step = next(v for (c, _), v in values.items() if c == cid)
        assert step["status"] == "discrepancy", step
        assert "∂L/∂w: L has no definition" in step["message"], step["message"]
    # dy/dx = dy/du · du/dx over undefined y and u is no longer 0 = 0 · 0
    for cid in ("chain-undefined", "chain-broken-undefined"):
        step = values[(cid, "C.step1")]
        assert step["status"] == "discrepancy", step
        assert "y has no definition" in step["message"], step["message"]


def test_no_numeric_evidence_over_unknown_functions():
    import sympy

    from verifiers.symbolic.prove import check_step
    x = sympy.Symbol("x", real=True)
    f = sympy.Function("f", real=True)(x)
    step = check_step(sympy.Derivative(f, x), 0)
    assert not step.passed and step.status != "numeric"
    assert check_step(sympy.Derivative(2 * f, x), 2 * sympy.Derivative(f, x)).status == "proved"
    g = sympy.Function("g", real=True, unknown=True)(x)  # a name nothing defines
    step = check_step(sympy.Derivative(g, x), 0)
    assert step.status == "undecided" and "no numeric evidence over the unknown" in step.detail


def test_a_derivative_of_an_undefined_name_is_not_zero(tmp_path, capsys):
    """∂a_j/∂s_k = 0, ∂z_j/∂x_k = 0, dL/dw = 0 with nothing defined: each was 0 = 0."""
    note = ("第 1 章\n1.1 x\n甲 \\frac{\\partial a_{j}}{\\partial s_{k}} = 0\n"
            "乙 \\frac{\\partial z_j}{\\partial x_k} = 0\n丙 \\frac{d L}{d w} = 0\n")
    claims = "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {i}\n    kind: symbolic\n    text: {w} ⟪F⟫\n"
        for i, w in (("a", "甲"), ("b", "乙"), ("c", "丙")))
    _, _, data = check(project(tmp_path, claims, note), capsys)
    for claim, name in zip(data["claims"], ("a_j", "z_j", "L"), strict=True):
        assert claim["status"] == "discrepancy", claim["message"]
        assert f"{name} has no definition" in claim["message"]
