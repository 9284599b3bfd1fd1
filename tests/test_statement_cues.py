"""The third pass of law cue words (issue 12 item 4): dependence/scope, change/constancy,
implication, sameness, raising/lowering; each finds its sentence, its `except` hides what it
should, the broad words measured and left out find nothing, and the gate reacts to them."""

from __future__ import annotations

import pytest

from tests.test_changes import git
from tests.test_engine import project
from tests.test_meaning import ARCH, L1, MBM, found
from verifiers.cli import main
from verifiers.meaning.statements import states_law


@pytest.mark.parametrize("sentence", [
    # dependence / scope
    "bigram 的预测只看当前这一个 token",
    "注意力分数只看输入向量之间的两两相互作用",
    "Q 来自解码端，K/V 来自编码端",
    "The renormalised weights depend only on the difference of the two logits",
    "the gradient comes from the loss",
    # change / constancy
    "而 A 会随着每次输入的文本发生改变",
    "标准差在这一假设下就保持为 1",
    "the residual passes the token on unchanged",
    "The length does not change",
    "a fixed vector is added to each embedding",
    "the weights vary with the input",
    # implication
    "3 号和 4 号挨着，不代表它们意思相近",
    "这说明Softmax使用候选之间的相对分数",
    "a zero gradient does not mean a minimum",
    # sameness
    "只要 x 相同，输出就相同",
    "两者的距离完全一样",
    "the two rows are equal",
    # direction
    "正确目标概率提高，损失严格下降",
    "Lowering the capacity factor drops more tokens",
    "Raising the temperature flattens the distribution",
    "The layer is permutation-equivariant",
])
def test_each_new_cue_class_finds_its_sentence(sentence):
    assert states_law(sentence)


@pytest.mark.parametrize("sentence", [
    "下面先只看一个位置面对几个候选的情况",  # except 先只看: the order of the text
    "实际观察（来自论文分析）：",           # except （来自: a source
    # measured and left out: they add mostly descriptions
    "我们可以先算第一行",                   # 可以
    "这可能是一个例子",                     # 可能
    "不同的颜色表示不同的头",               # 不同
    "θ代表模型当前全部参数",                # 代表 alone (不代表 is a cue)
    "第7章说明具体做法",                    # 说明 alone (这说明 is a cue)
    "模型在不断降低预测误差的过程中学习",   # 降低 alone
    "The same routing in code",             # same
    "取决于场景",                           # 取决于 alone (只取决于 is a cue)
    "这意味着，每个 Token 都得到一个新的向量表示",  # 意味着
    "we can see the rows",                  # can
])
def test_the_left_out_and_excepted_words_find_nothing(sentence):
    assert not states_law(sentence)


@pytest.mark.parametrize("note, line, expected", [
    (L1, 318, ["bigram 的预测只看当前这一个 token：$p(x_{t+1}\\mid x_t)$"]),
    (ARCH, 1147, ["$W_{Q}, W_{K}, W_{V}$ 是训练后相对固定的参数，"
                  "而 $A$ 会随着每次输入的文本发生改变"]),
    (MBM, 649, ["│ 类比 │ 让差异更大/更小 │ 只看最好的几个 │ 覆盖绝大多概率 │"]),  # waived
])
def test_new_cues_on_real_lines(note, line, expected):
    assert found(note, line, "statements") == expected


NOTE = "1.1 公式\n输入 x = 1.20\ny = x + x = 2.40\n"
CLAIMS = """note: n.txt
claims:
  - id: double
    text: |
      输入 x = ⟨x⟩
      y = x + x = ⟨y⟩
    check: {y: x + x}
"""
WAIVER = """waivers:
  - text: Q 来自解码端，K/V 来自编码端
    reason: cross-attention, not in the model checked here
    waives: [statements]
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = project(tmp_path, CLAIMS, NOTE)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("sentence, col", [
    ("Q 来自解码端，K/V 来自编码端", 1),         # roles of cross-attention
    ("bigram 的预测只看当前这一个 token", 1),
    ("A 会随着输入改变", 1),
    ("Lowering the capacity factor drops more tokens", 1),
])
def test_a_new_sentence_with_a_new_cue_on_a_changed_line_fails_the_gate(repo, capsys,
                                                                         sentence, col):
    (repo / "notes" / "n.txt").write_text(NOTE + sentence + "。\n", encoding="utf-8")
    code = main(["check", "--changed-since", "HEAD"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"notes/n.txt:4:{col}: uncovered statement: {sentence}" in out


def test_a_waived_new_sentence_passes_the_gate(repo, capsys):
    (repo / "notes" / "n.txt").write_text(NOTE + "Q 来自解码端，K/V 来自编码端。\n",
                                          encoding="utf-8")
    (repo / "claims" / "n" / "c.yaml").write_text(CLAIMS + WAIVER, encoding="utf-8")
    code = main(["check", "--changed-since", "HEAD"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "uncovered" not in out
