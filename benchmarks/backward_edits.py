"""python -m benchmarks.backward_edits [--json FILE]: planted edits of the printed backward rules.

Each edit of ``benchmarks/backward-edits.yaml`` (the schema of ``benchmarks/planted``) is
written into a temporary copy of the notes, and the claims of the sections that print backward
rules (15.2, 15.3, 15.5; lesson1 §0 and §7) run on it, as the planted survey's runner does but
on those sections only (a verdict cache shared across the edits). Each edit is classified like
the planted survey (real verdict at the edited line / stale only / elsewhere / missed), and
``code`` says whether a claim that compares the rule with ``tinygpt/backward.py`` or autograd
(``*-rules-read``, ``*-rule-read``) is among those at the line. Before the edits, the
unedited sections run once (false alarms). Nothing under ``notes/`` or ``claims/`` is written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

import yaml

from benchmarks.planted.survey import REAL, Edit, _key, classify

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "benchmarks" / "backward-edits.yaml"
SECTIONS = {"architecture-and-training.txt": {"15.2", "15.3", "15.5"},
            "lesson1-text-to-distribution.txt": {"§0", "§7"}}


def load(path: Path = CORPUS) -> list[Edit]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [Edit(e["id"], "formula", e["note"], e["find"], e["replace"], e["why"],
                 source=path.name) for e in data["edits"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.backward_edits",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--claims", type=Path, default=ROOT / "claims")
    args = parser.parse_args(argv)
    from verifiers import profiles
    from verifiers.run import run

    edits = load()
    tmp = Path(tempfile.mkdtemp(prefix="notecheck-backward-"))
    try:
        notes = tmp / "notes"
        shutil.copytree(ROOT / "notes", notes)
        cache = tmp / "cache"

        def check(note: str) -> list:
            with profiles.default("ci"):
                return run(notes, args.claims, lambda c: c.note == note and
                           c.section in SECTIONS[note], cache=cache).verdicts

        baseline, alarms = {}, []
        for note in SECTIONS:
            verdicts = check(note)
            baseline[note] = {v.id: _key(v) for v in verdicts if not v.passed}
            alarms += [f"{note}: {v.id} {v.status}" for v in verdicts if not v.passed]
        rows = []
        for edit in edits:
            path = notes / edit.note
            original = path.read_text(encoding="utf-8")
            text, lines = edit.apply(original)
            path.write_text(text, encoding="utf-8")
            try:
                outcome = classify(edit, lines, check(edit.note), baseline[edit.note])
            finally:
                path.write_text(original, encoding="utf-8")
            code = outcome.outcome == REAL and bool(re.search(r"rules?-read", outcome.detail))
            rows.append({"id": edit.id, "outcome": outcome.outcome, "code": code,
                         "detail": outcome.detail})
            print(f"{edit.id:26} {outcome.outcome:9} {'code' if code else '    '} "
                  f"{outcome.detail[:90]}", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = len(rows)
    real = sum(r["outcome"] == REAL for r in rows)
    code = sum(r["code"] for r in rows)
    print(f"{total} edits: {real} real verdict at the edited line ({code} of them by a claim "
          f"comparing the rule with tinygpt/backward.py or autograd), "
          f"{total - real} not; false alarms on the unedited notes: {len(alarms)}")
    for alarm in alarms:
        print("  false alarm:", alarm)
    if args.json:
        out = Path(args.json)
        part = out.with_name(out.name + ".part")  # atomic: a reader never sees half a file
        part.write_text(json.dumps({"edits": rows, "false_alarms": alarms}, ensure_ascii=False,
                                   indent=1), encoding="utf-8")
        os.replace(part, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
