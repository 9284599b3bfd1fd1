"""A law word in a quote's fixed text is read when an edit changes it (issue 12 item 1).

Before: a claim quoting "原来分数越大，指数结果也越⟦prob⟧。" went only `stale` when an author
wrote 越小 for 越大, or 反而越小 for 也越大, and re-quoting it would pin the false law. Now the
quote is found with its fixed law words read (verifiers/words.py ``relax``) and the sentence is
judged as the law it now states (verifiers/properties/fixedwords.py).
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


def test_relax_reads_the_law_words_of_the_fixed_text() -> None:
    relaxed = words.relax("原来分数越大，指数结果也越⟦prob⟧。", HOLE_RE)
    assert relaxed is not None
    # 越大 is a hole of its own; 也越 (modifiers) is left to the word hole after it
    assert relaxed.text == "原来分数⟦_law1⟧，指数结果⟦prob⟧。"
    assert relaxed.quoted == {"_law1": "越大"}
    assert words.relax("增大了。", HOLE_RE) is None  # the opening word stays literal
    assert words.relax("一只猫坐在垫子上", HOLE_RE) is None  # no law word


def test_modifiers_carry_no_law() -> None:
    assert words.meaning("direction", "反而越小") == "decreases"
    assert words.meaning("direction", "也会变大") == "increases"
    assert words.meaning("direction", "反而") is None  # a modifier alone is no word
    assert words.strip_modifiers("也越大") == "大"


NOTE = "第 1 章：例子\n1.1 指数\n原来分数{a}，指数结果{b}。总数{c}到 5 个。\n"
CLAIMS = """\
note: n.txt
claims:
  - id: order
    kind: property
    section: "1.1"
    says: a larger score gives a larger exponential (softmax keeps the order)
    text: 原来分数越大，指数结果也越⟦prob⟧。
    property: softmax-keeps-order
    params: {max_len: 4}
  - id: count
    section: "1.1"
    says: 2 + 3 = 5
    text: 总数增加到 ⟨n⟩ 个。
    check: {n: 2 + 3}
"""


def check(tmp_path: Path, a: str, b: str, c: str = "增加",
          capsys: pytest.CaptureFixture[str] | None = None) -> dict[str, dict]:
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE.format(a=a, b=b, c=c), encoding="utf-8")
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    if capsys is not None:
        capsys.readouterr()
    return {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}


def test_the_note_as_quoted_verifies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越大", "也越大", capsys=capsys)
    assert got["order"]["status"] == "verified" and got["count"]["status"] == "verified"


def test_a_modifier_or_a_synonym_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "更大", "反而越大", "增多", capsys=capsys)
    assert got["order"]["status"] == "verified", got["order"]["message"]
    assert got["count"]["status"] == "verified", got["count"]["message"]


def test_a_flipped_premise_flips_the_law_and_fails_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越小", "也越大", capsys=capsys)["order"]
    assert got["status"] == "discrepancy", got["message"]
    assert "counterexample" in got["message"] and "prob = decreases ('越小')" in got["message"]
    assert got["values"][0]["start"] == {"line": 3, "col": 5}


def test_a_flipped_conclusion_with_a_new_modifier_is_judged_not_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越大", "反而越小", capsys=capsys)["order"]
    assert got["status"] == "discrepancy", got["message"]
    assert "'反而越小'" in got["message"]


def test_both_flipped_state_the_same_true_law(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越小", "反而越小", capsys=capsys)["order"]
    assert got["status"] == "verified", got["message"]


def test_a_word_of_no_meaning_is_unparsed_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越奇怪", "也越大", capsys=capsys)["order"]
    assert got["status"] == "unparsed", got["message"]
    assert "'越奇怪'" in got["message"] and got["values"][0]["start"] == {"line": 3, "col": 5}


def test_a_claim_with_no_law_reads_a_changed_law_word_as_unparsed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    got = check(tmp_path, "越大", "也越大", "减少", capsys=capsys)["count"]
    assert got["status"] == "unparsed", got["message"]
    assert "'减少'" in got["message"] and "direction: increases -> decreases" in got["message"]


def test_an_edit_outside_the_law_words_is_still_stale(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(
        "第 1 章：例子\n1.1 指数\n原来得分越大，指数结果也越大。总数增加到 5 个。\n",
        encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    got = {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}
    # the sentence is found at its place (verifiers/lawsentence.py) but is about something
    # else (分数 -> 得分 is no law word): unparsed at it, never a pass
    assert got["order"]["status"] == "unparsed", got["order"]
    assert got["order"]["values"][0]["start"]["line"] == 3


def test_the_k_th_fixed_word_of_a_class_is_the_k_th_literal_slot_of_that_class() -> None:
    """"a 增大 时 b 减小": only the second word changed (减小 -> 增大), so slot b reads it."""
    from verifiers.holes import Match, Printed
    from verifiers.properties.fixedwords import apply
    from verifiers.properties.params import DIRECTION, Spec, slot

    spec = Spec("two-words", "a rises while b falls",
                params=(slot("a", "direction", "increases", DIRECTION),
                        slot("b", "direction", "decreases", DIRECTION)))
    fixed = {"_law1": ("增大", Printed("增大", 1, 3, (), ())),
             "_law2": ("减小", Printed("增大", 6, 8, (), ()))}
    read, unread = apply(spec, [], Match(0, 9, {}, fixed=fixed))
    assert not unread and [(w.slot, w.meaning, w.start) for w in read] == [("b", "increases", 6)]


# -- several sentences of the quote's shape, and words of necessity ------------------------------

SHAPES_NOTE = (
    "第 1 章：期望\n1.1 两种性质\n"
    "$Z - E [Z]$ ：随机变量与均值的偏差。\n"
    "$(Z - E [Z])^{2}$ ：偏差的平方。\n"
    "$E [X + Y] = E [X] + E [Y]$ ：{need}独立。\n"
)
SHAPES_CLAIMS = """\
note: n.txt
claims:
  - id: linear
    kind: symbolic
    section: "1.1"
    says: E[X + Y] = E[X] + E[Y] for any X, Y, without independence
    text: "$⟪E⟫$ ：不需要独立。"
"""


@pytest.mark.parametrize(("need", "status"), [
    ("不需要", "verified"),  # the sentence as written
    ("需要", "unparsed"),  # one law word changed: judged at that word, not stale
    ("不要求", "verified"),  # another word of the same meaning: a synonym passes
    ("要求", "unparsed"),  # 要求 (require) states the other law
])
def test_the_edited_sentence_is_the_one_whose_other_law_words_still_stand(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], need: str, status: str) -> None:
    """With its law words read as holes, the quote also fits the two lines above it; the
    edited sentence is the match where the fewest law words differ (here: 独立 stands)."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "notes" / "n.txt").write_text(SHAPES_NOTE.replace("{need}", need), encoding="utf-8")
    (tmp_path / "claims" / "n" / "c.yaml").write_text(SHAPES_CLAIMS, encoding="utf-8")
    out = tmp_path / "r.json"
    main(["check", "--no-cache", "-j", "1", "--notes", str(tmp_path / "notes"),
          "--claims", str(tmp_path / "claims"), "--json", str(out)])
    (verdict,) = json.loads(out.read_text(encoding="utf-8"))["claims"]
    assert verdict["status"] == status, verdict["message"]
    if status == "unparsed":
        assert "stale" not in verdict["message"] and need in verdict["message"]
        value = next(v for v in verdict["values"] if v["status"] == "unparsed")
        assert value["start"]["line"] == 5
    capsys.readouterr()
