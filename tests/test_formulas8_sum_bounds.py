"""A sum's printed upper bound is read in matrix rules (verifiers/symbolic/matrixcalc.py).

On a claim's explicit matrices a sum whose bound was not a number ran over the whole range
of the entries it indexes, whatever the note printed: ``\\sum_{j = 1}^{n - 1} a_{i j} V_{j u}``
passed as ``\\sum_{j = 1}^{n}``. Now a bound that is one size name stands for that range
(the same size everywhere in the claim), any other bound is evaluated, and one that names no
size is ``unparsed``: the formula survey's ``sum-bounds`` edit fails at its line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import check_project, run_edited

AAT = "architecture-and-training.txt"


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("find", "replace"), [
    (r"\sum_{j = 1}^{n} a_{i j} V_{j u}", r"\sum_{j = 1}^{n - 1} a_{i j} V_{j u}"),
    (r"\sum_{r = 1}^{d_{k}} Q_{i r} K_{j r}", r"\sum_{r = 1}^{d_{k} + 1} Q_{i r} K_{j r}"),
])
def test_an_edited_bound_fails_at_its_line(tmp_path: Path, real_verdict, find: str,
                                           replace: str) -> None:
    cid = "aat-s-a-6-3-entries"
    assert real_verdict(cid).status == "verified"
    edited, line = run_edited(tmp_path, cid, AAT, find, replace)
    assert edited.status in ("discrepancy", "unparsed"), edited.message
    assert any(v.status in ("discrepancy", "unparsed") and v.start[0] == line
               for v in edited.values), [(v.status, v.start, v.message) for v in edited.values]


_CLAIMS = """note: n.txt
claims:
  - id: av
    kind: symbolic
    says: an entry of A V is a sum over the inner size
    text: |
      接着：
      ⟪G⟫
      完。
    matrices: {A: [2, 3], V: [3, 2], B: [2, 2]}
"""


@pytest.mark.parametrize(("formula", "status"), [
    (r"(A V)_{i u} = \sum_{j = 1}^{n} a_{i j} V_{j u}", "verified"),
    (r"(A V)_{i u} = \sum_{j} a_{i j} V_{j u}", "verified"),
    (r"(A V)_{i u} = \sum_{j = 1}^{3} a_{i j} V_{j u}", "verified"),
    (r"(A V)_{i u} = \sum_{j = 1}^{n - 1} a_{i j} V_{j u}", "unparsed"),
    (r"(A V)_{i u} = \sum_{j = 1}^{2} a_{i j} V_{j u}", "discrepancy"),
    # one size name, two sizes: n is 3 in the first sum and 2 in the second
    (r"(A V)_{i u} + (B B)_{i u} = \sum_{j = 1}^{n} a_{i j} V_{j u} + \sum_{k = 1}^{n} b_{i k} "
     r"b_{k u}", "discrepancy"),
])
def test_invented_sums(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, formula: str,
                       status: str) -> None:
    _, claims = check_project(tmp_path, f"接着：\n{formula}\n完。\n", _CLAIMS, monkeypatch,
                              capsys)
    assert claims["av"]["status"] == status, claims["av"]
