"""Inference on patterns any study note has (verifiers/infer): Unicode superscript powers
(``0.8⁵``, ``1.8 × 10¹⁰``), a total of the results listed on a line, a running-total and a
softmax column of a table, and an element of a printed list restated alone. Each is checked
by planting a wrong value after inference (an author's later edit) and, where the step is
unambiguous, before it (pinned for review)."""

from __future__ import annotations

import pytest

from tests.test_infer import INFERRED, assert_edit_flagged, infer
from verifiers.cli import main

NOTE = """第 1 章
1.1 幂
0.8⁵ = 0.32768，所以 (1 − 0.32768) / 0.2 = 3.3616。
一共 9 × 10⁹ × 2 = 1.8 × 10¹⁰ 字节。
1.2 合计
T = 1：e² = 7.3891，e¹ = 2.7183，e^0.1 = 1.1052，和为 11.2125，
1.3 累计
| token | p | cumulative |
|---|---|---|
| a | 0.50 | 0.50 |
| b | 0.25 | 0.75 |
| c | 0.15 | 0.90 |
| d | 0.10 | 1.00 |
1.4 softmax
| key | score | weight |
|---|---|---|
| 0 | 0.5 | 0.2028 |
| 1 | 0.0 | 0.1230 |
| 2 | 0.0 | 0.1230 |
| 3 | 1.5 | 0.5512 |
1.5 复述
p = [0.8638, 0.1169, 0.0193]
最大的概率是 0.8638。
"""


def test_the_clean_note_verifies_with_every_new_pattern(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, NOTE)
    for says in ('v2: "v1 ^ 5"', "/ v5 ^ 10", 'v5: "v1 + v2 + v4"', '"v1 + v3 + v5 + v7"',
                 '"exp(v3) / (exp(v1) + exp(v3)', '[0]"'):
        assert says in text, (says, text)
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("0.8⁵ = 0.32768", "0.8⁵ = 0.32868", 3),  # a superscript power
    ("= 1.8 × 10¹⁰", "= 1.6 × 10¹⁰", 4),  # a mantissa times a superscript power of ten
    ("和为 11.2125", "和为 11.2152", 6),  # the total of the listed results
    ("| c | 0.15 | 0.90 |", "| c | 0.15 | 0.95 |", 12),  # a running total
    ("| 1 | 0.0 | 0.1230 |", "| 1 | 0.0 | 0.1320 |", 18),  # a softmax weight
    ("最大的概率是 0.8638", "最大的概率是 0.8368", 23),  # a list's element restated
])
def test_an_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, old, new, line)


def test_a_wrong_superscript_power_is_pinned_for_review(tmp_path, monkeypatch):
    # (an inexact base such as 0.8 is not pinned: a finer 0.8002 would give another power)
    text = infer(tmp_path, monkeypatch, "1.1 幂\n2¹⁶ = 65546，继续。\n3⁴ = 81。\n")
    assert "inferred; review" in text and "65546" in text
    assert "v1 ^ 4" in text  # the right power is verified, not pinned
    assert (tmp_path / INFERRED).exists()


def test_a_superscript_after_a_word_or_a_name_is_no_power(tmp_path, monkeypatch):
    # `x²` (a name) and `cm²` (a unit) are no computation the note shows
    text = infer(tmp_path, monkeypatch, "1.1\n面积 x² = 4 cm²，边长 2 cm。\n")
    assert "^" not in text


def test_a_total_that_is_no_sum_of_the_listed_results_writes_nothing(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1\na = 2 + 1 = 3，b = 4 × 2 = 8，和为 12。\n")
    assert "和为 ⟨" not in text


WORDS = """1.1 计数
e s：newest 6 次 + widest 3 次 = 9
一段英文 1000 个词切出 1300 个 token，即每词 1.3 个 token。
存成 uint16：9 × 10⁹ × 2 = 1.8 × 10¹⁰ 字节 = 18 GB（十进制），约 16.76 GiB。
"""


def test_worded_sums_and_chinese_rates_are_read(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, WORDS)
    assert "v3 = v1 + v2" in text and "a rate from the two counts" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("widest 3 次 = 9", "widest 3 次 = 8", 2),  # a sum of worded terms
    ("每词 1.3 个", "每词 1.5 个", 3),  # a rate of the two counts before it
    ("= 18 GB", "= 1.8 GB", 4),  # a unit after a superscript power of ten
    ("约 16.76 GiB", "约 16.67 GiB", 4),  # a unit after a parenthesis
])
def test_a_worded_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new, line):
    infer(tmp_path, monkeypatch, WORDS)
    (tmp_path / "notes" / "n.txt").write_text(WORDS.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n.txt:{line}:") and ": discrepancy: " in ln
               for ln in out.splitlines()), out


def test_a_term_with_two_numbers_or_no_word_is_no_worded_sum(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1\n共 2 组 3 次 + 4 次 = 7\n减少 6 + 3 = 9\n")
    assert "组" not in text  # which of 2 and 3 is the term is a guess: nothing written


HEADERS = """1.1 表
| $i$ | $\\theta_i$ | wavelength $2\\pi / \\theta_i$ |
|---|---|---|
| 1 | 0.75 | 8.3776 |
| 2 | 0.5 | 12.566 |
| 15 | 0.0125 | 502.65 |
1.2 横表
| head $h$ | 1 | 2 | 3 |
|---|---|---|---|
| slope $2^{-h}$ | 0.5 | 0.25 | 0.125 |
"""


def test_a_header_formula_is_checked_down_and_sideways(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, HEADERS)
    assert "a column computed by its header's formula" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("| 0.75 |", "| 0.76 |", 4),  # an input edited: its wavelength no longer fits
    ("| 12.566 |", "| 12.656 |", 5),  # a result under the formula header
    ("| 0.25 | 0.125 |", "| 0.25 | 0.0125 |", 10),  # a sideways table's result
])
def test_a_header_formula_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new,
                                                      line):
    infer(tmp_path, monkeypatch, HEADERS)
    assert HEADERS.count(old) == 1
    (tmp_path / "notes" / "n.txt").write_text(HEADERS.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n.txt:{line}:") and ": discrepancy: " in ln
               for ln in out.splitlines()), out


def test_a_prose_header_or_a_name_of_no_column_gives_no_header_formula(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1\n| $x$ | $x + y$ |\n|---|---|\n| 1 | 3 |\n"
                 "| 2 | 5 |\n")
    assert "header's formula" not in text


def test_a_number_beyond_a_float_after_a_total_word_is_no_crash(tmp_path, monkeypatch):
    infer(tmp_path, monkeypatch, "1.1\na = 1 + 1 = 2，b = 3，total $10^{400}$\n")


ARRAYS = """1.1 矩阵乘法
AB = [[1×5 + 2×7, 1×6 + 2×8], [3×5 + 4×7, 3×6 + 4×8]] = [[19, 22], [43, 50]]
$$\\begin{bmatrix} 2 \\cdot 3 - 1 \\\\ 3 \\cdot 0.5 \\end{bmatrix} = """ \
    """\\begin{bmatrix} 5 \\\\ 1.5 \\end{bmatrix}$$
"""


def test_arrays_of_expressions_are_checked_entry_by_entry(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, ARRAYS)
    assert '"[[v1 * v2 + v3 * v4, v5 * v6 + v7 * v8], [' in text, text
    assert "], [" in text.split("bmatrix")[-1] or "]]" in text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("[[19, 22], [43, 50]]", "[[19, 22], [43, 51]]", 2),  # one entry of a product
    ("\\begin{bmatrix} 5 \\\\ 1.5", "\\begin{bmatrix} 5 \\\\ 1.6", 3),  # a LaTeX column
    ("3×6 + 4×8", "3×6 + 4×9", 2),  # an operand edited: the printed result no longer fits
])
def test_an_array_entry_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new,
                                                    line):
    infer(tmp_path, monkeypatch, ARRAYS)
    assert ARRAYS.count(old) == 1
    (tmp_path / "notes" / "n.txt").write_text(ARRAYS.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n.txt:{line}:") and ": discrepancy: " in ln
               for ln in out.splitlines()), out


def test_an_array_of_another_shape_is_not_read(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch,
                 "1.1\nX = [[1×5 + 2×7, 1×6 + 2×8]] = [[19, 22], [43, 50]]\n")
    assert "[[v1 * v2" not in text


WINDOWS = """1.1 卷积
输入 X = [[3, 1, 2, 0], [1, 4, 1, 2], [0, 2, 5, 1], [2, 1, 0, 3]]
Y[0, 1]：窗口 [[1, 2, 0], [4, 1, 2], [2, 5, 1]]
Y[1, 1]：窗口 [[4, 1, 2], [2, 5, 1], [1, 0, 3]]
"""


def test_a_window_is_checked_against_the_block_it_copies(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, WINDOWS)
    assert "a block of a matrix printed before" in text and "[0][1]" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("[[1, 2, 0], [4, 1, 2]", "[[1, 2, 0], [4, 7, 2]", 3),  # an entry of a window
    ("[1, 0, 3]]\n", "[1, 0, 8]]\n", 4),  # the last window's corner
])
def test_a_window_edit_is_flagged_at_its_line(tmp_path, monkeypatch, capsys, old, new, line):
    infer(tmp_path, monkeypatch, WINDOWS)
    assert WINDOWS.count(old) == 1
    (tmp_path / "notes" / "n.txt").write_text(WINDOWS.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n.txt:{line}:") and ": discrepancy: " in ln
               for ln in out.splitlines()), out


def test_a_block_found_twice_or_of_one_number_is_no_window(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1\nX = [[1, 1, 1], [1, 1, 1]]\nW = [[1, 1], [1, 1]]\n"
                 "Z = [[0, 1, 0, 1], [1, 0, 1, 0]]\nV = [[0, 1], [1, 0]]\n")
    assert "a block of a matrix" not in text


def test_names_with_unicode_subscripts_are_read_through_their_definitions(tmp_path, monkeypatch,
                                                                          capsys):
    note = "1.1\nx₁ = 0.5，x₂ = 1.5。\n所以 x₁ + x₂ = 2.0。\n"
    text = infer(tmp_path, monkeypatch, note)
    assert "uses:" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    (tmp_path / "notes" / "n.txt").write_text(note.replace("x₂ = 1.5", "x₂ = 1.7"),
                                              encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    assert "notes/n.txt:3:" in capsys.readouterr().out


LISTED = """1.1 输入
三步的梯度依次为 $0.4$、$-0.2$、$0.3$。
raw scores $[2.0, 1.0, 0.5]$ for three keys.
1.2 表
| 步 | g | score |
|---|---|---|
| 1 | 0.4 | 2.0 |
| 2 | -0.2 | 1.0 |
| 3 | 0.3 | 0.5 |
"""


def test_a_column_tabulating_a_list_is_checked_against_it(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, LISTED)
    assert "[2]" in text and "kind: given" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("| 2 | -0.2 | 1.0 |", "| 2 | 0.2 | 1.0 |", 8),  # a sign lost when tabulating the list
    ("| 3 | 0.3 | 0.5 |", "| 3 | 0.3 | 1.5 |", 9),  # a vector's element tabulated wrong
    ("$-0.2$、$0.3$", "$-0.2$、$0.5$", 2),  # the list edited, the table not
])
def test_a_listed_column_edit_is_flagged(tmp_path, monkeypatch, capsys, old, new, line):
    infer(tmp_path, monkeypatch, LISTED)
    assert LISTED.count(old) == 1
    (tmp_path / "notes" / "n.txt").write_text(LISTED.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert ": discrepancy: " in out and (f"notes/n.txt:{line}:" in out or line == 2), out


def test_a_column_in_another_order_is_no_listed_column(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1\n依次为 0.4、0.2、0.3。\n| 步 | g |\n|---|---|\n"
                 "| 1 | 0.2 |\n| 2 | 0.4 |\n| 3 | 0.3 |\n")
    assert "tabulated again" not in text


CELLS = """1.1 幂
| $i$ | power | value |
|---|---|---|
| 1 | $10000^{-0.25}$ | 0.1 |
| 2 | $10000^{-0.5}$ | 0.01 |
| 3 | $2^{10}$ | 1024 |
"""


@pytest.mark.parametrize("old, new, line", [
    ("| 0.01 |", "| 0.001 |", 5),  # the value next to its expression
    ("$2^{10}$", "$2^{11}$", 6),  # the expression edited, the value not
])
def test_an_expression_cell_and_its_value_are_checked(tmp_path, monkeypatch, capsys, old, new,
                                                      line):
    text = infer(tmp_path, monkeypatch, CELLS)
    assert "a cell's expression" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    (tmp_path / "notes" / "n.txt").write_text(CELLS.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    assert f"notes/n.txt:{line}:" in capsys.readouterr().out


GFLOPS = """# T

| piece | FLOPs |
|---|---|
| a | 8589934592 |
| **total** | 68719476736 |

About 68.7 GFLOPs per layer per sequence.
"""


def test_a_sentence_after_a_total_restating_it_in_gflops_is_checked(tmp_path, monkeypatch,
                                                                    capsys):
    text = infer(tmp_path, monkeypatch, GFLOPS)
    assert "another unit" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    (tmp_path / "notes" / "n.txt").write_text(GFLOPS.replace("68.7 G", "86.7 G"),
                                              encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    assert "notes/n.txt:8:" in capsys.readouterr().out
