"""A function defined on two patterns, each read from its own line (issue 12 item 2).

matrix-by-matrix 1.4 defines PE(pos, 2i) with sin and PE(pos, 2i+1) with cos on consecutive
lines. One symbolic claim reads both (``define: {PE: F, 'PE(pos, 2i+1)': G}``: the second key
is the left side as the note writes it), so every printed PE(pos, j) line is checked against
the pattern it matches, and neither definition is quoted as literal text.
"""

from __future__ import annotations

import pytest

from tests.test_engine import check, project

NOTE = """第 1 章：输入
1.4 位置编码
PE(pos, 2i) = sin(pos / 10000^(2i/d_model))
PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))
具体计算（d_model = 4，故 i = 0, 1）：
PE(1, 0) = sin(1 / 10000^0) = sin(1) ≈ 0.8415
PE(1, 1) = cos(1 / 10000^0) = cos(1) ≈ 0.5403
PE(2, 3) = cos(2 / 10000^(1/2)) = cos(0.02) ≈ 0.9998
"""

CLAIMS = """note: n.txt
claims:
  - id: pe
    kind: symbolic
    section: "1.4"
    text: |
      ⟪F⟫
      ⟪G⟫
      具体计算（⟪D⟫，故 i = 0, 1）：
      ⟪P10⟫
      ⟪P11⟫
      ⟪P23⟫
    define: {PE: F, 'PE(pos, 2i+1)': G, d_model: D}
    functions: [sin, cos]
    assume: {integer: [pos, i]}
"""


def _pe(tmp_path, capsys, note: str) -> dict:
    code, out, data = check(project(tmp_path, CLAIMS, note), capsys)
    return next(c for c in data["claims"] if c["id"] == "pe")


def test_each_call_takes_the_pattern_it_matches(tmp_path, capsys):
    pe = _pe(tmp_path, capsys, NOTE)
    assert pe["status"] == "verified", pe["message"]
    names = {v["name"] for v in pe["values"]}
    assert {"P11.step1", "P23.step1"} <= names  # odd dimensions: the cos pattern


@pytest.mark.parametrize(("find", "replace", "line"), [
    # the cos definition edited (sin for cos): blamed at its own line, where it was edited
    ("PE(pos, 2i+1) = cos(", "PE(pos, 2i+1) = sin(", 4),
    # a printed odd line edited: cos written as sin
    ("PE(1, 1) = cos(1 / 10000^0)", "PE(1, 1) = sin(1 / 10000^0)", 7),
    # the odd exponent written with 2i+1: PE(2, 3) is now cos(2 / 10000^(3/4))
    ("cos(pos / 10000^(2i/d_model))", "cos(pos / 10000^((2i+1)/d_model))", 4),
])
def test_an_edit_of_either_pattern_fails(tmp_path, capsys, find, replace, line):
    assert NOTE.count(find) == 1
    pe = _pe(tmp_path, capsys, NOTE.replace(find, replace))
    assert pe["status"] == "discrepancy", pe["message"]
    failed = [(v["name"], v["start"]["line"]) for v in pe["values"] if v["status"] == "discrepancy"]
    assert any(at == line for _, at in failed), failed
    if line == 4:  # an edit of the cos pattern never blames the sin pattern of line 3
        assert not any(at == 3 for _, at in failed), failed
