"""A hole that prints more entries than its check computes is an error *at that hole*.

Why: an edit of a threshold can shorten a computed list (TopP keeps fewer tokens), so the
note's printed list no longer has a computed counterpart. The error used to carry no note
position; it now names the hole's file:line:col like every other verdict.
"""

from __future__ import annotations

from pathlib import Path

from tests.note_edits import check_project

NOTE = "第 1 章\n1.1 累积\n概率 [0.5, 0.25, 0.25]，阈值 P = 0.7\n累积：0.5 → 0.75 → 1.0\n"
CLAIMS = """note: n.txt
claims:
  - id: given
    kind: given
    says: the probabilities and the threshold (given)
    section: "1.1"
    text: 概率 ⟨p⟩，阈值 P = ⟨P⟩
  - id: cumulative
    says: the cumulative sums printed until the threshold is first reached
    section: "1.1"
    text: 累积：⟨c[0]⟩ → ⟨c[1]⟩ → ⟨c[2]⟩
    uses: {p: given.p, P: given.P}
    check:
      c: cumsum(p)[0:sum(ceil(topp(p, P)))]
"""


def _run(tmp_path: Path, monkeypatch, capsys, note: str) -> tuple[int, dict]:
    return check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)


def test_unedited_list_verifies(tmp_path, monkeypatch, capsys):
    note = NOTE.replace("P = 0.7", "P = 0.9")
    code, by_id = _run(tmp_path, monkeypatch, capsys, note)
    assert code == 0 and by_id["cumulative"]["status"] == "verified"


def test_a_list_longer_than_computed_is_an_error_at_its_hole(tmp_path, monkeypatch, capsys):
    code, by_id = _run(tmp_path, monkeypatch, capsys, NOTE)
    verdict = by_id["cumulative"]
    assert code == 1 and verdict["status"] == "error"
    assert "index out of range" in verdict["message"]
    assert verdict["where"] == {"line": 4, "col": 17}  # the hole ⟨c[2]⟩ of 1.0
