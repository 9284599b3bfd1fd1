"""Fact sentences with no cue word are surveyed (laws8, issue 12 item 4): the count of those
no claim reads (``python -m benchmarks.fact_sentences``) can only go down, and the statuses
read / quoted / waived / uncovered are held to an invented note."""

from __future__ import annotations

from pathlib import Path

from verifiers.coverage.facts import (
    QUOTED,
    READ,
    UNCOVERED,
    WAIVED,
    fact_sentences,
    items_of,
    unread,
)
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
#: fact sentences of notes/ that no claim reads and no waiver records (laws8: 263 of 470 on main,
#: 252 after the component sentences were read). Lower it as claims read more.
BASELINE = 252


def test_unread_fact_sentences_only_go_down() -> None:
    found = unread(fact_sentences(run(ROOT / "notes", ROOT / "claims", lambda claim: False)))
    listed = "\n".join(f"{f.note}:{f.line}: {f.text[:60]}" for f in found)
    assert len(found) <= BASELINE, f"{len(found)} unread fact sentences (baseline {BASELINE}):\n" \
                                   f"{listed}"


NOTE = ("第 1 章\n1.1 例子\n"
        "Softmax 的输出与注意力权重相等。\n"       # line 3: read by a word hole
        "矩阵的行数等于 3，列数是 $d$。\n"          # line 4: quoted by a given
        "新的 Token 追加到序列末尾。\n"            # line 5: waived
        "梯度 $g$ 记为损失对分数的导数。\n"         # line 6: uncovered
        "这是一句普通的话。\n")                     # line 7: no two items: not a fact
CLAIMS = """\
note: n.txt
claims:
  - id: words
    kind: property
    section: "1.1"
    says: invented
    text: Softmax 的输出与注意力权重⟦effect⟧。
    property: softmax-shift-invariance
  - id: given
    kind: given
    section: "1.1"
    says: invented
    text: 矩阵的行数等于 ⟨r⟩，列数是 $d$。
waivers:
  - text: 新的 Token 追加到序列末尾
    reason: "a planted waiver: the placement is a description of the decoding loop"
    waives: [statements]
"""


def test_each_status_is_found(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    facts = fact_sentences(run(tmp_path / "notes", tmp_path / "claims", lambda c: False))
    assert {f.line: f.status for f in facts} == {3: READ, 4: QUOTED, 5: WAIVED, 6: UNCOVERED}
    assert [f.line for f in unread(facts)] == [4, 6]


def test_items_are_components_quantities_and_formulas() -> None:
    assert items_of("梯度 $g$ 记为损失对分数的导数") == ("$g$", "梯度", "损失", "分数")
    assert items_of("The loss of LayerNorm") == ("loss", "LayerNorm")
    assert items_of("这是一句普通的话") == ()
