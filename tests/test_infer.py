"""notecheck scaffold --infer: claims inferred from what a note shows, evaluated before written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from verifiers.cli import main
from verifiers.schema import load_claim_file

INFERRED = Path("claims") / "n" / "90-inferred.yaml"


def project(tmp_path: Path, note: str, claims: str | None = None) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    if claims is not None:
        (tmp_path / "claims" / "n").mkdir()
        (tmp_path / "claims" / "n" / "c.yaml").write_text(claims, encoding="utf-8")
    return tmp_path


def infer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note: str,
          claims: str | None = None) -> str:
    """Run ``scaffold --infer`` on a one-note project; the inferred file's text ('' if none)."""
    root = project(tmp_path, note, claims)
    monkeypatch.chdir(root)
    assert main(["scaffold", "n.txt", "--infer"]) == 0
    path = root / INFERRED
    return path.read_text(encoding="utf-8") if path.exists() else ""


def assert_edit_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any,
                        note: str, old: str, new: str, line: int) -> None:
    """Infer the claims of the clean ``note``, then edit ``old`` → ``new``: the check fails
    with a discrepancy on ``line``."""
    infer(tmp_path, monkeypatch, note)
    assert note.count(old) == 1
    (tmp_path / "notes" / "n.txt").write_text(note.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n.txt:{line}:") and ": discrepancy: " in ln
               for ln in out.splitlines()), out


def checks_of(text: str) -> list[str]:
    return [line.split(":", 1)[1].strip().strip('"') for line in text.splitlines()
            if line.startswith("      v")]


@pytest.mark.parametrize("line, check", [
    ("乘积：3 × 4 = 12。", "v1 * v2"),
    ("乘法 2.5 * 4 = 10。", "v1 * v2"),
    ("点乘 0.5 · 4 = 2。", "v1 * v2"),
    ("除法 7 / 2 = 3.5。", "v1 / v2"),
    ("求和 1.5 + 2.5 + 3 = 7。", "v1 + v2 + v3"),
    ("相减 5 − 1.5 = 3.5。", "v1 - v2"),
    ("结果 0.5×2 + 3×1 = 1 + 3 = 4。", "v5 + v6"),
    ("比例 1 / 4 = 0.25 = 25%。", "v3"),
    ("指数 e^{2} = 7.389。", "exp(v1)"),
    ("对数 ln(2) = 0.693。", "ln(v1)"),
    ("对数 log(10) = 2.303。", "ln(v1)"),
    ("根号 sqrt(2) = 1.414，", "sqrt(v1)"),
    ("根号 √9 = 3。", "sqrt(v1)"),
    ("概率 softmax([1, 2]) = [0.269, 0.731]。", "softmax(v1)"),
    ("激活 1/(1+e^{-0.5}) = 0.6225。", "v1 / (v2 + exp(v3))"),
    ("逐元素 [0.5+0.1, 1.0-0.2] = [0.6, 0.8]。", "[v1 + v2, v3 - v4]"),
    ("列表 [1, 2, 3.5] 的总和为 6.5。", "sum(v1)"),
    ("列表 [1, 2, 3] 的平均为 2。", "mean(v1)"),
    ("一共 200 个，其中 50 个，占 25%。", "v2 / v1"),
    ("[[1, 2], [3, 4]] × [[1, 0], [0, 2]] = [[1, 4], [3, 8]]", "v1 @ v2"),
    ("$2 \\times 3 = 6$ 。", "v1 * v2"),
    ("$3 \\cdot 4 = 12$ 。", "v1 * v2"),
    ("$\\frac{3}{4} = 0.75$ 。", "v1 / v2"),
    ("$$\n\\begin{aligned}\nM &= 2 \\times 3 \\\\\n  &= 6\n\\end{aligned}\n$$", "v1 * v2"),
    ("$\\sigma(0.5) = 0.6225$ 。", "1 / (1 + exp(-(v1)))"),  # σ(x) is the sigmoid
    ("份额 $1 / 4 = 25.0\\%$ 。", "(v1 / v2) * 100"),  # LaTeX \% outside the literal
    ("$2 \\times 3 + (-1) \\times 4 = 6 - 4$ 。", "-(v3 * v4)"),  # the sign moved out
    ("| p | -ln p |\n|---|---|\n| 0.5 | 0.6931 |\n| 0.25 | 1.3863 |\n| 0.1 | 2.3026 |",
     "(-ln(v1))"),  # a table column computed from its row
    ("| x | x² |\n|---|---|\n| -3.0 | 9.0 |\n| 1.5 | 2.25 |", "v1 ^ 2"),
    ("一共 $2362368$ 个参数，约 236 万。", "v1"),  # restated, rounded, in 万
    ("the total is 0.272321, about 0.27 in all.", "v1"),
    ("取值 $[1.0, 3.0, 8.0]$，平均值为 4.0。", "mean(v1)"),
    ("取值 [2, 4, 6, 9] 的方差为 6.6875。", "var(v1)"),
    ("the list [2, 4, 6, 9] has standard deviation 2.586.", "sqrt(var(v1))"),
    ("左上块 max(1, 3, 4, 6) = 6。", "max(v1)"),
    ("交叉熵 −ln 0.705 ≈ 0.35。", "(-ln(v1))"),  # a leading minus is a sign
    ("$$e^{0.5} = 1.6487, \\quad e^{1.5} = 4.4817$$", "exp(v3)"),  # \quad separates
    ("前三行 112576 = 1792 + 36928 + 73856。", "v2 + v3 + v4"),  # the result first
    ("共 524288 字节，约 0.5 MB。", "v1 * 1 / 1000000"),  # a unit read: MB as 10^6
    ("按 float32 是 3211264 字节，约 3.06 MB（MiB）。", "v1 * 1 / 1048576"),  # or as 2^20
    ("that is 201326592 bytes = 192 MiB per sequence.", "v1 * 1 / 1048576"),
    ("$16 \\times 353453056$ bytes $\\approx 5.27$ GiB.", "(v1 * v2) * 1 / 1073741824"),
    ("$D = 1638400000$ tokens (about 1.64B).", "v1 * 1 / 1000000000"),
    ("一层 924844032 次，约 0.92 G。", "v1 * 1 / 1000000000"),
    ("$1 + \\cos(\\pi / 4) = 1.7071$ 。", "v1 + cos(pi / v2)"),  # the constant pi
    ("(224 + 6 − 7) / 2 = 223 / 2 = 111.5", "(v1 + v2 - v3)"),  # a part evaluated
    ("3 × (3 × 3 × 256) = 3 × 2304 = 6912", "(v1 * v2 * v3)"),
    ("设 $n = 2048$，$d = 1024$。\n$$\\frac{4n}{24d + 4n} = \\frac{8192}{24576 + 8192}$$",
     "v2 * u25"),  # several parts, each a defined name put in (`4n` in math: 4 times n)
    ("| 结果 | 次数 | 概率 |\n|---|---|---|\n| a | 1 | 0.125 |\n| b | 3 | 0.375 |\n| c | 4 | 0.5 |",
     "v3 / (v1 + v3 + v5)"),  # a column's share of its total
    ("总和\t次数\t概率\n−2\t1\t0.25\n0\t2\t0.5\n2\t1\t0.25", "v3 / (v1 + v3 + v5)"),  # tabs
    ("a 6000-character file came out at 1500 tokens, 4 characters per token.", "v1 / v2"),
    ("With 80 GB over 8 GPUs, that is 10 GB per GPU.", "v1 / v2"),  # a rate
    ("$E = 0.251995 + 0.020326 = 0.272321$. Most of it (about 92.5%) comes from o1.",
     "v1 / v3"),  # a term's share of the sum just printed
    ("logits = [2.0, 1.0, 0.1]\nexp = [7.389, 2.718, 1.105]", "exp(v1)"),  # a vector pipeline
    ("exp = [7.389, 2.718, 1.105]\n概率 = [0.659, 0.242, 0.099]", "v1 / sum(v1)"),
    ("| layer | FLOPs |\n|---|---|\n| a | 120 |\n| b | 35 |\n| **total** | 155 |",
     "v1 + v2"),  # a totals row
    ("层   权重   偏置   合计\nc1   1728   64     1792\nc2   36864  128    36992\n"
     "合计               38784", "v3 + v6"),  # a plain-text table: a column and its total
])
def test_each_pattern_family_is_inferred_and_verified(tmp_path, monkeypatch, capsys, line,
                                                       check):
    text = infer(tmp_path, monkeypatch, f"1.1 例子\n{line}\n")
    assert check in checks_of(text), text
    assert "inferred: true" in text and "known:" not in text
    capsys.readouterr()
    assert main(["check"]) == 0
    assert "verified" in capsys.readouterr().out


def test_a_wrong_result_in_an_unambiguous_step_is_pinned_for_review(tmp_path, monkeypatch,
                                                                     capsys):
    text = infer(tmp_path, monkeypatch, "1.1 例子\n乘积：3 × 4 = 13。\n")
    assert 'v3: {printed: "13", expected: "12", why: "inferred; review"}' in text
    capsys.readouterr()
    assert main(["check"]) == 0  # pinned: the gate stays green, the report lists it
    assert "known: inferred; review" in capsys.readouterr().out


@pytest.mark.parametrize("note, pin", [
    ("1.1 例子\n$\\eta = 3 \\times 10^{-4} \\times \\frac{500}{2000} = 7.5 \\times 10^{-4}$ and "
     "more.\n", 'v4: {printed: "7.5 \\\\times 10^{-4}", expected: "7.5 \\\\times 10^{-5}"'),
    ("1.1 例子\nY = 1×1 + 1×(−1) + 5×(−2)\n= 1 − 1 − 10\n= −6\n",
     'v10: {printed: "−6", expected: "\\u221210"'),  # a step continued on the next line by `=`
    ("1.1 例子\n$1 + \\cos(\\pi / 4) = 1.7171$ here.\n",
     'v3: {printed: "1.7171", expected: "1.7071"'),  # pi is exact: no rounding explains it
])
def test_a_joining_word_or_a_continued_line_still_pins_a_wrong_step(tmp_path, monkeypatch, note,
                                                                    pin):
    assert pin in infer(tmp_path, monkeypatch, note)


@pytest.mark.parametrize("line", [
    "that is 3 × 4 = 13 parameters in all.",  # a noun after the result: it counts something
    "每个头是 3 × 4 = 16 个参数。",  # 16 counts something else: a word follows the result
    "约为 3 × 4 ≈ 13。",  # an approximation is never pinned
    "平均 [1, 2, 3] 的平均为 5。",  # words can be misread: only verified is kept
    "0.339660 - (- 0.921286) = 1.260945 .",  # rounding of the printed inputs explains it
    "一半 0.5 (2 + 4) = 4。",  # a product the note leaves implicit
    "常用对数 log(100) = 2。",  # log is read as ln: a base-10 note is never pinned
    "学习率在 1 ~ 100 之间，环境 torch 2.13.0。",
    "$\\sigma(0.5) = 0.7$ 。",  # σ is a reading: a wrong value is never pinned
    "| a | b |\n|---|---|\n| 2 | 5 |\n| 3 | 7 |",  # no column computes another
    "| n | m |\n|---|---|\n| 2 | 4 |\n| 3 | 10 |",  # x² in one row only: not a rule
    "共 524288 字节，约 0.8 MB。",  # another unit read, and still not verified: not kept
    "that is 50331648 bytes = 47 MiB per sequence.",  # no unit ratio gives 47
    "exp = [7.389, 2.718, 1.105]\n概率 = [0.659, 0.262, 0.099]",  # no step fits every element
    "With 90 GB over 8 GPUs, that is 10 GB per GPU.",  # a wrong rate: a reading, not pinned
    "总数 − 3 = 6。",  # the word may be what 3 is subtracted from: a sign is never pinned
    "| 步 | 梯度 | m | theta |\n|---|---|---|---|\n| 1 | 0.4 | 0.04 | 0.99 |\n"
    "| 2 | -0.2 | 0.016 | 0.98734 |\n| 3 | 0.3 | 0.0444 | 0.98207 |",  # 0.3 ≈ θ₃ / Σθ: chance
    "| 结果 | 次数 | 概率 |\n|---|---|---|\n| a | 1 | 0.2 |\n| b | 3 | 0.475 |\n| c | 4 | 0.4 |",
    "| layer | FLOPs |\n|---|---|\n| a | 120 |\n| b | 35 |\n| **total** | 165 |",
    "c1   5    7    11\nc2   3    2    13\n合计   9    10   25",  # wrong totals: a reading, never
    # pinned, so nothing is written
    "样本 [1, 2, 3, 4] 的方差为 1.667。",  # the sample variance: var is the population's
    "第 3 个 token 贡献了 $2.3026 / 4.6051 = 40.0\\%$ 的损失。",  # \% read: 50.0 vs 0.5
])
def test_ambiguous_or_explained_patterns_write_nothing(tmp_path, monkeypatch, line):
    assert infer(tmp_path, monkeypatch, f"1.1 例子\n{line}\n") == ""


def test_a_part_evaluated_is_read_only_where_precedence_allows(tmp_path, monkeypatch):
    """``2 × 3 + 4 = 2 × 7``: 7 is 3 + 4, but the left side is 10, not 14: never read."""
    text = infer(tmp_path, monkeypatch, "1.1 例子\n错的：2 × 3 + 4 = 2 × 7 = 14\n")
    assert "v1 + v2" not in checks_of(text) and "v3 + v4" not in checks_of(text), text


def test_a_percentage_no_term_shares_is_not_read_as_a_share(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, "1.1 例子\n$3 + 1 = 4$, so about 70% of it.\n")
    assert checks_of(text) == ["v1 + v2"], text  # 3/4 and 1/4 are not 70%


def test_url_digits_and_constant_fractions_give_nothing(tmp_path, monkeypatch):
    note = ("1.1 例子\n见 https://example.com/x/1+2=3 以及 www.a.org/2*3=6 。\n"
            "系数 $\\frac{1}{2}$ 与 $(\\frac{1}{3}, \\frac{1}{3})$ 。\n")
    assert infer(tmp_path, monkeypatch, note) == ""


REPEATED = """1.1 例子
Q[0, 0] = 0.5×0.1 + 1.2×0.4
= 0.05 + 0.48
= 0.53
Q[0, 1] = 0.5×0.1 + 1.2×0.4
= 0.05 + 0.48
= 0.53
"""


def test_repeated_chains_get_unique_quotes_and_rerunning_adds_nothing(tmp_path, monkeypatch,
                                                                        capsys):
    text = infer(tmp_path, monkeypatch, REPEATED)
    assert text.count("  - id: inf-n-") == 2
    assert "Q[0, 0] = ⟨v1⟩×⟨v2⟩" in text and "Q[0, 1] = ⟨v1⟩×⟨v2⟩" in text
    assert "\\n= ⟨v5⟩ + ⟨v6⟩\\n= ⟨v7⟩" in text  # the whole chain: one claim, one hole each
    edited = text.replace('says: "inferred:', 'says: "reviewed:', 1)
    INFERRED.write_text(edited, encoding="utf-8")
    assert main(["scaffold", "n.txt", "--infer"]) == 0
    assert INFERRED.read_text(encoding="utf-8") == edited  # kept as the author left it
    assert "0 inferred claims added" in capsys.readouterr().out


def test_written_yaml_loads_and_passes_check_with_inferred_in_json(tmp_path, monkeypatch,
                                                                   capsys):
    infer(tmp_path, monkeypatch, REPEATED + "乘积：3 × 4 = 13。\n")
    loaded = load_claim_file(INFERRED, str(INFERRED), {"n.txt"})
    assert not loaded.problems and loaded.claims
    assert all(c.inferred and not c.problems for c in loaded.claims)
    assert main(["check", "--json", "out.json"]) == 0
    report = json.loads(Path("out.json").read_text(encoding="utf-8"))
    assert {c["inferred"] for c in report["claims"]} == {True}


def test_only_uncovered_numbers_are_inferred(tmp_path, monkeypatch):
    claims = ('note: n.txt\nclaims:\n  - id: mine\n    text: 第一步：⟨a⟩ + ⟨b⟩ = ⟨c⟩\n'
              '    check: {c: a + b}\n')
    text = infer(tmp_path, monkeypatch, "1.1 例子\n第一步：2 + 3 = 5\n第二步：5 × 2 = 10\n",
                 claims)
    assert "第二步" in text and "第一步" not in text


def test_inferred_must_be_a_boolean(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text('note: n.txt\nclaims:\n  - id: x\n    inferred: "yes"\n    text: a\n',
                    encoding="utf-8")
    loaded = load_claim_file(path, "c.yaml", {"n.txt"})
    assert any("'inferred' must be true or false" in p.message
               for c in loaded.claims for p in c.problems)


def test_names_defined_earlier_in_the_section_are_read_through_definition_claims(
        tmp_path, monkeypatch, capsys):
    note = ("1.1 例子\n设 $x_{i} = (2, 1)$ ，$W_{Q} = [\\begin{matrix} 1 & 0 \\\\ 0 & 3 "
            "\\end{matrix}]$ 。\n则 $q_{i} = x_{i} W_{Q} = (2, 3)$ 。\n"
            "1.2 别处\n这里 $q_{i} = x_{i} W_{Q} = (2, 4)$ 。\n")
    text = infer(tmp_path, monkeypatch, note)
    assert text.count("  - id: inf-n-") == 3  # two definitions and the product
    assert "(2, 4)" not in text  # x_{i} is not defined in 1.2: nothing read there
    assert "uses:" in text and "@" in text and "known:" not in text
    capsys.readouterr()
    assert main(["check"]) == 0


def test_a_name_defined_in_an_earlier_section_is_read_but_never_pinned(tmp_path, monkeypatch,
                                                                         capsys):
    note = ("1.1 例子\n设 $x_{i} = (2, 1)$ 。\n1.2 别处\n则 $x_{i} \\times 2 = (4, 2)$ 。\n"
            "又 $x_{i} \\times 3 = (6, 4)$ 。\n")
    text = infer(tmp_path, monkeypatch, note)
    assert "uses:" in text and "(6, 4)" not in text and "known:" not in text, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(note.replace("(2, 1)", "(2, 2)"), encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1  # the definition edited: the product no longer agrees


@pytest.mark.parametrize("note, old, new", [
    ("1.1 例子\n| p | -ln p |\n|---|---|\n| 0.5 | 0.6931 |\n| 0.25 | 1.3863 |\n", "1.3863",
     "1.3763"),
    ("1.1 例子\n一共 $2362368$ 个参数，约 236 万。\n", "236 万", "246 万"),
    ("1.1 例子\n$out = \\sigma(1.152257) = 0.759923$\n", "0.759923", "0.759823"),
    ("1.1 例子\nthat is 201326592 bytes = 192 MiB per sequence.\n", "192 MiB", "193 MiB"),
    ("1.1 例子\nlogits = [2.0, 1.0, 0.1]\nexp = [7.389, 2.718, 1.105]\n", "2.718", "2.178"),
    ("1.1 例子\n(224 + 6 − 7) / 2 = 223 / 2 = 111.5\n", "= 223 /", "= 233 /"),
    ("1.1 例子\nWith 80 GB over 8 GPUs, that is 10 GB per GPU.\n", "8 GPUs", "10 GPUs"),
    ("1.1 例子\nTotal $0.251995 + 0.020326 = 0.272321$, about 92.5% from o1.\n", "92.5%",
     "95.2%"),
    ("1.1 例子\n| layer | FLOPs |\n|---|---|\n| a | 120 |\n| b | 35 |\n| total | 155 |\n",
     "| b | 35 |", "| b | 45 |"),
    ("1.1 例子\n层   权重   偏置   合计\nc1   1728   64     1792\nc2   36864  64     36928\n"
     "合计               38720\n", "36864  64     36928", "36864  64     36828"),
])
def test_inferred_table_restated_and_sigmoid_claims_catch_a_later_edit(
        tmp_path, monkeypatch, capsys, note, old, new):
    """Written while the note is right, these claims fail when a printed value is edited."""
    text = infer(tmp_path, monkeypatch, note)
    assert "check:" in text, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(note.replace(old, new), encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "discrepancy" in capsys.readouterr().out


def test_an_array_printed_again_is_checked_against_its_first_print(tmp_path, monkeypatch,
                                                                   capsys):
    note = "1.1 例子\n算得 $z = [1.25, 1.57, 2.5]$。\n\n1.2 回顾\n所以输出是 [1.25, 1.57, 2.5]。\n"
    text = infer(tmp_path, monkeypatch, note)
    assert "uses:" in text and "kind: given" in text, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(note.replace("所以输出是 [1.25, 1.57, 2.5]", "所以输出是 [1.25, 1.75, 2.5]"),
                    encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "n.txt:5:" in capsys.readouterr().out


def test_short_arrays_printed_again_are_not_read_as_copies(tmp_path, monkeypatch):
    assert infer(tmp_path, monkeypatch, "1.1 例子\n先 [1, 0]，后来又是 [1, 0]。\n") == ""


SUBSTITUTED = ("# Setup\n\nInputs $i_1 = 0.1$, $i_2 = 0.5$.\n\n| weight | value |\n|---|---|\n"
               "| $w_1$ | 0.2 |\n| $w_2$ | 0.3 |\n\n# Forward\n\n$$\n\\begin{aligned}\n"
               "net &= w_1 i_1 + w_2 i_2 \\\\\n    &= 0.2 \\times 0.1 + 0.3 \\times 0.5 \\\\\n"
               "    &= 0.17\n\\end{aligned}\n$$\n")


def test_values_put_into_a_symbolic_row_are_checked_against_their_definitions(
        tmp_path, monkeypatch, capsys):
    """``w_1 i_1 + …`` then ``0.2 × 0.1 + …``: each number is the one defined for its name
    (by ``i_1 = 0.1`` or a table row); an edited definition is then a discrepancy."""
    text = infer(tmp_path, monkeypatch, SUBSTITUTED)
    assert text.count("kind: given") == 4, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(SUBSTITUTED.replace("| $w_2$ | 0.3 |", "| $w_2$ | 0.4 |"),
                    encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "discrepancy" in capsys.readouterr().out


def test_a_symbolic_row_of_another_shape_is_not_read(tmp_path, monkeypatch):
    note = SUBSTITUTED.replace("0.3 \\times 0.5 \\\\", "0.3 \\times 0.5 + 0 \\\\")
    assert "kind: given" not in infer(tmp_path, monkeypatch, note)


PROGRAM = """1.1 例子
下面的程序逐层算边长：

def out_size(n, k, p, s):
    return (n + 2 * p - k) // s + 1

n = 224
for k, p, s in [(7, 3, 2), (3, 1, 2)]:
    n = out_size(n, k, p, s)
    print(n)

输出：
112
56
"""


def test_a_printed_programs_output_is_checked_by_running_it(tmp_path, monkeypatch, capsys):
    """The program is read as it is now (a code hole) and run in the jail; its printed output
    lines are holes. A wrong printed line is pinned for review at that line; a later edit of
    the program that changes what it prints is a discrepancy at the printed value."""
    text = infer(tmp_path, monkeypatch, PROGRAM)
    assert "example: program_prints" in text and 'code: {from: "def out_size(n, k, p, s):"}' \
        in text and "known:" not in text, text
    assert "(7, 3, 2)" not in text  # the program is not quoted: its literals are its inputs
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(PROGRAM.replace("(3, 1, 2)]", "(3, 1, 1)]"), encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "n.txt:14:" in capsys.readouterr().out  # the printed 56, now 112


def test_a_wrong_printed_output_line_is_pinned_for_review(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, PROGRAM.replace("\n56\n", "\n55\n"))
    assert 'v2: {printed: "55", expected: "56", why: "inferred; review"}' in text, text


BUDGET = """# Model

| quantity | symbol | value |
|---|---|---|
| width | $d$ | 1024 |
| context | $n$ | 2048 |

# FLOPs

| piece | formula | FLOPs |
|---|---|---|
| scores | $2 n^2 d$ | 8589934592 |
| output | $2 n d^2$ | 4294967296 |
"""


def test_a_table_rows_formula_in_defined_names_is_checked(tmp_path, monkeypatch, capsys):
    """``| scores | $2 n^2 d$ | 8589934592 |`` with ``n`` and ``d`` defined in another table:
    the value is checked against the formula; an edited definition is a discrepancy."""
    text = infer(tmp_path, monkeypatch, BUDGET)
    assert text.count("kind: given") == 2 and "uses:" in text, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(BUDGET.replace("| 1024 |", "| 1000 |"), encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "discrepancy" in capsys.readouterr().out


def test_a_wrong_table_formula_row_is_not_written(tmp_path, monkeypatch):
    text = infer(tmp_path, monkeypatch, BUDGET.replace("8589934592", "8589934000"))
    assert "| scores |" not in text and "| output | $⟨v1⟩ n d^⟨v2⟩$ | ⟨v3⟩ |" in text, text


def test_a_program_drawing_random_numbers_is_never_pinned(tmp_path, monkeypatch):
    note = PROGRAM.replace("n = 224\n", "import random\nn = 224 + 0 * random.random()\n")
    note = note.replace("def out_size", "def out_size", 1).replace("\n56\n", "\n55\n")
    text = infer(tmp_path, monkeypatch, note)
    assert "known:" not in text, text


ASSEMBLED = ("1.1 例子\nh_1 = tanh(1.0) = 0.7616\nh_2 = tanh(0.8808) = 0.7068\n"
             "h_3 = tanh(−0.6466) = −0.5694\n隐状态序列 [0.7616, 0.7068, -0.5694]。\n")


def test_an_array_assembled_from_values_computed_before_is_read_through_them(
        tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, ASSEMBLED)
    assert "隐状态序列 ⟨v1⟩" in text and text.count("kind: given") == 3, text
    capsys.readouterr()
    assert main(["check"]) == 0
    path = tmp_path / "notes" / "n.txt"
    path.write_text(ASSEMBLED.replace("[0.7616, 0.7068", "[0.7616, 0.7086"), encoding="utf-8")
    capsys.readouterr()
    assert main(["check"]) == 1
    assert "n.txt:5:" in capsys.readouterr().out


def test_small_integers_printed_again_are_no_assembled_array(tmp_path, monkeypatch):
    note = "1.1 例子\n左上 = 6，右上 = 5，左下 = 8。\n结果 [6, 5, 8]。\n"
    assert "结果 ⟨" not in infer(tmp_path, monkeypatch, note)


def test_an_output_block_with_a_line_of_prose_is_never_pinned(tmp_path, monkeypatch):
    """A line the program may not print shifts the lines: a disagreement is not pinned."""
    note = PROGRAM.replace("输出：\n112\n", "输出：\n结果如下\n112\n")
    assert "known:" not in infer(tmp_path, monkeypatch, note)
