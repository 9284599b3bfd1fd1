"""python -m benchmarks.formula_survey: every formula of the notes, edited as an author would.

For every formula occurrence the coverage knows (verifiers/meaning/formulas.py, with its status
``covered``/``waived``/``uncovered``), one author-like edit per mutation class
(benchmarks/formula_mutations.py: sign, factor, script, exponent, transpose, index, sum-bounds,
shape, sqrt) is planted, one at a time, and only the claims whose quote touches the edited line
(and the claims that use them) are re-run in-process, as ``benchmarks.mutants`` does. The outcome
is that survey's: ``real`` (discrepancy/unparsed/error at the edited line), ``stale`` only,
``elsewhere`` only, ``missed``, or ``unquoted`` (no claim's quote touches the line).

The survey is exhaustive by default (``--per-class 0``); ``--per-class N`` runs a seeded sample
of N sites per class. Outcomes are cached by the site and a fingerprint of the notes, claims,
verifiers and tinygpt (``$NOTECHECK_CACHE/formula-survey.json``): an unchanged tree re-runs
nothing, a change re-runs every site. A mutation need not make the note false (an index swap in
a symmetric formula, a sign flip of a term that is 0): the shares compare before and after a
change, they are no target of 100%.

Figures, ``--per-class 40 --seed 0`` (branch formulas8; real / stale / elsewhere / missed /
unquoted of 40). Before: main 2559bc5 measured by the first version of this survey, which
did not count a program block as read by its code-hole claims; after: this version, on the
branch. The same survey on main gave sign 31 and factor 29 real (the run was cut there).

    class       before              after
    sign        28/5/1/2/4          32/4/0/2/2
    factor      29/1/2/3/5          30/1/4/3/2
    script      33/2/0/2/3          33/2/0/2/3
    exponent    33/0/0/4/3          33/0/0/4/3
    transpose   30/0/0/5/5          32/0/0/5/3
    index       29/4/1/3/3          32/4/1/2/1
    sum-bounds  35/0/0/2/3          39/0/0/1/0
    shape       25/2/0/4/9          30/2/0/6/2
    sqrt        26/2/2/8/2          28/2/1/7/2
    covered     268 of 326 real     289 of 327 real
    waived      0 of 34 real        0 of 33 real
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

from benchmarks.formula_mutations import CLASSES, formula_sites
from benchmarks.mutants import OUTCOME_ORDER, outcome
from benchmarks.outcome_tables import sites_table
from verifiers import profiles
from verifiers.mutate import Site

ROOT = Path(__file__).resolve().parent.parent
_TREES = ("notes", "claims", "verifiers", "tinygpt")


def fingerprint(root: Path = ROOT) -> str:
    """A digest of every file the verdicts depend on (and of this survey's mutations)."""
    h = hashlib.sha256()
    files = [p for tree in _TREES for p in sorted((root / tree).rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts]
    files += [Path(__file__), Path(__file__).with_name("formula_mutations.py")]
    for path in files:
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _cache_file() -> Path:
    from verifiers.cache import VerdictCache

    return VerdictCache.default_folder() / "formula-survey.json"


def _load_cache(print_: str) -> dict:
    try:
        data = json.loads(_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data.get("outcomes", {}) if data.get("fingerprint") == print_ else {}


def _save_cache(print_: str, outcomes: dict) -> None:
    path = _cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"fingerprint": print_, "outcomes": outcomes}, ensure_ascii=False),
                   encoding="utf-8")
    tmp.replace(path)


def _add_blocks(spans: dict[str, dict[str, tuple[int, int]]], notes: dict, claims: list
                ) -> None:
    """A claim whose code hole runs a printed program reads every line of its block, not
    only its quote: its span grows to take the block in (else an edit of the program would
    count as ``unquoted`` and never run the claim)."""
    from verifiers.coverage.meaning import quote_match
    from verifiers.programs.codehole import block_span, reads_block

    for claim in claims:
        if claim.note not in notes or not reads_block(claim):
            continue
        note = notes[claim.note]
        match = quote_match(note, claim)
        block = block_span(claim, match, note) if match is not None else None
        if block is not None:
            a, b = spans.setdefault(claim.note, {}).get(claim.id, block)
            spans[claim.note][claim.id] = (min(a, block[0]), max(b, block[1]))


def survey(per_class: int, seed: int, classes: tuple[str, ...], only: tuple[str, ...] = (),
           progress: bool = False, use_cache: bool = True) -> dict:
    """Per class: the outcome counts (also per coverage status) and the sites not ``real``."""
    from verifiers.cache import VerdictCache
    from verifiers.coverage.meaning import classify_items
    from verifiers.run import load_claims, load_notes, run

    notes = load_notes(ROOT / "notes")
    if only:
        notes = {name: note for name, note in notes.items() if name in only}
    with profiles.default("ci"):
        base = run(ROOT / "notes", ROOT / "claims", lambda c: c.note in notes,
                   cache=VerdictCache.default_folder(), jobs=2)
    claims, _ = load_claims(ROOT / "claims", set(notes))
    spans: dict[str, dict[str, tuple[int, int]]] = {}
    for v in base.verdicts:
        if v.span is not None and v.note in notes:
            note = notes[v.note]
            spans.setdefault(v.note, {})[v.id] = (note.offset(*v.span[0]),
                                                  note.offset(*v.span[1]))
    _add_blocks(spans, notes, claims)
    from benchmarks.planted.survey import _key

    baseline = {v.id: _key(v) for v in base.verdicts if not v.passed}
    coverage = {name: classify_items(base, name)["formulas"] for name in sorted(notes)}
    print_ = fingerprint()
    cached = _load_cache(print_) if use_cache else {}
    rows: dict[str, Counter] = {}
    by_status: dict[str, Counter] = {}
    listed: list[dict] = []
    for cls in classes:
        every = []
        for name, cov in coverage.items():
            status = {item.start: s for item, s in zip(cov.items, cov.status, strict=True)}
            for item, at, old, new in formula_sites(name, cov.items, cls, seed):
                every.append((Site(cls, name, at, old, new, *notes[name].position(at)),
                              status[item.start], item))
        chosen = every
        if per_class and len(every) > per_class:
            chosen = sorted(random.Random(f"{seed}:{cls}").sample(every, per_class),
                            key=lambda s: (s[0].note, s[0].start))
        counts: Counter = Counter(total=len(every))
        for k, (site, status, item) in enumerate(chosen, 1):
            key = f"{site.cls}|{site.note}|{site.start}|{site.old}|{site.new}"
            if key not in cached:
                with profiles.default("ci"):
                    cached[key] = list(outcome(site, notes, claims, spans, baseline))
            what, detail = cached[key]
            counts[what] += 1
            by_status.setdefault(status, Counter())[what] += 1
            if progress:
                print(f"[{cls} {k}/{len(chosen)}] {site.note}:{site.line}:{site.col} "
                      f"{site.old!r} → {site.new!r}: {what} {detail}", file=sys.stderr,
                      flush=True)
            if what != "real":
                listed.append({"class": cls, "outcome": what, "status": status,
                               "note": site.note, "line": site.line, "col": site.col,
                               "old": site.old, "new": site.new, "detail": detail,
                               "formula": item.text[:160]})
        rows[cls] = counts
        if use_cache:
            _save_cache(print_, cached)
    false_alarms = sorted(f"{v.note}: {v.id} {v.status}" for v in base.verdicts if not v.passed)
    return {"rows": rows, "by_status": by_status, "listed": listed,
            "false_alarms": false_alarms}


def table(rows: dict[str, Counter], label: str = "class") -> str:
    """One row per class (or status): sites, run, and each outcome's count and share."""
    return sites_table(rows, OUTCOME_ORDER, label, 11, 16)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.formula_survey",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, default=0, metavar="N",
                        help="a seeded sample of N sites per class (default 0: every site)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument("--class", dest="classes", choices=CLASSES, action="append",
                        help="only this class (repeatable)")
    parser.add_argument("--note", action="append", default=[],
                        help="only this note (a file name under notes/; repeatable)")
    parser.add_argument("--no-cache", action="store_true", help="re-run every site")
    parser.add_argument("--json", metavar="FILE", help="write the counts and every site "
                                                       "without a real verdict as JSON")
    parser.add_argument("--progress", action="store_true", help="one line per mutation")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    result = survey(args.per_class, args.seed, tuple(args.classes or CLASSES), tuple(args.note),
                    args.progress, not args.no_cache)
    print(table(result["rows"]))
    print()
    print(table(result["by_status"], "coverage"))
    if result["false_alarms"]:
        print(f"false alarms on the unedited notes: {len(result['false_alarms'])}")
    print(f"run time: {time.perf_counter() - start:.0f} s")
    if args.json:
        data = {"counts": {c: dict(n) for c, n in result["rows"].items()},
                "by_status": {s: dict(n) for s, n in result["by_status"].items()},
                "false_alarms": result["false_alarms"], "not_real": result["listed"]}
        Path(args.json).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n",
                                   encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
