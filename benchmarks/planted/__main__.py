"""python -m benchmarks.planted [--kind K] [--id ID] [--json FILE]: the planted-error survey."""

from __future__ import annotations

import argparse
import json
import sys
import time

from benchmarks.planted.survey import KINDS, as_json, from_sources, load_corpus, survey, table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.planted",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=KINDS, action="append",
                        help="only edits of this kind (repeatable)")
    parser.add_argument("--id", action="append", help="only this edit (repeatable)")
    parser.add_argument("--held-out", action="store_true",
                        help="only the held-out edits (files marked held_out: true)")
    parser.add_argument("--new-notes", action="store_true",
                        help="only the edits of new notes checked by inferred claims "
                             "(files with notes: and claims: inferred)")
    parser.add_argument("--source", action="append", metavar="GLOB",
                        help="only edits of the corpus files matching GLOB, e.g. 'fresh5-*' "
                             "(repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the outcomes as JSON")
    parser.add_argument("--progress", action="store_true", help="one line per edit on stderr")
    args = parser.parse_args(argv)
    edits = load_corpus()
    if args.kind:
        edits = [e for e in edits if e.kind in args.kind]
    if args.held_out:
        edits = [e for e in edits if e.held_out and not e.inferred]
    if args.new_notes:
        edits = [e for e in edits if e.inferred]
    if args.source:
        edits = from_sources(edits, args.source)
        if not edits:
            parser.error(f"no edit in a corpus file matching {', '.join(args.source)}")
    if args.id:
        unknown = set(args.id) - {e.id for e in edits}
        if unknown:
            parser.error(f"unknown edit id(s): {', '.join(sorted(unknown))}")
        edits = [e for e in edits if e.id in args.id]
    start = time.perf_counter()

    def progress(i, n, outcome):
        print(f"[{i}/{n} {time.perf_counter() - start:.0f}s] {outcome.edit.id}: "
              f"{outcome.outcome} {outcome.detail}", file=sys.stderr, flush=True)

    result = survey(edits, progress=progress if args.progress else None)
    print(table(result))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(as_json(result), out, ensure_ascii=False, indent=1)
            out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
