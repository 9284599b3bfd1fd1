"""Statements about printed data (``states:``): planted errors in the word or the values fail."""

from __future__ import annotations

from tests.test_engine import check, project

NOTE = """1.1 例子
温度 T = 0.5，logits 为 2.0 和 -1.0，差距会变大。
概率从高到低：[0.50, 0.25, 0.15, 0.10]
最可能的词是 猫，概率 [0.10, 0.60, 0.30] 对应 我、猫、狗
"""

CLAIMS = """note: n.txt
claims:
  - id: gap
    says: the gap grows at T < 1
    text: 温度 T = ⟨T⟩，logits 为 ⟨hi⟩ 和 ⟨lo⟩，差距会⟦gap⟧。
    where:
      scaled: softmax([hi, lo] / T)
      plain: softmax([hi, lo])
    states:
      gap:
        sign: (scaled[0] - scaled[1]) - (plain[0] - plain[1])
  - id: sorted
    says: the list is printed from high to low
    text: 概率⟦order⟧：⟨p⟩
    states:
      order: {order: p}
  - id: top
    says: the most likely word
    text: 最可能的词是 ⟦w⟧，概率 ⟨p⟩ 对应 我、猫、狗
    states:
      w: {largest: p, labels: [我, 猫, 狗]}
"""


def _values(data):
    return {(c["id"], v["name"]): (v["status"], v["message"]) for c in data["claims"]
            for v in c["values"] if v["name"] in ("gap", "order", "w")}


def test_true_statements_verify(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE), capsys)
    assert code == 0, out
    assert {k: s for k, (s, _) in _values(data).items()} == {
        ("gap", "gap"): "verified", ("sorted", "order"): "verified", ("top", "w"): "verified"}


def test_an_edited_word_is_judged_again(tmp_path, capsys):
    note = NOTE.replace("差距会变大", "差距会变小").replace("概率从高到低", "概率从低到高") \
        .replace("最可能的词是 猫", "最可能的词是 狗")
    code, out, data = check(project(tmp_path, CLAIMS, note), capsys)
    assert code == 1
    got = _values(data)
    assert got[("gap", "gap")][0] == "discrepancy" and "gives 变大" in got[("gap", "gap")][1]
    assert got[("sorted", "order")][0] == "discrepancy"
    assert got[("top", "w")][0] == "discrepancy" and "(猫)" in got[("top", "w")][1]


def test_an_edited_value_is_judged_again(tmp_path, capsys):
    note = NOTE.replace("T = 0.5", "T = 2.0").replace("[0.50, 0.25, 0.15, 0.10]",
                                                    "[0.50, 0.15, 0.25, 0.10]") \
        .replace("[0.10, 0.60, 0.30]", "[0.10, 0.30, 0.60]")
    code, out, data = check(project(tmp_path, CLAIMS, note), capsys)
    assert code == 1
    got = _values(data)
    assert got[("gap", "gap")][0] == "discrepancy"  # T > 1 narrows the gap
    assert got[("sorted", "order")][0] == "discrepancy" and "entries 2 and 3" in \
        got[("sorted", "order")][1]
    assert got[("top", "w")][0] == "discrepancy"


def test_a_word_outside_the_rule_is_unparsed_and_bad_states_are_errors(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE.replace("差距会变大", "差距会不变")),
                            capsys)
    assert _values(data)[("gap", "gap")][0] == "unparsed"
    bad = CLAIMS.replace("      order: {order: p}", "      order: {sorted: p}")
    code, out, _ = check(project(tmp_path / "bad", bad, NOTE), capsys)
    assert code != 0 and "states: order: one of sign, order, largest, smallest" in out
    missing = CLAIMS.replace("    states:\n      order: {order: p}\n", "")
    code, out, _ = check(project(tmp_path / "missing", missing, NOTE), capsys)
    assert code != 0 and "word holes ⟦slot⟧ need kind: property or procedure, or a 'states:'" in out


def test_a_known_wrong_statement_is_pinned_to_its_word(tmp_path, capsys):
    note = NOTE.replace("[0.50, 0.25, 0.15, 0.10]", "[0.50, 0.25, 0.10, 0.15]")
    pin = "      order: {printed: 从高到低, expected: neither, why: two swapped}\n"
    states = "      order: {order: p}\n"
    pinned = CLAIMS.replace(states, states + "    known:\n" + pin)
    code, out, data = check(project(tmp_path, pinned, note), capsys)
    assert _values(data)[("sorted", "order")][0] == "known"
    code, out, data = check(project(tmp_path / "fixed", pinned, NOTE), capsys)
    assert _values(data)[("sorted", "order")][0] == "fixed"  # the pin must go once it verifies
