"""The law-word survey (laws7, issue 12 item 1): every vocabulary word of the notes, each other
meaning of its class planted in its place; does the suite answer at the word's line?

Why: held-out prose-law rounds are six edits each, and mechanisms built from one round's misses
gained nothing on the next. This survey is exhaustive over the vocabulary instead of picked by
hand: every occurrence in the three notes of a law word of ``verifiers/properties/vocabulary.yaml``
(two characters or more, three for Latin words, as :func:`verifiers.words.relax` reads them;
not inside a Latin word), and for each class the word belongs to, each other meaning of that
class written in its place (a word of that meaning in the same script, drawn with the seed). Not
every such edit makes the note false (大于 -> 小于 in a description may stay true), so the share is
a measure of how often a changed law word is *judged*, not of false sentences caught.

A seeded sample of the edits is run (``--n``; ``--n 0``: all of them), each like
``benchmarks.planted``: the edited note is checked with the claims whose quote lies within
``NEAR`` lines of the edit (a real verdict at the line comes from them; ``--whole-note`` runs
every claim of the note), against the same claims on the unedited note. Outcomes are cached by
edit and by a fingerprint of ``verifiers/``, ``claims/`` and ``notes/`` (in the temp folder),
so a rerun on unchanged code costs nothing.

    python -m benchmarks.lawwords [--n 40] [--seed 20261207] [--json out.json] [--progress]
    python -m benchmarks.lawwords --list        # the occurrences and edits, nothing run
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.outcome_tables import share_table

ROOT = Path(__file__).resolve().parents[1]
NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt")
NEAR = 3  # lines: a claim whose quote lies this close to the edit is run
SEED = 20261207
CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class WordEdit:
    """One planted law word: ``old`` at ``offset`` of ``note`` replaced by ``new``."""

    id: str
    note: str
    offset: int
    line: int
    old: str
    new: str
    cls: str
    meaning: str  # the meaning planted


def _usable(word: str) -> bool:
    from verifiers import words

    w = words.normal(word)
    return not w.isdigit() and (len(w) >= 3 if w.isascii() else len(w) >= 2) \
        and w not in words.modifiers()


def _pattern() -> re.Pattern[str]:
    from verifiers import words

    every = {w for meanings in words.classes().values() for ws in meanings.values()
             for w in ws if _usable(w)}
    ordered = sorted(every, key=lambda w: (-len(w), w))
    return re.compile("|".join(re.escape(w) for w in ordered))


def _same_script(a: str, b: str) -> bool:
    return bool(CJK.search(a)) == bool(CJK.search(b))


def occurrences(text: str) -> list[tuple[int, str]]:
    """(offset, word) of every vocabulary law word of a note, longest match first, left to
    right, never inside a Latin word (``big`` of ``bigram``)."""
    out = []
    for m in _pattern().finditer(text):
        a, b = m.span()
        before, after = text[a - 1:a], text[b:b + 1]
        if m.group().isascii() and ((before.isascii() and before.isalnum())
                                    or (after.isascii() and after.isalnum())):
            continue
        out.append((a, m.group()))
    return out


def planted(seed: int = SEED) -> list[WordEdit]:
    """Every edit of the survey, in note then text order (each class of the word, each other
    meaning of the class, one word of that meaning drawn with ``seed``)."""
    from verifiers import words

    rng = random.Random(seed)
    out = []
    for note in NOTES:
        text = (ROOT / "notes" / note).read_text(encoding="utf-8")
        for offset, word in occurrences(text):
            line = text.count("\n", 0, offset) + 1
            for cls, meaning in sorted(words.meanings(word).items()):
                for other, ws in words.words_of(cls).items():
                    if other == meaning:
                        continue
                    pool = sorted(w for w in ws if _same_script(w, word) and _usable(w))
                    if not pool:
                        continue
                    new = rng.choice(pool)
                    out.append(WordEdit(f"{note[:3]}-{offset}-{cls}-{other}", note, offset,
                                        line, word, new, cls, other))
    return out


def sample(edits: list[WordEdit], n: int, seed: int = SEED) -> list[WordEdit]:
    """A seeded draw of ``n`` edits (all when ``n`` is 0 or at least their number), in order."""
    if n <= 0 or n >= len(edits):
        return edits
    keep = set(random.Random(seed).sample(range(len(edits)), n))
    return [e for i, e in enumerate(edits) if i in keep]


def fingerprint() -> str:
    """What the outcomes depend on: the code, the claims and the notes."""
    h = hashlib.sha256()
    for folder in ("verifiers", "claims", "notes", "tinygpt"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".yaml", ".txt", ".md"):
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _cache_file() -> Path:
    return Path(tempfile.gettempdir()) / "notecheck-lawwords" / f"{fingerprint()}.json"


def _near(claims_spans: dict[str, list[tuple[int, int, str]]], note: str, line: int
          ) -> set[str]:
    return {cid for a, b, cid in claims_spans.get(note, []) if a - NEAR <= line <= b + NEAR}


def _quote_lines(notes_dir: Path, claims_dir: Path) -> dict[str, list[tuple[int, int, str]]]:
    """:func:`benchmarks.planted.survey.quote_lines` of the notes and claims in two folders."""
    from benchmarks.planted.survey import quote_lines
    from verifiers.run import load_claims, load_notes

    notes = load_notes(notes_dir)
    claims, _ = load_claims(claims_dir, set(notes))
    return quote_lines(notes, claims)


def survey(edits: list[WordEdit], whole_note: bool = False, progress: bool = False
           ) -> dict[str, dict]:
    """{edit id: {"outcome", "detail"}} for each edit (cached outcomes reused)."""
    from benchmarks.planted.survey import Edit, classify
    from verifiers import profiles
    from verifiers.run import run

    cache_path = _cache_file()
    cached: dict[str, dict] = {}
    if cache_path.exists():
        cached = json.loads(cache_path.read_text(encoding="utf-8"))
    todo = [e for e in edits if f"{e.id}:{whole_note}" not in cached]
    tmp = Path(tempfile.mkdtemp(prefix="notecheck-lawwords-"))
    start = time.perf_counter()
    try:
        notes = tmp / "notes"
        shutil.copytree(ROOT / "notes", notes)
        claims_dir = ROOT / "claims"
        spans = _quote_lines(notes, claims_dir)
        originals = {n: (notes / n).read_bytes().decode("utf-8") for n in NOTES}

        def check(note: str, ids: set[str] | None):
            with profiles.default("ci"):
                return run(notes, claims_dir, lambda c: c.note == note and
                           (ids is None or c.id in ids), cache=tmp / "cache")

        baseline = {n: {} for n in NOTES}
        if todo:
            for note in NOTES:
                verdicts = check(note, None).verdicts
                baseline[note] = {v.id: _key(v) for v in verdicts if not v.passed}
        for k, e in enumerate(todo, 1):
            text = originals[e.note]
            edited = text[:e.offset] + e.new + text[e.offset + len(e.old):]
            (notes / e.note).write_bytes(edited.encode("utf-8"))
            try:
                ids = None if whole_note else _near(spans, e.note, e.line)
                verdicts = check(e.note, ids).verdicts if ids is None or ids else []
                fake = Edit(e.id, "prose-law", e.note, e.old, e.new, "law-word survey")
                o = classify(fake, {e.line}, verdicts, baseline[e.note])
            finally:
                (notes / e.note).write_bytes(text.encode("utf-8"))
            cached[f"{e.id}:{whole_note}"] = {"outcome": o.outcome, "detail": o.detail}
            if progress:
                print(f"[{k}/{len(todo)} {time.perf_counter() - start:.0f}s] {e.id} "
                      f"{e.old}->{e.new}: {o.outcome} {o.detail}", file=sys.stderr, flush=True)
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        part = cache_path.with_suffix(".part")
        part.write_text(json.dumps(cached, ensure_ascii=False, sort_keys=True), encoding="utf-8")
        part.replace(cache_path)  # atomic
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {e.id: cached[f"{e.id}:{whole_note}"] for e in edits}


def _key(verdict) -> tuple:
    from benchmarks.planted.survey import _key as key

    return key(verdict)


def table(edits: list[WordEdit], outcomes: dict[str, dict]) -> str:
    """Per class: edits, real at line, stale only, elsewhere, missed, share real."""
    by: dict[str, Counter] = {}
    for e in edits:
        by.setdefault(e.cls, Counter())[outcomes[e.id]["outcome"]] += 1
    return share_table(by, ("real", "stale", "elsewhere", "missed"), 14)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lawwords",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="edits drawn (0: all)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--whole-note", action="store_true",
                        help="run every claim of the note (as benchmarks.planted does)")
    parser.add_argument("--list", action="store_true", help="list the edits, run nothing")
    parser.add_argument("--save-edits", metavar="FILE",
                        help="write the drawn edits (to run the same set on other code)")
    parser.add_argument("--edits", metavar="FILE",
                        help="run the edits of a --save-edits file (a before/after pair: "
                             "the set planted with one vocabulary, run on both codes)")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if args.edits:
        every = [WordEdit(**e) for e in json.loads(Path(args.edits).read_text(encoding="utf-8"))]
        edits = every
    else:
        every = planted(args.seed)
        edits = sample(every, args.n, args.seed)
    if args.save_edits:
        Path(args.save_edits).write_text(json.dumps([e.__dict__ for e in edits],
                                                    ensure_ascii=False, indent=0) + "\n",
                                         encoding="utf-8")
    words_seen = sum(len(occurrences((ROOT / "notes" / n).read_text(encoding="utf-8")))
                     for n in NOTES)
    print(f"law-word occurrences: {words_seen}; edits: {len(every)}; drawn: {len(edits)} "
          f"(seed {args.seed})")
    if args.list:
        for e in edits:
            print(f"  {e.id}  line {e.line}: {e.old} -> {e.new}")
        return 0
    outcomes = survey(edits, args.whole_note, args.progress)
    print(table(edits, outcomes))
    missed = [e for e in edits if outcomes[e.id]["outcome"] != "real"]
    for e in missed:
        print(f"  {e.note}:{e.line} {e.old} -> {e.new} ({e.cls}): "
              f"{outcomes[e.id]['outcome']} {outcomes[e.id]['detail']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"seed": args.seed, "edits": [{**e.__dict__, **outcomes[e.id]} for e in edits]},
            ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
