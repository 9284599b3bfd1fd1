"""Printed orders read from the note (verifiers/procedures/orders.py, sequences.py) and
plain-text programs with an output block (tinygpt/examples/commented_programs.py).

The note below is invented; each planted edit makes it false, and the check must flag the
edited line (never pass it). Expected orders come from tinygpt's recorded runs, never from
this file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.procedures.orders import order_findings, quantity_of
from verifiers.procedures.sequences import sequences

NOTE = """一、前向
一个注意力头的计算：
Q · K^T → ÷ √d_k → Softmax → A · V
整个模型：输入文字 → Token向量 → 多层Transformer → 隐藏表示 → 输出打分 → 下一Token概率。
训练一步：读取真实目标 → 算损失 → 求梯度 → 更新参数。
依赖链：
X \\to Q \\to S \\to A \\to Z \\to h \\to ℓ \\to P \\to L
反向时梯度沿着 L \\to P \\to ℓ \\to h 传回。
┌──────────────────────┐
│ 单头流程图 │
│ Q · K^T (3×3) │
│ ↓ │
│ ÷ √d_k (3×3) │
│ ↓ │
│ Softmax (3×3) ──→ A │
│ ↓ │
│ A · V (3×3) ──→ Z │
└──────────────────────┘
二、生成
生成的步骤：
│ 1. 输入 Token 序列 │
│ ↓ │
│ 2. Embedding + 位置编码 │
│ ↓ │
│ 3. Transformer 层 │
│ ↓ │
│ 4. Linear 投影 → Logits │
│ ↓ │
│ 5. Temperature │
│ ↓ │
│ 6. Softmax │
│ ↓ │
│ 7. 采样 │
│ ↓ │
│ 8. 将新 Token 加入序列，重复步骤 1~7 │
"""

# (id, find, replace, the 1-based line the verdict must point at)
EDITS = [
    ("swap scale and softmax (chain)", "÷ √d_k → Softmax", "Softmax → ÷ √d_k", 3),
    ("weighted sum before softmax", "→ Softmax → A · V", "→ A · V → Softmax", 3),
    ("scores after scaling", "Q · K^T → ÷ √d_k", "÷ √d_k → Q · K^T", 3),
    ("hidden before the blocks", "多层Transformer → 隐藏表示", "隐藏表示 → 多层Transformer", 4),
    ("probabilities before the scores", "输出打分 → 下一Token概率", "下一Token概率 → 输出打分", 4),
    ("update before the gradient", "求梯度 → 更新参数", "更新参数 → 求梯度", 5),
    ("loss before the targets", "读取真实目标 → 算损失", "算损失 → 读取真实目标", 5),
    ("chain: P before logits", "\\to ℓ \\to P", "\\to P \\to ℓ", 7),
    ("chain: A before S", "\\to S \\to A", "\\to A \\to S", 7),
    ("chain: Q after scores", "X \\to Q \\to S", "X \\to S \\to Q", 7),
    ("backward chain out of order", "L \\to P \\to ℓ", "L \\to ℓ \\to P", 8),
    ("box: softmax before scaling", "│ ÷ √d_k (3×3) │\n│ ↓ │\n│ Softmax (3×3) ──→ A │",
     "│ Softmax (3×3) │\n│ ↓ │\n│ ÷ √d_k (3×3) ──→ A │", 13),
    ("box: A·V before softmax", "│ Softmax (3×3) ──→ A │\n│ ↓ │\n│ A · V (3×3) ──→ Z │",
     "│ A · V (3×3) ──→ A │\n│ ↓ │\n│ Softmax (3×3) ──→ Z │", 17),
    ("steps: temperature after softmax", "│ 5. Temperature │\n│ ↓ │\n│ 6. Softmax │",
     "│ 5. Softmax │\n│ ↓ │\n│ 6. Temperature │", 29),
    ("steps: sampling before softmax", "│ 6. Softmax │\n│ ↓ │\n│ 7. 采样 │",
     "│ 6. 采样 │\n│ ↓ │\n│ 7. Softmax │", 31),
    ("step reference from the last steps", "重复步骤 1~7", "重复步骤 5~7", 35),
    ("step reference ends too early", "重复步骤 1~7", "重复步骤 1~4", 35),
]


def _bad_lines(text: str) -> set[int]:
    return {f.line for f in order_findings(text) if f.status != "verified"}


def test_the_invented_note_reads_and_verifies() -> None:
    found = order_findings(NOTE)
    assert found and all(f.status == "verified" for f in found), \
        [f.message for f in found if f.status != "verified"]
    shapes = {s.shape for s in sequences(NOTE)}
    assert {"chain", "vertical"} <= shapes
    assert any("step reference" in f.message for f in found)
    assert any(f.message.startswith("chain X → Q") for f in found)


@pytest.mark.parametrize("name,find,replace,line", EDITS, ids=[e[0] for e in EDITS])
def test_a_planted_order_edit_is_a_discrepancy_at_its_line(name: str, find: str, replace: str,
                                                          line: int) -> None:
    assert NOTE.count(find) == 1, name
    edited = NOTE.replace(find, replace)
    first = NOTE[:NOTE.index(find)].count("\n") + 1
    changed = {first + k for k, (a, b) in enumerate(zip(find.split("\n"), replace.split("\n"),
                                                       strict=True)) if a != b}
    assert line in changed, name  # the line named in EDITS is one the edit changes
    assert _bad_lines(edited) & changed, (name, [f.message for f in order_findings(edited)])


def test_a_sentence_of_order_words_is_read() -> None:
    text = "训练时先算损失，再求梯度，然后更新参数。"
    assert [s.shape for s in sequences(text)] == ["sentence"]
    assert _bad_lines(text) == set()
    assert _bad_lines("训练时先更新参数，再求梯度，然后算损失。") == {1}


def test_quantities_read_subscripts_and_latex() -> None:
    assert quantity_of("h_{5}") == "h"
    assert quantity_of("W_{Q}") == "W_Q"
    assert quantity_of("ℓ") == "logits"
    assert quantity_of("猫") is None


def test_a_latin_letter_inside_a_word_is_no_operation() -> None:
    # the A of "Transformer" is not the softmax weights: the step reads no operation
    from verifiers.procedures.orders import _op

    assert _op("Transformer 编码器层") is None
    assert _op("按概率采样") == "sample"


PLAIN = """一、核对
下面几行重算上面的例子：

import numpy as np

q = np.full(4, 0.1 / 4)
q[0] += 1 - 0.1
print(np.round(q, 3))
print(round(float(q.sum()), 2))

输出：

[0.925 0.025 0.025 0.025]
1.0

第一行是平滑后的目标，第二行是它的和。
"""


def _project(tmp_path: Path, text: str) -> Path:
    for d in ("notes", "claims"):
        (tmp_path / d).mkdir(exist_ok=True)
    note = tmp_path / "notes" / "n.txt"
    note.write_text(text, encoding="utf-8")
    return note


def test_a_plain_text_program_and_its_output_block(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture) -> None:
    from tinygpt.examples.commented_programs import split_block

    block = PLAIN[PLAIN.index("import"):PLAIN.index("第一行")]
    program, shown = split_block(block)
    assert "输出" not in program and [t for _, t in shown] == ["[0.925 0.025 0.025 0.025]", "1.0"]
    note = _project(tmp_path, PLAIN)
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "n.txt", "--infer"]) == 0
    text = (tmp_path / "claims" / "n" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert "program_comments" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    # the planted error: assigned instead of added; the output no longer matches
    note.write_text(PLAIN.replace("q[0] += 1 - 0.1", "q[0] = 1 - 0.1"), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith("notes/n.txt:13:") and "discrepancy" in ln
               for ln in out.splitlines()), out


def test_inferred_order_claims_judge_an_edit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture) -> None:
    note = _project(tmp_path, NOTE)
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "n.txt", "--infer"]) == 0
    text = (tmp_path / "claims" / "n" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert "printed_order" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    note.write_text(NOTE.replace("重复步骤 1~7", "重复步骤 5~7"), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith("notes/n.txt:35:") and "discrepancy" in ln
               for ln in out.splitlines()), out


TABLE = """对照：
\t训练\t推理
是否更新参数\t是\t否
是否计算 Q, K, V\t是\t是
是否知道标准答案\t是\t否
是否反向传播\t是\t否
"""


@pytest.mark.parametrize("row,col", [(3, 1), (3, 2), (4, 2), (5, 2), (6, 1)])
def test_a_flipped_cell_of_a_mode_table_is_a_discrepancy(row: int, col: int) -> None:
    from verifiers.procedures.modes import mode_findings

    lines = TABLE.split("\n")
    block = "\n".join(lines[:row])
    assert [f.status for f in mode_findings(block)] == ["verified", "verified"]
    cells = lines[row - 1].split("\t")
    cells[col] = "否" if cells[col] == "是" else "是"
    edited = "\n".join([*lines[:row - 1], "\t".join(cells)])
    bad = [f for f in mode_findings(edited) if f.status == "discrepancy"]
    assert [(f.line, f.printed) for f in bad] == [(row, cells[col])], bad


BPE = """构造词表：
1. 把每个词拆成字的序列。
2. 统计所有相邻单位对出现的次数。
3. 把出现最多的那一对合并成一个新单位。
4. 重复第 2、3 步，直到词表达到目标大小。
"""


def test_a_step_reference_follows_the_loop_of_its_procedure() -> None:
    assert _bad_lines(BPE) == set()
    assert [f.status for f in order_findings(BPE)] == ["verified", "verified"]
    lines = BPE.split("\n")
    lines[2], lines[3] = "2." + lines[3][2:], "3." + lines[2][2:]  # steps 2 and 3 swapped
    swapped = "\n".join(lines)
    assert _bad_lines(swapped) & {3, 4}, [f.message for f in order_findings(swapped)]
    assert _bad_lines(BPE.replace("重复第 2、3 步", "重复第 1、3 步")) == {5}
    assert _bad_lines(BPE.replace("重复第 2、3 步", "重复第 3 步")) == {5}


def test_an_anchor_is_never_a_formula_line():
    """The quote of an order claim is a line above the order; a formula there would be quoted
    as text (and an edit of it would move the claim), so the anchor skips it."""
    from verifiers.infer.orders import _anchor

    lines = ["前面讲了排列：", "Y = T + FFN(LN(T)) .", "MHA → LN → FFN"]
    assert _anchor(lines, 2, 0, 3, frozenset({2})) == 0
    assert _anchor(["Y = T + FFN(LN(T)) .", "MHA → LN → FFN"], 1, 0, 2, frozenset({1})) is None
