"""Finding a procedure claim's quote, also after a step was moved, dropped or added.

A procedure claim quotes its steps with word holes: ``⟦s1⟧`` reads an operation word, and a
hole named ``_…`` (``⟦_1⟧``) skips the rest of its line unread (a step's explanation, a
formula that other claims read). The quote is cut into

    prefix, body 1, head 2, body 2, …, head n, body n

where body k is step k's hole with the text that follows it on its line, and head k the text
that leads to step k (``\\n2. ``, `` → ``). When the quote as written is not found, the
variants an author's edit produces are tried: the bodies in another order (a step moved or
two swapped; the heads, with their numbers, stay in place), one body dropped (the last head
goes), one unknown step added (a new head numbered one more). The first variant found is
read, so an edited order is *checked* instead of making the claim stale.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from verifiers.claimtext import HOLE_RE, HoleRef
from verifiers.holes import Match, Printed, ResolveError, find
from verifiers.notes import Note
from verifiers.schema import Claim

__all__ = ["Step", "locate", "param_owners", "quote_spans", "read_params", "read_steps"]

_WS = r"[ \t\u3000\u00a0\n\r]"
_STOPS = "\n。；;，,：:！!？?（）()→⟶│“”「」\"'"
_NOT_FIRST = r"\s│┃|→⟶"  # a word starts at a letter, not at a frame or an arrow
_WORD = rf"([^{_NOT_FIRST}][^{re.escape(_STOPS)}]{{0,23}}?)"
_LAST_WORD = rf"([^{_NOT_FIRST}][^{re.escape(_STOPS)}]{{0,23}})"
_REST = r"[^\n]*"
# an added or rewritten step: read by looking for a vocabulary word in it
_NEW_LINE_LAZY = r"([^\n]{1,80}?)"
_NEW_LINE = r"([^\n]{1,80})"
_CN = "零一二三四五六七八九十"


@dataclass(frozen=True)
class Step:
    """One step read from the note: its text and span; ``name`` is the hole ('+' if added)."""

    name: str
    text: str
    start: int
    end: int


def _literal(chunk: str) -> str:
    """Escape literal text; whitespace is optional except between two word characters."""
    out: list[str] = []
    pending, prev = False, ""
    for ch in chunk:
        if ch.isspace():
            pending = True
            continue
        if prev:
            out.append(f"{_WS}+" if pending and prev.isalnum() and ch.isalnum() else f"{_WS}*")
        out.append(re.escape(ch))
        prev, pending = ch, False
    return "".join(out)


@dataclass(frozen=True)
class _Body:
    name: str  # the op hole's name, or "+" for an added step
    parts: tuple[str | HoleRef, ...]  # the hole, skip holes and literal tail


@dataclass(frozen=True)
class _Shape:
    prefix: str
    bodies: tuple[_Body, ...]
    heads: tuple[str, ...]  # heads[k] leads to bodies[k + 1]


def _skip(ref: object) -> bool:
    return isinstance(ref, HoleRef) and ref.name.startswith("_")


_FRAME = re.compile(r"(?:[ \t]*[│┃|])+[ \t]*")  # the left frame of a line inside a box
_MARKER = re.compile(r"\s*(?:\d{1,2}(?:\. |、)|第\s*[一二三四五六七八九十\d]+\s*步\s*[，,：:]?"
                     r"|Step\s*\d+\s*[：:]?|→|⟶|->)\s*", re.IGNORECASE)


def _split(lit: str) -> tuple[str, str, str]:
    """A literal between two steps -> (tail of the one before, head of the next, its lead).

    The head is the line break and the step's marker (``\n3. ``, ``\n第三步：``) or the
    arrow; it stays in place when steps move. The lead is the text of the next step before
    its word (``把出现最多的那一对``): it moves with the step.
    """
    k = lit.rfind("\n")
    if k < 0:
        k = max(lit.rfind("→"), lit.rfind("⟶"), lit.rfind("->"))
    if k < 0:
        return "", lit, ""
    tail, rest = lit[:k], lit[k:]
    m = _MARKER.match(rest, 1 if rest.startswith("\n") else 0)
    if m is None and rest.startswith("\n"):
        m = _FRAME.match(rest, 1)  # a box line "│ │ Softmax": the frame stays, the text moves
    cut = m.end() if m else len(rest)
    return tail, rest[:cut], rest[cut:]


def _param(ref: object) -> bool:
    """A parameter hole (``⟦order⟧``): a word of the step it stands in, not a step."""
    from verifiers.procedures.params import class_of

    return isinstance(ref, HoleRef) and class_of(ref.name) is not None


_BREAK = ("\n", "→", "⟶", "->")


@functools.lru_cache(maxsize=256)
def _shape(text: str) -> _Shape:
    pieces: list[str | HoleRef] = []
    pos = 0
    for m in HOLE_RE.finditer(text):
        pieces.append(text[pos:m.start()])
        pieces.append(HoleRef.from_match(m))
        pos = m.end()
    pieces.append(text[pos:])
    prefix, lead = pieces[0], ""
    refs, lits = pieces[1::2], pieces[2::2]
    if refs and "\n" in text[:text.find("⟦")]:  # the first step's marker and lead
        first = pieces[0]
        k = first.rfind("\n")
        m = _MARKER.match(first, k + 1) or _FRAME.match(first, k + 1)
        if m:
            prefix, lead = first[:m.end()], first[m.end():]
    elif refs:
        m = re.search(r"(?:\d{1,2}(?:\. |、)|第\s*[一二三四五六七八九十\d]+\s*步\s*[，,：:]?"
                      r"|Step\s*\d+\s*[：:]?)\s*", prefix)
        if m and m.start() == 0:
            prefix, lead = prefix[:m.end()], prefix[m.end():]
        elif _FRAME.match(prefix) and "\n" not in prefix:  # "│ │ （可选）÷ ⟦s1⟧": a box line
            m = _FRAME.match(prefix)
            prefix, lead = prefix[:m.end()], prefix[m.end():]
    # A step is its operation word with the skip and parameter holes around it: a parameter
    # before the word on its line (``按概率⟦order⟧⟦s1⟧``) belongs to the step it leads to.
    bodies: list[list[str | HoleRef]] = []
    heads: list[str] = []
    current: list[str | HoleRef] = [lead]
    has_op = False
    for k, (ref, lit) in enumerate(zip(refs, lits, strict=True)):
        current.append(ref)
        has_op = has_op or not (_skip(ref) or _param(ref))
        following = refs[k + 1] if k + 1 < len(refs) else None
        new_step = following is not None and has_op and not _skip(following) and (
            not _param(following) or any(b in lit for b in _BREAK))
        if new_step:
            tail, head, lead = _split(lit)
            current.append(tail)
            heads.append(head)
            bodies.append(current)
            current, has_op = [lead], False
        else:
            current.append(lit)
    bodies.append(current)
    shaped = [_Body(_op_name(b), tuple(b)) for b in bodies]
    return _Shape(prefix, tuple(shaped), tuple(heads))


def _op_name(body: list[str | HoleRef]) -> str:
    return next((p.name for p in body if isinstance(p, HoleRef) and not _skip(p)
                 and not _param(p)), "")


def param_owners(text: str) -> dict[str, str]:
    """Each parameter hole of a quote -> the operation hole of the step it stands in."""
    return {p.name: body.name for body in _shape(text).bodies for p in body.parts
            if _param(p)}


def _param_pattern(ref: HoleRef, final: bool) -> str:
    """A parameter's words (longest first, so ``按概率⟦order⟧⟦s1⟧`` splits at the word),
    else any short text, read and found unknown (``unparsed``), never a pass."""
    from verifiers.procedures.params import class_of, words_of

    known = "|".join(_literal(w) for w in words_of(class_of(ref.name) or ""))
    other = _LAST_WORD[1:-1] if final else _WORD[1:-1]
    return f"((?:{known})|{other})"


def _pattern(prefix: str, bodies: list[_Body], heads: list[str],
             lines: bool = False) -> re.Pattern[str]:
    out = [_literal(prefix)]
    last = len(bodies) - 1
    for k, body in enumerate(bodies):
        if k:
            out.append(f"{_WS}*" + _literal(heads[k - 1]))
        for j, part in enumerate(body.parts):
            if isinstance(part, HoleRef):
                if part.name.startswith("_"):  # atomic: a run of skipped lines cannot
                    out.append(f"(?>{_WS}*{_REST})")  # backtrack into 2^n ways to fail
                elif _param(part):
                    final = k == last and not any(isinstance(p, str) and p.strip()
                                                  for p in body.parts[j + 1:])
                    out.append(f"{_WS}*" + _param_pattern(part, final))
                elif body.name == "+":
                    new = (_NEW_LINE if k == last else _NEW_LINE_LAZY) if lines else \
                        (_LAST_WORD if k == last else _WORD)
                    out.append(f"{_WS}*" + new)
                else:
                    final = k == last and not any(isinstance(p, str) and p.strip()
                                                  for p in body.parts[j + 1:])
                    out.append(f"{_WS}*" + (_LAST_WORD if final else _WORD))
            elif part:
                out.append(f"{_WS}*" + _literal(part))
    return re.compile("".join(out))


def _renumber(head: str) -> str:
    """The head of one more step: ``\\n3. `` -> ``\\n4. ``, ``第三步`` -> ``第四步``."""
    m = re.search(r"\d+", head)
    if m:
        return head[:m.start()] + str(int(m[0]) + 1) + head[m.end():]
    m = re.search(f"[{_CN[1:]}]", head)
    if m and _CN.index(m[0]) < 10:
        return head[:m.start()] + _CN[_CN.index(m[0]) + 1] + head[m.end():]
    return head


def _variants(shape: _Shape) -> list[tuple[list[_Body], list[str]]]:
    """The quote after one edit of its order: moves, swaps, drops, a step rewritten, one
    added step (most specific first)."""
    bodies, heads = list(shape.bodies), list(shape.heads)
    n = len(bodies)
    out: list[tuple[list[_Body], list[str]]] = []
    for i, j in itertools.permutations(range(n), 2):  # move step i to place j
        moved = bodies[:i] + bodies[i + 1:]
        moved.insert(j, bodies[i])
        out.append((moved, heads))
    for i, j in itertools.combinations(range(n), 2):
        swapped = list(bodies)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.append((swapped, heads))
    if n > 1:
        for i in range(n):
            out.append((bodies[:i] + bodies[i + 1:], heads[:-1]))
    added = _Body("+", ("", HoleRef("+", (), word=True), ""))
    for i in range(n):  # a step rewritten (another line in its place)
        out.append((bodies[:i] + [added] + bodies[i + 1:], heads))
    more = [*heads, _renumber(heads[-1])] if heads else []
    for i in range(n + 1):
        if more:
            out.append((bodies[:i] + [added] + bodies[i:], more))
    seen, unique = set(), []
    for b, h in out:
        key = (tuple(x.name for x in b), len(h), tuple(x.parts for x in b if x.name == "+"))
        if key not in seen and [x.name for x in b] != [x.name for x in bodies]:
            seen.add(key)
            unique.append((b, h))
    return unique


def _search(note: Note, pattern: re.Pattern[str],
            scopes: list[tuple[int, int]]) -> list[re.Match[str]]:
    found = []
    for lo, hi in scopes:
        found.extend(pattern.finditer(note.text, lo, hi))
    return found


def _narrow(note: Note, found: list[re.Match[str]], scopes: list[tuple[int, int]],
            claim: Claim) -> list[re.Match[str]]:
    """Several matches: ``after`` keeps the first after its text, ``near`` the closest."""
    if len(found) < 2 or not (claim.after or claim.near):
        return found
    marks = [k for lo, hi in scopes for k in _occurrences(note.text, claim.after or claim.near,
                                                           lo, hi)]
    if not marks:
        return found
    if claim.after:
        later = [m for m in found if m.start() >= marks[0]]
        return later[:1] or found
    return [min(found, key=lambda m: min(abs(m.start() - k) for k in marks))]


def _occurrences(text: str, what: str, lo: int, hi: int) -> list[int]:
    out, k = [], text.find(what, lo, hi)
    while k >= 0:
        out.append(k)
        k = text.find(what, k + 1, hi)
    return out


def _words(m: re.Match[str], bodies: list[_Body]) -> dict[str, Printed]:
    """Each word read, by hole name (an added step's as ``+k``), in the groups' order."""
    names = [f"+{k + 1}" if p.name == "+" else p.name
             for k, body in enumerate(bodies) for p in body.parts
             if isinstance(p, HoleRef) and not _skip(p)]
    words: dict[str, Printed] = {}
    for g, key in enumerate(names, 1):
        a, b = m.span(g)
        words[key] = Printed(m.string[a:b], a, b, (), ())
    return words


def locate(note: Note, claim: Claim, scopes: list[tuple[int, int]]) -> Match:
    """The claim's quote in the note, as written or after one edit of its steps' order."""
    shape = _shape(claim.text)
    pattern = _pattern(shape.prefix, list(shape.bodies), list(shape.heads))
    found = _search(note, pattern, scopes)
    if len(found) == 1:
        m = found[0]
        return Match(m.start(), m.end(), {}, {}, _words(m, list(shape.bodies)))
    found = _narrow(note, found, scopes, claim)
    if len(found) == 1:
        m = found[0]
        return Match(m.start(), m.end(), {}, {}, _words(m, list(shape.bodies)))
    if found:
        where = ", ".join(f"{':'.join(map(str, note.position(m.start())))}" for m in found[:4])
        raise ResolveError(f"quoted text found {len(found)} times, at {where}", stale=False)
    lines = any("\n" in h for h in shape.heads)
    for bodies, heads in _variants(shape):
        pattern = _pattern(shape.prefix, bodies, heads, lines)
        hits = _narrow(note, _search(note, pattern, scopes), scopes, claim)
        if len(hits) == 1 and bodies == list(shape.bodies[:-1]) and shape.heads and \
                _last_step_follows(shape, hits[0]):
            continue  # the last step is still there: its explanation was edited, not dropped
        if len(hits) == 1:
            m = hits[0]
            return Match(m.start(), m.end(), {}, {}, _words(m, bodies))
    # not found at all: the general finder says where the closest line is
    find(note.text, _plain(claim.text), scopes, displays=note.displays)
    raise ResolveError("quoted text not found")


def _last_step_follows(shape: _Shape, m: re.Match[str]) -> bool:
    """Is the quote's last step (its head and the text before its word) still there, after
    the last word the shortened quote read (which a final word may have run into)?"""
    lead = shape.bodies[-1].parts[0]
    probe = re.compile(_literal(shape.heads[-1]) + f"{_WS}*" + _literal(str(lead)))
    found = probe.search(m.string, m.start(m.lastindex or 0) + 1)
    return found is not None and found.start() <= m.end()


def _plain(text: str) -> str:
    """The quote with its skip holes as word holes (the general finder's closest line)."""
    return HOLE_RE.sub(lambda m: m[0] if not m[0][1:-1].strip().startswith("_")
                       else "", text)


def read_steps(match: Match) -> list[Step]:
    """The operation words read, in the note's order (skip holes are never read)."""
    from verifiers.procedures.params import class_of

    steps = [Step(name, p.text, p.start, p.end) for name, p in match.words.items()
             if not name.startswith("_") and class_of(name) is None]
    return sorted(steps, key=lambda s: s.start)


def read_params(match: Match) -> list[Step]:
    """The parameter words read (``⟦order⟧``: 从高到低), in the note's order."""
    from verifiers.procedures.params import class_of

    out = [Step(name, p.text, p.start, p.end) for name, p in match.words.items()
           if class_of(name) is not None]
    return sorted(out, key=lambda s: s.start)


def quote_spans(note: Note, claim: Claim) -> list[tuple[int, int]]:
    """What the claim reads (for coverage): each operation word's span; the skipped rest of
    a line (a formula, an explanation) is not read, so nothing there is covered by it."""
    scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
    try:
        match = locate(note, claim, scopes)
    except ResolveError:
        return []
    return sorted((s.start, s.end) for s in [*read_steps(match), *read_params(match)])
