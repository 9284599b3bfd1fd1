"""Law words inside a claim's quote are read by a claim, or recorded by a statements waiver
(laws7, issue 12 item 2): the list (``python -m verifiers.coverage.lawwords``) can only get
shorter, and the rule is held to small projects where a word is read, waived or not."""

from __future__ import annotations

from pathlib import Path

from verifiers.coverage.lawwords import unread_law_words
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
#: law words quoted by a claim of claims/ that no claim reads (laws7: 106 when first counted,
#: 48 after the quote's opening word and the fixed words between holes were read, 45 after the
#: K/V sentence became a claim and 充分/必要 joined the vocabulary; laws8: 27, after nine word
#: holes took the whole vocabulary word (一起⟦op⟧ -> ⟦op⟧ reading 一起平移), 来自 joined the
#: vocabulary (class source), 恒等 stopped being the cue 恒, two quiz questions were waived and
#: mbm-s-3-2-sqrt-64 quotes the text before its opening 如果).
#: Lower it as claims read more.
BASELINE = 27


def test_unread_law_words_only_go_down() -> None:
    found = unread_law_words(run(ROOT / "notes", ROOT / "claims", lambda claim: False))
    listed = "\n".join(f"{u.note}:{u.line}:{u.col}: {u.word} ({u.claim})" for u in found)
    assert len(found) <= BASELINE, f"{len(found)} unread law words (baseline {BASELINE}):\n{listed}"


NOTE = "第 1 章\n1.1 例子\n分数 3 和 4 的和总是 7，所以 Softmax 输出都非负。\n"


def _project(tmp_path: Path, claims: str) -> list:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(claims, encoding="utf-8")
    return unread_law_words(run(tmp_path / "notes", tmp_path / "claims", lambda c: False))


GIVEN = """\
note: n.txt
claims:
  - id: g
    kind: given
    text: 分数 ⟨a⟩ 和 ⟨b⟩ 的和总是 ⟨c⟩，所以 Softmax 输出都非负。
"""
CHECKED = GIVEN.replace("kind: given\n", "").replace(
    "输出都非负。\n", "输出都非负。\n    check:\n      c: a + b\n")
WAIVED = GIVEN + """\
waivers:
  - text: 所以 Softmax 输出都非负
    reason: "a planted waiver: the statement is recorded as read elsewhere"
    waives: [statements]
"""


def test_a_quote_that_checks_nothing_reads_no_law_word(tmp_path: Path) -> None:
    words = {u.word for u in _project(tmp_path, GIVEN)}
    assert {"总是", "Softmax", "都非负", "的和"} <= words


def test_a_checking_claim_reads_its_fixed_law_words(tmp_path: Path) -> None:
    assert [u.word for u in _project(tmp_path, CHECKED)] == []


def test_a_statements_waiver_records_the_words_it_spans(tmp_path: Path) -> None:
    assert {u.word for u in _project(tmp_path, WAIVED)} == {"总是", "的和"}
