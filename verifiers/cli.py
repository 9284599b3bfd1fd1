"""``notecheck`` command line.

Contract (issue 2): ``notecheck check [--notes DIR] [--claims DIR] [--json FILE] [-k EXPR]``.
Exit 0 when every claim is verified or known, 1 when any is not, 2 for a bad
invocation or unreadable input (with a one-line message, never a traceback).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from verifiers import lifecycle, profiles
from verifiers.budget import CLAIM_SECONDS, RUN_SECONDS, Budget
from verifiers.errors import InputError
from verifiers.keywords import KeywordError, compile_keywords
from verifiers.run import Narrow, run
from verifiers.textsafe import printable, safe_stem
from verifiers.verdicts import STATUSES, RunResult, Verdict, after_roots, summary

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    pass


def _seconds(text: str) -> float:
    """A budget on the command line: seconds, a positive number (``inf``: unbounded)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _kinds(text: str) -> tuple[str, ...]:
    """``--require formulas,statements``: kinds beyond the numbers that fail the gate."""
    from verifiers.coverage.literals import KINDS

    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"expected a comma list of {', '.join(KINDS)}, "
                                         f"got {text!r}")
    return kinds


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="notecheck", description="Verify the numbers in technical notes.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="verify every claim and print the failures")
    check.add_argument("--notes", type=Path, default=Path("notes"), help="notes folder")
    check.add_argument("--claims", type=Path, default=Path("claims"), help="claims folder")
    check.add_argument("--json", type=Path, help="write the JSON report here (atomically)")
    check.add_argument("-k", dest="keywords", help="select claims, as pytest -k")
    check.add_argument("--changed-since", metavar="REV",
                       help="check only the claims the changes since REV touch (git diff)")
    check.add_argument("--jobs", "-j", type=int, default=min(2, os.cpu_count() or 1),
                       help="worker processes for the claims to evaluate (default: up to 2)")
    check.add_argument("--no-cache", action="store_true",
                       help="evaluate every claim afresh (the verdict cache is "
                            "~/.cache/notecheck, or $NOTECHECK_CACHE)")
    check.add_argument("--format", choices=("text", "github"), default="text",
                       help="github: Actions annotations and a job summary")
    check.add_argument("--claim-budget", type=_seconds, default=CLAIM_SECONDS, metavar="S",
                       help=f"seconds one claim may take (default {CLAIM_SECONDS:g})")
    check.add_argument("--run-budget", type=_seconds, default=RUN_SECONDS, metavar="S",
                       help=f"seconds the whole run may take (default {RUN_SECONDS:g})")
    fix = commands.add_parser("fix", help="rewrite values whose own step is wrong")
    fix.add_argument("--notes", type=Path, default=Path("notes"), help="notes folder")
    fix.add_argument("--claims", type=Path, default=Path("claims"), help="claims folder")
    mode = fix.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff (the default)")
    mode.add_argument("--write", action="store_true", help="apply it to the notes")
    scaffold = commands.add_parser("scaffold", help="write claim stubs for uncovered numbers")
    scaffold.add_argument("note", help="the note file name, e.g. lesson1.txt")
    scaffold.add_argument("--notes", type=Path, default=Path("notes"), help="notes folder")
    scaffold.add_argument("--claims", type=Path, default=Path("claims"), help="claims folder")
    scaffold.add_argument("--section", help="only this section, e.g. 3.2 or §5")
    scaffold.add_argument("--lines", help="only these lines, A-B")
    scaffold.add_argument("--infer", action="store_true",
                          help="write claims whose checks are inferred from the note (each "
                               "evaluated first) to claims/<note>/90-inferred.yaml")
    cover = commands.add_parser("coverage", help="list the numbers no claim checks")
    cover.add_argument("--notes", type=Path, default=Path("notes"), help="notes folder")
    cover.add_argument("--claims", type=Path, default=Path("claims"), help="claims folder")
    cover.add_argument("--json", type=Path, help="write the coverage JSON here (atomically)")
    cover.add_argument("--require", type=_kinds, default=(), metavar="KINDS",
                       help="also fail on uncovered items of these kinds: a comma list of "
                            "formulas, statements, procedures (default: numbers only)")
    report = commands.add_parser("report", help="write the HTML report (one offline page)")
    report.add_argument("--notes", type=Path, default=Path("notes"), help="notes folder")
    report.add_argument("--claims", type=Path, default=Path("claims"), help="claims folder")
    report.add_argument("--out", type=Path, default=Path("reports/index.html"),
                        help="write the HTML here (atomically)")
    setup = commands.add_parser("init", help="set up a notes repository (folders, the "
                                "[tool.notecheck] table, pre-commit hook, CI workflow)")
    setup.add_argument("dir", nargs="?", type=Path, default=Path("."),
                       help="the repository folder (default: here)")
    setup.add_argument("--source", help="git URL of notecheck, for the hook and the workflow "
                                        "(default: a local hook, pip install notecheck)")
    setup.add_argument("--rev", default="main", help="the revision of --source (default: main)")
    for sub in (check, fix, report):
        sub.add_argument("--trust-note-programs", action="store_true",
                         help="run programs printed in notes even where no jail (bubblewrap) "
                              "exists: only for notes you trust")
    return parser


def console_line(result: RunResult, v: Verdict) -> str:
    """``notes/x.txt:LINE:COL: status: message [claims/y.yaml:LINE]``, control characters
    of the untrusted parts (ids, messages, file names) shown as escapes."""
    return printable(_console_line(result, v))


def _console_line(result: RunResult, v: Verdict) -> str:
    if v.claim_place is not None:  # the claim file itself is at fault
        line, col = v.claim_place
        return f"{v.file}:{line}:{col}: {v.status}: {' '.join(v.message.split())} [{v.id}]"
    elif v.note and v.where is not None:
        place = f"{result.note_path(v.note)}:{v.where[0]}:{v.where[1]}"
    elif v.note:
        place = f"{result.note_path(v.note)}:1:1"
    else:
        place = f"{v.file}:{v.line}:1"
    root = f" (root cause: {v.root_cause})" if v.root_cause and v.root_cause != v.id else ""
    where = f" in {v.section}" if v.section else ""
    message = " ".join(v.message.split())  # one line per claim, whatever the message holds
    return f"{place}: {v.status}: {v.id}{where}: {message}{root} [{v.file}:{v.line}]"


def summary_line(result: RunResult) -> str:
    counts = summary(result.verdicts)
    parts = [f"{counts[s]} {s}" for s in STATUSES if counts[s]]
    values = sum(1 for v in result.verdicts for x in v.values)
    from verifiers.properties.counts import counts_line

    return f"notecheck: {len(result.verdicts)} claims, {values} values: " + (
        ", ".join(parts) or "nothing to check") + counts_line(result.verdicts)


def github_output(result: RunResult) -> None:
    """Annotations on stdout; the full list in ``$GITHUB_STEP_SUMMARY`` (or on stdout)."""
    import os

    from verifiers.report.github import annotations, job_summary

    for line in annotations(result):
        print(line)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        with open(summary_file, "a", encoding="utf-8") as fh:
            fh.write(job_summary(result))
    else:
        print(job_summary(result), end="")


def changed_since(rev: str | None, notes_dir: Path) -> Narrow | None:
    """``--changed-since REV``: narrow the run to the claims the diff touches (and those that
    use them); the git reading is the editing loop's (:mod:`verifiers.changes`)."""
    if rev is None:
        return None
    from verifiers.changes import changed_claims, changes_since

    def narrow(claims: list, notes: dict) -> tuple:
        changes = changes_since(rev, notes_dir)
        return changes, changed_claims(claims, notes, notes_dir, changes)

    return narrow


def check(args: argparse.Namespace) -> int:
    select = compile_keywords(args.keywords) if args.keywords else None
    from verifiers.cache import VerdictCache
    from verifiers.progress import for_stream

    cache = None if args.no_cache else VerdictCache.default_folder()
    result = run(args.notes, args.claims, select, changed_since(args.changed_since, args.notes),
                 cache=cache, jobs=max(1, args.jobs),
                 budget=Budget(args.claim_budget, args.run_budget),
                 progress=for_stream(sys.stderr, args.format != "github"))
    if args.format == "github":
        github_output(result)
    else:
        for v in after_roots([v for v in result.verdicts if v.status != "verified"]):
            print(console_line(result, v))  # a blocked claim right after the claim blocking it
    new_text = uncovered_changes(result) if result.changes is not None else []
    for line in new_text:
        print(line)
    print(summary_line(result))
    if args.json:
        from verifiers.files import write_output
        from verifiers.report.json import dumps

        write_output(args.json, dumps(result))
    return EXIT_OK if all(v.passed for v in result.verdicts) and not new_text else EXIT_FAIL


def uncovered_changes(result: RunResult) -> list[str]:
    """Numbers, formulas, statements and procedures on changed lines that no claim checks
    and no waiver explains (:func:`verifiers.changes.uncovered_on_changed_lines`)."""
    from verifiers.changes import uncovered_on_changed_lines

    return [printable(line) for line in uncovered_on_changed_lines(result)]


MAX_WAIVED = 0.05  # waivers may take at most this share of a note's literals (issue 13)


def coverage(args: argparse.Namespace) -> int:
    """Exit 0 when every literal is covered or waived (waivers within 5%), and every item of
    the ``--require`` kinds is covered or waived; else 1. Uncovered formulas, statements and
    procedures are listed either way."""
    import json

    from verifiers.coverage.literals import KINDS, coverage_json
    from verifiers.coverage.literals import coverage as classify
    from verifiers.files import write_output

    result = run(args.notes, args.claims, lambda claim: False)  # quotes only: no evaluation
    covs, problems = classify(result)
    data = coverage_json(result, covs)
    ok = not problems
    for problem in problems:
        print(printable(str(problem)))
    for entry in data["notes"]:  # type: ignore[union-attr]
        path = result.note_path(entry["note"])
        for lit in entry["uncovered"]:
            print(printable(f"{path}:{lit['line']}:{lit['col']}: uncovered: {lit['text']}"))
        for kind in KINDS:
            for item in entry[kind]["uncovered"]:
                print(printable(f"{path}:{item['line']}:{item['col']}: uncovered "
                                f"{kind[:-1]}: {item['text']}"))
        for item in entry.get("statements_quoted_unread", []):  # quoted, not read (laws6)
            print(printable(f"{path}:{item['line']}:{item['col']}: statement quoted by "
                            f"{item['claim']}, law words not read ({item['status']}): "
                            f"{item['text']}"))
        share = entry["waived"] / entry["literals"] if entry["literals"] else 0.0
        if entry["uncovered"] or share > MAX_WAIVED:
            ok = False
        if any(entry[kind]["uncovered"] for kind in args.require):
            ok = False
        flag = f" (over the {MAX_WAIVED:.0%} limit)" if share > MAX_WAIVED else ""
        print(f"{path}: {entry['literals']} literals: {entry['covered']} covered, "
              f"{entry['waived']} waived ({share:.1%}){flag}, {len(entry['uncovered'])} "
              "uncovered")
        strength = entry["strength"]
        print(f"{path}: strength: {strength['recomputed']} recomputed, {strength['copy']} copy, "
              f"{strength['restated']} restated, {strength['given']} given "
              f"({strength['recomputed_share']:.1%} of {strength['derived']} derived recomputed)")
        for orphan in strength["orphan_copies"]:
            print(printable(f"{path}: copy of nothing recomputed: {orphan['claim']}."
                            f"{orphan['hole']}"))
        for kind in KINDS:
            k = entry[kind]
            required = " (required)" if kind in args.require else ""
            print(f"{path}: {k['total']} {kind}{required}: {k['covered']} covered, "
                  f"{k['waived']} waived, {len(k['uncovered'])} uncovered")
        words = entry["count_words"]  # reported, not gated (verifiers/restate/coverage.py)
        print(f"{path}: {words['total']} count words: {words['covered']} covered, "
              f"{words['waived']} waived, {len(words['uncovered'])} uncovered")
    if args.json:
        write_output(args.json, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    return EXIT_OK if ok else EXIT_FAIL


def fix(args: argparse.Namespace) -> int:
    """Print (or apply) the rewrite of every value whose own arithmetic is wrong."""
    from verifiers.fix import plan, unified_diff, write_fixed

    result = run(args.notes, args.claims)
    edits, waiting = plan(result)
    for line in waiting:
        print(printable(line), file=sys.stderr)
    if not args.write:
        print(unified_diff(result, edits), end="")
        return EXIT_OK
    for name in sorted({e.note for e in edits}):
        write_fixed(args.notes / name, result.notes[name], [e for e in edits if e.note == name])
        print(f"{result.note_path(name)}: {sum(e.note == name for e in edits)} values rewritten",
              file=sys.stderr)
    return EXIT_OK


def scaffold(args: argparse.Namespace) -> int:
    """Append stubs to ``claims/<note>/99-scaffold.yaml`` (atomically); never duplicates."""
    from verifiers.files import write_output
    from verifiers.scaffold import render, stubs

    lines = None
    if args.lines:
        a, sep, b = args.lines.partition("-")
        if not (a.isdigit() and b.isdigit() and sep) or int(a) > int(b):
            raise UsageError(f"notecheck scaffold: --lines {args.lines!r}: expected A-B")
        lines = (int(a), int(b))
    result = run(args.notes, args.claims)
    name = Path(args.note).name
    if not safe_stem(Path(name).stem):  # it names claims/<stem>/: one plain path component
        raise UsageError(f"notecheck scaffold: {printable(repr(args.note))} cannot name a "
                         "claims folder (a plain file name is needed: no '..', '/', leading "
                         "dot or control characters)")
    if name not in result.notes:
        raise UsageError(f"notecheck scaffold: no note {args.note!r} in {args.notes}")
    if args.section and not result.notes[name].scopes(args.section):
        raise UsageError(f"notecheck scaffold: no section {args.section!r} in {name}")
    if args.infer:
        return _scaffold_infer(result, name, args.claims)
    new, skipped = stubs(result, name, args.section, lines)
    for line in skipped:
        print(printable(line), file=sys.stderr)
    target = args.claims / Path(name).stem / "99-scaffold.yaml"
    if not target.resolve().is_relative_to(args.claims.resolve()):  # a symlinked stem folder
        raise UsageError(f"notecheck scaffold: {printable(str(target))} is outside "
                         f"{printable(str(args.claims))}")
    if new:
        text = target.read_text(encoding="utf-8") if target.exists() else (
            f"note: {name}\n# Stubs from `notecheck scaffold`: write each check, then move the "
            "claim to its chapter's file.\nclaims:\n")
        write_output(target, text + "".join(render(s) for s in new))
    print(printable(f"{target}: {len(new)} stubs added ({len(skipped)} lines left to write by "
                    "hand)"))
    return EXIT_OK


def _scaffold_infer(result: RunResult, name: str, claims_dir: Path) -> int:
    """``scaffold --infer``: append verified (or pinned) inferred claims to 90-inferred.yaml."""
    from verifiers.infer import infer
    from verifiers.infer.write import FILE_NAME, write_inferred

    target = claims_dir / Path(name).stem / FILE_NAME
    if not target.resolve().is_relative_to(claims_dir.resolve()):  # a symlinked stem folder
        raise UsageError(f"notecheck scaffold: {printable(str(target))} is outside "
                         f"{printable(str(claims_dir))}")
    found = infer(result, name)
    write_inferred(claims_dir, name, found.entries())
    print(printable(f"{target}: {len(found.claims)} inferred claims added "
                    f"({len(found.pinned)} pinned as \"inferred; review\"); "
                    f"{found.covered} of {found.uncovered_before} uncovered literals now read"))
    for claim in found.pinned:
        print(printable(f"{target}: {claim.id}: review {', '.join(claim.pinned)}"),
              file=sys.stderr)
    return EXIT_OK


def report(args: argparse.Namespace) -> int:
    """Write the HTML report; exit 0 once written (``check`` is the gate), 2 on bad input."""
    from verifiers.progress import for_stream
    from verifiers.report.html import write

    result = run(args.notes, args.claims, progress=for_stream(sys.stderr))
    size = write(result, args.out)
    print(summary_line(result))
    print(f"wrote {args.out} ({size} bytes)")
    return EXIT_OK


def init(args: argparse.Namespace) -> int:
    """Set up a notes repository; existing files are kept, never overwritten."""
    from verifiers.init_repo import init as set_up

    for done in set_up(args.dir, args.source, args.rev):
        print(printable(f"{done.action} {done.path}"))
    print("next: put notes in notes/, then `notecheck scaffold NOTE`, `notecheck check`")
    return EXIT_OK


COMMANDS = {"check": check, "coverage": coverage, "fix": fix, "scaffold": scaffold,
            "report": report, "init": init}


def main(argv: list[str] | None = None) -> int:
    """The command; Ctrl-C (SIGINT) and SIGTERM end it with exit 130 / 143 and one line."""
    try:
        with lifecycle.signals():
            code = _main(argv)
            lifecycle.raise_if_interrupted()  # one that a library swallowed on the way
        return code
    except KeyboardInterrupt as err:  # the -j workers are already killed (run.py)
        if argv is None:  # the command itself is ending: a second Ctrl-C prints nothing
            lifecycle.ignore_interrupts()
        signum = getattr(err, "signum", signal.SIGINT)
        word = "terminated" if signum == signal.SIGTERM else "interrupted"
        print(f"notecheck: {word}", file=sys.stderr)
        return 128 + signum


def refuse_outputs_over_inputs(args: argparse.Namespace) -> None:
    """A report never lands in the notes or claims folder: ``coverage --json notes/x.txt``
    (the note meant as an argument) would replace the note with JSON, and a new file there
    would be read as a note or claim file on the next run."""
    for option in ("json", "out"):
        target = getattr(args, option, None)
        if target is None or str(target) == "-":
            continue
        for name in ("notes", "claims"):
            folder = getattr(args, name, None)
            if folder is not None and _inside(Path(target), Path(folder)):
                raise UsageError(f"notecheck {args.command}: --{option} "
                                 f"{printable(str(target))} is inside the {name} folder "
                                 f"{printable(str(folder))}; write the report elsewhere")


def _inside(path: Path, folder: Path) -> bool:
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError):  # a link loop: not ours to decide here
        return False


def _main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        refuse_outputs_over_inputs(args)
        if getattr(args, "trust_note_programs", False):  # read by verifiers.programs.jail
            os.environ["NOTECHECK_TRUST_NOTE_PROGRAMS"] = "1"
        with profiles.default("ci"):  # property claims: same verdicts, same report bytes
            return COMMANDS[args.command](args)
    except (UsageError, KeywordError, InputError) as err:
        print(printable(f"notecheck: error: {err}" if not str(err).startswith("notecheck")
                        else str(err)), file=sys.stderr)
        return EXIT_USAGE
    except OSError as err:
        lifecycle.raise_if_interrupted()  # a signal's aftermath is the signal, not an error
        print(printable(f"notecheck: error: {err.filename or ''}: {err.strerror}"),
              file=sys.stderr)
        return EXIT_USAGE
    except Exception as err:  # a defect of ours: one line, not a traceback
        # A signal that landed inside an import can leave a half-loaded module whose next
        # import fails ("cannot load module more than once"): that is the interruption.
        lifecycle.raise_if_interrupted()
        print(printable(f"notecheck: internal error: {type(err).__name__}: {err}"),
              file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
