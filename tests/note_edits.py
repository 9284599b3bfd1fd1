"""One claim run on a copy of the real notes with one edit: the body the formula-edit tests
(test_formula_quotes5, test_read_by, test_formula_misses) share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_edited(tmp_path: Path, claim_id: str, note: str, find: str, replace: str
               ) -> tuple[Any, int]:
    """The verdict of claim ``claim_id`` after ``find`` → ``replace`` in ``note`` (``find``
    must occur once), and the line the edit starts on."""
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    path = notes / note
    text = path.read_text(encoding="utf-8")
    assert text.count(find) == 1, find
    line = text[:text.index(find)].count("\n") + 1
    path.write_text(text.replace(find, replace), encoding="utf-8")
    (edited,) = run(notes, ROOT / "claims", select=lambda c: c.id == claim_id).verdicts
    return edited, line


def check_project(tmp_path: Path, note: str, claims: str, monkeypatch: Any, capsys: Any
                  ) -> tuple[int, dict[str, dict]]:
    """``notecheck check`` on a project of one note ``n.txt`` and one claim file: the exit
    code and the JSON report's claims by id (the body several small-project tests share)."""
    import json

    from verifiers.cli import main

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "c.yaml").write_text(claims, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["check", "--no-cache", "-j", "1", "--json", "out.json"])
    capsys.readouterr()
    report = json.loads(Path("out.json").read_text(encoding="utf-8"))
    return code, {c["id"]: c for c in report["claims"]}


def check_in(tmp_path: Path, capsys: Any, note: str, claims: str) -> dict[str, dict]:
    """``notecheck check`` on ``notes/n.txt`` = ``note`` and ``claims/c.yaml`` = ``claims``
    under ``tmp_path`` (rewritten on a second call, for a test that edits the note twice):
    the JSON report's claims by id."""
    import json

    from verifiers.cli import main

    for sub in ("notes", "claims"):
        (tmp_path / sub).mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(note, encoding="utf-8")
    (tmp_path / "claims" / "c.yaml").write_text(claims, encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    return {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}


def infer_note(tmp_path: Path, monkeypatch: Any, note: str, suffix: str) -> str:
    """``scaffold --infer`` on a one-note project (``n.txt`` or ``n.md``); the inferred YAML."""
    from verifiers.cli import main

    (tmp_path / "notes").mkdir(parents=True)
    (tmp_path / "notes" / f"n{suffix}").write_text(note, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", f"n{suffix}", "--infer"]) == 0
    path = tmp_path / "claims" / "n" / "90-inferred.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def clean_verifies(capsys: Any) -> None:
    """The project in the working folder checks clean."""
    from verifiers.cli import main

    assert main(["check", "--no-cache", "-j", "1"]) == 0, capsys.readouterr().out
    capsys.readouterr()


def flagged_at(tmp_path: Path, capsys: Any, note: str, suffix: str, old: str, new: str,
               line: int, statuses: tuple[str, ...] = ("discrepancy",)) -> None:
    """Edit ``old`` → ``new`` in the note the claims were inferred from: a verdict of one of
    ``statuses`` on ``line``."""
    from verifiers.cli import main

    assert note.count(old) == 1, old
    (tmp_path / "notes" / f"n{suffix}").write_text(note.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n{suffix}:{line}:") and
               any(f": {status}: " in ln for status in statuses)
               for ln in out.splitlines()), out
