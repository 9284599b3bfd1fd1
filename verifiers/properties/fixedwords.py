"""Law words a quote holds as fixed text, read when the note changed them (issue 12 item 1).

A claim's quote is found with its fixed law words read as holes only when it is not found
as written (``verifiers/words.py`` ``relax``), so on an unedited note nothing here runs. Then
each fixed word is compared with what the note prints in its place:

- the same meaning in a class that knows both (减小 -> 变小, 也越大 -> 反而越大): nothing to say;
- another meaning of such a class: the sentence now states another law. A property claim
  reads it as its law's slot of that class — a slot the claim has no word hole for takes the
  word's meaning; a slot read by a word hole is flipped when the two words are a comparison
  of one binary class (分数越大 … 越⟦prob⟧ with 越大 -> 越小 states the opposite order), the
  hole nearest after the word first (the premise comes before what it implies). The law is
  then searched as stated (a false one is a ``discrepancy`` at the word, with its shrunk
  counterexample);
- otherwise (a word no class of the fixed word knows, a claim with no law to read it with):
  ``unparsed`` at the word, never a pass and never just ``stale``.

Light: no torch, no Hypothesis (the engine calls :func:`unread_verdicts` for every kind).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from verifiers import words
from verifiers.claimtext import HOLE_RE
from verifiers.holes import Match, Printed
from verifiers.lawsentence import SENTENCE_PREFIX
from verifiers.notes import Note
from verifiers.properties.params import Spec
from verifiers.properties.slots import Word
from verifiers.verdicts import UNPARSED, ValueVerdict

#: classes whose two meanings are the two sides of a comparison: flipping one word of such a
#: pair states the opposite relation (越大 … 越大 is increasing; 越小 … 越大 decreasing)
COMPARISON = frozenset({"direction", "level", "shape", "size"})


@dataclass(frozen=True)
class Change:
    """A fixed law word the note changed: the classes that know both words, old -> new."""

    quoted: str
    printed: Printed
    classes: dict[str, tuple[str, str]]  # class -> (quoted meaning, printed meaning)
    rank: dict[str, int]  # class -> how many fixed words of that class come before it


def changes(match: Match, absorbed: frozenset[str] = frozenset()
            ) -> tuple[list[Change], list[tuple[str, Printed]]]:
    """The changed fixed words with a meaning, and those with none (quoted word, printed).
    ``absorbed``: the classes of the claim's word holes a rewritten phrase took in (the
    phrase is read for them in their slots, not here)."""
    changed: list[Change] = []
    unread: list[tuple[str, Printed]] = []
    seen: dict[str, int] = {}  # class -> fixed words of it so far (the quote's order)
    for name, (quoted, printed) in match.fixed.items():
        if name.startswith(SENTENCE_PREFIX):
            _sentence(quoted, printed, absorbed, changed, unread)
            continue
        if name.startswith(words.PHRASE_PREFIX):
            _phrase(quoted, printed, absorbed, changed, unread)
            continue
        old, new = words.meanings(quoted), words.meanings(printed.text)
        if not new:  # the hole took in more than a word (前一个 -> 前面所有 token): read it
            new = {c: next(iter(m)) for c, m in words.phrase_meanings(printed.text).items()
                   if len(m) == 1}
        rank = {c: seen.get(c, 0) for c in old}
        for c in old:
            seen[c] = seen.get(c, 0) + 1
        shared = {c: (old[c], new[c]) for c in old if c in new}
        if any(a == b for a, b in shared.values()):
            continue  # a synonym, or a modifier changed: the sentence states the same
        if shared:
            changed.append(Change(quoted, printed, shared, rank))
        else:
            unread.append((quoted, printed))
    return changed, unread


def _phrase(quoted: str, printed: Printed, absorbed: frozenset[str], changed: list[Change],
            unread: list[tuple[str, Printed]]) -> None:
    """A rewritten phrase, read word by word against the span the claim quotes: a quoted law
    word whose meaning the phrase still states is kept (a synonym, a reordering); one whose
    class the phrase states with another meaning is a change; when no law word is kept or
    changed and one is lost, the phrase cannot be read (``unparsed`` at it)."""
    new = words.phrase_meanings(printed.text)
    lost, diffs = False, {}
    for _word, old in words.phrase_words(HOLE_RE.sub(" ", quoted)):
        mine = {c: m for c, m in old.items() if c not in absorbed}
        if not mine or any(m in new.get(c, ()) for c, m in mine.items()):
            continue  # read by a slot, or still stated
        shared = {c: (m, next(iter(new[c]))) for c, m in mine.items() if len(new.get(c, ())) == 1}
        if shared:
            diffs.update(shared)
        else:
            lost = True
    plain = HOLE_RE.sub(" ", quoted)
    lost = lost or words.loose_negations(plain) != words.loose_negations(printed.text)
    if diffs:
        changed.append(Change(quoted, printed, diffs, {c: 0 for c in diffs}))
    elif lost:
        unread.append((quoted, printed))


def _sentence(quoted: str, printed: Printed, absorbed: frozenset[str], changed: list[Change],
              unread: list[tuple[str, Printed]]) -> None:
    """A law sentence rewritten whole (verifiers/lawsentence.py). Read like a phrase, except
    that a claim whose slots read the sentence is judged by them: a fixed law word it no longer
    says (不管, 始终 in 不管输入是什么，这三个系数始终不变 -> 这三个系数不随输入变化) is a
    rewording, not a law lost. A sentence that keeps every law word but is about something
    else (这三个 -> 这四个) is another sentence: ``unparsed``, never a pass."""
    plain = HOLE_RE.sub(" ", quoted)
    if not words.judgeable(plain, printed.text):
        unread.append((quoted, printed))
        return
    if not absorbed:
        _phrase(quoted, printed, absorbed, changed, unread)
        return
    mine: list[Change] = []
    _phrase(quoted, printed, absorbed, mine, [])
    changed.extend(mine)
    if words.loose_negations(plain) != words.loose_negations(printed.text):
        unread.append((quoted, printed))
    elif _named_lost(plain, printed.text, absorbed):
        unread.append((quoted, printed))


#: classes whose words qualify what a sentence is about (laws7): one lost from a rewritten
#: sentence is another subject (因果掩码 -> 双向掩码), never a rewording. Not ``component``: a
#: component named in passing may go (一次注意力计算的最后一步 -> 最后一步); one replaced by
#: another is a change of its class, judged as such
NAMING = frozenset({"trait", "comparison", "condition", "count"})


def _named_lost(quoted: str, printed: str, absorbed: frozenset[str]) -> bool:
    """Does the rewritten sentence drop a naming law word of the quote (a class no slot of the
    claim reads) without stating the same meaning?"""
    new = words.phrase_meanings(printed)
    for _word, old in words.phrase_words(quoted):
        named = {c: m for c, m in old.items() if c in NAMING and c not in absorbed}
        if named and not any(m in new.get(c, ()) for c, m in named.items()):
            return True
    return False


def _said(text: str) -> str:
    """The law words a phrase states, for a message: "仅由 (exclusive: only)"."""
    found = words.phrase_words(HOLE_RE.sub(" ", text))
    return "; ".join(f"{w} ({', '.join(f'{c}: {m}' for c, m in ms.items())})"
                     for w, ms in found) or "no word of the vocabulary"


def unparsed(name: str, quoted: str, printed: Printed, note: Note, why: str) -> ValueVerdict:
    if not words.meanings(quoted):  # a rewritten phrase: say what each side's words state
        why = (f"{why}; the quoted words state {_said(quoted)}, the note's state "
               f"{_said(printed.text)}")
    return ValueVerdict(
        name=name, printed=printed.text, expected=f"a reading of {quoted!r}", status=UNPARSED,
        start=note.position(printed.start), end=note.position(printed.end),
        message=f"{name}: the note now says {printed.text!r} where the claim quotes {quoted!r}: "
                f"{why}")


def _classes(quoted: str) -> str:
    known = words.meanings(quoted)
    return ", ".join(f"{c}: {m}" for c, m in known.items()) or "no class"


def unread_verdicts(name: str, match: Match, note: Note) -> list[ValueVerdict]:
    """A claim with no law to read its fixed words with: each changed one is ``unparsed``."""
    changed, unread = changes(match)
    out = [unparsed(name, q, p, note, f"a word of no class of {q!r} ({_classes(q)})")
           for q, p in unread]
    for c in changed:
        said = "; ".join(f"{cls}: {a} -> {b}" for cls, (a, b) in c.classes.items())
        out.append(unparsed(name, c.quoted, c.printed, note,
                             f"it states another law ({said}), and this claim reads no law "
                             "from the word: a property claim with a word hole must judge it"))
    return out


def apply(spec: Spec, read: list[Word], match: Match
          ) -> tuple[list[Word], list[tuple[Change | None, str, Printed]]]:
    """The claim's words with the changed fixed words applied to the law's slots, and the
    fixed words the law cannot read ((change or None, quoted, printed))."""
    absorbed = frozenset(p.vocab for p in spec.slots if p.name in match.phrased)
    changed, unread = changes(match, absorbed)
    out = list(read)
    failed: list[tuple[Change | None, str, Printed]] = [(None, q, p) for q, p in unread]
    holed = frozenset(w.slot for w in read)  # the slots the claim's own word holes read
    for c in changed:
        word = _bind(spec, out, holed, c)
        if word is None:
            failed.append((c, c.quoted, c.printed))
            continue
        out = [w for w in out if w.slot != word.slot] + [word]
    judged = any(w.flipped for w in out) or len(changed) > len(
        [f for f in failed if f[0] is not None])
    lost = next((w for w in out if w.lost), None)
    if lost is not None and not judged:  # a rewritten phrase that no longer states a slot
        quoted = next((q for n, (q, p) in match.fixed.items() if p.start <= lost.start < p.end),
                      lost.text)
        failed.append((None, quoted, Printed(lost.text, lost.start, lost.end, (), ())))
    if judged:  # a phrase judged as another law: a law word lost beside it says no more
        failed = [f for f in failed if not (f[0] is None and not words.meanings(f[1]))]
    return out, failed


def _bind(spec: Spec, read: list[Word], holed: frozenset[str], c: Change) -> Word | None:
    """The slot a changed fixed word states, as a word of the claim, or None."""
    for cls, (_, new) in c.classes.items():  # a slot the claim quotes literally: the k-th
        literal = [p for p in spec.slots if p.vocab == cls and p.name not in holed]
        k = c.rank.get(cls, 0)  # fixed word of a class is its k-th slot not read by a hole
        param = literal[k] if k < len(literal) else (literal[-1] if literal else None)
        if param is not None and new in param.choices:
            return Word(param.name, param.vocab, c.printed.text, c.printed.start,
                        c.printed.end, new, param.default)
    pairs = [w for w in read if w.vocab in c.classes and w.vocab in COMPARISON
             and w.meaning is not None and len(words.words_of(w.vocab)) == 2]
    if not pairs:
        return None
    after = [w for w in pairs if w.start >= c.printed.end]
    target = min(after, key=lambda w: w.start) if after else max(pairs, key=lambda w: w.start)
    other = next(m for m in words.words_of(target.vocab) if m != target.meaning)
    param = next(p for p in spec.slots if p.name == target.slot)
    if other not in param.choices:
        return None
    # the comparison is read from both words: the flipped premise flips what it implies
    return replace(target, text=c.printed.text, start=c.printed.start, end=c.printed.end,
                   meaning=other)
