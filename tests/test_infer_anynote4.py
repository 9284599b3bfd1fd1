"""General inference rules of branch anynote4, each shown catching planted errors in invented
notes, plain text and Markdown:

* unit words of a restated size read as word holes (verifiers/infer/unitwords.py,
  verifiers/unit_words.py);
* a named formula evaluated on its worked instance, with names bound to values the note
  defines, and table columns computed by a formula printed nearby or in the header
  (verifiers/infer/named.py);
* a monotone law in prose (``X 越大，Y 越小``, ``Y decreases as X grows``) checked against the
  note's own table (verifiers/infer/monotone.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.note_edits import clean_verifies, flagged_at, infer_note
from verifiers.unit_words import decide, nearest


def _flagged(tmp_path: Path, capsys: Any, note: str, suffix: str, old: str, new: str,
             line: int) -> None:
    """A discrepancy (or an unparsed word) on ``line`` after ``old`` → ``new``."""
    flagged_at(tmp_path, capsys, note, suffix, old, new, line, statuses=("discrepancy", "unparsed"))


# --- unit words -------------------------------------------------------------------------

def test_the_nearest_unit_decides_binary_and_decimal_prefixes():
    assert nearest("bytes", 1646821376 / 1.53) == "GiB"
    assert nearest("bytes", 1646821376 / 1.65) == "GB"
    assert nearest("bytes", 201326592 / 192) == "MiB"
    assert nearest("count", 124e6 / 124) == "M"
    assert nearest("bytes", 5e7) is None  # between MB and GB: no unit fits
    assert decide(2 ** 30, "GB")[1] == "GiB"
    assert decide(2 ** 30, "GiB")[:2] == ("GiB", "GiB")
    assert decide(1.0, "parsecs")[0] is None


UNITS_TXT = """1.1 显存
一个 8192 × 50257 的 float32 矩阵：
8192 × 50257 × 4 字节 = 1646821376 字节 ≈ 1.65 GB（十进制），约 1.53 GiB。
1.2 参数
嵌入表有 50257 × 768 = 38597376 个参数，约 38.6 M 参数。
"""

UNITS_MD = """# Memory

## 1.1 Cache

The cache holds 2 × 24 × 2048 × 2048 × 2 = 402653184 bytes, about 384 MiB (0.40 GB).

## 1.2 Weights

A layer stores 201326592 bytes = 192 MiB of weights.
"""


@pytest.mark.parametrize("old, new, line", [
    ("约 1.53 GiB", "约 1.53 GB", 3),  # binary for decimal
    ("≈ 1.65 GB", "≈ 1.65 GiB", 3),
    ("约 38.6 M", "约 38.6 B", 5),  # a count's prefix
])
def test_an_edited_unit_word_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, UNITS_TXT, ".txt")
    assert "⟦u⟧" in text and "unit:" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, UNITS_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("about 384 MiB", "about 384 MB", 5),
    ("= 192 MiB", "= 192 Mbit", 9),  # bits for bytes
])
def test_an_edited_unit_word_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, UNITS_MD, ".md")
    assert "⟦u⟧" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, UNITS_MD, ".md", old, new, line)


# --- named formulas on their worked instance, and table columns ---------------------------

NAMED_TXT = """1.1 缩放
设 n 个样本，温度是 τ。
放大倍数 G = (1 + n/τ) / (1 − 1/τ) = (τ + n) / (τ − 1)
取 n = 6，τ = 4：G = (1 + 1.5) / 0.75 = 3.3333。

1.2 不同 τ 的倍数（n = 6）
τ	1/τ	G
2	0.5	8
4	0.25	3.3333
8	0.125	2
τ 越大，G 越小。
"""

NAMED_MD = """# Scaling

## 1.1 The gain

With a budget of $n$ steps and a temperature $t$, the gain is
$g = \\frac{n + t}{t - 1}$.
For $n = 6$ and $t = 4$: $g = 10 / 3 = 3.3333$.

## 1.2 Other temperatures (n = 6)

| temperature $t$ | $t^2$ | gain $g$ |
|---|---|---|
| 2 | 4 | 8 |
| 4 | 16 | 3.3333 |
| 8 | 64 | 2 |

The gain decreases as $t$ grows.
"""


def test_named_formula_claims_on_the_clean_notes(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path / "a", monkeypatch, NAMED_TXT, ".txt")
    assert "G = ⟪F⟫" in text and "computes:" in text, text
    assert '"1 / v1"' in text  # the `1/τ` header is the column's formula
    assert "τ 越大，G ⟦w⟧" in text, text
    clean_verifies(capsys)
    text = infer_note(tmp_path / "b", monkeypatch, NAMED_MD, ".md")
    assert "g = ⟪F⟫" in text or "$g = ⟪F⟫" in text, text
    assert "gain ⟦w⟧ as" in text, text
    clean_verifies(capsys)


@pytest.mark.parametrize("old, new, line", [
    ("G = (1 + n/τ) / (1 − 1/τ)", "G = (1 + n/τ) / (1 + 1/τ)", 3),  # a sign in the formula
    ("= (τ + n) / (τ − 1)", "= (τ + n) / (τ − 2)", 3),  # its second printing
    ("8\t0.125\t2", "8\t0.125\t2.2", 10),  # a cell the printed formula computes
    ("4\t0.25\t3.3333", "4\t0.24\t3.3333", 9),  # a cell of the header formula 1/τ
    ("G 越小", "G 越大", 11),  # the law word against the table
])
def test_named_formula_edits_are_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, NAMED_TXT, ".txt")
    capsys.readouterr()
    _flagged(tmp_path, capsys, NAMED_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("\\frac{n + t}{t - 1}", "\\frac{n + t}{t + 1}", 6),
    ("| 8 | 64 | 2 |", "| 8 | 64 | 2.5 |", 15),
    ("gain decreases as", "gain increases as", 17),
])
def test_named_formula_edits_are_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    infer_note(tmp_path, monkeypatch, NAMED_MD, ".md")
    capsys.readouterr()
    _flagged(tmp_path, capsys, NAMED_MD, ".md", old, new, line)


def test_a_law_the_table_does_not_show_writes_nothing(tmp_path, monkeypatch):
    note = ("1.1 表\nτ\t1/τ\tG\n2\t0.5\t8\n4\t0.25\t9\n8\t0.125\t2\nτ 越大，G 越小。\n")
    text = infer_note(tmp_path, monkeypatch, note, ".txt")
    assert "⟦w⟧" not in text, text


LAW_TABLE = """1.1 表
n	{head} L	t
1	2.5	3
2	1.75	5
4	1.2	9
8	0.9	17
{law}
"""


@pytest.mark.parametrize("law, old, new", [
    ("n 越大，损失越小。", "越小", "越大"),
    ("随 n 增大，L 减小。", "减小", "增大"),
    ("损失随 n 增大而减小。", "而减小", "而增大"),
    ("n 增大时，损失下降。", "下降", "上升"),
    ("The loss decreases as n grows.", "decreases", "increases"),
    ("As n grows, the loss falls.", "falls", "rises"),
    ("The larger n, the smaller the loss.", "smaller", "larger"),
])
def test_law_sentences_read_against_the_table(tmp_path, monkeypatch, capsys, law, old, new):
    note = LAW_TABLE.format(law=law, head="loss" if law.isascii() else "损失")
    text = infer_note(tmp_path, monkeypatch, note, ".txt")
    assert "⟦w⟧" in text and "sign:" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, note, ".txt", old, new, 7)


PROSE_FORMULA = """1.1 命中
每次抽样命中的概率 p = 0.3，一共抽 n = 4 次。
至少命中一次的概率是 1 − (1 − p)^n：
0.7⁴ = 0.2401，1 − 0.2401 = 0.7599。
"""


def test_a_formula_the_prose_introduces_is_read_on_the_next_line(tmp_path, monkeypatch,
                                                                   capsys):
    text = infer_note(tmp_path, monkeypatch, PROSE_FORMULA, ".txt")
    assert "概率是 ⟪F⟫：" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, PROSE_FORMULA, ".txt", "1 − (1 − p)^n", "1 − (1 − p)^(n+1)", 3)


TWO_COLUMNS = """1.1 损失
正确答案的概率 $p$	损失 $- \\ln p$
0.01	4.605
0.10	2.303
0.50	0.693
1.00	0
"""


def test_a_two_column_table_whose_header_is_a_formula(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, TWO_COLUMNS, ".txt")
    assert "ln(v1)" in text or "ln(" in text, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, TWO_COLUMNS, ".txt", "0.10\t2.303", "0.10\t2.330", 4)


UNIT_TABLE = """# Sizes

## 1.1 A cache

| layout | bytes | MB | MiB |
|---|---|---|---|
| fp32 | 402,653,184 | 402.65 | 384.00 |
| fp16 | 201,326,592 | 201.33 | 192.00 |
| int8 | 100,663,296 | 100.66 | 96.00 |

In fp16 the cache takes 201.33 MB, that is 192.00 MiB.
"""


@pytest.mark.parametrize("old, new, line", [
    ("| MB | MiB |", "| MiB | MiB |", 5),  # a header's unit word
    ("| 201.33 | 192.00 |", "| 201.33 | 193.00 |", 8),  # a cell of a unit column
    ("201.33 MB, that", "201.33 MiB, that", 11),  # the prose quoting a cell with its unit
])
def test_unit_columns_of_a_table(tmp_path, monkeypatch, capsys, old, new, line):
    text = infer_note(tmp_path, monkeypatch, UNIT_TABLE, ".md")
    assert text.count("unit: ") >= 3, text
    clean_verifies(capsys)
    _flagged(tmp_path, capsys, UNIT_TABLE, ".md", old, new, line)
