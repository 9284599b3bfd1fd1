"""The gate on changes: only the claims an edit touches run, and new numbers are noticed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.test_engine import CHAIN, NOTE, project
from verifiers.cli import main

SUM = """  - id: s-sum
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
"""


def git(root, *args):
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                        "HOME": str(root), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', "") + SUM, NOTE)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    monkeypatch.chdir(root)
    return root


def checked(capsys, *args):
    code = main(["check", "--changed-since", "HEAD", *args])
    out = capsys.readouterr().out
    return code, out


def test_no_change_checks_nothing(repo, capsys):
    code, out = checked(capsys)
    assert code == 0 and "0 claims" in out


def test_an_edit_checks_the_claims_it_touches_and_their_dependents(repo, capsys):
    note = repo / "notes" / "n.txt"
    note.write_text(NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50"), encoding="utf-8")
    code, out = checked(capsys, "--json", "out.json")
    assert code == 1
    ids = [c["id"] for c in json.loads((repo / "out.json").read_text(encoding="utf-8"))["claims"]]
    assert ids == ["c-double", "c-plus"]  # the edited claim and the one using its value
    assert "2 claims" in out


def test_new_numbers_on_changed_lines_are_reported(repo, capsys):
    note = repo / "notes" / "n.txt"
    note.write_text(NOTE + "新的一行：2 + 2 = 5\n", encoding="utf-8")
    code, out = checked(capsys)
    assert code == 1
    assert "notes/n.txt:13:6: uncovered: 2 (new or changed text" in out
    assert "uncovered: 5" in out


def test_an_edit_that_breaks_a_quote_is_checked_as_stale(repo, capsys):
    note = repo / "notes" / "n.txt"
    note.write_text(NOTE.replace("sum = 0.25 + 0.5", "sum = 0.25 plus 0.5"), encoding="utf-8")
    code, out = checked(capsys)
    assert code == 1 and "stale: s-sum" in out


def test_a_changed_claim_file_checks_its_claims(repo, capsys):
    path = repo / "claims" / "n" / "c.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "  - id: extra\n    text: 输入 x = ⟨x⟩\n",
                    encoding="utf-8")
    code, out = checked(capsys)
    assert "5 claims" in out


def test_a_bad_revision_is_a_usage_error(repo, capsys):
    assert main(["check", "--changed-since", "no-such-rev"]) == 2
    assert "git" in capsys.readouterr().err
    assert main(["check", "--changed-since", "--output=x"]) == 2


def test_pytest_runs_only_the_touched_claims(repo, capsys):
    (repo / "pyproject.toml").write_text('[tool.notecheck]\nnotes = "notes"\nclaims = "claims"\n',
                                         encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "config")
    note = repo / "notes" / "n.txt"
    note.write_text(NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--notecheck-changed-since", "HEAD", "claims"], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    assert "1 failed, 1 passed, 2 deselected" in done.stdout, done.stdout
