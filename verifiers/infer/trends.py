"""Pattern family: a direction word about a sequence the line prints, ``the entries fall: 4.0,
3.54, 2.56``.

New notes describe what their numbers do in words -- ``the entries fall as the offset
grows: 4.0, 3.5353, 2.5637``, ``损失逐步下降：2.31、1.87、1.42`` -- and an edit of the word
(``fall`` → ``grow``) is a change of the law nothing reads. Here the word is a word hole
``⟦w⟧`` of class ``direction`` (:mod:`verifiers.words`, ``vocabulary.yaml``) read with
``states: {w: {sign: …}}`` (:mod:`verifiers.printed_data`) over the printed values: for a
falling sequence the largest step, for a rising one the smallest, so the word must agree
with every step. A word of the other meaning is a ``discrepancy`` at the word.

The sequence is three or more numbers after the word on its line (or, after a line that ends
with a colon, on the next line), separated only by commas, ``>``/``<``/``→`` or spaces (or
one printed vector), in a monotone order. Each direction word
of the line before the sequence is tried in turn (``fall as the offset grows``: the word
about the values is not always the nearest); the first the engine verifies is kept. Only
verbs of direction are read (two CJK characters or more; no English comparative such as
``larger``, which compares rather than states a trend).
"""

from __future__ import annotations

import re

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate
from verifiers.infer.tokens import NUM, VAL, Token
from verifiers.words import words_of

__all__ = ["trend_candidates"]

MIN_VALUES = 3
_SEPARATOR = re.compile(r"\s*(?:[,，、;；]|>|<|→|->|\\gt|\\lt|\\to|\$)?\s*\$?\s*")
_COMPARATIVES = {"larger", "higher", "bigger", "more", "smaller", "lower", "fewer", "less"}


def _words() -> list[tuple[str, str]]:
    """(word, meaning) of the direction verbs, longest first."""
    out = []
    for meaning, words in words_of("direction").items():
        for w in words:
            if w in _COMPARATIVES or (not w.isascii() and len(w) < 2):
                continue
            out.append((w, meaning))
    return sorted(out, key=lambda x: -len(x[0]))


def _sequence(text: str, tokens: list[Token], at: int, line_end: int
              ) -> tuple[list[Token], list[float]] | None:
    """The printed values after ``at`` on its line: a run of numbers, or one vector."""
    after = [t for t in tokens if at <= t.start < line_end and t.kind in (NUM, VAL)]
    if not after:
        return None
    if after[0].kind == VAL:
        if after[0].shape != "vector":
            return None
        try:
            p = read_value(after[0].text, after[0].start)
        except Exception:  # noqa: BLE001 - not a plain printed vector
            return None
        values = [float(n.value) for n in p.numbers]
        return ([after[0]], values) if len(values) >= MIN_VALUES else None
    run = [after[0]]
    for tok in after[1:]:
        if tok.kind != NUM or not _SEPARATOR.fullmatch(text[run[-1].end:tok.start]):
            break
        run.append(tok)
    if len(run) < MIN_VALUES:
        return None
    try:
        values = [float(read_value(t.text, t.start).numbers[0].value) for t in run]
    except Exception:  # noqa: BLE001 - a number that is no plain value
        return None
    return run, values


def trend_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """One candidate per (direction word, sequence) on a line; the engine keeps the right one."""
    words = _words()
    pattern = re.compile("|".join(
        (rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])" if w.isascii() else re.escape(w))
        for w, _ in words))
    out: list[Candidate] = []
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        found = list(pattern.finditer(text, start, end))
        if not found:
            continue
        seq = _sequence(text, tokens, found[0].end(), end)
        if seq is None and line.rstrip().endswith((":", "：")):
            nxt = text.find("\n", pos)  # the values on the line the colon introduces
            seq = _sequence(text, tokens, pos, len(text) if nxt < 0 else nxt)
        if seq is None:
            continue
        toks, values = seq
        steps = [b - a for a, b in zip(values, values[1:], strict=False)]
        if not (all(s < 0 for s in steps) or all(s > 0 for s in steps)):
            continue
        falling = steps[0] < 0
        if len(toks) == 1:
            names = [f"v[{k}]" for k in range(len(values))]
            holes = {"v": toks[0]}
        else:
            names = [f"v{k}" for k in range(1, len(toks) + 1)]
            holes = dict(zip(names, toks, strict=True))
        if not any(t.start in uncovered for t in toks):
            continue
        diffs = ", ".join(f"{b} - {a}" for a, b in zip(names, names[1:], strict=False))
        expr = f"{'max' if falling else 'min'}({diffs})"
        for m in found:
            if m.end() > toks[0].start:
                break
            cand = Candidate("trend", "inferred: the direction word agrees with every step "
                             "of the values printed after it", holes, [], {},
                             ["    states:", f"      w: {{sign: \"{expr}\"}}"])
            cand.words = {"w": (m.start(), m.end())}
            cand.group = f"trend-{toks[0].start}"
            out.append(cand)
    return out
