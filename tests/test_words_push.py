"""The size of a push is read from its word (越狠 / 越轻): lesson1 §6's gradient sentence.

``ce-gradient-signs`` reads how the descent step moves z_y and the other logits (推高 / 压低)
and how hard (越没把握，推得越狠). The planted edit 越狠 -> 越轻 states that a less sure model is
pushed more lightly, which is false: a discrepancy at the word with the shrunk counterexample.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from verifiers import words
from verifiers.cli import main
from verifiers.properties.runner import clear_cache

NOTE = "第 1 章：例子\n1.1 梯度\n所以 $z_y$ 被推{up}。越没把握，推得{push}。\n"
CLAIMS = """\
note: n.txt
claims:
  - id: push
    kind: property
    section: "1.1"
    says: the target logit is pushed up, harder the less sure the model is
    text: 所以 $z_y$ 被推⟦target⟧。越没把握，推得⟦push⟧。
    property: ce-gradient-signs
    params: {max_len: 4}
"""


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    clear_cache()


def check(tmp_path: Path, up: str, push: str,
          capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE.format(up=up, push=push), encoding="utf-8")
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIMS), encoding="utf-8")
    out = tmp_path / "out.json"
    code = main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
                 str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    return code, json.loads(out.read_text(encoding="utf-8"))["claims"][0]


def test_magnitude_words() -> None:
    assert words.meaning("magnitude", "越狠") == "strong"
    assert words.meaning("magnitude", "越轻") == "weak"
    assert words.meaning("direction", "高") == "increases"


def test_the_note_s_words_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "高", "越狠", capsys)
    assert code == 0 and claim["status"] == "verified", claim["message"]


def test_lighter_push_is_a_discrepancy_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "高", "越轻", capsys)
    assert code == 1 and claim["status"] == "discrepancy", claim["message"]
    assert "counterexample" in claim["message"] and "push = weak ('越轻')" in claim["message"]
    assert "not lighter" in claim["message"]
    starts = {(v["start"]["line"], v["start"]["col"]) for v in claim["values"]}
    assert (3, 21) in starts, claim["values"]


def test_pushed_down_is_a_discrepancy(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "低", "越狠", capsys)
    assert code == 1 and claim["status"] == "discrepancy", claim["message"]
    assert "target = decreases ('低')" in claim["message"]


def test_a_word_outside_the_class_is_unparsed(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "高", "越甜", capsys)
    assert code == 1 and claim["status"] == "unparsed", claim["message"]
    assert "'越甜'" in claim["message"]
