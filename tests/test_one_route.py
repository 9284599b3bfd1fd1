"""One printed row, one route: a row whose numbers need two different honest routes is a
discrepancy (verifiers/arithmetic/routes.py ``one_route``)."""

from __future__ import annotations

from tests.note_edits import check_project
from verifiers.arithmetic.routes import one_route

NOTE = """第 1 章
1.1 分布
logits z = [2.0, 0.4, 0.0, -1.0]
p = softmax(z) = [0.721, 0.146, 0.098, 0.036]
1.2 截断
前三个之和 0.721 + 0.146 + 0.098 = 0.965
重新归一化：0.747 0.151 0.102
"""

CLAIMS = """note: n.txt
claims:
  - id: dist
    says: the softmax of the logits
    section: "1.1"
    text: |
      logits z = ⟨z⟩
      p = softmax(z) = ⟨p⟩
    check:
      p: softmax(z)
  - id: trunc
    says: the top three renormalised
    section: "1.2"
    text: |
      前三个之和 ⟨a[0]⟩ + ⟨a[1]⟩ + ⟨a[2]⟩ = ⟨s⟩
      重新归一化：⟨q[0]⟩ ⟨q[1]⟩ ⟨q[2]⟩
    uses: {p: dist.p}
    check:
      a: p[0:3]
      s: sum(a)
      q: a / sum(a)
"""


def _values(claim: dict) -> dict[str, dict]:
    return {v["name"]: v for v in claim["values"]}


def test_a_row_computed_from_the_printed_inputs_verifies(tmp_path, capsys, monkeypatch):
    # 0.747 is only the printed route's (exact: 0.748), and so is 0.102 (exact: 0.101)
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


def test_an_entry_rounded_from_another_route_is_a_discrepancy(tmp_path, capsys, monkeypatch):
    # 0.102 → 0.101: the exact route's rounding, while 0.747 is the printed route's
    note = NOTE.replace("0.747 0.151 0.102", "0.747 0.151 0.101")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    values = _values(by_id["trunc"])
    q2 = values["q[2]"]
    assert q2["status"] == "discrepancy" and q2["start"] == {"line": 7, "col": 19}
    assert "no one route gives the whole row" in q2["message"]
    assert values["q[1]"]["status"] == "verified"


def test_a_tie_of_routes_flags_both_and_suggests_nothing():
    # exact gives entries 1-3, printed entries 0-2: both lead, both misses flagged
    flagged, leaders = one_route([{"printed"}, {"exact", "printed"}, {"exact", "printed"},
                                  {"exact"}])
    assert flagged == [0, 3] and leaders == ["exact", "printed"]


def test_one_route_for_the_whole_row_or_a_short_row_flags_nothing():
    assert one_route([{"printed"}, {"exact", "printed"}, {"printed"}]) == ([], [])
    assert one_route([{"printed"}, {"exact"}]) == ([], [])  # two numbers: too few
    assert one_route([{"printed"}, set(), {"exact"}]) == ([], [])  # already a failure
