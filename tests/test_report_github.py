"""GitHub annotations: root causes first, at most 10, escaped; the rest in the job summary."""

from __future__ import annotations

import re

from tests.test_engine import CHAIN, NOTE, project
from verifiers.cli import main

LABELS = "甲乙丙丁戊己庚辛壬癸子丑"


def failing_project(tmp_path):
    note = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50").replace("= 3.40", "= 3.50")
    note += "".join(f"式{LABELS[k]}：{k} + 1 = {k + 2}\n" for k in range(12))  # 12 wrong sums
    claims = CHAIN.replace('section: "1.3"\n', "") + "".join(
        f"  - id: w{k:02d}\n    text: 式{LABELS[k]}：⟨a⟩ + ⟨b⟩ = ⟨c⟩\n    check: {{c: a + b}}\n"
        for k in range(12))
    return project(tmp_path, claims, note)


def test_annotations_put_root_causes_first_and_stop_at_ten(tmp_path, capsys, monkeypatch):
    root = failing_project(tmp_path)
    monkeypatch.chdir(root)
    summary = root / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["check", "--format", "github"]) == 1
    out = capsys.readouterr().out
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert len(errors) == 10
    ids = [re.search(r"title=notecheck discrepancy%3A ([\w-]+)", e).group(1) for e in errors]
    assert ids.index("c-double") < ids.index("c-plus")  # the root before what it causes
    assert ids[ids.index("c-double") + 1] == "c-plus"
    assert all(re.match(r"::error file=notes/n\.txt,line=\d+,col=\d+,title=", e) for e in errors)
    assert "root cause%3A" not in errors[0] and "(root cause: c-double)" in out
    table = summary.read_text(encoding="utf-8")
    assert "14 of 15 claims fail" in table and table.count("| discrepancy |") == 14
    assert "\n" not in errors[0]


def test_messages_are_escaped(tmp_path, capsys, monkeypatch):
    from verifiers.report.github import _data, _property

    assert _data("50%\nnext") == "50%25%0Anext"
    assert _property("a:b,c") == "a%3Ab%2Cc"


def test_a_clean_run_has_no_annotations(tmp_path, capsys, monkeypatch):
    root = project(tmp_path, CHAIN)
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    assert main(["check", "--format", "github"]) == 0
    out = capsys.readouterr().out
    assert "::error" not in out and "All 3 claims verified or known." in out
