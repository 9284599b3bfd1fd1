"""A law sentence rewritten in more than one word is re-read, not stale (issue 12 item 1).

Before: 普通生成过程保持参数不变 -> 也会改变参数 and 只依赖前一个 token -> 依赖前面所有 token only
made their claims `stale` (a single law word was all a quote could have read). Now the changed
clause is read as a phrase (verifiers/words.py ``rephrase``/``phrase_words``) and the law it
states is searched; a phrase with no reading is `unparsed` at it; an edit that breaks the
sentence's structure is still `stale`.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from verifiers import words
from verifiers.claimtext import HOLE_RE
from verifiers.cli import main
from verifiers.properties.runner import clear_cache


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    clear_cache()


def test_a_phrase_is_read_word_by_word_with_its_negations() -> None:
    assert words.phrase_meanings("也会改变参数")["effect"] == {"changes"}
    assert words.phrase_meanings("不会改变参数")["effect"] == {"invariant"}
    assert words.phrase_meanings("没有改变")["effect"] == {"invariant"}
    assert words.phrase_meanings("不再只依赖于")["dependence"] == {"also"}
    assert words.phrase_meanings("仍然只依赖于")["dependence"] == {"only"}
    assert words.phrase_meanings("依赖前面所有 token")["reach"] == {"all"}
    assert words.phrase_meanings("是参数的转置")["layout"] == {"transpose"}
    # a denied word of a class of more than two meanings says nothing of that class
    assert "direction" not in words.phrase_meanings("不变大")


def test_rephrase_rewrites_a_law_clause_and_keeps_the_structure() -> None:
    quote = "普通生成过程保持参数⟦params⟧；上下文和缓存改变。"
    forms = words.rephrase(quote, HOLE_RE)
    first = forms[0]
    assert first.text == "普通生成过程⟦_phrase1⟧；上下文和缓存改变。"
    assert first.quoted == {"_phrase1": "保持参数⟦params⟧"}
    assert first.absorbed == {"_phrase1": ("params",)}
    # a clause with no law word is never rewritten; a Latin law word inside a longer word
    # (big in bigram) is no law word
    assert all("bigram" in f.text for f in words.rephrase("预测⟦dep⟧前一个 token，所以叫 bigram。",
                                                          HOLE_RE))
    # a quote that would keep too little of its text literal is not rephrased
    assert words.rephrase("一定保持不变。", HOLE_RE) == []


NOTE = "第 1 章：例子\n1.1 生成\n普通生成过程{a}；上下文和缓存改变。\n"
CLAIMS = """\
note: n.txt
claims:
  - id: keeps
    kind: property
    section: "1.1"
    says: generation leaves the parameters as they were
    text: 普通生成过程保持参数⟦params⟧；上下文和缓存改变。
    property: generation-keeps-parameters
    params: {max_layers: 1, max_len: 2}
"""


def check(tmp_path: Path, a: str, capsys: pytest.CaptureFixture[str]) -> dict:
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE.format(a=a), encoding="utf-8")
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    return json.loads(out.read_text(encoding="utf-8"))["claims"][0]


def _value(claim: dict) -> dict:
    return claim["values"][0]


def test_the_note_as_quoted_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(tmp_path, "保持参数不变", capsys)["status"] == "verified"


def test_a_rewritten_phrase_stating_a_false_law_fails_at_the_phrase(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claim = check(tmp_path, "也会改变参数", capsys)
    assert claim["status"] == "discrepancy"
    value = _value(claim)
    assert value["start"]["line"] == 3 and value["start"]["col"] == 7  # at 也会改变参数
    assert "params = changes" in value["message"]


def test_a_rewritten_phrase_keeping_the_law_verifies(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert check(tmp_path, "不会改变参数", capsys)["status"] == "verified"
    assert check(tmp_path, "没有改变任何参数", capsys)["status"] == "verified"


def test_a_phrase_with_no_reading_is_unparsed_at_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claim = check(tmp_path, "对参数做了点什么", capsys)
    assert claim["status"] == "unparsed"
    assert _value(claim)["start"]["line"] == 3
    assert "effect" in _value(claim)["message"]


def test_a_broken_structure_is_still_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(
        "第 1 章：例子\n1.1 生成\n生成时模型会读缓存。\n", encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    assert json.loads(out.read_text(encoding="utf-8"))["claims"][0]["status"] == "stale"


def test_diff_rephrase_marks_where_the_line_differs() -> None:
    quote = "同时尽可能⟦order⟧原来的高低顺序。"
    line = "把分数转换成权重，同时把原来的高低顺序反过来。"
    made = words.diff_rephrase(quote, line, HOLE_RE)
    assert made is not None
    assert made.text == "同时⟦_phrase1⟧原来的高低顺⟦_phrase2⟧。"
    assert made.absorbed["_phrase1"] == ("order",)
    # a deleted word is read with its neighbour (nothing is printed in its place)
    cut = words.diff_rephrase("模型在推理时保持参数⟦p⟧，缓存改变。",
                              "模型在推理时参数⟦p⟧，缓存改变。", HOLE_RE)
    assert cut is not None and cut.quoted == {"_phrase1": "时保持"}
    # a value hole that went away is a changed structure: no rephrasing
    assert words.diff_rephrase("只有均值为 ⟨m⟩ 时，二者才相等。", "无论均值是多少，二者都相等。",
                               HOLE_RE) is None


def test_a_dropped_negation_of_a_word_outside_the_vocabulary_is_not_a_pass() -> None:
    # a negation of a word outside the vocabulary came or went: judged, never a silent pass
    assert words.loose_negations("他不喜欢分数") == 1 and words.loose_negations("他喜欢分数") == 0
    assert words.judgeable("他不喜欢分数", "他喜欢分数")
    assert not words.judgeable("分数越大", "温度越大")  # about something new: stays stale
    assert words.judgeable("保持参数", "对参数做了点什么")  # a law word lost: judged (unparsed)
