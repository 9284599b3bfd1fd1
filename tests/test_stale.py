"""A stale claim says where and what (closest line, word diff); claims it blocks follow it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.holes import closest_line, word_diff

ROOT = Path(__file__).resolve().parent.parent


def _check(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, dict]:
    out_json = root / "out.json"
    code = main(["check", "--notes", "notes", "--claims", "claims", "--no-cache", "-j", "1",
                 "--json", str(out_json), *extra])
    out = capsys.readouterr().out
    return code, out, json.loads(out_json.read_text(encoding="utf-8"))


def _pe_edit(tmp_path, new: str) -> None:
    shutil.copytree(ROOT / "notes", tmp_path / "notes")
    shutil.copytree(ROOT / "claims", tmp_path / "claims")
    note = tmp_path / "notes" / "matrix-by-matrix.txt"
    text = note.read_text(encoding="utf-8")
    old = "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))"
    assert text.count(old) == 1
    note.write_text(text.replace(old, new), encoding="utf-8")


def test_dropped_coefficient_is_read_not_stale(tmp_path, capsys, monkeypatch):
    """The planted fo-mbm-pe-dropped-2 (the 2 dropped from line 52's exponent) was stale; the
    hole before i now reads the unwritten coefficient 1, which disagrees with the cos line."""
    _pe_edit(tmp_path, "PE(pos, 2i) = sin(pos / 10000^(i/d_model))")
    monkeypatch.chdir(tmp_path)
    code, out, data = _check(tmp_path, capsys, "-k", "mbm-1-4-pe-formula")
    assert code == 1 and ": stale: " not in out
    claim = next(c for c in data["claims"] if c["id"] == "mbm-1-4-pe-formula")
    assert {"line": 52, "col": 32} in [v["start"] for v in claim["values"]
                                       if v["status"] == "discrepancy"]


def test_edited_formula_points_at_its_line_with_a_word_diff(tmp_path, capsys, monkeypatch):
    """A word of line 51 edited (the formula lines under it are read, not quoted: sin written
    as cos is a discrepancy, tests/test_formula_quotes5.py): the quote's literal no longer
    matches."""
    shutil.copytree(ROOT / "notes", tmp_path / "notes")
    shutil.copytree(ROOT / "claims", tmp_path / "claims")
    note = tmp_path / "notes" / "matrix-by-matrix.txt"
    text = note.read_text(encoding="utf-8")
    note.write_text(text.replace("论文中的 Sinusoidal 编码", "论文中的 Learned 编码", 1),
                    encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, data = _check(tmp_path, capsys, "-k", "mbm-1-4 or mbm-1-5")
    assert code == 1
    lines = out.splitlines()
    stale = [ln for ln in lines if ": stale: " in ln]
    assert len(stale) == 1, out
    # file:line:col of the first difference, and what differs, on one line
    assert stale[0].startswith("notes/matrix-by-matrix.txt:51:25: stale: mbm-1-4-pe-formula")
    assert ("closest line: 我们使用原始 Transformer 论文中的 [-Sinusoidal-]{+Learned+} 编码： "
            "[claims/matrix-by-matrix/01-input.yaml:") in stale[0]
    claim = next(c for c in data["claims"] if c["id"] == "mbm-1-4-pe-formula")
    assert claim["where"] == {"line": 51, "col": 25}
    # every claim using it is blocked by it, one line each, after it
    blocked = [ln for ln in lines if ": blocked: " in ln]
    assert blocked and all("blocked by mbm-1-4-pe-formula, which is stale" in ln
                           for ln in blocked)
    assert lines.index(stale[0]) < min(lines.index(ln) for ln in blocked)
    assert "depends on claim" not in out


NOTE = """第 1 章
1.1 例子
第一行很长很长很长的说明文字 x = 1.5
y = 2 * x = 3.0
z = y + 1 = 4.0
"""


def test_closest_line_is_the_edited_line_not_its_longer_neighbour():
    quote = "第一行很长很长很长的说明文字 x = ⟨x⟩\ny = 2 * x = ⟨y⟩\nz = y + 1 = ⟨z⟩"
    edited = NOTE.replace("y = 2 * x = 3.0", "y = 3 * x = 3.0")
    close = closest_line(edited, quote, [(0, len(edited))])
    assert close is not None
    assert close.line == "y = 3 * x = 3.0"
    assert close.offset == edited.index("3 * x")
    assert close.diff == "y = [-2-]{+3+} * x = 3.0"


def test_closest_line_prefers_the_section_then_the_whole_note():
    note = "1.1 一\nalpha = 1.0\n1.2 二\nbeta = 2.0\n"
    in_section = [(note.index("1.2"), len(note))]
    assert closest_line(note, "betta = ⟨b⟩", in_section).line == "beta = 2.0"
    # nothing in the section is even half alike: the whole note is searched
    assert closest_line(note, "alphaa = ⟨a⟩", in_section).line == "alpha = 1.0"


def test_word_diff_tokens_cjk_per_character_and_math_per_token():
    cjk = word_diff("温度越大，分布越平", "温度越大，分布越尖")[0]
    assert cjk == "温度越大，分布越[-平-]{+尖+}"
    diff, col = word_diff(r"s = q k / \sqrt{d_k} = ⟨s⟩", r"s = q k / d_k = 0.5")
    assert diff == r"s = q k / [-\sqrt{-]d_k[-}-] = 0.5" and col == 10
    # a hole matches any printed value; a long line shows its changes in context, bounded
    long_quote = "开头 " + " ".join(f"w{i}" for i in range(80)) + " = ⟨v⟩"
    long_note = long_quote.replace(" w40 ", " v40 ").replace("⟨v⟩", "[1, 2, 3]")
    diff, _ = word_diff(long_quote, long_note)
    assert diff == "… w37 w38 w39 [-w40-]{+v40+} w41 w42 w43 …"
    huge = word_diff("a " * 500 + "b", "c " * 500 + "d")[0]
    assert len(huge) <= 160 and "\n" not in huge


CLAIMS = """note: n.txt
claims:
  - id: user
    says: z uses y
    section: "1.1"
    text: z = y + 1 = ⟨z⟩
    uses: {yv: root.y}
    check: {z: yv + 1}
  - id: user2
    says: z again, through user
    section: "1.1"
    text: z = y + ⟨one⟩
    uses: {zv: user.z}
    check: {one: zv - 3}
  - id: root
    says: y = 2x
    section: "1.1"
    text: y = 2 * x = ⟨y⟩
    check: {y: 3}
"""


def _blocked_project(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(
        NOTE.replace("y = 2 * x", "y = 2 × x"), encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    return tmp_path


def test_blocked_claims_follow_their_root_in_console_and_json(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_blocked_project(tmp_path))
    code, out, data = _check(tmp_path, capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("notes/n.txt:4:7: stale: root in 1.1: quoted text not found")
    assert "[-*-]{+×+}" in lines[0]
    assert lines[1] == "claims/n/c.yaml:7:1: blocked: blocked by root, which is stale [user]"
    assert lines[2] == ("claims/n/c.yaml:13:1: blocked: blocked by root, which is stale "
                        "(through user) [user2]")
    assert lines[3] == "notecheck: 3 claims, 0 values: 1 stale, 2 blocked"
    assert [c["id"] for c in data["claims"]] == ["root", "user", "user2"]
    assert [c["status"] for c in data["claims"]] == ["stale", "blocked", "blocked"]
    assert [c["root_cause"] for c in data["claims"]] == [None, "root", "root"]
    assert data["summary"]["blocked"] == 2


def test_blocked_claims_follow_their_root_in_github_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(_blocked_project(tmp_path))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    code = main(["check", "--no-cache", "-j", "1", "--format", "github"])
    out = capsys.readouterr().out
    assert code == 1
    notes = [ln for ln in out.splitlines() if ln.startswith("::error ")]
    assert [ln.split("title=")[1].split("::")[0] for ln in notes] == [
        "notecheck stale%3A root", "notecheck blocked%3A user", "notecheck blocked%3A user2"]
    assert notes[0].startswith("::error file=notes/n.txt,line=4,col=7,")
    rows = [ln for ln in out.splitlines() if ln.startswith("| ") and "c\\.yaml" in ln]
    assert [r.split(" | ")[1] for r in rows] == ["stale", "blocked", "blocked"]
    assert rows[0].startswith("| notes/n\\.txt:4:7 | stale | root ")


def test_a_quoted_sentence_of_a_longer_line_is_compared_with_its_part_of_the_line():
    """The planted pl-l1-jacobian-rowsum-one: the quote is one sentence of a paragraph line."""
    line = ("因为 $\\mathrm{diag}(p)_{ij}=\\delta_{ij}p_i$。$J$ 是对称矩阵，而且每一行的和为 1："
            "$\\sum_jp_i(\\delta_{ij}-p_j)=0$。这正是平移不变性的导数版本。")
    note = "§5 导数\n$J$ 的定义见上。\n" + line + "\n下一段。\n"
    close = closest_line(note, "$J$ 是对称矩阵，而且每一行的和为 0：", [(0, len(note))])
    assert close.line == line
    assert close.diff == "… $J$ 是对称矩阵，而且每一行的和为 [-0-]{+1+}：…"
    assert close.offset == note.index("1：")
    # a formula hole stands for the LaTeX it reads
    close = closest_line(note, "而且每一行的和为 0：$⟪F⟫$。这正是平移不变性的导数版本",
                         [(0, len(note))])
    assert close.diff.startswith("… 而且每一行的和为 [-0-]{+1+}：$\\sum_jp_i")
    assert "[-⟪F⟫-]" not in close.diff


def test_stale_after_a_hole_of_several_lines_points_at_the_edited_line():
    """A hole that reads a matrix printed over three lines shifts the quote's lines against
    the note's: the stale claim still points at the line where its quote stops matching
    (held-out edit h-fo-mbm-head-scale-2 pointed at the matrix's last row)."""
    from verifiers.holes import ResolveError, find

    note = ("设\nX = [[1, 2],\n[3, 4],\n[5, 6]]\nQ = X · W → 3×2 矩阵\n"
            "Z = softmax(Q/2) · V → 3×2 矩阵\n完\n")
    quote = "X = ⟨X⟩\nQ = X · W → ⟨s[0]⟩×⟨s[1]⟩ 矩阵\nZ = softmax(Q/√⟨r⟩) · V → ⟨t[0]⟩×⟨t[1]⟩ 矩阵"
    with pytest.raises(ResolveError) as err:
        find(note, quote, [(0, len(note))])
    assert err.value.where is not None
    assert note.count("\n", 0, err.value.where) + 1 == 6
    assert "[-√⟨r⟩-]{+2+}" in (err.value.hint or "")
