"""The laws7 edit set (tests/data/laws7_edits/): the planted-error survey over it.

    python -m tests.laws7_measure [--progress]

Each edit is run as benchmarks.planted runs its corpus (every claim of the edited note, the
`ci` profile), and the table says how many got a real verdict at the edited line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.planted.survey import load_corpus, survey, table

EDITS = Path(__file__).resolve().parent / "data" / "laws7_edits"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    edits = load_corpus(EDITS)

    def progress(i: int, n: int, outcome: object) -> None:
        print(f"[{i}/{n}] {outcome.edit.id}: {outcome.outcome} {outcome.detail}",  # type: ignore[attr-defined]
              file=sys.stderr, flush=True)

    result = survey(edits, progress=progress if "--progress" in args else None)
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
