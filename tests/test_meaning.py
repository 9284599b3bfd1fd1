"""The meaning detectors: formulas, law-stating sentences, procedures, both ways on real lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.coverage.meaning import find_items
from verifiers.meaning import find_formulas, find_procedures, find_statements
from verifiers.meaning.formulas import is_formula
from verifiers.meaning.statements import CUES_FILE, load_cues, states_law
from verifiers.notes import read_note

NOTES = Path(__file__).resolve().parent.parent / "notes"
L1, MBM, ARCH = ("lesson1-text-to-distribution.txt", "matrix-by-matrix.txt",
                 "architecture-and-training.txt")


def found(note_name: str, line_no: int, kind: str) -> list[str]:
    """The items of one kind that start on a line of a real note."""
    note = read_note(NOTES / note_name)
    return [it.text for it in find_items(note)[kind] if note.position(it.start)[0] == line_no]


# --- formulas -------------------------------------------------------------------------

@pytest.mark.parametrize("note, line, expected", [
    # inline LaTeX: a name alone ($V$) is not a formula, a relation or operator is
    (L1, 79, ["$i\\ne j$", "$e_i\\cdot e_j=\\sum_k\\delta_{ik}\\delta_{jk}=0$",
              "$\\lVert e_i-e_j\\rVert=\\sqrt2$"]),
    (L1, 174, ["$z=(2,1,0)$"]),
    # display lines kept as LaTeX source, Chinese words inside included
    (ARCH, 172, ["s_{i j} = \\frac{q_{i} \\cdot k_{j}}{\\sqrt{d_{k}}}"]),
    (ARCH, 388, ["Attention (Q, K, V) = softmax (\\frac{Q K^{T}}{\\sqrt{d_{k}}}) V"]),
    (ARCH, 1657, ["\\begin{aligned} P (黑便) & = \\frac{e^{2}}{e^{2} + e^{1} + e^{0}} \\approx "
                  "0.665 \\\\ P (呕血) & \\approx 0.245 \\\\ P (呼吸困难) & \\approx 0.090 "
                  "\\end{aligned}"]),
    # plain math in an exported line, up to the comment
    (MBM, 17, ["seq_len = 3"]),
    (MBM, 52, ["PE(pos, 2i) = sin(pos / 10000^(2i/d_model))"]),
    # a parenthesis opened in prose and closed after Chinese words is not part of it
    (MBM, 94, ["Q = X_input · W_q"]),
    (MBM, 413, ["MultiHead = concat(head₁, ..., headₕ) · W_o"]),
    # a Chinese subscript is a name
    (ARCH, 937, ["y = x_{苹果} W"]),
])
def test_formulas_on_real_lines(note, line, expected):
    assert found(note, line, "formulas") == expected


@pytest.mark.parametrize("note, line", [
    (L1, 74),    # Chinese prose with numbers: "3 号和 4 号挨着"
    (L1, 49),    # "$V$ 越大…正比于 $V$（§2、§7 会算到）": names, not formulas
    (MBM, 6),    # "Self-Attention", "Q/K/V → Score → …": a hyphen, a slash list, a pipeline
    (MBM, 140),  # "= 0.075 + 0.54 + 0.60 + 0.22": arithmetic on numerals only
    (MBM, 13),   # the heading "1.1 我们的示例任务"
    (MBM, 21),   # 索引 0: "<PAD>" （填充符）
    (MBM, 678),  # │ 4. Transformer 解码器层（×N） │: × with one operand, a label
    (ARCH, 300), # 对任何实数，指数结果始终大于 0。
])
def test_not_formulas_on_real_lines(note, line):
    assert found(note, line, "formulas") == []


@pytest.mark.parametrize("text", [
    "n·d·m", "∝ √d_k", "Σ_j a_j", "O(n²)", "softmax(QK^T/√d_k)V", "a = b + c",
    "d_model/2", "x-1", "$\\frac{1}{3}$", "\\sqrt{64} = 8", "$T\\gt0$", "E [X Y] = E [X] E [Y]",
])
def test_plain_and_latex_math_is_a_formula(text):
    assert is_formula(text), text
    assert [it.text for it in find_formulas(text)] == [text]


@pytest.mark.parametrize("text", [
    "GPT-2", "Self-Attention", "Q/K/V", "<PAD>", "$V$", "$E_{i,:}$", "5+3+2=10", "(4 × 3)",
    "3.2 计算 Q 矩阵", "共 13 个词，第 2 轮", "top-k 和 top-p",
])
def test_names_words_and_numerals_are_not_formulas(text):
    assert find_formulas(text) == []


def test_formula_spans_index_the_text():
    text = "前文\n由此 $a=b+c$，而 n·d·m 是参数量。\n$$\nx = y^2\n$$\n"
    items = find_formulas(text)
    assert [it.text for it in items] == ["$a=b+c$", "n·d·m", "$$\nx = y^2\n$$"]
    assert all(text[it.start:it.end] == it.text for it in items)


# --- statements -----------------------------------------------------------------------

@pytest.mark.parametrize("note, line, expected", [
    (L1, 49, ["$V$ 越大，同一段文字切出的 token 越少",
              "代价是嵌入矩阵和输出层的大小都正比于 $V$（§2、§7 会算到）"]),
    (L1, 144, ["• 单调递增", "logit 越大概率越大，排序不变"]),  # 单调: a cue since issue 12
    (ARCH, 300, ["对任何实数，指数结果始终大于 0"]),
    (ARCH, 374, ["所有分数一起平移，则这个比不变"]),
    # the comparative and scope cues (issue 12, second pass)
    (ARCH, 242, ["需要注意，实际模型的 Q、K 不一定是单位向量，点积不仅由夹角决定"]),
    (ARCH, 740, ["所以 $\\sqrt{d_{k}}$ 的来源，本质上就是独立随机项求和时，"
                 "标准差按平方根规律增长"]),
    (ARCH, 2146, ["导数为负，说明增加 $w$ 有助于减小损失"]),
    (L1, 240, ["预测只依赖前一个 token，所以叫 bigram（二元）模型"]),
])
def test_statements_on_real_lines(note, line, expected):
    assert found(note, line, "statements") == expected


@pytest.mark.parametrize("note, line", [
    (L1, 76),    # a description, no cue (74 states a law since 不代表 is a cue: covered)
    (MBM, 510),  # "其他词有一定机会": 一定 as "some", an except phrase
    (MBM, 196),  # "猫对所有词的关注"
])
def test_not_statements_on_real_lines(note, line):
    assert found(note, line, "statements") == []


@pytest.mark.parametrize("sentence, law", [
    ("Softmax is invariant to a shift of its inputs", True),
    ("a iff b", True),
    ("the more heads, the more parameters", True),
    ("It never overflows", True),
    ("Nevertheless it is slow", False),  # a whole word only
    ("在一定程度上有帮助", False),
    ("无论 T 取何值，概率和为 1", True),
    ("the loss decreases as p_y grows", True),
    ("a higher logit is more likely", True),
    ("不仅依赖于 x_i，还依赖于其他 x_j", True),
    ("只有第 i 行非零", True),
    ("增加 w 会使损失增加", True),
    ("这一行只有 4 个数", False),  # 只有 without a law after it
    ("我们现在增加一个例子", False),  # 增加 alone narrates
])
def test_cues(sentence, law):
    assert states_law(sentence) is law


def test_sentences_split_at_chinese_and_english_ends():
    text = "温度越低分布越尖；总是这样。It is always so. And this is not\n恒为正"
    assert [it.text for it in find_statements(text)] == [
        "温度越低分布越尖", "总是这样", "It is always so", "恒为正"]


def test_the_cue_file_is_documented_data_read_safely():
    assert CUES_FILE.name == "cues.yaml" and CUES_FILE.read_text(encoding="utf-8").startswith("#")
    cues = load_cues()
    assert ("越", "越") in cues.pairs and cues.words.search("if and only if")


# --- procedures -----------------------------------------------------------------------

@pytest.mark.parametrize("note, line, expected", [
    (L1, 55, ["1. 从最小单位开始（这里是单个汉字），把每个词拆成字的序列。 … (4 steps)"]),
    (L1, 64, ["学习（10）→ 机器（7）→ 机器学习（5）→ 深度（4）→ 深度学习（3）→ 机器人"]),
    (L1, 234, ["id → ℝ^d → ℝ^V → 概率 → 损失 → 梯度"]),
    (MBM, 6, ["Q/K/V → Score → Softmax → Output"]),
    (ARCH, 284, ["第一步：每个分数取指数 … (2 steps)"]),
])
def test_procedures_on_real_lines(note, line, expected):
    assert found(note, line, "procedures") == expected


@pytest.mark.parametrize("note, line", [
    (MBM, 805),  # 0.50 → 0.75 → 0.90: numbers, not stages
    (MBM, 42),   # Token "猫"（索引2）→ X_猫 = …: two stages
    (L1, 56),    # step 2 of the list: the procedure starts at step 1
])
def test_not_procedures_on_real_lines(note, line):
    assert found(note, line, "procedures") == []


def test_steps_and_step_words():
    text = "做法：\n1. 拆字\n2. 统计\n3. 合并\n另一件事\n1. 只有一项\nStep 1: read\nStep 2: add\n"
    items = find_procedures(text)
    assert [it.text for it in items] == ["1. 拆字 … (3 steps)", "Step 1: read … (2 steps)"]
    assert find_procedures("第一步：取指数\n中间一段\n第二步：归一化") != []
    # a heading between two markers ends the run
    text = "第一步：取指数\n3.2 新一节\n第二步：归一化"
    assert find_procedures(text, headings=[text.index("3.2")]) == []
    assert len(find_procedures(text, headings=[len(text)])) == 1


@pytest.mark.parametrize("text", [
    "a/" * 20_000, "ab-" * 20_000, "(" * 60_000, "$$a" * 20_000, "一定程度" * 20_000,
    "a → " * 20_000, ("x" + " " * 50 + "-") * 1_000, "X_" + "猫" * 60_000,
])
def test_adversarial_lines_are_read_in_one_pass(text):
    """Long lines of operators, brackets, dollars, except phrases: no rescans (these once
    took minutes, or overflowed the stack); speed is measured in benchmarks, not here."""
    for find in (find_formulas, find_statements, find_procedures):
        assert all(text[it.start:it.end] == it.text or it.kind == "procedure"
                   for it in find(text))
