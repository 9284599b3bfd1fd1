"""The law edit sets (tests/data/laws6_edits/, laws7_edits/): the planted-error survey over one.

    python -m tests.laws_measure laws6|laws7 [--progress]

Each edit is run as benchmarks.planted runs its corpus (every claim of the edited note, the
`ci` profile), and the table says how many got a real verdict at the edited line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.planted.survey import load_corpus, survey, table

DATA = Path(__file__).resolve().parent / "data"
SETS = ("laws6", "laws7")


def edit_set(name: str) -> Path:
    """The folder of the edit set ``name`` (one of :data:`SETS`)."""
    return DATA / f"{name}_edits"


def assert_judged_at_line(tmp_path: Path, reader: str, edit: object) -> None:
    """The edit's reading claim gives a real verdict (discrepancy or unparsed) at the
    edited line: the assertion of every law edit set."""
    from tests.note_edits import run_edited

    verdict, line = run_edited(tmp_path, reader, edit.note, edit.find,  # type: ignore[attr-defined]
                               edit.replace)  # type: ignore[attr-defined]
    eid = edit.id  # type: ignore[attr-defined]
    assert verdict.status in ("discrepancy", "unparsed"), (eid, verdict.message)
    assert any(v.status == verdict.status and v.start[0] == line for v in verdict.values), (
        eid, [(v.status, v.start) for v in verdict.values])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    names = [a for a in args if a in SETS]
    if len(names) != 1:
        print(f"usage: python -m tests.laws_measure {'|'.join(SETS)} [--progress]",
              file=sys.stderr)
        return 2
    edits = load_corpus(edit_set(names[0]))

    def progress(i: int, n: int, outcome: object) -> None:
        print(f"[{i}/{n}] {outcome.edit.id}: {outcome.outcome} {outcome.detail}",  # type: ignore[attr-defined]
              file=sys.stderr, flush=True)

    result = survey(edits, progress=progress if "--progress" in args else None)
    print(table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
