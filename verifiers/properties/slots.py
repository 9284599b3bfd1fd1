"""Word holes of a property claim, bound to the slots its law declares.

Light (no torch, no Hypothesis): the schema validates with :func:`slot_problems`, and the
runner reads each word with :func:`read_words` before it builds the law those words state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from verifiers import words
from verifiers.claimtext import HOLE_RE, HoleRef, did_you_mean
from verifiers.lawsentence import clause_of
from verifiers.properties.params import Spec

if TYPE_CHECKING:
    from verifiers.schema import Claim


@dataclass(frozen=True)
class Word:
    """One word read from the note: its slot, its text and span, its meaning (None: unknown)."""

    slot: str
    vocab: str
    text: str
    start: int
    end: int
    meaning: str | None
    default: str
    lost: bool = False  # a rewritten phrase no longer states the slot: read as its default

    @property
    def flipped(self) -> bool:
        """The note states something other than the law's own (true) value here."""
        return self.meaning is not None and self.meaning != self.default


def slot_problems(claim: Claim, spec: Spec) -> list[str]:
    """Load problems of the claim's word holes against the law's slots (empty when fine)."""
    problems: list[str] = []
    slots = {p.name: p for p in spec.slots}
    listed = ", ".join(slots) or "none"
    for ref in (h for h in claim.holes if h.word):
        if ref.name not in slots:
            problems.append(f"word hole ⟦{ref.name}⟧: property {spec.name!r} has no slot "
                            f"{ref.name!r}{did_you_mean(ref.name, list(slots))} "
                            f"(its slots: {listed})")
    first = HOLE_RE.match(claim.text.lstrip())
    if first is not None and HoleRef.from_match(first).word:
        problems.append("a quote cannot start with a word hole: quote the text before it")
    return problems


def read_words(claim: Claim, spec: Spec, found: Mapping[str, Any],
               phrased: frozenset[str] = frozenset()) -> list[Word]:
    """Each word hole's text (``found``: hole name -> Printed) read in its slot's class; a
    hole in ``phrased`` reads a rewritten phrase, in which one meaning of its class is its
    word (none, or two that disagree: no word of the class)."""
    out = []
    for param in spec.slots:
        printed = found.get(param.name)
        if printed is None:
            continue
        if param.name in phrased:
            stated = words.phrase_meanings(printed.text).get(param.vocab, set())
            if not stated:  # judged only beside a word that states another law (fixedwords)
                out.append(Word(param.name, param.vocab, printed.text, printed.start,
                                printed.end, param.default, param.default, lost=True))
                continue
            if len(stated) > 1:  # two words of the class: the clause of the hole says
                clause = clause_of(claim.text, param.name, printed.text, HOLE_RE)
                stated = (words.phrase_meanings(clause).get(param.vocab, set())
                          if clause is not None else stated)
            meaning = next(iter(stated)) if len(stated) == 1 else None
        else:
            meaning = words.meaning(param.vocab, printed.text)
            if meaning is None and not words.content(printed.text):  # law words only
                # (总是等于: 总是 and 等于), one of the slot's class: read it (乘方 is no 乘)
                stated = words.phrase_meanings(printed.text).get(param.vocab, set())
                meaning = next(iter(stated)) if len(stated) == 1 else None
        if meaning is not None and meaning not in param.choices:
            meaning = None  # the class knows it, the law cannot state it
        out.append(Word(param.name, param.vocab, printed.text, printed.start, printed.end,
                        meaning, param.default))
    return out


def known_words(vocab: str) -> str:
    """The class's words, for a message: "shift: 加, 加上, …; scale: 乘, …"."""
    parts = []
    for meaning, ws in words.words_of(vocab).items():
        shown = ", ".join(ws[:6]) + (", …" if len(ws) > 6 else "")
        parts.append(f"{meaning}: {shown}")
    return "; ".join(parts)
