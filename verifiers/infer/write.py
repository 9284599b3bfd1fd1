"""Write inferred claims to ``claims/<stem>/90-inferred.yaml``, keeping what is there.

New entries are appended after the existing ones (never rewritten), so a
reviewed entry -- a pin turned into a real fix, a ``says`` reworded -- stays
as the author left it; ids are hashes of the quotes, so re-running adds only
claims that are new.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from verifiers.files import write_output

__all__ = ["FILE_NAME", "write_inferred", "write_own_files"]

FILE_NAME = "90-inferred.yaml"


def header(note_name: str) -> str:
    return (f"note: {json.dumps(note_name, ensure_ascii=False)}\n"
            "# Claims inferred by `notecheck scaffold --infer` from what the note shows, each\n"
            "# evaluated before it was written. `why: \"inferred; review\"` pins a printed value\n"
            "# that disagrees with its own step: review the note (or the claim), then fix it.\n"
            "claims:\n")


def write_inferred(claims_dir: Path, note_name: str, entries: list[str]) -> Path:
    """Append claim ``entries`` (YAML) to the note's inferred-claims file (atomically)."""
    target = claims_dir / Path(note_name).stem / FILE_NAME
    if entries:
        text = target.read_text(encoding="utf-8") if target.exists() else header(note_name)
        if not text.endswith("\n"):
            text += "\n"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_output(target, text + "".join(entries))
    return target


def write_own_files(argv: list[str] | None, prog: str, file_name: str, comment: str,
                    find: Callable[[dict, str, str, set[str]], Sequence[Any]], what: str
                    ) -> int:
    """``python -m PROG NOTE …``: each note's claims of one kind (``find(notes, name, stem,
    existing)``, each with its ``.yaml``) replace ``claims/<stem>/<file_name>``, atomically;
    a note with none has no file (a claim file needs a list of claims)."""
    from verifiers.files import write_output
    from verifiers.notes import read_note

    parser = argparse.ArgumentParser(prog=f"python -m {prog}")
    parser.add_argument("notes", nargs="+")
    parser.add_argument("--notes", dest="folder", default="notes")
    parser.add_argument("--claims", default="claims")
    args = parser.parse_args(argv)
    notes = {name: read_note(Path(args.folder) / name) for name in args.notes}
    for name in args.notes:
        stem = Path(name).stem
        found = find(notes, name, stem, set())
        path = Path(args.claims) / stem / file_name
        if not found:
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        head = (f"# {comment} (written by python -m {prog} {name}).\n"
                f"note: {json.dumps(name, ensure_ascii=False)}\nclaims:\n")
        write_output(path, head + "".join(c.yaml for c in found))
        print(f"{path}: {len(found)} {what} claims", file=sys.stderr)
    return 0
