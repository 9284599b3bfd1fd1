"""Copies of a given value are compared with each other: an edit is flagged where it was made."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.copies import copy_groups
from verifiers.run import load_claims, load_notes

ROOT = Path(__file__).resolve().parent.parent

NOTE = """第 1 章
1.1 设定
输入 X = [0.50, 1.20, 0.80]，维度 d = 3
1.2 计算
y = 2 × 1.20 = 2.40
1.3 小结
回顾：X = [0.50, 1.20, 0.80]，d = 3
1.4 测验
问：X 是多少？答：[0.50, 1.20, 0.80]
"""

CLAIMS = """note: n.txt
claims:
  - id: given
    kind: given
    says: the input X and its size d (given)
    section: "1.1"
    text: 输入 X = ⟨X⟩，维度 d = ⟨d⟩
  - id: double
    says: y = 2 X[1]
    section: "1.2"
    text: y = 2 × ⟨x1⟩ = ⟨y⟩
    uses: {X: given.X}
    check:
      x1: X[1]
      y: 2 * x1
  - id: summary
    says: the summary repeats X and d
    section: "1.3"
    text: 回顾：X = ⟨X2⟩，d = ⟨d2⟩
    uses: {X: given.X, d: given.d}
    check: {X2: X, d2: d}
  - id: quiz
    says: the quiz repeats X, through the summary
    section: "1.4"
    text: 答：⟨X3⟩
    uses: {X: summary.X2}
    check: {X3: X}
"""


def _project(tmp_path: Path, note: str = NOTE) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], dict]:
    code = main(["check", "--no-cache", "-j", "1", "--json", "out.json"])
    out = capsys.readouterr().out
    return code, out.splitlines(), json.loads(Path("out.json").read_text(encoding="utf-8"))


def test_copies_are_found_through_uses_and_copies_of_copies(tmp_path):
    root = _project(tmp_path)
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    assert copy_groups(claims) == {
        ("given", "X"): [("double", "x1", (1,)), ("summary", "X2", ()), ("quiz", "X3", ())],
        ("given", "d"): [("summary", "d2", ())]}


def test_unedited_copies_verify(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_project(tmp_path))
    code, lines, _ = _check(capsys)
    assert code == 0, lines


def test_first_copy_edited_is_flagged_at_the_first_copy(tmp_path, capsys, monkeypatch):
    edited = NOTE.replace("输入 X = [0.50, 1.20, 0.80]", "输入 X = [0.50, 1.02, 0.80]")
    monkeypatch.chdir(_project(tmp_path, edited))
    code, lines, data = _check(capsys)
    assert code == 1
    by_id = {c["id"]: c for c in data["claims"]}
    # the edited (first) printing is the discrepancy, located there, listing every copy
    given = by_id["given"]
    assert given["status"] == "discrepancy"
    x = next(v for v in given["values"] if v["name"] == "X")
    assert x["status"] == "discrepancy" and x["start"] == {"line": 3, "col": 8}
    assert x["suggestion"] == "[0.50, 1.20, 0.80]"
    assert x["message"] == (
        "X: printed [0.50, 1.02, 0.80], expected [0.50, 1.20, 0.80] — this given value is "
        "printed 4 times and 3 of the printings agree with each other: "
        "3:8 [0.50, 1.02, 0.80] ✗, 5:9 1.20, 7:8 [0.50, 1.20, 0.80], 9:11 [0.50, 1.20, 0.80]")
    assert lines[0].startswith("notes/n.txt:3:8: discrepancy: given in 1.1: X: printed")
    # the later, correct copies verify (today's code flagged them), an element copy too
    assert by_id["double"]["values"][0]["status"] == "verified"
    assert by_id["summary"]["status"] == "verified"
    assert by_id["quiz"]["status"] == "verified"
    assert "agrees with 3 of the 4 printings" in by_id["summary"]["values"][0]["message"]
    # a value computed from the given printing inherits from it, not from a copy
    double = by_id["double"]
    assert double["status"] == "discrepancy" and double["root_cause"] == "given"
    assert len([ln for ln in lines if ": discrepancy: " in ln]) == 2


def test_fix_rewrites_the_minority_never_the_majority(tmp_path, capsys, monkeypatch):
    edited = NOTE.replace("输入 X = [0.50, 1.20, 0.80]", "输入 X = [0.50, 1.02, 0.80]")
    monkeypatch.chdir(_project(tmp_path, edited))
    assert main(["fix"]) == 0
    diff = capsys.readouterr().out
    assert [ln for ln in diff.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")
            ] == ["-输入 X = [0.50, 1.02, 0.80]，维度 d = 3",
                  "+输入 X = [0.50, 1.20, 0.80]，维度 d = 3"]


def test_a_later_copy_edited_is_flagged_at_that_copy(tmp_path, capsys, monkeypatch):
    edited = NOTE.replace("，d = 3\n1.4", "，d = 4\n1.4")
    monkeypatch.chdir(_project(tmp_path, edited))
    code, lines, data = _check(capsys)
    assert code == 1
    failing = [ln for ln in lines if ": discrepancy: " in ln]
    # two printings that differ have no majority: either may be the edited one, so both are
    # flagged, each at its own place, and fix rewrites neither
    assert [ln.split(": discrepancy")[0] for ln in failing] == ["notes/n.txt:3:34",
                                                              "notes/n.txt:7:31"]
    assert "d2: printed 4 — this given value is printed 2 times" in failing[1]
    assert "3:34 3 ✗, 7:31 4 ✗" in failing[1]
    assert main(["fix"]) == 0
    diff = capsys.readouterr().out
    assert "+回顾" not in diff and "-回顾" not in diff


def test_first_printing_of_d_k_edited_in_the_real_note(tmp_path, capsys, monkeypatch):
    """architecture-and-training 4.1 prints d_k = 64 fourteen times; the first one edited."""
    shutil.copytree(ROOT / "notes", tmp_path / "notes")
    shutil.copytree(ROOT / "claims", tmp_path / "claims")
    note = tmp_path / "notes" / "architecture-and-training.txt"
    text = note.read_text(encoding="utf-8")
    assert text.count("映射到 64 维") == 1
    note.write_text(text.replace("映射到 64 维", "映射到 46 维"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--no-cache", "-j", "1", "-k", "aat-4-1"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    failing = [ln for ln in lines if ": discrepancy: " in ln]
    assert failing[0].startswith("notes/architecture-and-training.txt:398:24: discrepancy: "
                                 "aat-4-1-dk in 4.1: dk: printed 46, expected 64")
    assert "398:24 46 ✗, 400:21 64" in failing[0]
    # no later copy of 64 is flagged; what is computed from d_k names the first printing
    assert all("printed 64" not in ln for ln in failing)
    assert all("(root cause: aat-4-1-dk)" in ln for ln in failing[1:])


def test_a_widened_copy_is_not_compared(tmp_path):
    root = _project(tmp_path)
    (root / "claims" / "n" / "c.yaml").write_text(CLAIMS.replace(
        "    check: {X2: X, d2: d}",
        "    check: {X2: X, d2: d}\n    widen: {d2: {abs: 1, reason: rounded on purpose}}"),
        encoding="utf-8")
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    assert ("given", "d") not in copy_groups(claims)


ROWS_NOTE = """第 1 章
1.1 表
行0: [1.0, 2.0]
行1: [3.0, 4.0]
下标 k = 1，ids = [0, 1]
1.2 查表
第 1 行：[3.0, 4.0]
第 0 行：[1.0, 2.0]
1.3 再查
取第 1 行：[3.0, 4.0]
"""

ROWS_CLAIMS = """note: n.txt
claims:
  - id: table
    kind: given
    says: a 2 × 2 table, an index k and a list of indices ids (given)
    section: "1.1"
    text: |
      行0: ⟨T[0]⟩
      行1: ⟨T[1]⟩
      下标 k = ⟨k⟩，ids = ⟨ids⟩
  - id: lookup
    says: row k of the table and row ids[0], each picked by an index the note prints
    section: "1.2"
    text: |
      第 ⟨kk⟩ 行：⟨row⟩
      第 0 行：⟨row0⟩
    uses: {T: table.T, k: table.k, ids: table.ids}
    check:
      kk: k
      row: T[kk]
      row0: T[ids[0]]
  - id: again
    says: row k again, picked through a printed index of another claim
    section: "1.3"
    text: 取第 1 行：⟨r⟩
    uses: {T: table.T, k: table.k}
    check: {r: "T[k]"}
"""


def _rows_project(tmp_path: Path, note: str) -> Path:
    root = _project(tmp_path, note)
    (root / "claims" / "n" / "c.yaml").write_text(ROWS_CLAIMS, encoding="utf-8")
    return root


def test_a_row_picked_by_a_printed_index_is_a_copy(tmp_path, capsys, monkeypatch):
    """``T[kk]``, ``T[ids[0]]`` and ``T[k]`` print rows of the given table: their indices
    are the integers the note prints, so an edit of the table's row is flagged at the
    table (the two later copies agree with each other), not at the correct copies."""
    root = _rows_project(tmp_path, ROWS_NOTE)
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    groups = copy_groups(claims)
    assert [(c, n) for c, n, _ in groups[("table", "T")]] == [
        ("lookup", "row"), ("lookup", "row0"), ("again", "r")]
    monkeypatch.chdir(root)
    assert _check(capsys)[0] == 0
    edited = ROWS_NOTE.replace("行1: [3.0, 4.0]", "行1: [3.0, 4.4]")
    (root / "notes" / "n.txt").write_text(edited, encoding="utf-8")
    code, lines, data = _check(capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert code == 1
    row1 = next(v for v in by_id["table"]["values"] if v["name"] == "T[1]")
    assert row1["status"] == "discrepancy" and row1["start"]["line"] == 4
    assert row1["suggestion"] == "[3.0, 4.0]"
    assert by_id["lookup"]["status"] == "verified" and by_id["again"]["status"] == "verified"


def test_a_printed_index_that_is_not_an_integer_makes_no_copy(tmp_path, capsys, monkeypatch):
    """A row index printed as 0.5 picks no row: the lookup is checked on its own (an error
    or a discrepancy of that claim), never compared as a copy."""
    note = ROWS_NOTE.replace("下标 k = 1", "下标 k = 0.5")
    monkeypatch.chdir(_rows_project(tmp_path, note))
    code, _, data = _check(capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert code == 1 and by_id["table"]["status"] in ("given", "verified")


WORKED_NOTE = """第 1 章
1.1 权重
W = [[1.0, 2.0], [3.0, 4.0]]
x = [1.0, 1.0]
1.2 第 0 列
y0 = 1.0×1.0 + 1.0×3.0 = 4.0
y1 = 1.0×2.0 + 1.0×4.0 = 6.0
"""

WORKED_CLAIMS = """note: n.txt
claims:
  - id: given
    kind: given
    says: the weights and the input (given)
    section: "1.1"
    text: |
      W = ⟨W⟩
      x = ⟨x⟩
  - id: worked
    says: y = x W worked column by column; the products print x's entries and W's columns
    section: "1.2"
    text: |
      y0 = ⟨f[0,0]⟩×⟨w[0,0]⟩ + ⟨f[0,1]⟩×⟨w[0,1]⟩ = ⟨y[0]⟩
      y1 = ⟨f[1,0]⟩×⟨w[1,0]⟩ + ⟨f[1,1]⟩×⟨w[1,1]⟩ = ⟨y[1]⟩
    uses: {W: given.W, x: given.x}
    check:
      f: "[x, x]"
      w: transpose(W)
      y: "[sum(f[0] * w[0]), sum(f[1] * w[1])]"
"""


def test_a_transposed_or_listed_printing_is_a_copy(tmp_path, capsys, monkeypatch):
    """A worked product prints the given W column by column (``transpose(W)``) and the
    input once per column (``[x, x]``): those are copies, so an edit of W's printing is
    flagged at W (two printings of the entry disagree: both are flagged), not only at the
    correct product that no longer matches it."""
    root = _project(tmp_path, WORKED_NOTE)
    (root / "claims" / "n" / "c.yaml").write_text(WORKED_CLAIMS, encoding="utf-8")
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    groups = copy_groups(claims)
    assert [(c, n) for c, n, _ in groups[("given", "W")]] == [("worked", "w")]
    assert [(c, n) for c, n, _ in groups[("given", "x")]] == [("worked", "f")]
    monkeypatch.chdir(root)
    assert _check(capsys)[0] == 0
    (root / "notes" / "n.txt").write_text(WORKED_NOTE.replace("[3.0, 4.0]]", "[3.5, 4.0]]"),
                                          encoding="utf-8")
    code, lines, data = _check(capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    w = next(v for v in by_id["given"]["values"] if v["name"] == "W")
    assert code == 1 and w["status"] == "discrepancy" and w["start"]["line"] == 3
    assert "3:5 [[1.0, 2.0], [3.5, 4.0]] ✗" in w["message"] and "6:20 3.0 ✗" in w["message"]
    copy_w = next(v for v in by_id["worked"]["values"] if v["name"] == "w[0,1]")
    assert copy_w["status"] == "discrepancy" and copy_w["suggestion"] is None
