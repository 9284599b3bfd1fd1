"""One reader per token: a stale quote whose only changes are tokens other claims read.

A claim may quote a line that holds a number, a law word or a formula as literal text
while another claim of the same note reads that token with a hole (``a约0.731059`` quoted by
one claim, ``a约⟨a⟩`` checked by another). An edit of the token then breaks the first quote,
and ``stale`` is the only thing it says, although the token is not its to judge: the reader
judges it. So, on the stale path only, the quote is aligned with its closest note line
(character by character, a hole of the claim standing for what the note prints there), and
when every difference lies inside a span that another claim reads with a hole in the edited
note, the quote is found with the note's current text in those places. Its own holes are
then read and checked as usual, and the reader's verdict says whether the edit is right.

When any difference lies outside every reader's span (a changed word nobody reads, a
changed structure), nothing is relaxed: the claim stays stale. Readers are located with the
plain quote search (:func:`verifiers.holes.find`), never through this relaxation, so the
order is one pass: readers first, then the stale claim; nothing depends on evaluation order.

The outcome depends on the other claims' quotes, which a claim's cache key does not hash
(:mod:`verifiers.cache`), so the engine never caches a verdict reached this way, nor a stale
one (a reader added later could locate it).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from difflib import SequenceMatcher

from verifiers.claimtext import HOLE_RE, claim_checks
from verifiers.holes import Closest, Match, ResolveError, closest_line, find
from verifiers.notes import Note
from verifiers.schema import Claim

__all__ = ["locate", "read_spans", "reader_spans", "relocate", "relaxed_quote"]

_HOLE_CHARS = frozenset("⟨⟩⟪⟫⟦⟧")
_NUMBERISH = frozenset("0123456789.,%-−+")  # a number's characters: trimmed at its edge


def reader_spans(note: Note, claims: Iterable[Claim], skip: str, at: int | None = None
                 ) -> list[tuple[int, int]]:
    """Note spans that claims of ``note`` other than ``skip`` read with a hole and judge
    (:func:`read_spans`)."""
    return sorted({(a, b) for a, b, owner in read_spans(note, claims, at) if owner != skip})


def read_spans(note: Note, claims: Iterable[Claim], at: int | None = None
               ) -> list[tuple[int, int, str]]:
    """(start, end, claim id) of every note span a claim of ``note`` reads with a hole and
    judges; with ``at``, only the claims whose section holds that offset are located (a
    reader of a token on that line must have it in scope: a stale claim costs a few quote
    searches, not one per claim of the note).

    A claim judges its holes when it checks something (the rule coverage uses:
    :func:`verifiers.coverage.meaning.claim_checks`); a claim of inputs, only the holes a
    checking claim uses. Value, formula and word holes count, a law word its fixed text
    reads (``Match.fixed``), a procedure's step words and a run program's block.
    """
    mine = [c for c in claims if c.note == note.name and not c.problems]
    used = {(u.claim_id, u.hole) for c in mine if claim_checks(c) for u in c.uses.values()}
    spans: list[tuple[int, int, str]] = []
    for claim in mine:
        checks = claim_checks(claim)
        if not checks and not any(cid == claim.id for cid, _ in used):
            continue
        if at is not None and claim.section and not any(
                a <= at < b for a, b in note.scopes(claim.section)):
            continue
        if claim.kind == "procedure":
            from verifiers.procedures.locate import quote_spans

            spans += [(a, b, claim.id) for a, b in quote_spans(note, claim)] if checks else []
            continue
        match = locate(note, claim)
        if match is None:
            continue
        for key, printed in match.values.items():
            if checks or (claim.id, key.split("[")[0]) in used:
                spans.append((printed.start, printed.end, claim.id))
        if checks:
            read = [*match.formulas.values(), *match.words.values(),
                    *(p for _, p in match.fixed.values())]
            spans += [(p.start, p.end, claim.id) for p in read]
            from verifiers.programs.codehole import block_span, reads_block

            if reads_block(claim):  # not a printed order's block: it reads words only
                block = block_span(claim, match, note)
                if block is not None:
                    spans.append((*block, claim.id))
    return sorted(s for s in spans if s[1] > s[0])


def locate(note: Note, claim: Claim) -> Match | None:
    """The claim's plain match in ``note`` (its section, near, after), or None."""
    scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
    if not scopes:
        return None
    try:
        return find(note.text, claim.text, scopes, displays=note.displays,
                    near=claim.near, after=claim.after)
    except ResolveError:
        return None


def relaxed_quote(text: str, quote: str, scopes: list[tuple[int, int]],
                  spans: list[tuple[int, int]], close: Closest | None = None) -> str | None:
    """The quote with the note's current text where its closest line differs from it, when
    every difference lies inside one of ``spans`` (what readers read); else None.

    The quote line most like the closest line is aligned with it, character by character
    (whitespace ignored, each hole one token that stands for whatever the note prints in its
    place). A difference that takes in a hole of this claim changed its structure: None.
    """
    close = close if close is not None else closest_line(text, quote, scopes)
    if close is None or not spans:
        return None
    lo = text.rfind("\n", 0, close.offset) + 1
    hi = text.find("\n", close.offset)
    hi = len(text) if hi < 0 else hi
    lines = quote.split("\n")
    starts = [sum(len(x) + 1 for x in lines[:k]) for k in range(len(lines))]
    scored = [(SequenceMatcher(None, "".join(q.split()), "".join(text[lo:hi].split()),
                               autojunk=False).ratio(), -k) for k, q in enumerate(lines)
              if q.strip()]
    if not scored:
        return None
    k = -max(scored)[1]
    qline, base = lines[k], starts[k]
    tokens = _quote_tokens(qline)
    chars = [(i, ch) for i, ch in enumerate(text[lo:hi], lo) if not ch.isspace()]
    matcher = SequenceMatcher(None, [t[2] for t in tokens], [c[1] for c in chars],
                              autojunk=False)
    edits: list[tuple[int, int, str]] = []  # (start, end) in the quote, the note's text
    for tag, a1, a2, b1, b2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "insert" and a1 in (0, len(tokens))):
            continue  # the note's line goes on before or after the quote
        if tag == "replace" and a2 - a1 == 1 and tokens[a1][2].startswith("\0"):
            continue  # a hole and what the note prints there
        if any(tokens[i][2].startswith("\0") for i in range(a1, a2)):
            return None  # this claim's own hole moved or went: a changed structure
        if not _inside_reader(chars, a1, a2, b1, b2, tokens, spans):
            return None
        new = text[chars[b1][0]:chars[b2 - 1][0] + 1] if b2 > b1 else ""
        if _HOLE_CHARS & set(new):
            return None
        if a2 > a1:
            edits.append((base + tokens[a1][0], base + tokens[a2 - 1][1], new))
        else:  # an insertion: after the quote character before it
            at = base + tokens[a1 - 1][1]
            edits.append((at, at, new))
    if not edits:
        return None
    out = quote
    for a, b, new in sorted(edits, reverse=True):
        out = out[:a] + new + out[b:]
    return out


def _quote_tokens(qline: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of the quote line: each non-space character, each hole one token."""
    tokens: list[tuple[int, int, str]] = []
    pos = 0
    for m in [*HOLE_RE.finditer(qline), None]:
        stop = m.start() if m else len(qline)
        tokens += [(i, i + 1, ch) for i, ch in enumerate(qline[pos:stop], pos)
                   if not ch.isspace()]
        if m is not None:
            tokens.append((m.start(), m.end(), "\0" + m.group(0)))
            pos = m.end()
    return tokens


def _inside_reader(chars: list[tuple[int, str]], a1: int, a2: int, b1: int, b2: int,
                   tokens: list[tuple[int, int, str]], spans: list[tuple[int, int]]) -> bool:
    """The note characters of a difference all lie in one reader's span; a deletion (no note
    character) lies inside a span, or trims a number at a span's edge (``0.7310`` → ``0.731``)."""
    if b2 > b1:
        first, last = chars[b1][0], chars[b2 - 1][0]
        return any(s <= first and last < e for s, e in spans)
    before = chars[b1 - 1][0] if b1 > 0 else None
    after = chars[b1][0] if b1 < len(chars) else None
    numberish = all(tokens[i][2] in _NUMBERISH for i in range(a1, a2))
    for s, e in spans:
        inside_before = before is not None and s <= before < e
        inside_after = after is not None and s <= after < e
        if inside_before and inside_after:
            return True
        if numberish and (inside_before or inside_after):
            return True
    return False


def relocate(note: Note, claim: Claim, scopes: list[tuple[int, int]],
             claims: Iterable[Claim], memo: dict[int, list[tuple[int, int]]] | None = None
             ) -> Match | None:
    """The stale claim's match with the tokens other claims read taken as the note prints them
    now, or None (it stays stale). ``memo``: the readers' spans by the offset of the closest
    line's first difference, for the stale claims of one note that share a line.

    Two ways, the second only when the first finds nothing: the quote line aligned with its
    closest line character by character (:func:`relaxed_quote`: words, formulas, numbers on a
    short line), then every literal number of the quote read as a value hole
    (:func:`_numbers_read`: a number inside a long line or a display the alignment drifts on).
    """
    close = closest_line(note.text, claim.text, scopes)
    if close is None:
        return None
    memo = {} if memo is None else memo
    if close.offset not in memo:
        memo[close.offset] = reader_spans(note, claims, "", close.offset)
    spans = memo[close.offset]
    match = None
    quote = relaxed_quote(note.text, claim.text, scopes, spans, close)
    if quote is not None:
        try:
            match = find(note.text, quote, scopes, displays=note.displays, near=claim.near,
                         after=claim.after)
        except ResolveError:
            match = None
    if match is None:
        match = _numbers_read(note, claim, scopes, spans)
    if match is None:
        return None
    lo, hi = _most_alike_line(note.text, _aligned_line(claim.text, note.text, close), scopes)
    # the numbers compared as printed: the match must hold the line most like the quote, not
    # a line that only shares its words (its own line lost a word; the next has its shape)
    return match if match.start < hi and match.end > lo else None


def _aligned_line(quote: str, text: str, close: Closest) -> str:
    """The quote line most like its closest line (whitespace ignored)."""
    lo = text.rfind("\n", 0, close.offset) + 1
    hi = text.find("\n", close.offset)
    line = "".join(text[lo:len(text) if hi < 0 else hi].split())
    return max((q for q in quote.split("\n") if q.strip()),
               key=lambda q: SequenceMatcher(None, "".join(q.split()), line,
                                             autojunk=False).ratio())


def _most_alike_line(text: str, qline: str, scopes: list[tuple[int, int]]) -> tuple[int, int]:
    """(start, end) of the first note line within the scopes most like ``qline`` with its
    numbers compared as printed and its holes left out (a part of a longer line counts by
    what of it the line holds)."""
    bare = "".join(HOLE_RE.sub("", qline).split())
    best, where = -1.0, (0, 0)
    for lo, hi in scopes:
        pos = lo
        for raw in text[lo:hi].split("\n"):
            flat = "".join(raw.split())
            if flat:
                m = SequenceMatcher(None, bare, flat, autojunk=False)
                held = sum(b.size for b in m.get_matching_blocks()) / max(len(bare), 1)
                score = min(m.ratio(), 1.0) if len(flat) <= 1.5 * len(bare) else held
                if score > best:
                    best, where = score, (pos, pos + len(raw))
            pos += len(raw) + 1
    return where


_LITERAL_NUMBER = re.compile(r"(?<![A-Za-z_\\])\d+(?:\.\d+)?%?")
_PREFIX = "_rd"  # hole names of the numbers read here: no claim's own hole starts with it


def _numbers_read(note: Note, claim: Claim, scopes: list[tuple[int, int]],
                  spans: list[tuple[int, int]]) -> Match | None:
    """The quote found with each literal number read as a value hole, when every number that
    differs from the quote lies in a reader's span."""
    pieces, pos, k = [], 0, 0
    originals: dict[str, str] = {}
    for m in [*HOLE_RE.finditer(claim.text), None]:
        stop = m.start() if m else len(claim.text)

        def hole(n: re.Match[str]) -> str:
            nonlocal k
            name = f"{_PREFIX}{k}"
            originals[name] = n.group()
            k += 1
            return f"⟨{name}⟩"

        pieces.append(_LITERAL_NUMBER.sub(hole, claim.text[pos:stop]))
        if m is not None:
            pieces.append(m.group())
            pos = m.end()
    if not originals:
        return None
    try:
        match = find(note.text, "".join(pieces), scopes, displays=note.displays,
                     near=claim.near, after=claim.after)
    except (ResolveError, ValueError):
        return None
    for name, old in originals.items():
        printed = match.values.get(name)
        if printed is None:
            return None
        if "".join(printed.text.split()) != old and not any(
                a <= printed.start and printed.end <= b for a, b in spans):
            return None
    kept = {key: v for key, v in match.values.items() if not key.startswith(_PREFIX)}
    return dataclasses.replace(match, values=kept)
