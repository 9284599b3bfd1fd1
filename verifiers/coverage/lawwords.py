"""Law words that a claim quotes but no claim reads (laws7, issue 12 item 2).

Why: blind prose-law edits were mostly laws stated in passing inside a sentence that an
arithmetic or formula claim quotes without reading the law word; the edit then only made the
claim ``stale``. A law word (a cue of ``verifiers/meaning/cues.yaml`` or a vocabulary word of
``verifiers/properties/vocabulary.yaml`` of two characters or more, three for Latin words) is
*read* when it lies inside what a checking claim reads (:class:`verifiers.coverage.meaning.
_Reading`: a hole, a procedure's step word, or a law word of its quoted fixed text that
``verifiers/words.py`` ``relax`` reads when the note changes it), and *recorded* when a waiver
that waives statements spans it (its reason says why the word states no checkable law).
Everything else inside a claim's quote is listed here; ``tests/test_lawwords_read.py`` holds the
count so that it can only go down.

    python -m verifiers.coverage.lawwords [notes_dir claims_dir]   # one line per word
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from verifiers import words
from verifiers.coverage.meaning import _match, _Reading, _used_hole_spans, claim_checks
from verifiers.meaning.statements import cue_spans
from verifiers.verdicts import RunResult


@dataclass(frozen=True)
class Unread:
    """One law word inside a claim's quote that no claim reads and no waiver records."""

    note: str
    line: int
    col: int
    word: str
    claim: str


@functools.cache
def _vocabulary_words() -> re.Pattern[str]:
    every = {words.normal(w) for meanings in words.classes().values() for ws in meanings.values()
             for w in ws}
    usable = [w for w in every if not w.isdigit() and w not in words.modifiers()
              and (len(w) >= 3 if w.isascii() else len(w) >= 2)]
    ordered = sorted(usable, key=lambda w: (-len(w), w))
    return re.compile("|".join(r"\s*".join(re.escape(ch) for ch in w) for w in ordered))


def law_word_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of the cue words and vocabulary law words of text[start:end] (a Latin word
    only as a whole word)."""
    out = {(start + a, start + b) for a, b in cue_spans(text[start:end])}
    for m in _vocabulary_words().finditer(text, start, end):
        a, b = m.span()
        before, after = text[a - 1:a], text[b:b + 1]
        if m.group().isascii() and ((before.isascii() and before.isalnum())
                                    or (after.isascii() and after.isalnum())):
            continue
        out.add((a, b))
    return sorted(out)


def unread_law_words(result: RunResult) -> list[Unread]:
    """Every law word inside a claim's quote that no checking claim reads and no statements
    waiver spans, note by note, in text order (one entry per word, the first claim quoting
    it named)."""
    out: list[Unread] = []
    used = {(u.claim_id, u.hole) for c in result.claims if claim_checks(c) and not c.problems
            for u in c.uses.values()}
    for name in sorted(result.notes):
        note = result.notes[name]
        reading = _Reading()
        quotes: list[tuple[int, int, str]] = []
        for claim in result.claims:
            if claim.note != name or claim.problems or claim.kind == "procedure":
                continue
            match = _match(note, claim.text, claim.section, claim.near, claim.after)
            if match is None:
                continue
            quotes.append((match.start, match.end, claim.id))
            if claim_checks(claim):
                reading.add_claim(note, claim)
            else:
                reading.add_used_holes(_used_hole_spans(note, claim, used))
        for claim in result.claims:
            if claim.note == name and claim.kind == "procedure" and not claim.problems:
                reading.add_claim(note, claim)
        recorded = []
        for waiver in result.waivers:
            if waiver.note == name and "statements" in waiver.waives:
                match = _match(note, waiver.text, waiver.section, waiver.near, waiver.after)
                if match is not None:
                    recorded.append((match.start, match.end))
        read = set()  # offsets read by a claim (a word across a hole and fixed text: both read)
        for x, y in (*reading.read, *recorded):
            read.update(range(x, y))
        seen: set[tuple[int, int]] = set()
        for start, end, cid in sorted(quotes):
            for a, b in law_word_spans(note.text, start, end):
                if (a, b) in seen:
                    continue
                seen.add((a, b))
                word = note.text[a:b]
                lead = len(word) - len(words.strip_modifiers(word)) if " " not in word else 0
                if all(k in read or note.text[k].isspace() for k in range(a + lead, b)):
                    continue  # (a modifier before a word hole is read with it: 较⟦low_t⟧)
                line, col = note.position(a)
                out.append(Unread(name, line, col, note.text[a:b], cid))
    return out


def main(argv: list[str] | None = None) -> int:
    from verifiers.run import run

    args = sys.argv[1:] if argv is None else argv
    notes = Path(args[0]) if args else Path("notes")
    claims = Path(args[1]) if len(args) > 1 else Path("claims")
    found = unread_law_words(run(notes, claims, lambda claim: False))
    for u in found:
        print(f"{u.note}:{u.line}:{u.col}: law word {u.word!r} quoted by {u.claim}, not read")
    print(f"law words quoted but not read: {len(found)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
