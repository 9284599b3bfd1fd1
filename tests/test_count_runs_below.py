"""A count word whose items are a run of steps a few lines below it (``分成两个步骤`` … 第一步
… 第二步; ``三个梯度`` … (a) … (b) … (c); verifiers/restate/items.py ``below_start``): the
inferred claim verifies, and a planted wrong word or an added step fails at the word."""

from __future__ import annotations

import pytest

from tests.note_edits import check_project
from verifiers.restate.items import item_ends, read_items

NOTE = """第 1 章
1.1 步骤
Softmax 分成两个步骤，其实很简单

我们仍然使用：

s = (1, 0, - 1)

第一步：每个分数取指数

得到新的分数。

第二步：让和等于一

1.2 梯度
反向：三个梯度

记 g 为误差。

(a) 对 W。先算外积。

形状检查。

(b) 对 x。再乘回去。

(c) 对 E。只更新一行。

1.3 阶段
下面分成三个阶段

先看全貌。

第一阶段：计算 q。

第二阶段：计算权重。

第三阶段：加权求和。
"""


def _claims(tmp_path, text):
    from verifiers.infer.counts import count_claims
    from verifiers.notes import read_note

    (tmp_path / "n.txt").write_text(text, encoding="utf-8")
    found = count_claims({"n.txt": read_note(tmp_path / "n.txt")}, "n.txt", "n", set())
    return "note: n.txt\nclaims:\n" + "".join(c.yaml for c in found), found


def test_a_run_below_reads_as_its_steps():
    text = "反向：三个梯度\n\n记 g。\n\n(a) 一\n\n(b) 二\n\n(c) 三\n\n后文"
    begin = text.index("记")
    end = item_ends(text, begin, len(text))[-1]
    assert text[begin:end].endswith("(c)") and read_items(text[begin:end])[0] == (3,)
    # too far below (more than MAX_BELOW lines) is no run of this sentence
    far = "反向：三个梯度\n" + "正文。\n\n" * 5 + "(a) 一\n\n(b) 二\n\n后文"
    near = far.replace("正文。\n\n" * 5, "正文。\n\n" * 3)
    at = near.index("正文")
    assert read_items(near[at:item_ends(near, at, len(near))[-1]])[0] == (2,)
    assert item_ends(far, far.index("正文"), len(far)) == []


def test_runs_below_are_inferred_and_verify(tmp_path, capsys, monkeypatch):
    claims, found = _claims(tmp_path, NOTE)
    quotes = [c.yaml for c in found]
    assert len(found) == 3, quotes
    assert any("分成⟨n⟩个步骤" in q for q in quotes)
    assert any("反向：⟨n⟩个梯度" in q for q in quotes)
    assert any("分成⟨n⟩个阶段" in q for q in quotes)
    work = tmp_path / "p"
    work.mkdir()
    code, _ = check_project(work, NOTE, claims, monkeypatch, capsys)
    assert code == 0


@pytest.mark.parametrize(("find", "replace", "line", "suggestion"), [
    ("分成两个步骤", "分成三个步骤", 3, "两"),
    ("反向：三个梯度", "反向：两个梯度", 16, "三"),
    ("(c) 对 E。只更新一行。", "(c) 对 E。只更新一行。\n\n(d) 对 b。", 16, "四"),
    ("第三阶段：加权求和。", "第三阶段：加权求和。\n\n第四阶段：输出。", 29, "四"),
])
def test_a_planted_wrong_count_fails_at_the_word(tmp_path, capsys, monkeypatch, find, replace,
                                                 line, suggestion):
    claims, _ = _claims(tmp_path, NOTE)
    assert NOTE.count(find) == 1
    work = tmp_path / "p"
    work.mkdir()
    code, by_id = check_project(work, NOTE.replace(find, replace), claims, monkeypatch, capsys)
    assert code == 1
    bad = [v for c in by_id.values() for v in c["values"] if v["status"] == "discrepancy"]
    assert [(v["start"]["line"], v["suggestion"]) for v in bad] == [(line, suggestion)]


def test_a_run_of_other_things_is_not_read_as_the_count(tmp_path):
    # 两个同维向量 is followed by three steps: the run counts steps, not vectors
    text = "1.1 点积\n两个同维向量的点积是\n\n第一步：展开。\n\n第二步：画图。\n"
    _, found = _claims(tmp_path, text)
    assert found == []


BULLETS = """第 1 章
1.1 独热
例如 $V=4$ 时。它有两个毛病：

• 太大。每个 token 都是 50257 维的向量，其中只有一个位置非零。
• 没有相似度。任意两个不同 token 的点积都是 0。

改进办法是给每个 token 一个可学习的向量。
"""


@pytest.mark.parametrize(("find", "replace", "suggestion"), [
    ("有两个毛病", "有三个毛病", "两"),
    ("点积都是 0。", "点积都是 0。\n• 没有顺序。", "三"),
])
def test_a_bullet_list_is_counted_and_a_planted_error_fails(tmp_path, capsys, monkeypatch,
                                                            find, replace, suggestion):
    claims, found = _claims(tmp_path, BULLETS)
    assert len(found) == 1 and "有⟨n⟩个毛病" in found[0].yaml
    work = tmp_path / "p"
    work.mkdir()
    assert check_project(work, BULLETS, claims, monkeypatch, capsys)[0] == 0
    edited = tmp_path / "e"
    edited.mkdir()
    code, by_id = check_project(edited, BULLETS.replace(find, replace), claims, monkeypatch,
                                capsys)
    assert code == 1
    bad = [v for c in by_id.values() for v in c["values"] if v["status"] == "discrepancy"]
    assert [(v["start"]["line"], v["suggestion"]) for v in bad] == [(3, suggestion)]
