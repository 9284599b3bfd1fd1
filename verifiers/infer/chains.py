"""Pattern family: relation chains, ``a × b = c``, ``= x + y = z``, ``f(x) = y``, ``&=`` rows.

A *run* is a maximal stretch of tokens with no word in it (a line break or a
LaTeX ``\\\\`` directly before ``=`` continues the run: ``&=`` rows and lines
that start with ``=``). A run splits at its relations (``=``, ``≈``) into
segments; each pair of neighbouring segments ``L rel R`` gives checks when

* ``R`` is one printed value and ``L`` an expression: ``R = L``;
* ``R`` is a sum of printed values with ``L``'s terms and signs: each term
  (``1.0×0.5 + 2.0×1.5 = 0.5 + 3.0``);
* ``R`` and ``L`` are both one value (``a = b = c``).

A segment glued to a name (``Q[0, 0] =``, ``f(2) =``, ``x - 3 =``) is not
read: it is part of something larger than what the run shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from difflib import SequenceMatcher

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.parse import Expr, parse_segment
from verifiers.infer.tables import table_definitions
from verifiers.infer.tokens import (
    COMMA,
    CONST,
    LB,
    LP,
    NAME,
    NUM,
    OP,
    OTHER,
    RB,
    REL,
    RP,
    VAL,
    Token,
)

__all__ = ["chain_candidates"]

_BREAKS = ("\n", "\\\\")
_PUNCT = set("，。；、,.;:：)）]】!！?？\"'”’")


def _runs(tokens: list[Token]) -> list[tuple[int, int]]:
    """(start, end) token indexes of the runs; continuation breaks are dropped later."""
    runs, k, n = [], 0, len(tokens)
    while k < n:
        if tokens[k].kind in (OTHER, COMMA):
            k += 1
            continue
        a, depth = k, 0
        while k < n:
            kind = tokens[k].kind
            depth += 1 if kind in (LB, LP) else -1 if kind in (RB, RP) else 0
            if kind == COMMA and depth <= 0:
                break  # `a = 1, 2 + 3 = 5`: a comma outside brackets ends a run
            if kind != OTHER:
                k += 1
                continue
            j = k
            while j < n and tokens[j].kind == OTHER and tokens[j].text in _BREAKS:
                j += 1
            if j > k and j < n and tokens[j].kind == REL:
                k = j  # a continuation: `\n= …` or `\\ &= …`
                continue
            break
        runs.append((a, k))
    return runs


_SPACING_RE = re.compile(r"(?:\\q?quad|\\[,;:! ])\s*$")


def _glued_before(text: str, at: int) -> bool:
    """Does a name or a closed group end right before ``at`` (``Q[0, 0]``, ``x``)?

    LaTeX spacing (``\\quad``, ``\\,``) separates: ``1.6487, \\quad e^{1.5} = …``."""
    k = at
    while k > 0 and text[k - 1] in " \t\u3000$":
        if text[k - 1] == "$":
            return False
        k -= 1
        if k > 0 and text[k - 1] not in " \t\u3000$":
            m = _SPACING_RE.search(text, max(0, k - 8), k)
            if m is not None:
                k = m.start()
    if k == 0:
        return False
    ch = text[k - 1]
    if k < at and _PROSE_WORD_RE.search(text, max(0, k - 24), k):
        return False  # plain text's `holds 1024 x 1024`: a word of prose, then a space
    return (ch.isascii() and (ch.isalnum() or ch in "_)]}'^.")) or ch in "）】"


#: a lower-case English word of three letters or more (not a name such as ``x`` or ``W_q``)
_PROSE_WORD_RE = re.compile(r"(?:^|(?<=[\s(]))[a-z]{3,}\Z")


#: English words that join clauses: after a result they say nothing about what it counts
#: (``= 7.5 \\times 10^{-5}$ and …``), unlike a noun (``= 16 parameters``).
_JOINERS = re.compile(r"(?:and|or|but|so|which|while|then|since|because|thus|hence|here|"
                      r"i\.e\.|e\.g\.)(?![A-Za-z])")


def _word_after(text: str, at: int) -> bool:
    """Is the value at ``at`` followed by a word (``12 个参数``, ``8192$ 个数``)?"""
    k = at
    while k < len(text) and text[k] in " \t\u3000$":
        k += 1
    if k >= len(text) or text[k] == "\n" or _JOINERS.match(text, k):
        return False
    return text[k] not in _PUNCT and not text[k].isspace() and text[k] not in "=≈&\\"


def _one_step(text: str, left: int, rel: int, end: int) -> bool:
    """``a + b = c`` on one line, or ``a + b`` ending a line and ``= c`` (``&= c``) starting
    the next: the relation itself says the two sides are one step."""
    if "\n" not in text[left:end]:
        return True
    if "\n" in text[rel:end]:
        return False
    line_start = text.rfind("\n", 0, rel) + 1
    return text[line_start:rel].strip() in ("", "&") and "\n" not in text[left:line_start - 1]


def _glued_after(text: str, at: int) -> bool:
    return at < len(text) and (text[at].isascii() and (text[at].isalnum() or text[at] in "_([^"))


def _percent_end(text: str, at: int) -> int:
    """After a LaTeX ``\\%`` that follows a value (``50.0\\%``), else ``at``."""
    k = at
    while k < len(text) and text[k] in " \t":
        k += 1
    return k + 2 if text.startswith("\\%", k) else at


def _percent(text: str, tok: Token, expr: str) -> str:
    """A value printed with LaTeX ``\\%`` (not part of the literal) is a hundredth."""
    return f"({expr}) * 100" if _percent_end(text, tok.end) != tok.end else expr


Definition = tuple[str, int, int, Token]  # name, section key, offset, the defined value


def _definitions(runs: list[list[Token]], section_of: Callable[[int], int]) -> list[Definition]:
    """``x = (2, 1)``, ``W_{Q} = [\\begin{matrix} … \\end{matrix}]``: a lone name bound to a
    lone printed value by ``=``, in note order."""
    out = []
    for run in runs:
        for k in range(len(run) - 2):
            name, rel, value = run[k], run[k + 1], run[k + 2]
            if name.kind != NAME or rel.kind != REL or rel.text != "=" \
                    or (k and run[k - 1].kind not in (REL, COMMA)):
                continue
            if value.kind == LB and k + 4 < len(run) and run[k + 3].kind == VAL \
                    and run[k + 4].kind == RB:
                value = run[k + 3]
                after = k + 5
            else:
                after = k + 3
            if value.kind in (NUM, VAL) and (after >= len(run) or run[after].kind == COMMA):
                out.append((name.text, section_of(name.start), name.start, value))
    return out


def _same(a: Token, b: Token) -> bool:
    return a.kind == b.kind and a.text == b.text


def _partial_steps(left: list[Token], right: list[Token], name: dict[int, str],
                   bind: Callable[[Token], Token | None]) -> list[tuple[Token, Expr]]:
    """``3 × (3 × 3 × 256) = 3 × 2304``, ``(224 + 6 − 7) / 2 = 223 / 2``,
    ``\\frac{4n}{24d + 4n} = \\frac{8192}{24576 + 8192}``, ``d / h = 1024 / 16``: the two
    sides agree token for token but for parts of the left, each evaluated to one value on
    the right. Each value is checked against its part -- a bracketed group, a whole term
    or a defined name, never a part that precedence would split (``2 × 3 + 4 = 2 × 7``);
    a reading, kept only when verified. Any other difference: nothing."""
    matcher = SequenceMatcher(a=[(t.kind, t.text) for t in left],
                              b=[(t.kind, t.text) for t in right], autojunk=False)
    opcodes = matcher.get_opcodes()
    if not any(op == "equal" for op, *_ in opcodes):
        return []
    out = []
    for op, i1, i2, j1, j2 in opcodes:
        if op == "equal":
            continue
        mid_l, mid_r = left[i1:i2], right[j1:j2]
        if op != "replace" or len(mid_r) != 1 or mid_r[0].kind not in (NUM, VAL):
            return []
        part = parse_segment(mid_l, name, bind)
        if part is None or (part.ops == 0 and not part.uses):
            return []
        before = left[i1 - 1] if i1 else None
        after = left[i2] if i2 < len(left) else None
        grouped = (mid_l[0].kind == LP and mid_l[-1].kind == RP
                   and parse_segment(mid_l[1:-1], name, bind) is not None) or \
            (before is not None and before.kind == LP and after is not None
             and after.kind == RP)
        # a whole term: `a + b × c = a + 6` (never `2 × 3 + 4 = 2 × 7`: precedence differs)
        term = len(part.terms) <= 1 and (before is None or before.kind == LP
                                          or _sign(before)) and \
            (after is None or after.kind == RP or _sign(after))
        if not (grouped or term or part.ops == 0):
            return []
        out.append((mid_r[0], part))
    return out


def _sign(tok: Token) -> bool:
    return tok.kind == OP and tok.text in "+-"


def _unit_at(tokens: list[Token], k: int) -> tuple[str, int] | None:
    """``\\text{ bytes}`` (or ``\\mathrm{…}``) of letters at token ``k``: (unit, index after)."""
    if not (k + 2 < len(tokens) and tokens[k].kind == OTHER
            and tokens[k].text in ("\\text", "\\mathrm") and tokens[k + 1].kind == LP):
        return None
    j, letters = k + 2, []
    while j < len(tokens) and tokens[j].kind == OTHER and tokens[j].text.isalpha():
        letters.append(tokens[j].text)
        j += 1
    if not letters or j >= len(tokens) or tokens[j].kind != RP:
        return None
    return "".join(letters), j + 1


def _same_units_dropped(tokens: list[Token]) -> list[Token]:
    """``2 × 1024 \\text{ bytes} = 2048 \\text{ bytes}``: a unit on both sides of a relation
    says nothing about the arithmetic, so the run goes on through it; a unit that differs on
    the other side (``= 192 \\text{ MiB}``) still ends the run (a conversion, read by
    :mod:`.units`)."""
    drop: set[int] = set()
    for k in range(len(tokens)):
        here = _unit_at(tokens, k)
        if here is None or here[1] >= len(tokens) or tokens[here[1]].kind != REL:
            continue
        j = here[1] + 1
        if j < len(tokens) and tokens[j].kind == NUM:
            there = _unit_at(tokens, j + 1)
            if there is not None and there[0] == here[0]:
                drop.update(range(k, here[1]))
    return [t for i, t in enumerate(tokens) if i not in drop] if drop else tokens


def chain_candidates(text: str, tokens: list[Token], uncovered: set[int],
                     section_of: Callable[[int], int] | None = None) -> list[Candidate]:
    """Candidates from every run of ``tokens``; only uncovered values become checked holes.

    ``uncovered`` holds the start offsets of value tokens whose literals are all uncovered;
    ``section_of`` (offset -> section key) lets expressions read names defined earlier in
    the same section.
    """
    tokens = _same_units_dropped(tokens)
    runs = [[t for t in tokens[a:b] if t.kind != OTHER] for a, b in _runs(tokens)]
    defs = _definitions(runs, section_of) if section_of is not None else []
    # a table row `| model width | $d$ | 1024 |` defines too (read as from another section)
    rows = sorted([(n, -2, at, v) for n, at, v in table_definitions(text, tokens)]
                  if section_of is not None else [], key=lambda d: d[2])
    out = []
    for run in runs:
        if not any(t.kind == REL for t in run):
            continue
        here = run[0].start
        key = section_of(here) if section_of is not None else 0

        far: set[int] = set()  # definitions read from an earlier section

        def bind(tok: Token, here: int = here, key: int = key,
                 far: set[int] = far) -> Token | None:
            found = [d for d in defs if d[0] == tok.text and d[1] == key and d[2] < here]
            if found:
                return found[-1][3]
            # a name defined in an earlier section (`W_q` in 2.2, used in 2.3): the latest
            # definition before, a reading -- its checks are kept only when verified
            found = sorted([d for d in defs + rows if d[0] == tok.text and d[2] < here],
                           key=lambda d: d[2])
            if found:
                far.add(found[-1][3].start)
                return found[-1][3]
            return None

        cand = _candidate(text, run, uncovered, bind)
        if cand is not None:
            if any(t.start in far for t in cand.used_names().values()):
                cand.checks = [replace(c, unambiguous=False) for c in cand.checks]
            out.append(cand)
    return out


def _scientific(seg: list[Token], name: dict[int, str]) -> tuple[Token, str, str] | None:
    """``1.8 × 10¹⁰`` (a Unicode superscript; LaTeX ``\\times 10^{-4}`` is one literal): the
    mantissa, the hole name of the 10 and the power, else None."""
    if len(seg) == 5 and seg[0].kind == NUM and (seg[1].kind, seg[1].text) == (OP, "*") \
            and (seg[2].kind, seg[2].text) == (NUM, "10") and seg[3].text == "^" \
            and seg[4].kind == CONST:
        return seg[0], name[seg[2].start], seg[4].text
    return None


_PRODUCT_RE = re.compile(r"^(\w+) [*@] (\w+)$")


def _dot_terms(left: Expr, right: Expr) -> tuple[str, str] | None:
    """The two names of ``a · b`` when both are printed vectors (``q = [1, 2, 0, 1]``) with as
    many elements as ``right`` has terms, each a lone printed value, added."""
    m = _PRODUCT_RE.match(left.text)
    n = len(right.terms)
    if m is None or n < 2 or any(t.lone is None for t in right.terms) \
            or any(sign != "+" for sign in right.signs[1:]):
        return None
    for local in m.groups():
        tok = left.uses.get(local)
        if tok is None or tok.kind != VAL or tok.shape != "vector" or _length(tok) != n:
            return None
    return m.group(1), m.group(2)


def _length(tok: Token) -> int:
    from verifiers.holes import ResolveError, read_value

    try:
        return len(read_value(tok.text, tok.start).numbers)
    except ResolveError:
        return -1


def _candidate(text: str, run: list[Token], uncovered: set[int],
               bind: Callable[[Token], Token | None]) -> Candidate | None:
    values = [t for t in run if t.kind in (NUM, VAL)]
    name = {t.start: f"v{k}" for k, t in enumerate(values, start=1)}
    segs: list[list[Token]] = [[]]
    rels: list[Token] = []
    for t in run:
        if t.kind == REL:
            segs.append([])
            rels.append(t)
        else:
            segs[-1].append(t)
    parsed: list[Expr | None] = [parse_segment(s, name, bind) for s in segs]
    if segs[0] and (_glued_before(text, segs[0][0].start) or segs[0][0].kind == OP):
        if segs[0][0].text == "-" and not _glued_before(text, segs[0][0].start) \
                and parsed[0] is not None:
            # `交叉熵 −ln 0.705 ≈ 0.35`: a leading minus read as a sign -- though the word
            # before may be what it subtracts from (`总数 − 3 = 5`): never pinned
            parsed[0].implicit = True
        else:
            parsed[0] = None
    if segs[-1] and (_glued_after(text, segs[-1][-1].end) or segs[-1][-1].kind == OP):
        parsed[-1] = None
    cand = Candidate("chain", "")
    extra_uses: dict[str, Token] = {}
    for k, rel in enumerate(rels):
        left, right = parsed[k], parsed[k + 1]
        if left is None or right is None:
            continue
        # one step: on one line, or continued on the next by a line that starts with `=`
        one_line = _one_step(text, segs[k][0].start, rel.start, segs[k + 1][-1].end)
        lone = right.lone
        scaled = _scientific(segs[k + 1], name) if lone is None else None
        if scaled is not None:  # `= 1.8 × 10¹⁰`: the mantissa, the left side scaled
            lone, ten, power = scaled
            left = replace(left, text=f"({left.text}) / {ten} ^ {power}", ops=left.ops + 1)
        if lone is None and right.func and left.func == right.func and right.arg \
                and right.arg.lone is not None:  # sin(0 / 10000^0) = sin(0): the arguments
            left, lone = left.arg, right.arg.lone
        if lone is not None:
            if lone.start not in uncovered or (left.lone is None and left.ops == 0):
                continue
            plain = rel.text == "=" and left.ops > 0 and one_line and not left.implicit \
                and not _word_after(text, _percent_end(text, segs[k + 1][-1].end))
            cand.checks.append(Check(name[lone.start], _percent(text, lone, left.text), plain))
        elif left.lone is not None and right.ops > 0 and k == 0 and len(rels) == 1 \
                and left.lone.start in uncovered:
            # `112576 = 1792 + 36928 + 73856`: the result first; a reading, kept only verified
            cand.checks.append(Check(name[left.lone.start], _percent(text, left.lone,
                                                                     right.text), False))
        elif len(left.terms) == len(right.terms) > 1 and left.signs[0] == right.signs[0] \
                and all(t.lone is not None for t in right.terms) \
                and any(t.ops for t in left.terms):
            plain = rel.text == "=" and one_line and not left.implicit
            for lt, rt, ls, rs in zip(left.terms, right.terms, left.signs, right.signs,
                                      strict=True):
                tok = rt.lone
                if tok is not None and tok.start in uncovered:
                    # `+ (-0.04) × 0.3` printed as `- 0.012`: the term's sign moved out;
                    # such a reading is kept only when verified
                    expr = lt.text if ls == rs else f"-({lt.text})"
                    cand.checks.append(Check(name[tok.start], expr,
                                             plain and lt.ops > 0 and ls == rs))
        elif (dot := _dot_terms(left, right)) is not None:
            # `q · k_3 = 2 + 2 + 0 + 0`: the terms are the products of the two printed vectors
            for i, rt in enumerate(right.terms):
                tok = rt.lone
                if tok is not None and tok.start in uncovered:
                    cand.checks.append(Check(name[tok.start],
                                             f"{dot[0]}[{i}] * {dot[1]}[{i}]", False))
        else:
            for tok, part in _partial_steps(segs[k], segs[k + 1], name, bind):
                if tok.start in uncovered:
                    cand.checks.append(Check(name[tok.start], part.text, False))
                    extra_uses.update(part.uses)
    if not cand.checks:
        return None
    cand.holes = {name[t.start]: t for t in values}
    cand.uses = {k: v for e in parsed if e is not None for k, v in e.uses.items()}
    cand.uses.update(extra_uses)
    cand.says = "inferred: " + " ; ".join(f"{c.hole} = {c.expr}" for c in cand.checks)
    return cand
