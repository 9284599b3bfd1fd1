"""Count words (三个, 两类, 十二层, six) are numbers: found and classified, read by a hole, and
checked against the items printed next to them (verifiers/restate, verifiers/infer/counts.py).
Invented sentences, Chinese and English; every reader gets planted wrong words that fail."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.note_edits import check_project
from verifiers.holes import read_number
from verifiers.restate.countwords import (
    ARTICLE,
    COUNT,
    IDIOM,
    ORDINAL,
    find_count_words,
    read_count,
    word_for_count,
)
from verifiers.restate.items import item_ends, read_items


def _classes(text: str) -> list[tuple[str, str, Fraction]]:
    return [(w.word, w.cls, w.value) for w in find_count_words(text)]


@pytest.mark.parametrize(("text", "word", "value"), [
    ("模型一共有十二层。", "十二层", 12), ("这里有两类不同的东西", "两类", 2),
    ("分成三步完成", "三步", 3), ("堆叠二十四层之后", "二十四层", 24),
    ("每个 Token 是二维的向量", "二维", 2), ("只用单层网络", "单", 1),
    ("取一半的数据", "一半", Fraction(1, 2)), ("The model has six heads.", "six", 6),
    ("we stack twelve layers", "twelve", 12), ("a two-layer network", "two", 2),
])
def test_a_count_word_is_found_with_its_value(text, word, value):
    assert (word, COUNT, value) in _classes(text)


@pytest.mark.parametrize(("text", "cls"), [
    ("第三个分数最大", ORDINAL), ("第 二 层", ORDINAL), ("得到一个向量", ARTICLE),
    ("再做一次", ARTICLE), ("稍微大一点", IDIOM),
    ("a one-hot vector", IDIOM), ("one of the tokens", IDIOM),
])
def test_ordinals_articles_and_idioms_are_classified_not_counted(text, cls):
    assert [c for _, c, _ in _classes(text)] == [cls]


@pytest.mark.parametrize(("text", "cls"), [
    ("计算单元", IDIOM), ("单头注意力的局限", IDIOM), ("叫 bigram（二元）模型", IDIOM),
    ("有限二阶矩下的方差", IDIOM), ("求二阶导", IDIOM),
])
def test_named_kinds_and_orders_are_waived_by_their_rule(text, cls):
    words = find_count_words(text)
    assert [w.cls for w in words] == [cls] and all(w.reason for w in words)


@pytest.mark.parametrize(("text", "word"), [
    ("两个单元", "两个"), ("单层网络", "单"), ("三元组", "三元"), ("三阶矩阵", "三阶"),
    ("双头注意力", "双"), ("两个头", "两个"),
])
def test_a_waiver_rule_does_not_swallow_a_real_count(text, word):
    assert (word, COUNT) in [(w.word, w.cls) for w in find_count_words(text)]


@pytest.mark.parametrize("text", ["堆叠几十层", "一些向量", "简单的例子", "单位矩阵",
                                  "这一样吗", "两者相加", "someone said", "done once"])
def test_words_that_are_no_counts_are_not_found(text):
    assert [c for _, c, _ in _classes(text) if c == COUNT] == []


def test_a_hole_reads_a_count_word_exactly():
    pn = read_number("十二")
    assert (pn.kind, pn.value, pn.exact) == ("count", 12, True)
    assert read_count("two") == 2 and read_count("Six") == 6 and read_count("两") == 2
    assert read_count("几") is None and read_count("second") is None


def test_a_suggestion_is_a_count_word_in_the_printed_language():
    assert word_for_count("四", Fraction(3)) == "三"
    assert word_for_count("二", Fraction(2)) == "二"
    assert word_for_count("三", Fraction(2)) == "两"
    assert word_for_count("十", Fraction(12)) == "十二"
    assert word_for_count("Four", Fraction(3)) == "Three"
    assert word_for_count("four", Fraction(6)) == "six"


def test_an_enumeration_reads_as_its_items():
    text = "k_{1}, k_{2}, k_{3} 的"
    (end,) = item_ends(text, 0, len(text))
    assert read_items(text[:end])[0] == (3,)
    assert [n.value for n in read_items("k_{1}, k_{2}, k_{3}")[1]] == [1, 2, 3]
    assert read_items("“患者、服用、华法林、后、出现”")[0] == (5,)
    text = "三个概念：\n\n概念\t作用\nA\t读\nB\t写\nC\t算\n\n后文"  # a table: its rows
    (end,) = item_ends(text, 7, len(text))
    assert read_items(text[7:end])[0] == (3,)
    text = "分三步。\n\n第一步：展开 x\n\n第二步：画图\n\n第三步：对比。"  # an ordinal run
    (end,) = item_ends(text, 6, len(text))
    assert read_items(text[6:end])[0] == (3,)
    text = "两点不同。第一，字节。第二，词表。"
    (end,) = item_ends(text, 5, len(text))
    assert read_items(text[5:end])[0] == (2,)
    text = "三件事：\n\n使用点积。\n使用 Softmax。\n使用系数。\n\n后文"  # short lines
    (end,) = item_ends(text, 6, len(text))
    assert read_items(text[6:end])[0] == (3,)
    text = "U三列依次给A、B、C打分"  # no enumeration starts inside a sentence's words
    assert item_ends(text, 3, len(text)) == []


NOTE = """第 1 章
1.1 分数
于是得到三个分数：

s = (1, 0, - 1)

假设有三个向量：

x_{1}, x_{2}, x_{3}

我们现在只有 0.1、0.6、0.3 这三个数字。

下面分三步推出来。

第一步：展开。

第二步：画图。

第三步：对比。
1.2 English
We get four scores: (0.5, 0.25, 0.125, 0.125)
"""

CLAIMS = """note: n.txt
claims:
  - id: scores
    says: the count word is the number of scores
    section: "1.1"
    text: "于是得到⟨n⟩个分数：\\n\\ns = ⟨v⟩"
    check: {n: len(v)}
  - id: vectors
    says: the count word is the number of vectors named
    section: "1.1"
    text: "假设有⟨n⟩个向量：\\n\\n⟨items⟩"
    check: {n: len(items)}
  - id: numbers
    says: the count word after a run of numbers
    section: "1.1"
    text: "我们现在只有 ⟨a1⟩、⟨a2⟩、⟨a3⟩ 这⟨n⟩个数字"
    check: {n: "len([a1, a2, a3])"}
  - id: steps
    says: the count word before an ordinal run
    section: "1.1"
    text: "下面分⟨n⟩步推出来。\n\n⟨items⟩"
    check: {n: len(items)}
  - id: english
    says: an English count word
    section: "1.2"
    text: "We get ⟨n⟩ scores: ⟨v⟩"
    check: {n: len(v)}
"""


def test_the_unedited_count_words_verify(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


@pytest.mark.parametrize(("claim", "find", "replace", "line", "col", "suggestion"), [
    ("scores", "得到三个", "得到四个", 3, 5, "三"),
    ("scores", "得到三个", "得到两个", 3, 5, "三"),
    ("vectors", "假设有三个", "假设有四个", 7, 4, "三"),
    ("numbers", "这三个数字", "这四个数字", 11, 21, "三"),
    ("steps", "分三步", "分两步", 13, 4, "三"),
    ("english", "get four", "get three", 21, 8, "four"),
    ("english", "get four", "get five", 21, 8, "four"),
])
def test_an_edited_count_word_is_a_discrepancy_at_the_word(tmp_path, capsys, monkeypatch,
                                                           claim, find, replace, line, col,
                                                           suggestion):
    assert NOTE.count(find) == 1
    code, by_id = check_project(tmp_path, NOTE.replace(find, replace), CLAIMS, monkeypatch,
                                capsys)
    assert code == 1
    n = next(v for v in by_id[claim]["values"] if v["name"] == "n")
    assert n["status"] == "discrepancy"
    assert n["start"] == {"line": line, "col": col}
    assert n["suggestion"] == suggestion


def test_an_added_item_makes_the_count_wrong_too(tmp_path, capsys, monkeypatch):
    edited = NOTE.replace("s = (1, 0, - 1)", "s = (1, 0, - 1, 2)")
    code, by_id = check_project(tmp_path, edited, CLAIMS, monkeypatch, capsys)
    assert code == 1
    n = next(v for v in by_id["scores"]["values"] if v["name"] == "n")
    assert (n["status"], n["suggestion"]) == ("discrepancy", "四")


INFER_NOTE = """第 1 章
1.1 例子
于是得到三个分数：

s = (1, 0, - 1)

这里有两类不同的东西：

W_{Q}, W_{K}, W_{V}

假设有三个向量：

x_{1}, x_{2}, x_{3}
"""


def _infer(tmp_path, text):
    from verifiers.infer.counts import count_claims
    from verifiers.notes import read_note

    (tmp_path / "n.txt").write_text(text, encoding="utf-8")
    return count_claims({"n.txt": read_note(tmp_path / "n.txt")}, "n.txt", "n", set())


def test_count_claims_are_inferred_only_where_they_verify(tmp_path):
    found = _infer(tmp_path, INFER_NOTE)
    quotes = [c.yaml for c in found]
    assert len(found) == 2, quotes  # 两类 counts kinds, not the three matrices: no claim
    assert any("得到⟨n⟩个分数" in q and "len(v)" in q for q in quotes)
    assert any("有⟨n⟩个向量" in q and "len(items)" in q for q in quotes)


def test_an_inferred_count_claim_fails_at_an_edited_word(tmp_path, capsys, monkeypatch):
    claims = "note: n.txt\nclaims:\n" + "".join(c.yaml for c in _infer(tmp_path, INFER_NOTE))
    work = tmp_path / "project"
    work.mkdir()
    code, by_id = check_project(work, INFER_NOTE, claims, monkeypatch, capsys)
    assert code == 0
    edited = tmp_path / "edited"
    edited.mkdir()
    code, by_id = check_project(edited, INFER_NOTE.replace("有三个", "有两个"), claims,
                                monkeypatch, capsys)
    assert code == 1
    bad = [v for c in by_id.values() for v in c["values"] if v["status"] == "discrepancy"]
    assert [(v["start"]["line"], v["suggestion"]) for v in bad] == [(11, "三")]


def test_coverage_counts_count_words(tmp_path, capsys, monkeypatch):
    import json

    from verifiers.cli import main

    note = INFER_NOTE + "再做一次，第三个向量最大。这两个问题以后再说。\n"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    claims = "note: n.txt\nclaims:\n" + "".join(c.yaml for c in _infer(tmp_path / "notes",
                                                                         note))
    (tmp_path / "claims" / "n" / "c.yaml").write_text(claims, encoding="utf-8")
    (tmp_path / "claims" / "n" / "w.yaml").write_text(
        "note: n.txt\nwaivers:\n  - text: 这⟨k⟩个问题以后再说\n    waives: [count_words]\n"
        "    reason: a count of questions the note does not list\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    main(["coverage", "--json", "cov.json"])
    capsys.readouterr()
    words = json.loads((tmp_path / "cov.json").read_text(encoding="utf-8"))["notes"][0][
        "count_words"]
    # 三个分数, 三个向量 covered; 两类 uncovered; 一次 (article) and 两个问题 (waiver) waived
    assert (words["total"], words["covered"], words["waived"]) == (5, 2, 2)
    assert [u["text"] for u in words["uncovered"]] == ["两类"]
    assert words["excluded"] == {"ordinal": 1}
    assert words["waived_by"] == {"article": 1, "waiver": 1}


def test_the_count_survey_plants_one_neighbour_per_count_word():
    from benchmarks.count_survey import planted

    edits = planted()
    assert edits == planted()  # seeded: the same edits on every run
    assert len({(e.note, e.offset) for e in edits}) == len(edits)
    assert all(e.new != e.old and abs(read_count(e.new) - read_count(e.old)) == 1
               for e in edits)
    assert {e.cls for e in edits} == {"items", "prose"}
    both = planted(both=True)
    assert len(both) > len(edits)


def test_an_added_step_makes_the_count_word_wrong(tmp_path, capsys, monkeypatch):
    edited = NOTE.replace("第三步：对比。", "第三步：对比。\n\n第四步：总结。")
    code, by_id = check_project(tmp_path, edited, CLAIMS, monkeypatch, capsys)
    assert code == 1
    n = next(v for v in by_id["steps"]["values"] if v["name"] == "n")
    assert (n["status"], n["start"]["line"], n["suggestion"]) == ("discrepancy", 13, "四")
