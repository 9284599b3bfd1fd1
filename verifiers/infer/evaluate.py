"""Evaluate a candidate with the real engine before anything is written.

The candidate is rendered as claim-file YAML, loaded with the project's own
loader (so what is evaluated is exactly what will be written) and evaluated
by :class:`verifiers.engine.Engine`. The rule that keeps false alarms at zero:

* a check the engine verifies is kept;
* a wrong value whose own step is wrong (``local: wrong``) is pinned as
  ``known`` with ``why: "inferred; review"`` only when its check is
  *unambiguous* (an explicit ``=`` between an operation and a lone result on
  one line, no word after the result, no product the note leaves implicit)
  and no rounding of the printed inputs explains it (:mod:`.rounding`);
  otherwise the check is dropped;
* a claim that cannot be evaluated (an error, a stale quote) is dropped,
  check by check, until what is left passes -- or nothing is left.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from verifiers.engine import Engine
from verifiers.infer.candidate import Candidate
from verifiers.infer.quote import unique_quote
from verifiers.infer.rounding import rounding_explains
from verifiers.infer.tokens import Token
from verifiers.notes import Note
from verifiers.schema import load_claim_file
from verifiers.verdicts import DISCREPANCY, KNOWN, VERIFIED

__all__ = ["Inferred", "claim_id", "settle"]

REVIEW = "inferred; review"
MAX_ROUNDS = 6


@dataclass(frozen=True)
class Inferred:
    """A claim ready to write: its id, YAML entry, status and the spans it checks."""

    id: str
    yaml: str
    status: str  # verified or known
    family: str
    checked: tuple[tuple[int, int], ...]
    pinned: tuple[str, ...]  # hole names pinned as "inferred; review"
    defs: tuple[tuple[str, str], ...] = ()  # (id, YAML) of the definitions it uses


def claim_id(stem: str, section: str | None, quote: str) -> str:
    """Deterministic: the same quote in the same section always gets the same id."""
    safe = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-._") or "note"
    digest = hashlib.sha256(f"{section or ''}\n{quote}".encode()).hexdigest()[:10]
    return f"inf-{safe}-{digest}"


def _head(cid: str, section: str | None, says: str, quote: str) -> list[str]:
    lines = [f"  - id: {cid}", "    inferred: true"]
    if section:
        lines.append(f"    section: {json.dumps(section, ensure_ascii=False)}")
    lines.append(f"    says: {json.dumps(says, ensure_ascii=False)}")
    lines.append(f"    text: {json.dumps(quote, ensure_ascii=False)}")
    return lines


def definition(note: Note, stem: str, value: Token) -> tuple[str, str] | None:
    """(id, YAML) of a claim that reads one defined value (``x = (2, 1)``) for others to use:
    it checks nothing itself, and covers its value only while a claim uses it."""
    quote = unique_quote(note, {"v1": value})
    if quote is None:
        return None
    cid = claim_id(stem, quote.section, quote.text)
    says = "inferred: a value the note defines, read by the inferred claims that use it"
    lines = _head(cid, quote.section, says, quote.text)
    lines.insert(2, "    kind: given")  # inputs only: a claim that checks nothing is an error
    return cid, "\n".join(lines) + "\n"


def render(cid: str, cand: Candidate, quote: str, section: str | None,
           pins: dict[str, tuple[str, str]], uses: dict[str, str] | None = None) -> str:
    """One claim entry (strings JSON-quoted: valid YAML, nothing to escape by hand)."""
    lines = _head(cid, section, cand.says, quote)
    if uses:
        lines.append("    uses:")
        lines += [f"      {local}: {ref}" for local, ref in sorted(uses.items())]
    lines += cand.extra
    if cand.checks:
        lines.append("    check:")
        lines += [f"      {c.hole}: {json.dumps(c.expr)}" for c in cand.checks]
    if pins:
        lines.append("    known:")
        for hole, (printed, expected) in sorted(pins.items()):
            lines.append(f"      {hole}: {{printed: {json.dumps(printed, ensure_ascii=False)}, "
                         f"expected: {json.dumps(expected)}, why: {json.dumps(REVIEW)}}}")
    return "\n".join(lines) + "\n"


def _evaluate(notes: dict[str, Note], note_name: str, cid: str, entry: str) -> object | None:
    """The verdict of the claim ``cid`` among ``entry`` (it and the definitions it uses)."""
    with tempfile.TemporaryDirectory(prefix="notecheck-infer-") as tmp:
        path = Path(tmp) / "candidate.yaml"
        path.write_text(f"note: {json.dumps(note_name, ensure_ascii=False)}\nclaims:\n{entry}",
                        encoding="utf-8")
        loaded = load_claim_file(path, "candidate.yaml", set(notes))
    if loaded.problems or any(c.problems for c in loaded.claims):
        return None
    return Engine(notes, loaded.claims).verdict(cid)


def _reads(expr: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", expr) is not None


def settle(notes: dict[str, Note], note_name: str, stem: str, cand: Candidate,
           existing: set[str]) -> Inferred | None:
    """Evaluate ``cand``, pin or drop what fails, and return what may be written."""
    note = notes[note_name]
    pins: dict[str, tuple[str, str]] = {}
    for _ in range(MAX_ROUNDS):
        if not cand.checks and not cand.formulas and not cand.words:
            return None
        holes = cand.used()
        quote = unique_quote(note, holes, cand.formulas, cand.words)
        if quote is None:
            return None
        cid = claim_id(stem, quote.section, quote.text)
        if cid in existing:
            return None
        pins = {h: p for h, p in pins.items() if h in holes}
        defs: dict[str, tuple[str, str]] = {}
        for local, value in cand.used_names().items():
            made = definition(note, stem, value)
            if made is None:
                break
            defs[local] = made
        else:
            made = ("", "")
        if made is None:  # a definition that cannot be quoted: drop the checks reading it
            bad = [n for n in cand.used_names() if n not in defs]
            cand = replace(cand, checks=[c for c in cand.checks
                                         if not any(_reads(c.expr, n) for n in bad)])
            continue
        uses = {local: f"{d[0]}.v1" for local, d in defs.items()}
        context = "".join(dict(defs.values()).values())
        verdict = _evaluate(notes, note_name, cid, context + render(
            cid, cand, quote.text, quote.section, pins, uses))
        if verdict is None:
            return None
        status = verdict.status  # type: ignore[attr-defined]
        if status == VERIFIED or (status == KNOWN and pins):
            checked = tuple(sorted((t.start, t.end) for c in cand.checks
                                   for t in cand.parts(c.hole)))
            return Inferred(cid, render(cid, cand, quote.text, quote.section, pins, uses),
                            status, cand.family, checked, tuple(sorted(pins)),
                            tuple(sorted(dict(defs.values()).items())))
        if cand.formulas or cand.words:
            return None  # a formula or word reading (computes:, states:): verified, or nothing
        if status != DISCREPANCY:
            if len(cand.checks) == 1:
                return None
            cand = replace(cand, checks=cand.checks[:-1])  # drop checks until it evaluates
            continue
        plain = {c.hole for c in cand.checks if c.unambiguous
                 and not rounding_explains(notes[note_name], cand.holes, c.hole, c.expr)}
        drop: set[str] = set()
        changed = False
        for value in verdict.values:  # type: ignore[attr-defined]
            if value.status != DISCREPANCY:
                continue
            if value.local == "wrong" and value.name in plain and value.suggestion \
                    and value.name not in pins:
                pins[value.name] = (value.printed, value.suggestion)
                changed = True
            elif value.local == "wrong":
                drop.add(value.name)
        if not drop and not changed:  # nothing to pin, nothing own-wrong: drop what fails
            drop = {v.name for v in verdict.values  # type: ignore[attr-defined]
                    if v.status not in (VERIFIED, KNOWN, "given")}
            if not drop:
                return None
        cand = replace(cand, checks=[c for c in cand.checks if c.hole not in drop])
    return None
