"""Word holes ``⟦slot⟧``: a property claim reads the words that carry its law from the note.

A sentence such as "给所有 logit ⟦op⟧同一个常数 $c$，结果⟦effect⟧" states a different law when
an author writes 乘以 for 加上 or 变化 for 不变. Quoting the sentence literally would only make
the claim stale, and re-quoting it would pin the false law. A word hole instead matches any
word of the vocabulary (``verifiers/properties/vocabulary.yaml``) at its place, and the law
is built from the meaning of the word read there; a word the vocabulary does not know still
matches (up to the next literal text, within :data:`MAX_WORD` characters of one line) so that
the claim can say *which* word it cannot read (``unparsed``) instead of going stale.

This module is light (the safe YAML loader only): quotes are matched with it on every run.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path

from verifiers.yamlload import load

VOCABULARY = Path(__file__).resolve().parent / "properties" / "vocabulary.yaml"
MAX_WORD = 16  # characters a word outside the vocabulary may take (a short phrase)
_STOP = "\n。；;，,：:！!？?（）()「」“”\"'"  # a word never spans a clause boundary


class VocabularyError(ValueError):
    """The vocabulary file is malformed (a test keeps it well-formed)."""


def normal(word: str) -> str:
    """A word without whitespace: ``j ≤ i`` and ``j≤i`` are the same word."""
    return "".join(word.split())


@functools.cache
def classes() -> dict[str, dict[str, tuple[str, ...]]]:
    """{class: {meaning: words}} from the vocabulary file (read once per process)."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    table = data.get("classes") if isinstance(data, dict) else None
    if not isinstance(table, dict):
        raise VocabularyError(f"{VOCABULARY.name}: expected a mapping 'classes'")
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for cls, meanings in table.items():
        if not isinstance(meanings, dict):
            raise VocabularyError(f"{VOCABULARY.name}: class {cls!r} is not a mapping")
        out[cls] = {}
        for meaning, words in meanings.items():
            if not isinstance(words, list) or not all(isinstance(w, str) and w for w in words):
                raise VocabularyError(f"{VOCABULARY.name}: {cls}.{meaning}: a list of words")
            out[cls][str(meaning)] = tuple(words)
    return out


def meaning(cls: str, word: str) -> str | None:
    """The meaning of ``word`` in vocabulary class ``cls``, or None if the class lacks it."""
    key = normal(word)
    for value, words in classes().get(cls, {}).items():
        if any(normal(w) == key for w in words):
            return value
    bare = strip_modifiers(key)  # 反而越小, 也会变大: the modifiers carry no law
    if bare != key:
        return meaning(cls, bare)
    return None


def words_of(cls: str) -> dict[str, tuple[str, ...]]:
    return classes().get(cls, {})


@functools.cache
def _word_patterns() -> tuple[re.Pattern[str], ...]:
    """Every vocabulary word as a whitespace-tolerant regex, longest first."""
    every = {normal(w) for meanings in classes().values() for ws in meanings.values()
             for w in ws}
    ordered = sorted(every, key=lambda w: (-len(w), w))
    return tuple(re.compile(r"\s*".join(re.escape(ch) for ch in w)) for w in ordered)


def word_ends(text: str, pos: int, limit: int) -> list[int]:
    """Where a word hole starting at ``pos`` may end, most preferred first.

    Vocabulary words first (longest first), then any other short run of text within the
    clause, shortest first: the literal text after the hole decides which one fits, and a
    word outside the vocabulary is reported as such by the property claim.
    """
    ends: list[int] = []
    for pattern in _word_patterns():
        m = pattern.match(text, pos, limit)
        if m and m.end() > pos and m.end() not in ends:
            ends.append(m.end())
    stop = min(limit, pos + MAX_WORD)
    for end in range(pos + 1, stop + 1):  # a word of a space-separated row ("<PAD> 老鼠")
        if text[end - 1] in _STOP or text[end - 1].isspace():
            break  # is tried whole before any cut inside it ("<", "<P")
        if end < limit and text[end] in " \t\u3000":
            if end not in ends:
                ends.append(end)
            break
    for end in range(pos + 1, stop + 1):
        if text[end - 1] in _STOP:
            break
        if end not in ends:
            ends.append(end)
    return ends


# -- law words in a quote's fixed text (issue 12 item 1) -------------------------------------
#
# A claim that quotes a law sentence literally only went `stale` when an author changed a law
# word outside its word holes (也越大 -> 反而越小, 减小 -> 增大). When a quote is not found as
# written, :func:`relax` turns every law word of its fixed text into a word hole of its own
# (an *auto* hole, named ``_lawN``) and lets a run of modifiers (也, 反而, 越, 更, …: words that
# carry no law) before a word hole read as part of the word. If the relaxed quote is found, the
# claim reads each auto word: same meaning, it passes; another meaning of the word's class, the
# law it now states is judged (verifiers/properties/fixedwords.py); no meaning, `unparsed`.

AUTO_PREFIX = "_law"  # ⟦_law1⟧: an auto hole (a claim's own hole names never start with it)
MIN_AUTO = 2  # a law word of one character (是, 有, 会) is too common to read from fixed text,
#: except in the classes of opposites a one-character edit flips (行/列, 大/小, 正/负, 加/减)
ONE_CHARACTER = frozenset({"axis", "direction", "level", "sign", "combine", "operation"})


@functools.cache
def modifiers() -> tuple[str, ...]:
    """Words that carry no law (vocabulary.yaml ``modifiers``), longest first."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    listed = data.get("modifiers", []) if isinstance(data, dict) else []
    if not isinstance(listed, list) or not all(isinstance(w, str) and w for w in listed):
        raise VocabularyError(f"{VOCABULARY.name}: 'modifiers' must be a list of words")
    return tuple(sorted({normal(w) for w in listed}, key=lambda w: (-len(w), w)))


def strip_modifiers(word: str) -> str:
    """``word`` without the modifiers it starts with (反而越小 -> 小), never emptied."""
    key = normal(word)
    changed = True
    while changed:
        changed = False
        for mod in modifiers():
            if key.startswith(mod) and len(key) > len(mod):
                key, changed = key[len(mod):], True
                break
    return key


def meanings(word: str) -> dict[str, str]:
    """{class: meaning} of every class that knows ``word`` (modifiers stripped if need be)."""
    out: dict[str, str] = {}
    for cls in classes():
        found = meaning(cls, word)
        if found is not None:
            out[cls] = found
    return out


def auto_words() -> re.Pattern[str]:
    """The law words :func:`relax` reads from a quote's fixed text (coverage asks which)."""
    return _auto_words()


@functools.cache
def _auto_words() -> re.Pattern[str]:
    """The law words read from fixed text: two characters or more, longest first."""
    every = {normal(w) for meanings_ in classes().values() for ws in meanings_.values()
             for w in ws}
    single = {normal(w) for cls in ONE_CHARACTER for ws in classes().get(cls, {}).values()
              for w in ws if len(normal(w)) == 1 and not w.isascii()}
    usable = [w for w in every if (len(w) >= MIN_AUTO or w in single) and not w.isdigit()
              and not (w.isascii() and len(w) < 3) and w not in modifiers()]
    ordered = sorted(usable, key=lambda w: (-len(w), w))
    return re.compile("|".join(r"\s*".join(re.escape(ch) for ch in w) for w in ordered))


def _modifier_run_before(chunk: str) -> int:
    """Where the run of modifiers that ends ``chunk`` begins (``len(chunk)``: none)."""
    end = len(chunk.rstrip())
    k = end
    while k > 0:
        for mod in modifiers():
            if chunk[:k].endswith(mod):
                k -= len(mod)
                break
        else:
            break
    return k


@dataclass(frozen=True)
class Relaxed:
    """A quote with the law words of its fixed text as auto holes (``_lawN`` -> quoted word)."""

    text: str
    quoted: dict[str, str]


def relax(quote: str, hole_re: re.Pattern[str]) -> Relaxed | None:
    """The quote with its fixed law words as auto holes and the modifiers before a word hole
    left to the word, or None when it has no law word to read (``hole_re``: the hole syntax).
    The quote's first word stays literal (a quote cannot start with a word hole)."""
    pieces: list[str] = []
    quoted: dict[str, str] = {}
    pos = 0
    holes = [*hole_re.finditer(quote), None]
    for hole in holes:
        chunk = quote[pos:hole.start() if hole else len(quote)]
        out, k = [], 0
        for m in _auto_words().finditer(chunk):
            if pos + m.start() == len(quote) - len(quote.lstrip()):
                continue  # the quote's opening word
            lead = chunk[k:m.start()]
            cut = _modifier_run_before(lead) if lead.strip() else len(lead)
            cut = cut if lead[:cut].strip() else len(lead)  # keep a chunk of modifiers only
            name = f"{AUTO_PREFIX}{len(quoted) + 1}"
            quoted[name] = normal(lead[cut:] + m.group())
            out += [lead[:cut], f"⟦{name}⟧"]
            k = m.end()
        tail = chunk[k:]
        if hole is not None and hole.group(0).startswith("⟦") and tail.strip():
            cut = _modifier_run_before(tail)
            if tail[:cut].strip() and cut < len(tail.rstrip()):
                tail = tail[:cut]
        out.append(tail)
        pieces.append("".join(out))
        if hole is not None:
            pieces.append(hole.group(0))
            pos = hole.end()
    text = "".join(pieces)
    return Relaxed(text, quoted) if quoted or text != quote else None


# -- phrases: a law sentence rewritten in more than one word (issue 12 item 1) ----------------
#
# An author rewrites a phrase, not only a word: 保持参数不变 -> 也会改变参数, 前一个 -> 前面所有,
# 和参数相同 -> 是参数的转置. When neither the quote nor its relaxed form is found, :func:`rephrase`
# offers the quote with the law-bearing span of one clause (then of two) replaced by a *phrase
# hole* ``⟦_phraseN⟧``, which reads any text up to the clause's end. The rest of the quote (its
# other clauses, its formula and value holes) must still be found: that is the sentence's
# structure, and a quote that keeps too little of its fixed text is never rephrased. The phrase
# the note prints is then read with :func:`phrase_meanings` (every vocabulary word in it, a
# negation before a word flipping a class of two meanings) and compared, word by word, with the
# span the claim quotes (verifiers/properties/fixedwords.py).

PHRASE_PREFIX = "_phrase"  # ⟦_phrase1⟧: a rewritten span (never a claim's own hole name)
MAX_PHRASE = 48  # characters a phrase hole reads (one clause)
_CLAUSE_STOP = "\n。；;，,：:！!？?（）()「」“”\""  # the text a phrase never crosses
MERGE_GAP = 3  # differences this few characters apart in one clause are one phrase
KEEP = 0.5  # a rephrased quote keeps at least this share of its fixed characters literal
MIN_KEPT = 4  # and at least this many


def phrase_ends(text: str, pos: int, limit: int, last: bool) -> list[int]:
    """Where a phrase hole starting at ``pos`` may end, shortest first (the literal after it
    decides); the quote's last part takes its clause whole."""
    stop = min(limit, pos + MAX_PHRASE)
    ends = []
    for end in range(pos + 1, stop + 1):
        if text[end - 1] in _CLAUSE_STOP:
            break
        if not text[end - 1].isspace():
            ends.append(end)
    return ends[-1:] if last else ends


@functools.cache
def negations() -> tuple[str, ...]:
    """Words that deny the word after them (vocabulary.yaml ``negations``), longest first."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    listed = data.get("negations", []) if isinstance(data, dict) else []
    if not isinstance(listed, list) or not all(isinstance(w, str) and w for w in listed):
        raise VocabularyError(f"{VOCABULARY.name}: 'negations' must be a list of words")
    return tuple(sorted({normal(w) for w in listed}, key=lambda w: (-len(w), w)))


@functools.cache
def _phrase_words() -> re.Pattern[str]:
    """Every vocabulary word (one character too: a phrase is read whole), longest first."""
    every = {normal(w) for meanings_ in classes().values() for ws in meanings_.values()
             for w in ws}
    usable = [w for w in every if not w.isdigit()]
    ordered = sorted(usable, key=lambda w: (-len(w), w))
    alternatives = [r"\s*".join(re.escape(ch) for ch in w) + (r"\b" if w.isascii() else "")
                    for w in ordered]
    return re.compile("|".join(alternatives), re.IGNORECASE)


@functools.cache
def graded() -> frozenset[str]:
    """Classes of degrees (vocabulary.yaml ``graded``): a denied word of one says nothing."""
    root = load(VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    listed = data.get("graded", []) if isinstance(data, dict) else []
    if not isinstance(listed, list) or not all(isinstance(w, str) for w in listed):
        raise VocabularyError(f"{VOCABULARY.name}: 'graded' must be a list of classes")
    return frozenset(listed)


def _negated(meanings_: dict[str, str]) -> dict[str, str]:
    """A denied word: the other meaning of each class of two opposite meanings (a class of
    more meanings, or of degrees, is dropped)."""
    out = {}
    for cls, value in meanings_.items():
        others = [m for m in classes()[cls] if m != value]
        if len(others) == 1 and cls not in graded():
            out[cls] = others[0]
    return out


def _scan(text: str) -> list[tuple[int, int, dict[str, str]]]:
    """(start, end, {class: meaning}) of each vocabulary word of a phrase, left to right."""
    out: list[tuple[int, int, dict[str, str]]] = []
    pattern, pos = _phrase_words(), 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        plain = pattern.match(text, pos)
        denied = None
        for neg in negations():
            if text.startswith(neg, pos):
                after = pattern.match(text, pos + len(neg))
                if after is not None and after.end() > (plain.end() if plain else pos):
                    denied = after
                break
        if denied is not None:
            out.append((pos, denied.end(), _negated(meanings(denied.group()))))
            pos = denied.end()
        elif plain is not None and plain.end() > pos:
            out.append((pos, plain.end(), meanings(plain.group())))
            pos = plain.end()
        else:
            pos += 1
    return out


def phrase_words(text: str) -> list[tuple[str, dict[str, str]]]:
    """The vocabulary words of a phrase, left to right, each with {class: meaning}; a negation
    right before a word (不再只依赖, 没有改变) states the other meaning of a two-meaning class."""
    return [(text[a:b], m) for a, b, m in _scan(text) if m]


#: punctuation a rewritten phrase may change freely (a symbol such as * or × is content)
_PUNCTUATION = frozenset("，。、；：！？“”「」‘’（）,.;:!?\"'")
#: characters that carry no content of their own in a phrase (particles, conjunctions)
FUNCTION = frozenset("的了和与及在把被将对就也都还之于而是并且其它它会")


def content(text: str) -> str:
    """A phrase without its law words, modifiers, particles, spaces and punctuation: what it
    is about (参数 in 也会改变参数)."""
    keep = [True] * len(text)
    for a, b, _ in _scan(text):
        keep[a:b] = [False] * (b - a)
    rest = "".join(ch for ch, k in zip(text, keep, strict=True) if k)
    for mod in (*modifiers(), *negations()):
        rest = rest.replace(mod, "")
    return "".join(ch for ch in rest if not ch.isspace() and ch not in FUNCTION
                   and ch not in _PUNCTUATION)  # a symbol (* or ×, i or j) is content


def loose_negations(text: str) -> int:
    """Negations outside the vocabulary words of a phrase (不 in 不喜欢): each denies what
    follows, so a phrase that gains or loses one says something else."""
    keep = [True] * len(text)
    for a, b, _ in _scan(text):
        keep[a:b] = [False] * (b - a)
    rest = "".join(ch if k else " " for ch, k in zip(text, keep, strict=True))
    count = 0
    for neg in negations():
        count += rest.count(neg)
        rest = rest.replace(neg, " ")
    return count


def judgeable(quoted: str, printed: str) -> bool:
    """Can a rewritten phrase be judged against the span the claim quotes? Yes when it is
    about nothing new (its content is within the quoted span's), or when one of the quoted
    law words is no longer stated (a law changed, whatever else did). A phrase that keeps
    every law word but is about something new (分数越大 -> 温度越大) is another sentence:
    the claim stays ``stale``, never a pass."""
    if loose_negations(quoted) != loose_negations(printed):
        return True  # a negation came or went: judged (unparsed when nothing reads it)
    if not (phrase_words(quoted) or phrase_words(printed)):
        return content(quoted) == content(printed)  # no law word either side: text only
    old_content = Counter(content(quoted))
    if not Counter(content(printed)) - old_content:
        return True
    new = phrase_meanings(printed)
    return any(not any(m in new.get(c, ()) for c, m in found.items())
               for _, found in phrase_words(quoted))


def phrase_meanings(text: str) -> dict[str, set[str]]:
    """{class: meanings} of every vocabulary word of a phrase (:func:`phrase_words`)."""
    out: dict[str, set[str]] = {}
    for _, found in phrase_words(text):
        for cls, value in found.items():
            out.setdefault(cls, set()).add(value)
    return out


@dataclass(frozen=True)
class Rephrased:
    """A quote with law-bearing spans as phrase holes: ``_phraseN`` -> the quoted span, and the
    claim's word holes each span took in (``absorbed``)."""

    text: str
    quoted: dict[str, str]
    absorbed: dict[str, tuple[str, ...]]


def _clauses(quote: str, hole_re: re.Pattern[str]) -> list[tuple[int, int]]:
    """(start, end) of each clause of the quote: text between clause stops and value or
    formula holes (a word hole is part of its clause)."""
    cuts = [0]
    for m in hole_re.finditer(quote):
        if not m.group(0).startswith("⟦"):
            cuts += [m.start(), m.end()]
    cuts.append(len(quote))
    out = []
    for a, b in zip(cuts[::2], cuts[1::2], strict=True):
        start = a
        for k in range(a, b + 1):
            if k == b or quote[k] in _CLAUSE_STOP:
                if quote[start:k].strip():
                    out.append((start, k))
                start = k + 1
    return out


def _law_spans(quote: str, clause: tuple[int, int], hole_re: re.Pattern[str]
               ) -> list[tuple[int, int]]:
    """The spans of one clause worth rephrasing: from its first law word (or word hole) to its
    last, then the whole clause (its first character kept when it opens the quote)."""
    a, b = clause
    opener = len(quote) - len(quote.lstrip())
    marks = [(m.start() + a, m.end() + a) for m in _auto_words().finditer(quote[a:b])
             if not _inside_latin(quote, m.start() + a, m.end() + a)]
    marks += [(m.start(), m.end()) for m in hole_re.finditer(quote, a, b)]
    marks = [(s, e) for s, e in marks if s > opener]
    while a < b and quote[a].isspace():
        a += 1
    while b > a and quote[b - 1].isspace():
        b -= 1
    whole = (a + 1, b) if a == opener else (a, b)
    if not marks:
        return []  # a clause with no law word is the sentence's structure, never rewritten
    spans = [(min(s for s, _ in marks), max(e for _, e in marks))]
    if whole[1] > whole[0] and whole not in spans:
        spans.append(whole)
    return spans


def _inside_latin(text: str, s: int, e: int) -> bool:
    """A Latin law word inside a longer word (``big`` in ``bigram``) is no word of its own."""
    before = text[s - 1:s] if s else ""
    after = text[e:e + 1]
    return text[s:e].isascii() and (before.isalnum() and before.isascii()
                                    or after.isalnum() and after.isascii())


def _fixed_chars(text: str, hole_re: re.Pattern[str]) -> int:
    return len(normal(hole_re.sub("", text)))


def rephrase(quote: str, hole_re: re.Pattern[str], most: int = 2) -> list[Rephrased]:
    """Rephrased forms of the quote, the least rewritten first: one clause's law span, one
    clause whole, then two clauses. Each keeps enough fixed text to be the same sentence."""
    clauses = _clauses(quote, hole_re)
    options = [[(c, s) for s in _law_spans(quote, c, hole_re)] for c in clauses]
    total = _fixed_chars(quote, hole_re)
    out: list[Rephrased] = []
    seen: set[str] = set()
    for count in range(1, most + 1):
        for mode in (0, 1):
            for chosen in _choose(options, count, mode):
                made = _rephrased(quote, sorted(s for _, s in chosen), hole_re)
                kept = _fixed_chars(hole_re.sub("", made.text), hole_re)
                if made.text in seen or kept < max(MIN_KEPT, KEEP * total):
                    continue
                seen.add(made.text)
                out.append(made)
    return out


def _choose(options: list[list[tuple[tuple[int, int], tuple[int, int]]]], count: int,
            mode: int) -> list[list[tuple[tuple[int, int], tuple[int, int]]]]:
    """``count`` clauses with a law word, each rephrased by its law span (mode 0) or whole
    (mode 1)."""
    import itertools

    picked = []
    usable = [k for k, spans in enumerate(options) if spans]
    for combo in itertools.combinations(usable, count):
        if mode == 0 or any(len(options[k]) > 1 for k in combo):
            picked.append([options[k][min(mode, len(options[k]) - 1)] for k in combo])
    return picked


def _rephrased(quote: str, spans: list[tuple[int, int]], hole_re: re.Pattern[str]) -> Rephrased:
    pieces, quoted, absorbed, pos = [], {}, {}, 0
    for k, (s, e) in enumerate(spans, 1):
        name = f"{PHRASE_PREFIX}{k}"
        pieces += [quote[pos:s], f"⟦{name}⟧"]
        quoted[name] = quote[s:e]
        absorbed[name] = tuple(m.group(0)[1:-1].strip() for m in hole_re.finditer(quote, s, e)
                               if m.group(0).startswith("⟦"))
        pos = e
    pieces.append(quote[pos:])
    return Rephrased("".join(pieces), quoted, absorbed)


def diff_rephrase(quote: str, line: str, hole_re: re.Pattern[str]) -> Rephrased | None:
    """The quote with the places where its most alike line differs from the note's ``line``
    (its closest line) as phrase holes, one per clause, or None.

    Why: a rewrite need not follow a clause's law words (尽可能保留原来的高低顺序 -> 把原来的
    高低顺序反过来 changes both ends of the clause). The quote line is aligned with the note line
    character by character, a value, formula or word hole standing for whatever the note prints
    in its place; a difference that takes in a value or formula hole is a changed structure
    (None), every other one becomes a phrase hole (differences within one clause merged)."""
    starts, pos = [], 0
    for part in quote.split("\n"):
        starts.append(pos)
        pos += len(part) + 1
    parts = quote.split("\n")
    scored = [(SequenceMatcher(None, normal(p), normal(line), autojunk=False).ratio(), k)
              for k, p in enumerate(parts) if p.strip()]
    if not scored:
        return None
    _, k = max(scored)
    base, qline = starts[k], parts[k]
    tokens: list[tuple[int, int, str]] = []  # (start, end, key) of the quote line
    pos = 0
    for m in [*hole_re.finditer(qline), None]:
        stop = m.start() if m else len(qline)
        tokens += [(i, i + 1, ch) for i, ch in enumerate(qline[pos:stop], pos) if not ch.isspace()]
        if m is not None:
            tokens.append((m.start(), m.end(), "\0" + m.group(0)))
            pos = m.end()
    chars = [ch for ch in line if not ch.isspace()]
    matcher = SequenceMatcher(None, [t[2] for t in tokens], chars, autojunk=False)
    regions: list[list[int]] = []
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag == "equal" or (tag == "insert" and i1 in (0, len(tokens))):
            continue  # the note's line goes on before or after the quote
        if tag == "replace" and i2 - i1 == 1 and tokens[i1][2].startswith("\0"):
            continue  # a hole and what the note prints there
        if any(tokens[i][2].startswith(("\0⟨", "\0⟪")) for i in range(i1, i2)):
            return None  # a value or formula moved or went: the structure changed
        if i1 == i2:  # an insertion: anchor it on the token before (or after) it
            i1, i2 = (i1 - 1, i1) if i1 > 0 else (i1, i1 + 1)
            if i2 > len(tokens) or tokens[i1][2].startswith(("\0⟨", "\0⟪")):
                return None
        elif tag == "delete":  # nothing printed in its place: take in a neighbour to read
            if i1 > 0 and not tokens[i1 - 1][2].startswith("\0"):
                i1 -= 1
            elif i2 < len(tokens) and not tokens[i2][2].startswith("\0"):
                i2 += 1
            else:
                return None
        if regions and i1 - regions[-1][1] <= MERGE_GAP and not any(
                tokens[i][2] in _CLAUSE_STOP for i in range(regions[-1][1], i1)):
            regions[-1][1] = max(regions[-1][1], i2)
        else:
            regions.append([i1, i2])
    if not regions:
        return None
    spans = [(base + tokens[a][0], base + tokens[b - 1][1]) for a, b in regions]
    made = _rephrased(quote, spans, hole_re)
    kept = _fixed_chars(hole_re.sub("", made.text), hole_re)
    return made if kept >= max(MIN_KEPT, KEEP * _fixed_chars(quote, hole_re)) else None
