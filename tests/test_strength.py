"""Strength of coverage: recomputed, copy, restated, given -- and a copy is never recomputed."""

from __future__ import annotations

import json

from tests.test_engine import project
from verifiers.cli import main
from verifiers.coverage.literals import coverage
from verifiers.run import run

NOTE = """1.1 例子
输入 a = 1.5，b = 2.5
和 s = 4.0
小结：和还是 4.0，输入 a 还是 1.5
两倍的 a 就是 $2a$ 的意思，也就是 3.0
三倍的 a 就是 a 的三倍，即 4.5
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
    says: the summary repeats the sum (as printed) and the input a
    text: 小结：和还是 ⟨s2⟩，输入 a 还是 ⟨a2⟩
    uses: {s: {from: sum.s, as: printed}, a: inputs.a}
    where: {t: s}
    check: {s2: t, a2: a}
  - id: twice
    kind: symbolic
    says: twice a, restated over the note's words that print the formula 2a
    text: 两倍的 a 就是 ⟪P⟫，也就是 3.0
    restate:
      P: {as: '2 a = a + a', reason: the note says it in words}
  - id: thrice
    kind: symbolic
    says: thrice a, restated over words with no formula of the note in them
    text: 三倍的 a 就是 ⟪P⟫
    restate:
      P: {as: '3 a = a + a + a', reason: the note says it in words}
"""


def _strengths(root):
    result = run(root / "notes", root / "claims", lambda claim: False)
    covs, problems = coverage(result)
    assert not problems
    note = result.notes["n.txt"]
    return {note.text[lit.start:lit.end] + f"@{note.position(lit.start)[0]}":
            covs[0].strength.get(lit.start, covs[0].status[lit.start]) for lit in covs[0].literals}


def test_each_class_on_a_tiny_note(tmp_path):
    got = _strengths(project(tmp_path, CLAIMS, NOTE))
    assert got["1.5@2"] == "given" and got["2.5@2"] == "given"  # inputs
    assert got["4.0@3"] == "recomputed"  # a + b
    assert got["4.0@4"] == "copy"  # the sum's printing again (as printed, via a where alias)
    assert got["1.5@4"] == "given"  # an input printed again is still an input
    assert got["2@5"] == "restated"  # the note's own formula $2a$, inside the restatement
    assert got["3.0@5"] == "uncovered"  # words the restatement does not repeat
    assert got["4.5@6"] == "uncovered"  # a restatement of words covers nothing


def test_a_value_checked_only_by_copy_is_not_recomputed(tmp_path):
    # the summary's copy would be recomputed only if its check computed something
    claims = CLAIMS.replace("check: {s2: t, a2: a}", "check: {s2: t + 0, a2: a}")
    assert _strengths(project(tmp_path / "computed", claims, NOTE))["4.0@4"] == "recomputed"
    assert _strengths(project(tmp_path / "copied", CLAIMS, NOTE))["4.0@4"] == "copy"


def test_a_repeated_printing_the_engine_recomputes_is_recomputed(tmp_path):
    # without `as: printed` the engine judges the summary's 4.0 on every route by
    # recomputing a + b (verifiers/arithmetic/recompute.py), not by the other printing
    plain = CLAIMS.replace("uses: {s: {from: sum.s, as: printed}, a: inputs.a}",
                           "uses: {s: sum.s, a: inputs.a}")
    got = _strengths(project(tmp_path / "plain", plain, NOTE))
    assert got["4.0@4"] == "recomputed" and got["1.5@4"] == "given"
    within = CLAIMS.replace("""    text: 和 s = ⟨s⟩
    uses: {a: inputs.a, b: inputs.b}
    check: {s: a + b}""", """    text: 和 s = ⟨s⟩
    uses: {a: inputs.a, b: inputs.b, again: summary.s2}
    check: {s: again}""")  # a reference chain with no computation at its end: an orphan
    assert _strengths(project(tmp_path / "orphan", within, NOTE))["4.0@3"] == "copy"


def test_an_item_of_a_list_check_is_classed_by_its_own_expression(tmp_path):
    # [s, a + 4] prints the sum again (a copy) next to a new value: the copy must not
    # ride on its neighbour's computation and count as recomputed
    note = NOTE + "列表 [4.0, 5.5]\n"
    claims = CLAIMS + """  - id: pair
    says: the sum again, and a + 4
    text: 列表 [⟨L[0]⟩, ⟨L[1]⟩]
    uses: {s: {from: sum.s, as: printed}, a: inputs.a}
    check: {L: "[s, a + 4]"}
"""
    got = _strengths(project(tmp_path / "mixed", claims, note))
    assert got["4.0@7"] == "copy" and got["5.5@7"] == "recomputed"
    computed = claims.replace('"[s, a + 4]"', '"[s + 0, a + 4]"')
    assert _strengths(project(tmp_path / "computed", computed, note))["4.0@7"] == "recomputed"


def test_a_copy_of_nothing_recomputed_is_reported(tmp_path, capsys, monkeypatch):
    claims = CLAIMS.replace("""  - id: sum
    says: s = a + b
    text: 和 s = ⟨s⟩
    uses: {a: inputs.a, b: inputs.b}
    check: {s: a + b}""", """  - id: sum
    says: two printings that only copy each other
    text: 和 s = ⟨s⟩
    uses: {again: summary.s2}
    check: {s: again}""")
    root = project(tmp_path, claims, NOTE)
    monkeypatch.chdir(root)
    main(["coverage", "--json", "cov.json"])
    out = capsys.readouterr().out
    assert "copy of nothing recomputed: sum.s" in out
    strength = json.loads((root / "cov.json").read_text(encoding="utf-8"))["notes"][0]["strength"]
    assert {"claim": "sum", "hole": "s"} in strength["orphan_copies"]
    assert strength["recomputed"] == 0  # nothing computes the sum any more


def test_the_json_and_console_show_the_strength_table(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CLAIMS, NOTE)
    monkeypatch.chdir(root)
    main(["coverage", "--json", "cov.json"])
    out = capsys.readouterr().out
    strength = json.loads((root / "cov.json").read_text(encoding="utf-8"))["notes"][0]["strength"]
    assert {k: strength[k] for k in ("recomputed", "copy", "restated", "given")} == \
        {"recomputed": 1, "copy": 1, "restated": 1, "given": 3}
    assert strength["derived"] == 3 and strength["copies_of_given"] == 1
    assert "strength: 1 recomputed, 1 copy, 1 restated, 3 given (33.3% of 3 derived" in out
