"""A statement is covered only when a checking claim reads its law-carrying words (laws6):
quoting the sentence is not reading it. Invented notes, not the corpus's sentences."""

from __future__ import annotations

import json

import pytest

from tests.test_engine import check, project
from verifiers.cli import main

# line 2: the cue 恒 is no vocabulary word (laws8 made 来自, the first example, one: class source),
# so the arithmetic claim quoting the line reads the
# numbers, not the law; line 3: the cue 总是 is one (guarantee), read from the quote's fixed text
NOTE = """1.1 例子
y 恒为 x 的两倍：x = 1.20，y = x + x = 2.40
z 总是 x 的三倍：z = x + x + x = 3.60
把分数都加上同一个常数，softmax 的结果不变。
"""

CLAIMS = """note: n.txt
claims:
  - id: double
    text: |
      y 恒为 x 的两倍：x = ⟨x⟩，y = x + x = ⟨y⟩
    check: {y: x + x}
  - id: triple
    text: |
      z 总是 x 的三倍：z = x + x + x = ⟨z⟩
    uses: {x: double.x}
    check: {z: x + x + x}
"""

SHIFT = """  - id: shift
    kind: property
    says: softmax ignores a common shift
    text: 把分数都⟦op⟧同一个常数，softmax 的结果⟦effect⟧。
    property: softmax-shift-invariance
    params: {max_len: 3}
"""

WAIVER = """waivers:
  - text: y 恒为 x 的两倍
    reason: names where y comes from; the value itself is claim double
    waives: [statements]
"""


def statements(tmp_path, capsys, claims: str) -> tuple[int, str, dict]:
    code = main(["coverage", "--notes", str(tmp_path / "notes"), "--claims",
                 str(tmp_path / "claims"), "--require", "statements", "--json",
                 str(tmp_path / "cov.json")])
    out = capsys.readouterr().out
    entry = json.loads((tmp_path / "cov.json").read_text(encoding="utf-8"))["notes"][0]
    return code, out, entry


def test_a_quote_that_spans_a_law_sentence_does_not_cover_it(tmp_path, capsys):
    project(tmp_path, CLAIMS, NOTE)
    code, out, entry = statements(tmp_path, capsys, CLAIMS)
    assert code == 1  # the gate fails: 恒 is quoted by `double`, never read
    got = entry["statements"]
    assert got["total"] == 3 and got["covered"] == 1 and got["waived"] == 0
    assert [(u["line"], u["text"][:6]) for u in got["uncovered"]] == [(2, "y 恒为 x"),
                                                                     (4, "把分数都加上")]
    assert {(q["line"], q["claim"]) for q in entry["statements_quoted_unread"]} == {(2, "double")}
    assert "notes/n.txt:2:1: statement quoted by double, law words not read (uncovered)" in out


def test_a_word_hole_in_the_sentence_covers_it_and_a_waiver_waives(tmp_path, capsys):
    project(tmp_path, CLAIMS + SHIFT + WAIVER, NOTE)
    code, out, entry = statements(tmp_path, capsys, CLAIMS)
    assert code == 0, out
    got = entry["statements"]
    assert (got["covered"], got["waived"], got["uncovered"]) == (2, 1, [])


@pytest.mark.parametrize(("edit", "status"), [
    ("偶尔", "unparsed"),  # the law word the coverage says is read: an edit is judged there
])
def test_a_law_word_read_from_fixed_text_is_judged_when_edited(tmp_path, capsys, edit, status):
    project(tmp_path, CLAIMS, NOTE.replace("z 总是 x", f"z {edit} x"))
    code, out, data = check(tmp_path, capsys, "--no-cache")
    triple = next(c for c in data["claims"] if c["id"] == "triple")
    assert code == 1 and triple["status"] == status, triple["message"]
    assert triple["values"][0]["start"]["line"] == 3
