"""Write inferred claims to ``claims/<stem>/90-inferred.yaml``, keeping what is there.

New entries are appended after the existing ones (never rewritten), so a
reviewed entry -- a pin turned into a real fix, a ``says`` reworded -- stays
as the author left it; ids are hashes of the quotes, so re-running adds only
claims that are new.
"""

from __future__ import annotations

import json
from pathlib import Path

from verifiers.files import write_output

__all__ = ["FILE_NAME", "write_inferred"]

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
