"""One failing step, named at the input it comes from (verifiers/arithmetic/onefailure.py):
a unit slip of one printed share, and a prose value its formula restates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.note_edits import check_project
from verifiers.cli import main

NOTE = """第 1 章
1.1 分配
a_{1} + a_{2} + a_{3} = 1
从第一个获取 60% 的权重，从第二个获取 30%，从第三个获取 10%。
1.2 小数
b_{1} + b_{2} + b_{3} = 1
三个系数是 0.6、0.3、0.1。
1.3 维数
只有 4 维，其标准差是：
\\sqrt{4} = 2
1.4 方差
只有 9 维时，方差是 9 。
1.5 人数
总人数 3 万，其中男生 1.5 万，女生 1.5 万。
"""

CLAIMS = """note: n.txt
claims:
  - id: shares
    says: the shares sum to 1
    section: "1.1"
    text: |
      a_{1} + a_{2} + a_{3} = ⟨total⟩
    uses: {p: shares-text.p}
    check:
      total: sum(p)
  - id: shares-text
    kind: given
    says: three shares (given)
    section: "1.1"
    text: 从第一个获取 ⟨p[0]⟩ 的权重，从第二个获取 ⟨p[1]⟩，从第三个获取 ⟨p[2]⟩。
  - id: plain
    says: three plain coefficients sum to 1
    section: "1.2"
    text: |
      b_{1} + b_{2} + b_{3} = ⟨total⟩
      三个系数是 ⟨b0⟩、⟨b1⟩、⟨b2⟩。
    check:
      total: b0 + b1 + b2
  - id: dims
    says: n terms of variance 1 have standard deviation sqrt(n)
    section: "1.3"
    text: |
      只有 ⟨n⟩ 维，其标准差是：
      \\sqrt{⟨vs⟩} = ⟨sd⟩
    check:
      vs: n * 1
      sd: sqrt(vs)
  - id: var
    says: n terms of variance 1 have variance n
    section: "1.4"
    text: 只有 ⟨n⟩ 维时，方差是 ⟨vs⟩ 。
    check:
      vs: n * 1
  - id: people
    says: the two groups add up to the total
    section: "1.5"
    text: 总人数 ⟨t⟩，其中男生 ⟨m⟩，女生 ⟨f⟩。
    check:
      t: m + f
"""


def _check(tmp_path: Path, note: str, capsys: pytest.CaptureFixture[str],
           monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, dict]]:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--no-cache", "-j", "1", "--json", "out.json"])
    capsys.readouterr()
    data = json.loads(Path("out.json").read_text(encoding="utf-8"))
    return code, {c["id"]: c for c in data["claims"]}


def _value(claim: dict, name: str) -> dict:
    return next(v for v in claim["values"] if v["name"] == name)


def test_the_unedited_note_verifies(tmp_path, capsys, monkeypatch):
    code, by_id = _check(tmp_path, NOTE, capsys, monkeypatch)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


def test_a_share_written_in_the_wrong_unit_is_named_at_its_place(tmp_path, capsys, monkeypatch):
    code, by_id = _check(tmp_path, NOTE.replace("第三个获取 10%", "第三个获取 0.1%"), capsys,
                         monkeypatch)
    assert code == 1
    p2 = _value(by_id["shares-text"], "p[2]")
    assert p2["status"] == "discrepancy" and p2["start"] == {"line": 4, "col": 34}
    assert p2["suggestion"] == "10%"
    assert "a unit slip: 10% is 0.1% × 100" in p2["message"]
    total = _value(by_id["shares"], "total")
    assert total["suggestion"] is None and "secondary" in total["message"]


def test_a_magnitude_written_in_the_wrong_unit(tmp_path, capsys, monkeypatch):
    code, by_id = _check(tmp_path, NOTE.replace("女生 1.5 万", "女生 1.5 亿"), capsys,
                         monkeypatch)
    assert code == 1
    # t and m are givens too, but only f changes by a unit factor (亿 → 万 is 1/10⁴)
    f = _value(by_id["people"], "f")
    assert f["status"] == "discrepancy" and f["start"]["line"] == 14
    assert f["suggestion"] == "1.5 万"


def test_an_arithmetic_slip_of_a_share_names_no_input(tmp_path, capsys, monkeypatch):
    # 15% is not 10% by a unit factor: any of the three shares (or the sum) could be wrong
    code, by_id = _check(tmp_path, NOTE.replace("第三个获取 10%", "第三个获取 15%"), capsys,
                         monkeypatch)
    assert code == 1
    assert _value(by_id["shares-text"], "p[2]")["status"] == "given"
    total = _value(by_id["shares"], "total")
    assert total["status"] == "discrepancy" and total["start"]["line"] == 3


def test_a_plain_number_has_no_unit_to_slip(tmp_path, capsys, monkeypatch):
    code, by_id = _check(tmp_path, NOTE.replace("0.3、0.1。", "0.3、0.001。"), capsys,
                         monkeypatch)
    assert code == 1
    assert _value(by_id["plain"], "b2")["status"] == "given"
    assert _value(by_id["plain"], "total")["status"] == "discrepancy"


def test_a_prose_value_its_formula_restates_is_named(tmp_path, capsys, monkeypatch):
    code, by_id = _check(tmp_path, NOTE.replace("只有 4 维", "只有 16 维"), capsys, monkeypatch)
    assert code == 1
    n = _value(by_id["dims"], "n")
    assert n["status"] == "discrepancy" and n["start"] == {"line": 9, "col": 4}
    assert n["suggestion"] == "4"
    assert "restated as 4 at 10:7" in n["message"]
    assert _value(by_id["dims"], "vs")["suggestion"] is None


def test_an_edited_restatement_keeps_the_verdict(tmp_path, capsys, monkeypatch):
    # √9 = 2: the operand is wrong (and sd = √9 fails too); n is not named
    code, by_id = _check(tmp_path, NOTE.replace("\\sqrt{4} = 2", "\\sqrt{9} = 2"), capsys,
                         monkeypatch)
    assert code == 1
    assert _value(by_id["dims"], "n")["status"] == "given"
    vs = _value(by_id["dims"], "vs")
    assert vs["status"] == "discrepancy" and vs["suggestion"] == "4"


def test_two_printings_with_nothing_computed_from_them_name_no_input(
        tmp_path, capsys, monkeypatch):
    # 只有 16 维时，方差是 9: either printing could be the edit; the step keeps the verdict
    code, by_id = _check(tmp_path, NOTE.replace("只有 9 维时", "只有 16 维时"), capsys,
                         monkeypatch)
    assert code == 1
    assert _value(by_id["var"], "n")["status"] == "given"
    assert _value(by_id["var"], "vs")["status"] == "discrepancy"


TABLE = """第 1 章
1.1 表
候选	概率
黑便	60%
呕血	20%
头晕	10%
其他	10%
1.2 乘
两件事的概率是 50% 和 20%，同时发生的概率是 10%。
"""

TABLE_CLAIMS = """note: n.txt
claims:
  - id: column
    says: the distribution sums to 100%; 其他 is the rest
    section: "1.1"
    text: |
      黑便	⟨p0⟩
      呕血	⟨p1⟩
      头晕	⟨p2⟩
      其他	⟨rest⟩
    check:
      rest: 1 - (p0 + p1 + p2)
  - id: product
    says: independent events multiply
    section: "1.2"
    text: 两件事的概率是 ⟨a⟩ 和 ⟨b⟩，同时发生的概率是 ⟨ab⟩。
    check:
      ab: a * b
"""


def _table(tmp_path: Path, note: str, capsys, monkeypatch) -> tuple[int, dict[str, dict]]:
    return check_project(tmp_path, note, TABLE_CLAIMS, monkeypatch, capsys)


def test_the_unedited_table_verifies(tmp_path, capsys, monkeypatch):
    code, by_id = _table(tmp_path, TABLE, capsys, monkeypatch)
    assert code == 0, {k: v["status"] for k, v in by_id.items()}


def test_a_row_of_a_column_that_no_longer_adds_up_is_flagged_at_its_line(
        tmp_path, capsys, monkeypatch):
    code, by_id = _table(tmp_path, TABLE.replace("头晕\t10%", "头晕\t15%"), capsys, monkeypatch)
    assert code == 1
    values = {v["name"]: v for v in by_id["column"]["values"]}
    assert values["p2"]["status"] == "discrepancy"
    assert values["p2"]["start"] == {"line": 6, "col": 4}
    assert "which one is wrong cannot be told" in values["p2"]["message"]
    assert "6:4 15% (→ 10%)" in values["p2"]["message"]
    # every row is a member: none gets a suggestion, so `fix` rewrites none of them
    assert all(v["status"] == "discrepancy" and v["suggestion"] is None for v in values.values())


def test_a_product_of_percentages_is_no_column(tmp_path, capsys, monkeypatch):
    # 50% × 30% ≠ 10%: a or b alone would repair it, but a product is not a sum of rows
    code, by_id = _table(tmp_path, TABLE.replace("50% 和 20%", "50% 和 30%"), capsys,
                         monkeypatch)
    assert code == 1
    assert _value(by_id["product"], "a")["status"] == "given"
    assert _value(by_id["product"], "b")["status"] == "given"
    assert _value(by_id["product"], "ab")["status"] == "discrepancy"


def test_a_difference_of_percentages_is_no_column(tmp_path, capsys, monkeypatch):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text("第 1 章\n1.1 差\n准确率 55.0% 到 61.0%，提高 5.0%\n",
                                            encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(
        'note: n.txt\nclaims:\n  - id: diff\n    says: the gain\n    section: "1.1"\n'
        "    text: 准确率 ⟨a⟩ 到 ⟨b⟩，提高 ⟨d⟩\n    check:\n      d: b - a\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "-j", "1", "--json", "out.json"]) == 1
    capsys.readouterr()
    (claim,) = json.loads(Path("out.json").read_text(encoding="utf-8"))["claims"]
    # a or b alone would repair d, but b − a is a difference, not what a column leaves
    assert [v["name"] for v in claim["values"] if v["status"] == "discrepancy"] == ["d"]
