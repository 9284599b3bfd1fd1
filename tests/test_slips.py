"""An author-like slip of a given matrix (two entries swapped, a row copied, a sign) is
named at the given, not only at the values computed from it (verifiers/arithmetic/slips.py)."""

from __future__ import annotations

from tests.note_edits import check_project
from verifiers.arithmetic.slips import slips

NOTE = """第 1 章
1.1 投影
输入 x = [1, 0, 1, 0]，W = [[1, 0], [0, 1], [1, 0], [0, 1]]，A = [[2, 3], [0, 1]]
Q[0] = 1×1 + 0×0 + 1×1 + 0×0 = 2
Q[1] = 1×0 + 0×1 + 1×0 + 0×1 = 0
1.2 缩放
权重 M = [[0.5, -1.5], [2.5, 1.0]]，倍数 3
结果 [[1.5, -4.5], [7.5, 3.0]]
行和 [-3.0, 10.5]
"""

CLAIMS = """note: n.txt
claims:
  - id: given
    kind: given
    says: the input and the weights (given)
    section: "1.1"
    text: 输入 x = ⟨x⟩，W = ⟨W⟩，A = ⟨A⟩
  - id: proj
    says: Q = x · W term by term
    section: "1.1"
    text: |
      Q[0] = ⟨a[0]⟩×⟨b[0]⟩ + ⟨a[1]⟩×⟨b[1]⟩ + ⟨a[2]⟩×⟨b[2]⟩ + ⟨a[3]⟩×⟨b[3]⟩ = ⟨q0⟩
      Q[1] = ⟨c[0]⟩×⟨d[0]⟩ + ⟨c[1]⟩×⟨d[1]⟩ + ⟨c[2]⟩×⟨d[2]⟩ + ⟨c[3]⟩×⟨d[3]⟩ = ⟨q1⟩
    uses:
      x: {from: given.x, as: printed}
      W: {from: given.W, as: printed}
    check:
      a: x
      b: W[:, 0]
      c: x
      d: W[:, 1]
      q0: sum(a * b)
      q1: sum(c * d)
  - id: scale
    says: 3 M and its row sums
    section: "1.2"
    text: |
      权重 M = ⟨M⟩，倍数 ⟨k⟩
      结果 ⟨R⟩
      行和 ⟨s⟩
    check:
      R: k * M
      s: "[k * (M[0, 0] + M[0, 1]), k * (M[1, 0] + M[1, 1])]"
"""


def _value(claim: dict, name: str) -> dict:
    return next(v for v in claim["values"] if v["name"] == name)


def test_the_unedited_note_verifies(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


def test_a_row_copied_from_the_row_above_is_named_at_the_given(tmp_path, capsys, monkeypatch):
    # row 3 of W copied from row 2: b[2] and d[2] fail (two printed values); rewriting the
    # row takes two numbers, no fewer than the failures, but it is one slip
    note = NOTE.replace("[[1, 0], [0, 1], [1, 0], [0, 1]]", "[[1, 0], [0, 1], [0, 1], [0, 1]]")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    w = _value(by_id["given"], "W")
    assert w["status"] == "discrepancy" and w["start"]["line"] == 3, w
    assert w["suggestion"] == "[[1, 0], [0, 1], [1, 0], [0, 1]]"
    assert "a slip" in w["message"]
    failing = [v for v in by_id["proj"]["values"] if v["status"] == "discrepancy"]
    assert failing and all("secondary" in v["message"] for v in failing), failing


def test_swapped_entries_are_named_at_the_given(tmp_path, capsys, monkeypatch):
    # M's first column swapped: R (two entries) and both row sums s fail
    note = NOTE.replace("M = [[0.5, -1.5], [2.5, 1.0]]", "M = [[2.5, -1.5], [0.5, 1.0]]")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    m = _value(by_id["scale"], "M")
    assert m["status"] == "discrepancy" and m["suggestion"] == "[[0.5, -1.5], [2.5, 1.0]]"


def test_a_lost_sign_is_named_at_the_given(tmp_path, capsys, monkeypatch):
    note = NOTE.replace("M = [[0.5, -1.5], [2.5, 1.0]]", "M = [[0.5, 1.5], [2.5, 1.0]]")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    m = _value(by_id["scale"], "M")
    assert m["status"] == "discrepancy" and m["suggestion"] == "[[0.5, -1.5], [2.5, 1.0]]"


def test_a_slip_in_one_consumer_keeps_the_verdict_there(tmp_path, capsys, monkeypatch):
    # two entries of the result R swapped: swapping M's would break the row sums s, and
    # the failures lie in one printed value: the result is the discrepancy
    note = NOTE.replace("[[1.5, -4.5], [7.5, 3.0]]", "[[-4.5, 1.5], [7.5, 3.0]]")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    assert _value(by_id["scale"], "M")["status"] == "given"
    r = _value(by_id["scale"], "R")
    assert r["status"] == "discrepancy" and r["local"] == "wrong"


def test_the_slips_listed_are_bounded_and_deterministic():
    texts = ("1", "0", "0", "1", "0", "1", "0", "1")
    out = slips(texts, (4, 2), [("7", "8")], lambda idx: None)
    assert out == slips(texts, (4, 2), [("7", "8")], lambda idx: None)
    swaps = [s for s in out if "swapped" in s.what]
    # only entries that differ, in one row or one column
    assert all(len({a for a, b in zip(s.texts, texts, strict=True) if a != b}) >= 1
               for s in swaps)
    assert ("0", "1", "0", "1", "0", "1", "0", "1") in {s.texts for s in swaps}
    assert len(out) < 40


def test_two_holes_of_one_printed_row_are_one_value(tmp_path, capsys, monkeypatch):
    # R read entry by entry (⟨R[0]⟩ ⟨R[1]⟩ …) and nothing else computed from M: a swap of R's
    # entries fails two holes of one printed value, which a slip of R explains as well as a
    # slip of M: R keeps the verdict
    claims = CLAIMS.replace("结果 ⟨R⟩\n      行和 ⟨s⟩", "结果 [[⟨R[0]⟩, ⟨R[1]⟩], [⟨R[2]⟩, ⟨R[3]⟩]]")
    claims = claims.replace('      R: k * M\n      s: "[k * (M[0, 0] + M[0, 1]), k * (M[1, 0] + '
                            'M[1, 1])]"\n', '      R: "[k * M[0, 0], k * M[0, 1], k * M[1, 0], '
                            'k * M[1, 1]]"\n')
    assert "⟨s⟩" not in claims and "R: k * M" not in claims
    note = NOTE.replace("[[1.5, -4.5], [7.5, 3.0]]", "[[-4.5, 1.5], [7.5, 3.0]]")
    code, by_id = check_project(tmp_path, note, claims, monkeypatch, capsys)
    assert code == 1
    values = {v["name"]: v for v in by_id["scale"]["values"]}
    assert values["M"]["status"] == "given"
    assert values["R[0]"]["status"] == "discrepancy" and values["R[0]"]["local"] == "wrong"


def test_a_one_column_matrix_with_a_repeated_row_is_a_row_copy():
    """A 3 × 1 given whose rows repeat: its rows are single entries (indexing the second
    entry of a row to tell rows from columns raised IndexError, ending the mutation survey)."""
    texts = ("1", "2", "1")
    out = slips(texts, (3, 1), [], lambda idx: tuple("9" if k in idx else texts[k]
                                                       for k in range(3)))
    copies = [s.what for s in out if "a copy of another printed row" in s.what]
    assert copies == ["the row 1, a copy of another printed row, rewritten",
                      "the row 3, a copy of another printed row, rewritten"]
