"""Merge candidates that quote the same lines into one claim.

Two runs on one line (``√4 = 2，… 3.5 / 2 = 1.75``) or three shares of one
total would otherwise give three claims quoting the same line, each
restating the others' numbers as plain text. One claim per group of lines
reads every value through a hole instead; holes are renamed ``v1, v2, …`` in
note order (a value two candidates share -- the total of several shares --
is one hole).
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.notes import Note

__all__ = ["merge_by_lines"]

_FIRST = ("units", "named table")  # families whose checks win a value several propose


def _lines(note: Note, cand: Candidate) -> tuple[int, int]:
    starts = [t.start for t in cand.holes.values()]
    ends = [t.end for t in cand.holes.values()]
    return note.position(min(starts))[0], note.position(max(ends))[0]


def _rename(expr: str, names: dict[str, str]) -> str:
    if not names:
        return expr
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, names)) +
                         r")(?![A-Za-z0-9_])")
    return pattern.sub(lambda m: names[m.group(1)], expr)


def merge_by_lines(note: Note, candidates: list[Candidate]) -> list[Candidate]:
    """Candidates whose line ranges overlap become one, in note order; holes ``v1, v2, …``."""
    spans = sorted(((_lines(note, c), k) for k, c in enumerate(candidates)))
    groups: list[list[Candidate]] = []
    last_end = -1
    for (a, b), k in spans:
        if groups and a <= last_end:
            groups[-1].append(candidates[k])
            last_end = max(last_end, b)
        else:
            groups.append([candidates[k]])
            last_end = b
    return [_merge(g) for g in groups]


def _merge(group: list[Candidate]) -> Candidate:
    tokens = {t.start: t for c in group for t in c.used().values()}
    name_of = {start: f"v{k}" for k, start in enumerate(sorted(tokens), start=1)}
    merged = Candidate("+".join(sorted({c.family for c in group})), group[0].says)
    merged.holes = {name_of[s]: tokens[s] for s in sorted(tokens)}
    merged.uses = {n: t for c in group for n, t in c.used_names().items()}
    checked: set[int] = set()
    # a unit reading first: its digits were sieved against the printed ones, while a chain
    # reads `353453056 \\approx 353\\text{M}` as a plain (false) equality; a column the note's
    # own formula computes (named.py) before a formula guessed from the digits (tables.py)
    for cand in sorted(group, key=lambda c: c.family not in _FIRST):
        names = {n: name_of[t.start] for n, t in cand.used().items()}
        for check in cand.checks:
            start = cand.holes[check.hole].start
            if start in checked:
                continue
            checked.add(start)
            merged.checks.append(Check(names[check.hole], _rename(check.expr, names),
                                       check.unambiguous))
    if len(group) > 1 or group[0].family == "chain":
        merged.says = "inferred: " + " ; ".join(f"{c.hole} = {c.expr}" for c in merged.checks)
    return merged
