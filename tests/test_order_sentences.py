"""Orders stated in sentences (verifiers/procedures/relations.py), exact orders (a required
step dropped, a step printed twice) and gradient paths, read by verifiers/procedures/orders.py.

The sentences are invented, Chinese and English. Each planted edit makes a sentence false and
must be a discrepancy at the edited line (never a pass); the expected orders come from
tinygpt's recorded runs and autograd, never from this file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.procedures.orders import order_findings
from verifiers.procedures.relations import listed_orders, relation_pairs

# (a true sentence, the same sentence made false by an author's edit)
PAIRS = [
    ("温度要在 Softmax 之前作用在 Logits 上。", "Softmax 要在温度之前作用在 Logits 上。"),
    ("FFN 之前先做注意力。", "注意力之前先做 FFN。"),
    ("注意力之后才是前馈网络。", "前馈网络之后才是注意力。"),
    ("求梯度之后更新参数。", "更新参数之后求梯度。"),
    ("注意力的输出进入 FFN。", "FFN 的输出进入注意力。"),
    ("先算损失，然后反向传播。", "先反向传播，然后算损失。"),
    ("算损失，接着求梯度。", "求梯度，接着算损失。"),
    ("反向传播求出梯度，再由优化器更新。", "优化器更新，再由反向传播求出梯度。"),
    ("在 Softmax 之前，先除以温度。", "在除以温度之前，先做 Softmax。"),
    ("The causal mask is added before the softmax.",
     "The softmax is added before the causal mask."),
    ("After the softmax, the weighted sum mixes the values.",
     "After the weighted sum, the softmax mixes the values."),
    ("Compute the loss, then backpropagation gives the gradients.",
     "Run backpropagation, then compute the loss."),
    ("The attention output feeds into the FFN.", "The FFN output feeds into the attention."),
    ("Sampling happens after the temperature is applied.",
     "The temperature is applied after sampling."),
]


@pytest.mark.parametrize("true,false", PAIRS, ids=[p[0][:24] for p in PAIRS])
def test_a_stated_pair_reads_and_a_swapped_one_fails_at_its_word(true: str, false: str) -> None:
    good = order_findings(true)
    assert good and all(f.status == "verified" for f in good), [f.message for f in good]
    assert any(s.shape == "pair" for s in relation_pairs(true))
    bad = [f for f in order_findings(false) if f.status == "discrepancy"]
    assert bad and bad[0].line == 1, [f.message for f in order_findings(false)]
    assert bad[0].printed in false  # it points at a word of the sentence


@pytest.mark.parametrize("text", [
    "不能先更新参数，然后求梯度。",          # a warning states no order
    "如果先做 Softmax 再加掩码，就错了。",   # a condition
    "你之前学过 Softmax。",                 # 之前 with one operation word
    "Softmax 之前是什么？",                 # a question
    "Never apply the softmax before the mask.",
    "对每个位置计算损失，再进行汇总。",     # 汇总 of losses is no weighted sum of values
])
def test_negations_conditions_and_questions_are_not_read(text: str) -> None:
    assert not relation_pairs(text), relation_pairs(text)
    assert all(f.status == "verified" for f in order_findings(text))


LISTS = [
    ("经过缩放、因果掩码和 Softmax，得到注意力矩阵。",
     "经过缩放、Softmax 和因果掩码，得到注意力矩阵。"),
    ("它们随后还会经过输出投影、残差连接、前馈网络等处理。",
     "它们随后还会经过残差连接、输出投影、前馈网络等处理。"),
    ("The scores pass through scaling, masking and the softmax.",
     "The scores pass through the softmax, masking and scaling."),
]


@pytest.mark.parametrize("true,false", LISTS, ids=[p[0][:20] for p in LISTS])
def test_a_list_after_an_order_cue_is_an_order(true: str, false: str) -> None:
    assert [s.shape for s in listed_orders(true)] == ["list"]
    assert all(f.status == "verified" for f in order_findings(true))
    assert any(f.status == "discrepancy" for f in order_findings(false)), \
        [f.message for f in order_findings(false)]


@pytest.mark.parametrize("text,word", [
    ("经过多头拼接、残差之后，与原来的输入相加。", "残差"),           # the output projection
    ("Q/K/V → Softmax → Output", "Softmax"),                          # the scores
    ("读取真实目标 → 求梯度 → 更新参数", "求梯度"),                  # the loss
    ("读取真实目标 → 算损失 → 更新参数", "更新参数"),                 # the backward pass
])
def test_a_dropped_required_step_is_a_discrepancy_at_the_item_after_it(text: str,
                                                                       word: str) -> None:
    bad = [f for f in order_findings(text) if f.status == "discrepancy"]
    assert bad and bad[0].printed == word, [f.message for f in order_findings(text)]
    assert "missing" in bad[0].message


@pytest.mark.parametrize("text", [
    "Q · K^T → Softmax → A · V",              # the scale and the mask may go unprinted
    "Logits → Softmax → 采样 → Token",         # the temperature and the filters too
    "Embedding → Transformer Block → Linear → Softmax",
    "对新文本分词时，先拆成字，再依次套用合并规则。",  # encoding counts nothing
])
def test_an_optional_step_may_go_unprinted(text: str) -> None:
    found = order_findings(text)
    assert found and all(f.status == "verified" for f in found), [f.message for f in found]


def test_a_step_printed_twice_in_a_row_is_a_discrepancy() -> None:
    text = "Q · K^T → ÷ √d_k → Softmax → Softmax → A · V"
    bad = [f for f in order_findings(text) if f.status == "discrepancy"]
    assert bad and bad[0].printed == "Softmax" and bad[0].col == text.rindex("Softmax")
    twice = "它们随后还会经过输出投影、残差连接、残差连接、前馈网络等处理。"
    bad = [f for f in order_findings(twice) if f.status == "discrepancy"]
    assert bad and bad[0].col == twice.rindex("残差连接"), [f.message for f in bad]
    blocks = "Embedding → Transformer Block → Transformer Block → Linear"
    assert all(f.status == "verified" for f in order_findings(blocks))


def test_the_step_lists_name_known_operations() -> None:
    from verifiers.procedures import read
    from verifiers.procedures.orders import _step_lists

    required, repeatable = _step_lists()
    assert required and repeatable and (required | repeatable) <= read.operations()
    assert not required & repeatable


NOTE = """一、解码
生成一个 Token 的顺序如下。
Temperature 是在 Softmax 之前对 Logits 进行缩放。
它们随后还会经过输出投影、残差连接、前馈网络等处理。
"""


def test_inferred_claims_judge_an_edited_sentence(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture) -> None:
    for d in ("notes", "claims"):
        (tmp_path / d).mkdir()
    note = tmp_path / "notes" / "n.txt"
    note.write_text(NOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "n.txt", "--infer"]) == 0
    text = (tmp_path / "claims" / "n" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert "printed_order" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    for find, replace, line in [
            ("Temperature 是在 Softmax 之前", "Softmax 是在 Temperature 之前", 3),
            ("输出投影、残差连接", "残差连接、输出投影", 4)]:
        note.write_text(NOTE.replace(find, replace), encoding="utf-8")
        assert main(["check", "--no-cache", "-j", "1"]) == 1
        out = capsys.readouterr().out
        assert any(ln.startswith(f"notes/n.txt:{line}:") and "discrepancy" in ln
                   for ln in out.splitlines()), out


# (a true gradient path, the same path made false by an author's edit, the edited symbol)
PATHS = [
    ("反向传播时，梯度从 L 经过 Z、A 传回 W_Q。", "反向传播时，梯度从 L 经过 A、Z 传回 W_Q。", "Z"),
    ("∂L/∂W_Q 要经过 Z、A、Q。", "∂L/∂W_Q 要经过 Z、A、V。", "V"),
    ("\\frac{\\partial L}{\\partial W_{Q}} 需要经过注意力输出和 A",
     "\\frac{\\partial L}{\\partial W_{Q}} 需要经过 A 和注意力输出", "注意力输出"),
    ("The gradient flows from the loss through W_O to V.",
     "The gradient flows from the loss through V to W_O.", "W_O"),
    ("梯度从损失经过隐藏表示传到 Z。", "梯度从 Z 经过隐藏表示传到损失。", "隐藏表示"),
    ("Backpropagation goes from the logits through H to the attention output Z.",
     "Backpropagation goes from the logits through Z to H.", "H"),
]


@pytest.mark.parametrize("true,false,word", PATHS, ids=[p[0][:20] for p in PATHS])
def test_a_gradient_path_is_checked_against_autograd(true: str, false: str, word: str) -> None:
    good = order_findings(true)
    assert good and all(f.status == "verified" for f in good), [f.message for f in good]
    assert any("gradient path" in f.message for f in good)
    bad = [f for f in order_findings(false) if f.status == "discrepancy"]
    assert bad and bad[0].printed == word, [f.message for f in order_findings(false)]


def test_a_sentence_from_a_topic_to_another_is_no_gradient_path() -> None:
    text = "问题已经从 Attention 转移到了反向传播：模型怎样根据损失修改 W_Q。"
    assert not [f for f in order_findings(text) if "gradient path" in f.message]
