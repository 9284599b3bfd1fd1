"""``notecheck init [DIR]``: set up a notes repository in one command.

It writes what a notes repository needs and nothing else: the ``[tool.notecheck]``
table, ``notes/`` and ``claims/``, a pre-commit configuration running this project's
hook, and a GitHub Actions workflow that gates pull requests. Existing files are never
overwritten (a ``pyproject.toml`` without the table gets it appended), so running it
twice is harmless. The hook and the workflow are the same as the files this repository
keeps at its root (``.pre-commit-hooks.yaml``, ``.github/workflows/notecheck.yml``);
``tests/test_ci_files.py`` holds the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verifiers.files import write_output

#: The hook, as ``.pre-commit-hooks.yaml`` defines it (kept equal by a test).
HOOK = {
    "id": "notecheck",
    "name": "notecheck (claims touched since HEAD)",
    "entry": "notecheck check --changed-since HEAD",
    "language": "system",
    "pass_filenames": False,
    "files": "^(notes|claims)/",
}

TABLE = '[tool.notecheck]\nnotes = "notes"\nclaims = "claims"\n'


def pre_commit_config(source: str | None, rev: str) -> str:
    """A ``.pre-commit-config.yaml``: this project's hook from ``source`` (its git URL),
    or, without one, the same hook declared locally (``repo: local``)."""
    if source:
        return (f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n"
                f"      - id: {HOOK['id']}\n")
    lines = ["repos:", "  - repo: local", "    hooks:"]
    first = True
    for key, value in HOOK.items():
        text = str(value).lower() if isinstance(value, bool) else _quoted(str(value))
        lines.append(f"      {'- ' if first else '  '}{key}: {text}")
        first = False
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def workflow(install: str) -> str:
    """The pull-request gate; ``install`` is the pip requirement of notecheck itself."""
    return WORKFLOW.replace("{install}", install)


WORKFLOW = """\
# The gate for pull requests that touch notes or claims (written by `notecheck init`):
# check every claim, annotate the failures on the diff, upload the HTML report, and keep
# the verdict cache between runs (outside the checkout; entries are validated before use).
name: notecheck

on:
  pull_request:
    paths:
      - "notes/**"
      - "claims/**"
      - ".github/workflows/notecheck.yml"
  # Runs on the default branch save the verdict cache that pull requests restore: a pull
  # request may read only its own branch's entries and the default branch's.
  push:
    branches: [main]
    paths:
      - "notes/**"
      - "claims/**"
      - ".github/workflows/notecheck.yml"

permissions:
  contents: read

jobs:
  notecheck:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    env:
      NOTECHECK_CACHE: ${{ runner.temp }}/notecheck-cache
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install bubblewrap (the jail for programs printed in notes)
        run: |
          sudo apt-get update -qq && sudo apt-get install -y -qq bubblewrap
          # Ubuntu 24.04 restricts unprivileged user namespaces, which bwrap needs here
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - name: Install notecheck (torch's CPU build first)
        run: |
          pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
          pip install -q "{install}"
      - name: Restore the verdict cache
        uses: actions/cache@v4
        with:
          path: ${{ env.NOTECHECK_CACHE }}
          key: notecheck-${{ hashFiles('notes/**', 'claims/**') }}
          restore-keys: notecheck-
      - name: Check the notes
        run: notecheck check --format github --json reports/notecheck.json
      - name: Write the HTML report
        if: always()
        run: notecheck report --out reports/index.html
      - name: Upload the report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: notecheck-report
          path: reports/
"""


@dataclass(frozen=True)
class Written:
    path: Path
    action: str  # "wrote", "kept" (it existed), "added the table to"


def init(root: Path, source: str | None = None, rev: str = "main") -> list[Written]:
    """Set up ``root`` as a notes repository; what was written, and what was kept."""
    root.mkdir(parents=True, exist_ok=True)
    done: list[Written] = []
    for folder in ("notes", "claims"):
        (root / folder).mkdir(exist_ok=True)
        done.append(Written(root / folder, "made"))
    pyproject = root / "pyproject.toml"
    if not pyproject.exists():
        write_output(pyproject, TABLE)
        done.append(Written(pyproject, "wrote"))
    else:
        text = pyproject.read_text(encoding="utf-8")
        if "[tool.notecheck]" in text:
            done.append(Written(pyproject, "kept"))
        else:
            write_output(pyproject, text + ("" if text.endswith("\n") or not text else "\n")
                         + "\n" + TABLE)
            done.append(Written(pyproject, "added the table to"))
    install = f"notecheck @ git+{source}@{rev}" if source else "notecheck"
    for path, text in ((root / ".pre-commit-config.yaml", pre_commit_config(source, rev)),
                       (root / ".github" / "workflows" / "notecheck.yml", workflow(install))):
        if path.exists() or path.is_symlink():
            done.append(Written(path, "kept"))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, text)
        done.append(Written(path, "wrote"))
    return done
