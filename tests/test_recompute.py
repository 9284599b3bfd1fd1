"""A printing that repeats a derived value is judged by recomputing it on every honest route
(verifiers/arithmetic/recompute.py), never by the digits of its other printing."""

from __future__ import annotations

from tests.test_engine import check, project

NOTE = """1.1 例子
输入 a = 1.54，b = 2.44
和 s = {s}
小结：和还是 {s2}
"""

CLAIMS = """note: n.txt
claims:
  - id: inputs
    kind: given
    says: the inputs
    text: 输入 a = ⟨a⟩，b = ⟨b⟩
  - id: sum
    says: s = a + b
    text: 和 s = ⟨s⟩
    uses: {a: inputs.a, b: inputs.b}
    check: {s: a + b}
  - id: summary
    says: the summary repeats the sum
    text: 小结：和还是 ⟨s2⟩
    uses: {s: sum.s}
    check: {s2: s}
"""


def _value(data: dict, claim: str, name: str) -> dict:
    verdict = next(v for v in data["claims"] if v["id"] == claim)
    return next(x for x in verdict["values"] if x["name"] == name)


def _run(tmp_path, capsys, s: str, s2: str, claims: str = CLAIMS) -> dict:
    root = project(tmp_path, claims, NOTE.format(s=s, s2=s2))
    return check(root, capsys, "--no-cache")[2]


def test_both_printings_right_verify(tmp_path, capsys):
    data = _run(tmp_path, capsys, "4.0", "3.98")
    assert _value(data, "sum", "s")["status"] == "verified"
    assert _value(data, "summary", "s2")["status"] == "verified"


def test_an_edited_second_printing_is_wrong_at_its_own_line_with_the_computed_value(
        tmp_path, capsys):
    data = _run(tmp_path, capsys, "4.0", "3.97")
    x = _value(data, "summary", "s2")
    assert x["status"] == "discrepancy" and x["start"]["line"] == 4
    assert x["root_cause"] == "summary" and x["expected"] == "3.98"
    assert "no honest route gives 3.97 (3.98 exact)" in x["message"]
    assert _value(data, "sum", "s")["status"] == "verified"


def test_a_finer_second_printing_is_not_excused_by_the_first_printings_digits(tmp_path, capsys):
    # a + b = 3.98: the first printing 4.0 is right, and 4.00 agrees with its digits; the
    # old copy check carried 4.0 on the printed route and verified 4.00. Recomputed, 4.00
    # is no honest route's value, at the summary's own line
    data = _run(tmp_path, capsys, "4.0", "4.00")
    x = _value(data, "summary", "s2")
    assert x["status"] == "discrepancy" and x["root_cause"] == "summary"
    assert x["expected"] == "3.98"
    # taken `as: printed`, the summary is only a copy of the printing, and 4.00 passes:
    # what coverage counts as `copy` (verifiers/coverage/strength.py)
    copied = CLAIMS.replace("uses: {s: sum.s}", "uses: {s: {from: sum.s, as: printed}}")
    data = _run(tmp_path / "copied", capsys, "4.0", "4.00", copied)
    assert _value(data, "summary", "s2")["status"] == "verified"


def test_a_wrong_first_printing_does_not_make_a_right_repeat_wrong(tmp_path, capsys):
    data = _run(tmp_path, capsys, "4.1", "3.98")
    assert _value(data, "sum", "s")["status"] == "discrepancy"
    assert _value(data, "summary", "s2")["status"] == "verified"


def test_a_repeat_of_a_wrong_first_printing_inherits_its_error(tmp_path, capsys):
    # the author copied what the page says: the error starts at the first printing, and the
    # repeat is never verified
    data = _run(tmp_path, capsys, "4.1", "4.1")
    assert _value(data, "sum", "s")["root_cause"] == "sum"
    x = _value(data, "summary", "s2")
    assert x["status"] == "discrepancy" and x["root_cause"] == "sum"
    assert "inherited from sum" in x["message"]


def test_a_repeat_within_one_claim_is_recomputed_too(tmp_path, capsys):
    claims = """note: n.txt
claims:
  - id: both
    says: s = a + b, printed twice
    text: |
      输入 a = ⟨a⟩，b = ⟨b⟩
      和 s = ⟨s⟩
      小结：和还是 ⟨s2⟩
    check: {s2: s, s: a + b}
"""
    data = _run(tmp_path, capsys, "4.0", "4.00", claims)
    x = _value(data, "both", "s2")
    assert x["status"] == "discrepancy" and x["expected"] == "3.98"
    data = _run(tmp_path / "right", capsys, "4.0", "3.98", claims)
    assert _value(data, "both", "s2")["status"] == "verified"


def test_a_repeated_item_of_a_computing_list_is_recomputed(tmp_path, capsys):
    # [s, a + 4]: the list computes, but its item 0 only repeats s; it is recomputed
    # like a whole repeat, so 4.00 (the digits of the first printing 4.0) is no excuse
    claims = CLAIMS + """  - id: pair
    says: the sum again, and a + 4
    text: 列表 [⟨L[0]⟩, ⟨L[1]⟩]
    uses: {s: sum.s, a: inputs.a}
    check: {L: "[s, a + 4]"}
"""
    root = project(tmp_path, claims, NOTE.format(s="4.0", s2="3.98") + "列表 [4.00, 5.54]\n")
    data = check(root, capsys, "--no-cache")[2]
    x = _value(data, "pair", "L[0]")
    assert x["status"] == "discrepancy" and x["expected"] == "3.98"
    assert _value(data, "pair", "L[1]")["status"] == "verified"
    root = project(tmp_path / "right", claims, NOTE.format(s="4.0", s2="3.98")
                   + "列表 [3.98, 5.54]\n")
    assert _value(check(root, capsys, "--no-cache")[2], "pair", "L[0]")["status"] == "verified"
