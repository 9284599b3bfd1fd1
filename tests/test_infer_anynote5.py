"""General inference rules of branch anynote5, each shown catching planted errors in invented
notes, plain text and Markdown, Chinese and English:

* a Σ / ∏ formula (``\\sum_{i=1}^{n}``, plain ``Σ_i``, ``∏_i``) read as a formula hole on the
  entries the note prints for it (``x_1 = 2``) and its printed result
  (verifiers/infer/bigops.py; computes: expands the sum, verifiers/formulas/inline.py);
* the mean, sum, product, maximum or minimum of a list printed in prose
  (``2、4、9 的平均是 5``, ``their mean is 5``, ``max(1.5, 3.2, 0.7) = 3.2``;
  verifiers/infer/listwords.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sympy

from tests.note_edits import clean_verifies, flagged_at, infer_note
from verifiers.cli import main
from verifiers.formulas.inline import _substitute
from verifiers.formulas.inline_plain import plain_text
from verifiers.latex import parse_latex

_flagged = flagged_at


# --- computes: a sum over whole-number bounds reads each printed entry ------------------------

def _value(formula: str, **bound: float) -> Any:
    expr = parse_latex(plain_text(formula), {})
    got = _substitute(expr, {sympy.Symbol(k, real=True): sympy.Float(v) for k, v in
                             bound.items()})
    return float(got) if got.is_number else got


def test_a_sum_binds_each_entry_to_its_own_printed_value():
    assert _value(r"\sum_{i=1}^{3} x_i", x_1=2, x_2=4, x_3=9) == 15
    assert _value("Σ_{i=1}^{3} x_i", x_1=2, x_2=4, x_3=9) == 15  # plain Σ
    assert _value("∏_i x_i", x_1=2, x_2=4, x_3=9) == 72  # no bounds: the entries bound
    assert _value(r"\frac{1}{n}\sum_{i=1}^{n} x_i", x_1=2, x_2=4, x_3=9, n=3) == 5
    # an entry the claim does not bind stays unbound (never a pass)
    assert _value(r"\sum_{i=1}^{4} x_i", x_1=2, x_2=4, x_3=9).free_symbols
    # a sum over names with no numbered entries is left as it was
    assert isinstance(_value(r"\sum_{j} p_j", q_1=1), sympy.Sum)


# --- Σ / ∏ formulas on printed entries --------------------------------------------------------

SUM_MD = """# Losses

## 1. Three tokens

The total loss is $L = \\sum_{i=1}^{3} \\ell_i$ over three tokens.

Per token: $\\ell_1 = 0.5$, $\\ell_2 = 1.25$, $\\ell_3 = 0.75$.

So $L = 2.5$ for the sentence.

## 2. A mean

Four activations $x_1 = 2$, $x_2 = 4$, $x_3 = 6$, $x_4 = 9$ and $n = 4$.

Their mean $\\mu = \\frac{1}{n} \\sum_{i=1}^{n} x_i$ is printed below.

We get $\\mu = 5.25$.
"""

SUM_TXT = """1 求和与连乘

损失 L = Σ_i ℓ_i，其中 ℓ_1 = 0.5，ℓ_2 = 1.25，ℓ_3 = 0.75。
所以 L = 2.5。

2 连乘
三个保留概率 p_1 = 0.9，p_2 = 0.8，p_3 = 0.5。
整句保留的概率 P = ∏_i p_i = 0.36。
"""


def test_sum_formulas_are_read_on_their_entries_md(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, SUM_MD, ".md")
    assert text.count("Σ/∏ formula") == 2 and "⟪F⟫" in text, text
    clean_verifies(capsys)


@pytest.mark.parametrize("old, new, line", [
    ("\\sum_{i=1}^{3} \\ell_i", "\\prod_{i=1}^{3} \\ell_i", 5),  # the operator
    # an edited result on a later line is reported at the formula that no longer gives it
    ("$L = 2.5$", "$L = 2.6$", 5),
    ("\\frac{1}{n} \\sum", "\\sum", 15),  # a dropped 1/n
    ("\\sum_{i=1}^{n} x_i$", "\\sum_{i=1}^{n} x_i^2$", 15),  # a squared term
    ("$\\mu = 5.25$", "$\\mu = 5.5$", 15),
])
def test_an_edited_sum_formula_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, SUM_MD, ".md")
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, SUM_MD, ".md", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("L = Σ_i ℓ_i", "L = ∏_i ℓ_i", 3),
    ("所以 L = 2.5", "所以 L = 2.4", 3),  # the formula's line reports the printed result
    ("ℓ_2 = 1.25", "ℓ_2 = 1.35", 3),
    ("P = ∏_i p_i", "P = Σ_i p_i", 8),
    ("= 0.36", "= 0.38", 8),
])
def test_an_edited_sum_formula_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, SUM_TXT, ".txt")
    assert text.count("Σ/∏ formula") == 2, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, SUM_TXT, ".txt", old, new, line)


def test_a_sum_with_an_entry_the_note_never_prints_writes_nothing(tmp_path, monkeypatch):
    note = "1 求和\n\n损失 L = Σ_{i=1}^{4} ℓ_i，其中 ℓ_1 = 0.5，ℓ_2 = 1.25，ℓ_3 = 0.75。\n" \
           "所以 L = 2.5。\n"
    assert "Σ/∏ formula" not in infer_note(tmp_path, monkeypatch, note, ".txt")


# --- aggregates of a printed list, in words -------------------------------------------------

LIST_TXT = """1 统计

三个数 2、4、9 的平均是 5，最大是 9，和为 15。
四个概率 0.1、0.2、0.3 和 0.4 求和为 1。
两个缩放系数 1.5、4 的乘积为 6。
"""

LIST_MD = """# Scores

## 1. A list

The scores are [2, 4, 9], their mean is 5 and their maximum is 9.

The largest logit is max(1.5, 3.2, 0.7) = 3.2.

The mean of 1, 2, 3 and 6 is 3.
"""


@pytest.mark.parametrize("old, new, line", [
    ("的平均是 5", "的平均是 6", 3),
    ("最大是 9，", "最大是 4，", 3),  # a word read at its own value
    ("和为 15", "和为 16", 3),
    ("0.3 和 0.4", "0.3 和 0.5", 4),  # an entry
    ("乘积为 6", "乘积为 5.5", 5),
])
def test_an_edited_list_aggregate_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, LIST_TXT, ".txt")
    assert "max(v1, v2, v3)" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, LIST_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("their mean is 5", "their mean is 4", 5),
    ("their maximum is 9", "their maximum is 4", 5),
    ("0.7) = 3.2", "0.7) = 1.5", 7),
    ("1, 2, 3 and 6 is 3", "1, 2, 3 and 6 is 4", 9),
])
def test_an_edited_list_aggregate_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, LIST_MD, ".md")
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, LIST_MD, ".md", old, new, line)


def test_a_list_word_that_does_not_hold_writes_nothing(tmp_path, monkeypatch):
    """A reading the printed numbers do not bear out is dropped, never pinned."""
    note = "1 统计\n\n三个数 2、4、9 的平均是 6，最大是 4。\n"
    assert "inferred; review" not in infer_note(tmp_path, monkeypatch, note, ".txt")


# --- shares stated in a sentence; \( \) math; full-width digits and operators ----------------

FORMS_MD = """# Forms

## 1. Inline math

1. A head has `64 × 64 = 4096` weights.
2. The cache holds \\(2 \\times 24 = 48\\) tensors.

The block's parameters are \\[ 3 \\times 4 = 12 \\] in all.

## 2. Shares

Dropout keeps 90% of 250 units, that is 225 units.

Of 400 tokens, 100 are padding, a share of 25%.
"""

FORMS_TXT = """1 全角

「词表」参数量５０２５７×７６８＝３８５９７３７６。
训练集１０００条，其中验证集２００条，占２０％。
三个门的参数各为 100、200、300，合计 600。
"""


@pytest.mark.parametrize("old, new, line", [
    ("\\(2 \\times 24 = 48\\)", "\\(2 \\times 24 = 46\\)", 6),  # \\( \\) math
    ("\\[ 3 \\times 4 = 12 \\]", "\\[ 3 \\times 4 = 13 \\]", 8),
    ("keeps 90% of", "keeps 80% of", 12),  # a share in words, either order
    ("that is 225 units", "that is 252 units", 12),
    ("a share of 25%", "a share of 20%", 14),
    ("100 are padding", "120 are padding", 14),
])
def test_shares_and_inline_math_are_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, FORMS_MD, ".md")
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, FORMS_MD, ".md", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("＝３８５９７３７６", "＝３８５９７３７７", 3),  # full-width digits and ＝
    ("占２０％", "占２５％", 4),
    ("验证集２００条", "验证集２５０条", 4),
    ("合计 600", "合计 700", 5),  # a total word with no 为/是
])
def test_full_width_and_totals_are_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, FORMS_TXT, ".txt")
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, FORMS_TXT, ".txt", old, new, line)


def test_a_sentence_with_three_counts_and_a_percentage_is_no_share(tmp_path, monkeypatch):
    """Which two of three counts the percentage relates is a guess: nothing is written."""
    note = "# S\n\n## 1. x\n\nOf 400 tokens, 100 are padding and 50 are rare, that is 25%.\n"
    assert "count's share" not in infer_note(tmp_path, monkeypatch, note, ".md")


# --- percentages that split a whole ----------------------------------------------------------

def _value_flagged(tmp_path: Path, capsys: Any, note: str, suffix: str, old: str, new: str,
                   line: int) -> None:
    """Edit ``old`` → ``new``: a value of some claim is a discrepancy at ``line`` (the JSON
    report's value positions: the console names a claim by its first value)."""
    import json

    assert note.count(old) == 1, old
    (tmp_path / "notes" / f"n{suffix}").write_text(note.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1", "--json", "r.json"]) == 1
    capsys.readouterr()
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert any(v["status"] == "discrepancy" and v["start"]["line"] == line
               for c in report["claims"] for v in c["values"]), report

WHOLE_MD = """# Routing

## 1. Where the tokens go

| expert | share |
|:-------|------:|
| one    | 45%   |
| two    | 30%   |
| three  | 25%   |

Attention goes 70% to the first token, 20% to the second and 10% to the third.
"""

WHOLE_TXT = """1 分布

模型给出的概率：
呼吸困难\t45%
黑便\t30%
呕血\t15%
其他\t10%

即 A 约 33.97%，B 约 58.16%，C 只有约 7.87%。
"""


@pytest.mark.parametrize("old, new, line", [
    ("| two    | 30%", "| two    | 35%", 8),
    ("| one    | 45%", "| one    | 40%", 7),
    ("70% to the first", "75% to the first", 11),
])
def test_an_edited_part_of_a_whole_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, WHOLE_MD, ".md")
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, WHOLE_MD, ".md", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("黑便\t30%", "黑便\t35%", 5),
    ("其他\t10%", "其他\t15%", 7),
    ("B 约 58.16%", "B 约 58.61%", 9),  # two digits transposed
])
def test_an_edited_part_of_a_whole_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new,
                                                  line):
    text = infer_note(tmp_path, monkeypatch, WHOLE_TXT, ".txt")
    assert text.count("add up to 100%") == 7, text
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, WHOLE_TXT, ".txt", old, new, line)


def test_percentages_that_do_not_make_a_whole_write_nothing(tmp_path, monkeypatch):
    """Top-k probabilities of a larger vocabulary (they add up to 92%): no whole."""
    note = "1 x\n\n猫\t65%\n追\t17%\n我\t10%\n"
    assert "add up to 100%" not in infer_note(tmp_path, monkeypatch, note, ".txt")


# --- the shape printed with a matrix's name ---------------------------------------------------

SHAPE_TXT = """1 乘积

A (2 × 2)：
[[1, 2],
[3, 4]]

B (2 × 3)：
[[0, 1, 2],
[1, 0, 1]]

A · B = [[2, 1, 4], [4, 3, 10]]
"""

SHAPE_MD = """# Keys

## 1. Two tokens

The key matrix K (2 × 3):

[[1, 2, 3],
 [4, 5, 6]]

The query q = [1, 0, 2] and the scores K q = [7, 16].

The weight $W \\in \\mathbb{R}^{2 \\times 2}$ is

$$W = \\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}$$

and $W \\cdot W = \\begin{bmatrix} 7 & 10 \\\\ 15 & 22 \\end{bmatrix}$.
"""


@pytest.mark.parametrize("old, new, line", [
    ("A (2 × 2)", "A (2 × 3)", 3),
    ("B (2 × 3)", "B (3 × 2)", 7),  # transposed
])
def test_an_edited_shape_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, SHAPE_TXT, ".txt")
    assert text.count("shape printed") == 2, text
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, SHAPE_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("K (2 × 3)", "K (3 × 2)", 5),
    ("^{2 \\times 2}", "^{2 \\times 3}", 12),
])
def test_an_edited_shape_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, SHAPE_MD, ".md")
    assert text.count("shape printed") == 2, text
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, SHAPE_MD, ".md", old, new, line)


def test_a_shape_is_never_what_covers_a_matrix_no_claim_reads(tmp_path, monkeypatch):
    """A shape check passes whatever the entries are: a matrix no other claim reads is not
    covered by it (nothing is written)."""
    note = "1 x\n\nW_q (2 × 2)：\n[[0.1, 0.2],\n[0.3, 0.4]]\n"
    assert "shape printed" not in infer_note(tmp_path, monkeypatch, note, ".txt")


# --- the shape of a product from its factors' shapes -------------------------------------------

PRODUCT_TXT = """1 投影

输入 X (3 × 4)：
[[0.5, 1.2, 0.8, 1.1],
[1.1, 1.2, 0.2, 1.6],
[1.5, -0.3, 0.3, 1.9]]

W_q (4 × 2)：
[[0.1, 0.2],
[0.4, 0.5],
[0.7, 0.8],
[0.15, 0.25]]

2 乘积
X · W_q = Q (3 × 2)
K = X · W_q → 3×2 矩阵
Z = softmax(Q·K^T/√2) · K → 3×2 矩阵
S = Q · K^T → 3×3 矩阵
"""

PRODUCT_MD = """# Shapes

## 1. A layer

The input X (8 × 16) and the weight W (16 × 4) are random.

The hidden state is X @ W = H (8 × 4), and H^T @ H = G (4 × 4).
"""


@pytest.mark.parametrize("old, new, line", [
    ("Q (3 × 2)", "Q (2 × 3)", 15),
    ("K = X · W_q → 3×2", "K = X · W_q → 3×4", 16),
    ("√2) · K → 3×2", "√2) · K → 2×2", 17),
    ("S = Q · K^T → 3×3", "S = Q · K^T → 3×2", 18),
])
def test_an_edited_product_shape_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, PRODUCT_TXT, ".txt")
    assert text.count("product follows") == 4, text
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, PRODUCT_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("H (8 × 4)", "H (8 × 16)", 7),
    ("G (4 × 4)", "G (8 × 8)", 7),  # H^T H is 4 × 4, not H H^T
])
def test_an_edited_product_shape_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, PRODUCT_MD, ".md")
    assert text.count("product follows") == 2, text
    clean_verifies(capsys)
    _value_flagged(tmp_path, capsys, PRODUCT_MD, ".md", old, new, line)


def test_a_product_whose_inner_sizes_disagree_writes_nothing(tmp_path, monkeypatch):
    note = "1 x\n\nX (3 × 4)，W (3 × 2)。\nX · W → 3×2 矩阵\n"
    assert "product follows" not in infer_note(tmp_path, monkeypatch, note, ".txt")
