"""The engine end to end on small notes: each verdict can be reached, each check can fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifiers.cli import main

NOTE = """第 1 章：例子
1.1 求和
a = 0.25, b = 0.5
sum = 0.25 + 0.5 = 0.75
1.2 指数
e^{1} ≈ 2.718, e^{-1} ≈ 0.368
2.718 + 1 + 0.368 = 4.086
a_1 = 2.718 / 4.086 ≈ 0.665
1.3 链
输入 x = 1.20
y = 2x = 2.40
z = y + 1 = 3.40
"""


def project(tmp_path: Path, claims: str, note: str = NOTE) -> Path:
    (tmp_path / "notes").mkdir(parents=True)
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(claims, encoding="utf-8")
    return tmp_path


def check(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, dict]:
    out_json = root / "out.json"
    code = main(["check", "--notes", str(root / "notes"), "--claims", str(root / "claims"),
                 "--json", str(out_json), *extra])
    captured = capsys.readouterr()
    data = json.loads(out_json.read_text(encoding="utf-8")) if out_json.exists() else {}
    return code, captured.out + captured.err, data


SUM = """note: n.txt
claims:
  - id: sum
    says: 0.25 + 0.5 = 0.75
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check:
      s: a + b
"""


def test_verified_claim_exits_zero_and_writes_contract_json(tmp_path, capsys):
    code, out, data = check(project(tmp_path, SUM), capsys)
    assert code == 0, out
    assert data["version"] == 1
    assert data["summary"]["verified"] == 1
    claim = data["claims"][0]
    assert claim["id"] == "sum" and claim["kind"] == "arithmetic" and claim["status"] == "verified"
    assert claim["file"].endswith("claims/n/c.yaml") and claim["line"] == 3
    assert claim["span"]["start"] == {"line": 4, "col": 1}
    assert claim["root_cause"] is None
    s = next(v for v in claim["values"] if v["name"] == "s")
    assert s["printed"] == "0.75" and s["status"] == "verified"
    assert s["start"] == {"line": 4, "col": 20} and s["end"] == {"line": 4, "col": 24}
    assert [v["status"] for v in claim["values"]] == ["given", "given", "verified"]


def test_wrong_digit_is_a_discrepancy_at_the_note_line(tmp_path, capsys):
    root = project(tmp_path, SUM, NOTE.replace("= 0.75", "= 0.76"))
    code, out, data = check(root, capsys)
    assert code == 1
    assert "n.txt:4:20: discrepancy: sum in 1.1: s: printed 0.76, expected 0.75" in out
    assert data["claims"][0]["values"][2]["expected"].startswith("0.75")


@pytest.mark.parametrize(
    ("printed", "status"),
    [("0.6652", "verified"),  # true 0.665241..., inside ½·10⁻⁴
     ("0.6653", "discrepancy"),  # outside by 0.00001
     ("0.666", "discrepancy"),
     ("0.67", "verified")],
)
def test_printed_precision_boundary(tmp_path, capsys, printed, status):
    claims = """note: n.txt
claims:
  - id: a1
    text: a_1 = ⟨num⟩ / ⟨den⟩ ≈ ⟨a⟩
    where: {true_e: exp(1)}
    check:
      a: true_e / (true_e + 1 + exp(-1))
"""
    root = project(tmp_path, claims, NOTE.replace("≈ 0.665", f"≈ {printed}"))
    code, out, data = check(root, capsys)
    a = data["claims"][0]["values"][2]
    assert a["status"] == status, out


def test_just_inside_and_just_outside_half_unit(tmp_path, capsys):
    # 1/8 = 0.125 exactly: printed 0.12 or 0.13 are both within ½·10⁻² (a tie); 0.14 is not.
    note = "r = 0.12\nq = 0.13\nw = 0.14\nn = 8\n"
    claims = """note: n.txt
claims:
  - id: tie-low
    text: r = ⟨r⟩
    check: {r: 1/8}
  - id: tie-high
    text: q = ⟨q⟩
    check: {q: 1/8}
  - id: outside
    text: w = ⟨w⟩
    check: {w: 1/8}
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    statuses = {c["id"]: c["status"] for c in data["claims"]}
    assert statuses == {"tie-low": "verified", "tie-high": "verified", "outside": "discrepancy"}
    assert code == 1


def test_integers_are_exact(tmp_path, capsys):
    note = "V = 256 + 50000 + 1 = 50257\n"
    claims = """note: n.txt
claims:
  - id: v
    text: V = ⟨a⟩ + ⟨b⟩ + ⟨c⟩ = ⟨v⟩
    check: {v: a + b + c}
"""
    assert check(project(tmp_path, claims, note), capsys)[0] == 0
    wrong = note.replace("50257", "50256")
    code, out, _ = check(project(tmp_path / "w", claims, wrong), capsys)
    assert code == 1 and "printed 50256, expected 50257" in out


def test_honest_rounding_of_printed_inputs_is_not_flagged(tmp_path, capsys):
    # The note rounds e and 1/e to 3 decimals and adds the rounded values: 4.086.
    # Exactly, e + 1 + 1/e = 4.0862 → also 4.086; and a_1 from the printed 2.718/4.086.
    claims = """note: n.txt
claims:
  - id: exps
    section: "1.2"
    text: e^{1} ≈ ⟨e1⟩, e^{-1} ≈ ⟨em1⟩
    check: {e1: exp(1), em1: exp(-1)}
  - id: total
    section: "1.2"
    text: ⟨x⟩ + ⟨one⟩ + ⟨y⟩ = ⟨t⟩
    uses: {ex: exps.e1, emx: exps.em1}
    check: {x: ex, y: emx, t: x + one + y}
"""
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 0, out


CHAIN = """note: n.txt
section: "1.3"
claims:
  - id: c-in
    kind: given
    text: 输入 x = ⟨x⟩
  - id: c-double
    text: y = 2x = ⟨y⟩
    uses: {xv: c-in.x}
    check: {y: 2 * xv}
  - id: c-plus
    text: z = y + 1 = ⟨z⟩
    uses: {yv: c-double.y}
    check: {z: yv + 1}
"""


PIN = "    known: {y: {printed: '2.50', expected: '2.40', why: 'doubled 1.25, not 1.20'}}"


def test_wrong_upstream_is_reported_once_as_root_cause(tmp_path, capsys):
    # y is mis-computed (2.50); z = y + 1 = 3.50 is right given the printed y.
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50").replace("= 3.40", "= 3.50")
    code, out, data = check(project(tmp_path, CHAIN, note), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["c-double"]["status"] == "discrepancy" and by_id["c-double"]["root_cause"] is None
    assert by_id["c-plus"]["status"] == "discrepancy"
    assert by_id["c-plus"]["root_cause"] == "c-double"
    assert "inherited from c-double" in by_id["c-plus"]["message"]
    assert code == 1


def test_pinned_root_makes_its_consequences_known(tmp_path, capsys):
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50").replace("= 3.40", "= 3.50")
    pinned = CHAIN.replace(
        "    check: {y: 2 * xv}",
        "    check: {y: 2 * xv}\n" + PIN)
    code, out, data = check(project(tmp_path, pinned, note), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["c-double"]["status"] == "known"
    assert by_id["c-plus"]["status"] == "known" and by_id["c-plus"]["root_cause"] == "c-double"
    assert code == 0, out


def test_pin_edited_to_the_right_value_is_fixed(tmp_path, capsys):
    pinned = CHAIN.replace(
        "    check: {y: 2 * xv}",
        "    check: {y: 2 * xv}\n" + PIN)
    code, out, data = check(project(tmp_path, pinned), capsys)  # the note prints 2.40: right
    y = next(c for c in data["claims"] if c["id"] == "c-double")
    assert y["status"] == "fixed" and "remove the pin" in y["message"]
    assert code == 1


def test_pin_edited_to_another_wrong_value_is_a_discrepancy(tmp_path, capsys):
    pinned = CHAIN.replace(
        "    check: {y: 2 * xv}",
        "    check: {y: 2 * xv}\n" + PIN)
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.60").replace("= 3.40", "= 3.60")
    code, out, data = check(project(tmp_path, pinned, note), capsys)
    y = next(c for c in data["claims"] if c["id"] == "c-double")
    assert y["status"] == "discrepancy" and "no longer applies" in y["message"]
    assert code == 1


def test_stale_quote_shows_the_closest_line(tmp_path, capsys):
    claims = SUM.replace("sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩", "total = ⟨a⟩ + ⟨b⟩ = ⟨s⟩")
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1
    claim = data["claims"][0]
    assert claim["status"] == "stale" and claim["span"] is None
    assert "closest line: [-total-]{+sum+} = 0.25 + 0.5 = 0.75" in claim["message"]
    assert claim["where"] == {"line": 4, "col": 1}


def test_quote_found_twice_is_stale(tmp_path, capsys):
    note = NOTE + "sum = 0.25 + 0.5 = 0.75\n"
    claims = SUM.replace('    section: "1.1"\n', "")
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert data["claims"][0]["status"] == "stale" and "2 times" in data["claims"][0]["message"]


def test_whitespace_differences_do_not_matter(tmp_path, capsys):
    quote = "text: |\n      sum=⟨a⟩+⟨b⟩\n         = ⟨s⟩"
    claims = SUM.replace("text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩", quote)
    assert check(project(tmp_path, claims), capsys)[0] == 0


def test_vectors_matrices_and_percentages(tmp_path, capsys):
    note = ("X = [[1, 2], [3, 4]]\nM = \\begin{matrix} 1 & 0 \\\\ 0 & 1 \\end{matrix}\n"
            "XM 第0行: [1.00, 2.00]\n概率 = [50.0%, 50.0%]\n")
    claims = """note: n.txt
claims:
  - id: mat
    text: |
      X = ⟨X⟩
      M = ⟨M⟩
      XM 第0行: ⟨P[0]⟩
      概率 = ⟨p⟩
    check:
      P: X @ M
      p: softmax([0, 0])
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert code == 0, out
    wrong = note.replace("[1.00, 2.00]", "[1.00, 2.01]")
    code, out, _ = check(project(tmp_path / "w", claims, wrong), capsys)
    assert code == 1 and "expected [1.00, 2.00]" in out


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ("note: n.txt\nclaims:\n  - id: a\n    text: [unclosed\n", "invalid YAML"),
        ("note: n.txt\nclaims:\n  - id: a\n    text: sum = ⟨s⟩\n    chek: {s: 1}\n",
         "c.yaml:5:5: error: unknown key 'chek' (did you mean 'check'?)"),
        ("note: n.txt\nclaims:\n  - !!python/object/apply:os.system ['echo hi']\n",
         "tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"),
        ("note: n.txt\nclaims:\n  - id: a\n    text: sum = ⟨s⟩\n"
         "    check: {s: \"__import__('os')\"}\n", "not allowed"),
        ("note: n.txt\nclaims:\n  - id: a\n    text: sum = ⟨s⟩\n    check: {s: 10^10^10}\n",
         "exponent too large"),
        ("note: nope.txt\nclaims: []\n", "unknown note 'nope.txt'"),
        ("note: n.txt\nclaims:\n  - id: a\n    text: sum = ⟨s⟩ + ⟨s⟩\n    check: {s: 1}\n",
         "bound twice"),
        ("note: n.txt\nnote: n.txt\nclaims: []\n", "duplicate key 'note'"),
        ("a: &x [1]\nb: *x\n", "aliases"),
        ("", "empty claim file"),
    ],
)
def test_bad_claims_are_errors_with_positions_not_tracebacks(tmp_path, capsys, claims, message):
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1
    assert message in out
    assert "Traceback" not in out
    assert data["summary"]["error"] >= 1


def test_duplicate_ids_are_errors(tmp_path, capsys):
    claims = SUM + SUM.split("claims:\n", 1)[1]
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1 and "duplicate id 'sum' (first at" in out


def test_invalid_utf8_note_is_exit_2_with_byte_offset(tmp_path, capsys):
    root = project(tmp_path, SUM)
    (root / "notes" / "n.txt").write_bytes("第 1 章\n".encode() + b"\xff\xfe bad\n")
    code, out, _ = check(root, capsys)
    assert code == 2
    assert "invalid UTF-8 at byte 10" in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1


def test_bad_invocation_is_exit_2_with_one_line(capsys):
    assert main(["check", "--bogus"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert main(["check", "--notes", "/nonexistent/dir"]) == 2


def test_keyword_selection(tmp_path, capsys):
    root = project(tmp_path, CHAIN, NOTE.replace("2.40", "2.50"))
    code, out, data = check(root, capsys, "-k", "c-in or c-plus")
    assert sorted(c["id"] for c in data["claims"]) == ["c-in", "c-plus"]
    code, out, data = check(root, capsys, "-k", "not c-plus and not c-in")
    assert [c["id"] for c in data["claims"]] == ["c-double"]


def test_crlf_and_bom_notes_give_the_same_positions(tmp_path, capsys):
    _, _, plain = check(project(tmp_path / "a", SUM), capsys)
    crlf = "\ufeff" + NOTE.replace("\n", "\r\n")
    _, _, other = check(project(tmp_path / "b", SUM, crlf), capsys)
    assert plain["claims"][0]["values"] == other["claims"][0]["values"]


def test_last_digit_slip_after_an_exact_upstream_is_caught(tmp_path, capsys):
    # w_old = ln(0.3/0.7) ≈ -0.8473 (right); w_new = w_old + 0.07 printed -0.7774 (true -0.7773).
    # The printed 0.07 is exactly right, so it may not hide the slip in a ±0.005 interval.
    note = "w_old = ln(0.3/0.7) ≈ -0.8473\nstep = 0.07\nw_new = -0.8473 + 0.07 = {w}\n"
    claims = """note: n.txt
claims:
  - id: w-old
    text: w_old = ln(⟨p⟩/⟨q⟩) ≈ ⟨w⟩
    check: {w: ln(p/q)}
  - id: step
    text: step = ⟨s⟩
    uses: {wo: w-old.w}
    check: {s: 0.1 * 0.7}
  - id: w-new
    text: w_new = ⟨a⟩ + ⟨b⟩ = ⟨w⟩
    uses: {wo: w-old.w, st: step.s}
    check: {a: wo, b: st, w: a + b}
"""
    code, out, data = check(project(tmp_path, claims, note.format(w="-0.7773")), capsys)
    assert code == 0, out
    code, out, data = check(project(tmp_path / "slip", claims, note.format(w="-0.7774")), capsys)
    w_new = next(c for c in data["claims"] if c["id"] == "w-new")
    assert w_new["status"] == "discrepancy" and w_new["root_cause"] is None
    assert code == 1


def test_a_right_value_after_a_wrong_upstream_is_not_flagged(tmp_path, capsys):
    # y is wrong (2.50) but z is printed from the right y (3.40): z is right, y is the error.
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50")
    code, out, data = check(project(tmp_path, CHAIN, note), capsys)
    by_id = {c["id"]: c["status"] for c in data["claims"]}
    assert by_id == {"c-in": "verified", "c-double": "discrepancy", "c-plus": "verified"}


def test_a_pin_needs_its_expected_value(tmp_path, capsys):
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50").replace("= 3.40", "= 3.50")
    pinned = CHAIN.replace(
        "    check: {y: 2 * xv}",
        "    check: {y: 2 * xv}\n    known: {y: {printed: '2.50', why: 'doubled 1.25'}}")
    code, out, data = check(project(tmp_path, pinned, note), capsys)
    assert code == 1 and "the pin needs expected: '2.40'" in out


def test_editing_an_input_under_a_pin_reopens_it(tmp_path, capsys):
    # y = 2x is pinned as 2.50 (should be 2.40); now x is edited to 1.30: y should be 2.60.
    note = (NOTE.replace("x = 1.20", "x = 1.30").replace("y = 2x = 2.40", "y = 2x = 2.50")
            .replace("= 3.40", "= 3.50"))
    pinned = CHAIN.replace(
        "    check: {y: 2 * xv}",
        "    check: {y: 2 * xv}\n    known: {y: {printed: '2.50', expected: '2.40', why: 'x'}}")
    code, out, data = check(project(tmp_path, pinned, note), capsys)
    y = next(c for c in data["claims"] if c["id"] == "c-double")
    assert y["status"] == "discrepancy" and "was an input edited?" in y["message"]
    assert code == 1


def test_a_comma_list_without_spaces_is_split_at_commas(tmp_path, capsys):
    note = "若 $z=(1000,999,998)$，最大 1000\n"
    claims = """note: n.txt
claims:
  - id: big
    text: 若 $z=⟨z⟩$，最大 ⟨m⟩
    check: {m: max(z)}
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert code == 0, out
    assert data["claims"][0]["values"][0]["printed"] == "(1000,999,998)"


@pytest.mark.parametrize(("printed", "code"), [("4.9", 0), ("5.9", 1), ("4.8", 1)])
def test_tiny_values_are_compared_as_strictly_as_others(tmp_path, capsys, printed, code):
    note = f"最小正双精度数 $2^{{-1074}}\\approx{printed}\\times10^{{-324}}$\n"
    claims = """note: n.txt
claims:
  - id: tiny
    text: $2^{-⟨k⟩}\\approx⟨t⟩$
    check: {t: 2^(-k)}
"""
    assert check(project(tmp_path, claims, note), capsys)[0] == code


def test_latex_spaces_inside_a_list(tmp_path, capsys):
    note = "$g=(-0.335,\\ 0.245,\\ 0.090)$\n"
    claims = """note: n.txt
claims:
  - id: g
    text: $g=⟨g⟩$
    check: {g: "[-0.335, 0.245, 0.09]"}
"""
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert code == 0, out
    assert data["claims"][0]["values"][0]["printed"] == "(-0.335,\\ 0.245,\\ 0.090)"


# -- approximate words: one unit of the last significant digit ------------------------

def _approx(tmp_path, capsys, note_line: str, quote: str, expr: str):
    claims = f"note: n.txt\nclaims:\n  - id: ap\n    text: \"{quote}\"\n    check: {{v: {expr}}}\n"
    code, out, data = check(project(tmp_path, claims, f"第 1 章\n1.1 近似\n{note_line}\n"), capsys)
    return code, out, data["claims"][0]["values"][0]


@pytest.mark.parametrize(("note_line", "quote", "expr", "status"), [
    ("程序大约 25 行。", "大约 ⟨v⟩ 行", "259/10", "verified"),  # [24, 26] holds 25.9
    ("程序大约 25 行。", "大约 ⟨v⟩ 行", "266/10", "discrepancy"),  # … not 26.6
    ("程序大约 25 行。", "大约 ⟨v⟩ 行", "29", "discrepancy"),  # the note's 25 for 29 lines
    ("程序 25 行左右。", "⟨v⟩ 行左右", "24", "verified"),
    ("概率约 0.37。", "约 ⟨v⟩", "0.3799", "verified"),  # [0.36, 0.38]
    ("概率约 0.37。", "约 ⟨v⟩", "0.3812", "discrepancy"),
    ("about 300 steps", "about ⟨v⟩ steps", "395", "verified"),  # trailing zeros: ± 100
    ("误差约 $10^{-5}$。", "误差约 $⟨v⟩$", "3 * 10^(-5)", "verified"),  # within a factor √10
    ("误差约 $10^{-5}$。", "误差约 $⟨v⟩$", "4 * 10^(-5)", "discrepancy"),
    ("误差约 $10^{-5}$。", "误差约 $⟨v⟩$", "3.3 * 10^(-6)", "verified"),
    ("误差约 $10^{-5}$。", "误差约 $⟨v⟩$", "3 * 10^(-6)", "discrepancy"),
])
def test_an_approximate_number_is_checked_to_one_unit(tmp_path, capsys, note_line, quote,
                                                      expr, status):
    code, out, v = _approx(tmp_path, capsys, note_line, quote, expr)
    assert v["status"] == status, out
    assert v["approximate"] is True
    assert "(approximate)" in v["message"]


def test_a_planted_error_at_an_approximate_number_is_caught(tmp_path, capsys):
    code, out, v = _approx(tmp_path, capsys, "e 约 2.72。", "e 约 ⟨v⟩", "exp(1)")
    assert code == 0 and v["status"] == "verified"
    code, out, v = _approx(tmp_path / "planted", capsys, "e 约 2.75。", "e 约 ⟨v⟩", "exp(1)")
    assert code == 1 and v["status"] == "discrepancy"
    assert "v: printed 2.75 (approximate), expected 2.72" in out


def test_the_rounding_sign_is_not_approximate(tmp_path, capsys):
    code, out, v = _approx(tmp_path, capsys, "e ≈ 2.71。", "e ≈ ⟨v⟩", "exp(1)")
    assert v["status"] == "discrepancy" and v["approximate"] is False


def test_widen_without_reason_is_refused_at_its_line(tmp_path, capsys):
    claims = SUM.rstrip("\n") + "\n    widen:\n      s: {abs: 0.01}\n"
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1 and data["summary"]["error"] == 1
    line = claims.split("\n").index("      s: {abs: 0.01}") + 1
    assert f"c.yaml:{line}:" in out and "widen: s: a wider tolerance needs a 'reason'" in out


def test_the_json_report_lists_every_widened_tolerance(tmp_path, capsys):
    claims = SUM.rstrip("\n") + "\n    widen:\n      s: {abs: 0.01, reason: the note rounds}\n"
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 0
    assert data["widened"] == [{"claim": "sum", "hole": "s", "by": {"abs": 0.01},
                                "reason": "the note rounds"}]
    assert data["claims"][0]["values"][2]["approximate"] is False
