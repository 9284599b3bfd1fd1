"""The pre-commit hook and the GitHub workflow that notes repositories use.

The workflow's structure is checked as data (it cannot run here); the hook's entry is run
for real, on a small notes repository with a planted error.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "tests" / "corpus" / "base"


def _load(path: Path):
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _init(tmp_path: Path) -> Path:
    from verifiers.cli import main

    assert main(["init", str(tmp_path / "repo")]) == 0
    return tmp_path / "repo"


@pytest.fixture(params=["this repository", "notecheck init"])
def workflow_file(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    if request.param == "this repository":
        return REPO / ".github" / "workflows" / "notecheck.yml"
    return _init(tmp_path) / ".github" / "workflows" / "notecheck.yml"


def test_the_workflow_gates_pull_requests_on_notes_and_claims(workflow_file: Path) -> None:
    flow = _load(workflow_file)
    # YAML 1.1 reads the key `on` as True
    trigger = flow.get("on", flow.get(True))
    assert set(trigger["pull_request"]["paths"]) >= {"notes/**", "claims/**"}
    # the default branch seeds the cache pull requests restore (GitHub's cache scoping)
    assert trigger["push"]["branches"] == ["main"]
    assert trigger["push"]["paths"] == trigger["pull_request"]["paths"]
    (job,) = flow["jobs"].values()
    steps = job["steps"]
    runs = [s.get("run", "") for s in steps]
    uses = [s.get("uses", "") for s in steps]
    assert any("notecheck check --format github" in r for r in runs)
    assert any("apt-get install" in r and "bubblewrap" in r for r in runs)
    assert any("torch==2.13.0" in r for r in runs), "torch's CPU build first"
    # the HTML report is written and uploaded even when the check fails
    report = next(s for s in steps if "notecheck report" in s.get("run", ""))
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact"))
    assert report.get("if") == upload.get("if") == "always()"
    assert "reports" in upload["with"]["path"]
    # the verdict cache is restored and saved, at the folder notecheck uses
    cache = next(s for s in steps if s.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == "${{ env.NOTECHECK_CACHE }}"
    assert "NOTECHECK_CACHE" in job["env"]
    assert "github.workspace" not in job["env"]["NOTECHECK_CACHE"], \
        "the cache must live outside the checkout"
    assert uses.index(cache["uses"]) < runs.index(next(r for r in runs if "check --format" in r))


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def test_init_writes_the_hook_this_repository_defines(tmp_path: Path) -> None:
    from verifiers.init_repo import HOOK

    assert _load(REPO / ".pre-commit-hooks.yaml") == [{**HOOK, "description": (
        "Check the claims that the staged and unstaged edits of notes or claims touch.")}]
    repo = _init(tmp_path)
    (local,) = _load(repo / ".pre-commit-config.yaml")["repos"]
    assert local["repo"] == "local" and local["hooks"] == [HOOK]
    assert 'notes = "notes"' in (repo / "pyproject.toml").read_text(encoding="utf-8")
    assert (repo / "notes").is_dir() and (repo / "claims").is_dir()


def test_init_keeps_what_exists(tmp_path: Path) -> None:
    from verifiers.cli import main

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "mine"\n', encoding="utf-8")
    (repo / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    assert main(["init", str(repo), "--source", "https://example.org/notecheck.git"]) == 0
    assert main(["init", str(repo)]) == 0  # twice: harmless
    text = (repo / "pyproject.toml").read_text(encoding="utf-8")
    assert text.startswith('[project]\nname = "mine"\n') and text.count("[tool.notecheck]") == 1
    assert (repo / ".pre-commit-config.yaml").read_text(encoding="utf-8") == "repos: []\n"
    flow = (repo / ".github" / "workflows" / "notecheck.yml").read_text(encoding="utf-8")
    assert "notecheck @ git+https://example.org/notecheck.git@main" in flow


def _hook_entry() -> list[str]:
    (hook,) = _load(REPO / ".pre-commit-hooks.yaml")
    assert hook["pass_filenames"] is False and hook["files"] == "^(notes|claims)/"
    argv = shlex.split(hook["entry"])
    assert argv[0] == "notecheck"
    # run this checkout's notecheck with this interpreter, as the installed script would
    return [sys.executable, "-m", "verifiers.cli", *argv[1:]]


@pytest.mark.skipif(shutil.which("git") is None, reason="git is needed for --changed-since")
def test_the_pre_commit_hook_fails_on_a_planted_error(tmp_path: Path) -> None:
    shutil.copytree(BASE / "notes", tmp_path / "notes")
    shutil.copytree(BASE / "claims", tmp_path / "claims")
    (tmp_path / "pyproject.toml").write_text('[tool.notecheck]\nnotes = "notes"\n'
                                             'claims = "claims"\n', encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "notes")
    entry = _hook_entry()
    env = {**os.environ, "NOTECHECK_CACHE": str(tmp_path / "cache")}

    clean = subprocess.run(entry, cwd=tmp_path, capture_output=True, text=True, env=env,
                           timeout=300)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    note = tmp_path / "notes" / "n.txt"
    note.write_text(note.read_text(encoding="utf-8").replace("= 0.75", "= 0.76"),
                    encoding="utf-8")
    planted = subprocess.run(entry, cwd=tmp_path, capture_output=True, text=True, env=env,
                             timeout=300)
    assert planted.returncode == 1, planted.stdout + planted.stderr
    assert "n.txt:4:" in planted.stdout and "0.75" in planted.stdout, planted.stdout
