"""Claim and note text is untrusted: the console and the GitHub job summary show it, never
obey it (issue 11, item 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.report.github import _data, _property
from verifiers.textsafe import markdown_cell, printable, safe_stem

NOTE = "第 1 章：例子\n1.1 求和\na = 0.25, b = 0.5\nsum = 0.25 + 0.5 = 0.75\n"
# A bad id is reported under its own (raw) text; a known pin's why is printed as it is.
CLAIMS = r'''note: n.txt
claims:
  - id: "evil\e]0;pwned\a\u202e|<img src=x>`x`[l](http://e)"
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: pinned
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b + 0.01}
    known: {s: {printed: "0.75", expected: "0.76", why: "\e[2J\e[31mall green\a\r\u202eok"}}
'''
RAW = ("\x1b", "\x07", "\r", "\u202e")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return tmp_path


def test_printable_escapes_controls_and_bidi() -> None:
    assert printable("a\x1b[31mb\x07\x00\x7f\x85\u2028\u202e\u2066c") == (
        "a\\x1b[31mb\\x07\\x00\\x7f\\x85\\u2028\\u202e\\u2066c")
    assert printable("中文 0.75 ⟨s⟩ \\ ok") == "中文 0.75 ⟨s⟩ \\ ok"


def test_console_shows_escapes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert not any(ch in out for ch in RAW), repr(out)
    assert "evil\\x1b]0;pwned\\x07\\u202e|" in out  # the bad id, shown
    assert "\\x1b[2J\\x1b[31mall green\\x07 \\u202eok" in out  # the why, shown (CR folded)


def test_github_output_is_escaped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = project / "summary.md"
    import os

    os.environ["GITHUB_STEP_SUMMARY"] = str(summary)
    try:
        assert main(["check", "--no-cache", "--format", "github"]) == 1
    finally:
        del os.environ["GITHUB_STEP_SUMMARY"]
    out = capsys.readouterr().out
    table = summary.read_text(encoding="utf-8")
    for text in (out, table):
        assert not any(ch in text for ch in RAW), repr(text)
    row = next(line for line in table.splitlines() if "evil" in line)
    assert row.count("|") - row.count("\\|") == 6  # five cells: no cell broken out of
    assert "<img" not in row and "&lt;img src=x&gt;" in row
    assert "`x`" not in row and "\\`x\\`" in row and "\\[l\\]\\(http" in row
    annotation = next(line for line in out.splitlines() if line.startswith("::error"))
    assert annotation.count("::") == 2  # the command and its message: nothing injected


def test_escaping_rules() -> None:
    assert _data("50%\r\nnext::x") == "50%25%0D%0Anext::x"
    assert _property("a:b,c%") == "a%3Ab%2Cc%25"
    assert markdown_cell("a | b\n`c` <d> [e](f) *g* _h_ #i &j") == (
        "a \\| b \\`c\\` &lt;d&gt; \\[e\\]\\(f\\) \\*g\\* \\_h\\_ \\#i &amp;j")


@pytest.mark.parametrize("stem", ["..", ".", ".hidden", "a/b", "a\\b", "a..b", "x\x1by", "",
                                  " x", "x\u202e"])
def test_unsafe_stems(stem: str) -> None:
    assert not safe_stem(stem)


@pytest.mark.parametrize("stem", ["lesson1-text-to-distribution", "matrix-by-matrix", "中文笔记",
                                  "a.b"])
def test_safe_stems(stem: str) -> None:
    assert safe_stem(stem)


def test_scaffold_refuses_a_dot_dot_stem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "...txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "...txt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot name a claims folder" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["...txt", "claims", "notes"]
