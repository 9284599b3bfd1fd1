"""``python -m verifiers.restate.write_counts NOTE …``: write the inferred count claims.

Each note's claims (:func:`verifiers.infer.counts.count_claims`, every one verified on the note
as it is) replace ``claims/<stem>/89-counts-inferred.yaml``; a note with none has no file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from verifiers.infer.counts import FILE_NAME, count_claims

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Write the count claims of the given notes (their own file, replaced)."""
    from verifiers.files import write_output
    from verifiers.notes import read_note

    parser = argparse.ArgumentParser(prog="python -m verifiers.restate.write_counts")
    parser.add_argument("notes", nargs="+")
    parser.add_argument("--notes", dest="folder", default="notes")
    parser.add_argument("--claims", default="claims")
    args = parser.parse_args(argv)
    notes = {name: read_note(Path(args.folder) / name) for name in args.notes}
    for name in args.notes:
        stem = Path(name).stem
        found = count_claims(notes, name, stem, set())
        path = Path(args.claims) / stem / FILE_NAME
        if not found:  # a claim file needs a list of claims: none is no file
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        head = ("# Count words checked against the items they count (written by "
                f"python -m verifiers.restate.write_counts {name}).\n"
                f"note: {json.dumps(name, ensure_ascii=False)}\nclaims:\n")
        write_output(path, head + "".join(c.yaml for c in found))
        print(f"{path}: {len(found)} count claims", file=sys.stderr)
    return 0




if __name__ == "__main__":
    sys.exit(main())
