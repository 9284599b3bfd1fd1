"""Fact sentences with no cue word: the exhaustive survey of issue 12 item 4 (laws8).

Why: statements coverage finds a law-stating sentence by its cue words (总是, 不变, iff …), so a
sentence that states a fact plainly ("X 与 Y 相等", "X 追加到末尾", "X 只在 Y 时有定义", a
definition) is never counted, and an edit of its relation word goes unnoticed unless some
claim happens to quote it. This lists every sentence of a note that

- holds no cue word (those are statements: :mod:`verifiers.meaning.statements`) and is no
  section heading (a title),
- names two or more vocabulary items: a component word (vocabulary class ``component``), a
  quantity word (:data:`QUANTITIES`) or an inline formula ``$…$`` (a symbol), and
- holds a relation word: one of :data:`RELATIONS` or a law word of the vocabulary,

with its status: ``read`` (a checking claim reads a relation word of it, or has a word hole
in it), ``quoted`` (a claim quotes it without reading a relation word), ``waived`` (a waiver
that waives statements spans it) or ``uncovered``. ``tests/test_fact_sentences.py`` holds the
count of unread ones (quoted or uncovered) so that it can only go down.

    python -m verifiers.coverage.facts [notes_dir claims_dir] [--list]
"""

from __future__ import annotations

import functools
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from verifiers import words
from verifiers.coverage.lawwords import law_word_spans
from verifiers.coverage.meaning import _match, _Reading, _used_hole_spans, claim_checks
from verifiers.meaning.statements import sentences, states_law
from verifiers.verdicts import RunResult

#: quantity words a fact names (with the vocabulary's components and the inline formulas)
QUANTITIES = ("概率", "损失", "梯度", "权重", "分数", "logit", "维度", "方差", "均值", "期望",
              "嵌入", "向量", "矩阵", "参数", "词表", "温度", "熵", "困惑度", "Token", "token",
              "序列", "位置", "行", "列", "probability", "loss", "gradient", "weight", "score",
              "vector", "matrix", "dimension", "variance", "mean")
#: relation words of a plain fact (definitions, equalities, placements, sources)
RELATIONS = ("等于", "相等", "就是", "即", "定义为", "有定义", "记为", "称为", "叫做", "叫",
             "表示", "对应", "追加", "末尾", "开头", "属于", "来自", "决定", "取决于", "包含",
             "只在", "仅在", "变成", "得到", "相加", "相乘", "乘以", "除以", "加上", "减去", "是",
             "=", "equals", "is defined", "appended", "means", "denotes")
READ, QUOTED, WAIVED, UNCOVERED = "read", "quoted", "waived", "uncovered"
_FORMULA = re.compile(r"\$[^$\n]+\$")


@dataclass(frozen=True)
class Fact:
    """One fact sentence: where, its items, its first relation word, its status."""

    note: str
    line: int
    start: int
    end: int
    text: str
    items: tuple[str, ...]
    relation: str
    status: str
    claim: str | None  # the claim that quotes or reads it


@functools.cache
def _relation_pattern() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in sorted(RELATIONS, key=len, reverse=True)))


@functools.cache
def _item_pattern() -> re.Pattern[str]:
    names = {w for ws in words.words_of("component").values() for w in ws} | set(QUANTITIES)
    return re.compile("|".join(re.escape(w) for w in sorted(names, key=len, reverse=True)))


def items_of(sentence: str) -> tuple[str, ...]:
    """The distinct vocabulary items a sentence names (components, quantities, formulas)."""
    found = [m.group() for m in _FORMULA.finditer(sentence)]
    plain = _FORMULA.sub(" ", sentence)
    found += [m.group() for m in _item_pattern().finditer(plain)]
    return tuple(dict.fromkeys(found))


def relation_spans(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """(start, end, word) of the relation words of text[start:end]: fact relations and law
    words of the vocabulary (outside inline formulas)."""
    hidden = [m.span() for m in _FORMULA.finditer(text, start, end)]

    def free(a: int, b: int) -> bool:
        return not any(x <= a and b <= y for x, y in hidden)

    out = [(m.start(), m.end(), m.group()) for m in _relation_pattern().finditer(text, start, end)
           if free(*m.span())]
    out += [(a, b, text[a:b]) for a, b in law_word_spans(text, start, end)
            if free(a, b) and not _names_only(text[a:b])]
    return sorted(set(out))


#: vocabulary classes that name things (items), not relations between them
NAMING = frozenset({"component", "role", "token", "side", "axis"})


def _names_only(word: str) -> bool:
    """Is the law word only a name (Softmax, 输入, 行): an item, not a relation?"""
    classes = set(words.meanings(word))
    return word in QUANTITIES or (bool(classes) and classes <= NAMING)


def fact_sentences(result: RunResult) -> list[Fact]:
    """Every fact sentence of every note, in note then text order, with its status."""
    out: list[Fact] = []
    used = {(u.claim_id, u.hole) for c in result.claims if claim_checks(c) and not c.problems
            for u in c.uses.values()}
    for name in sorted(result.notes):
        note = result.notes[name]
        reading = _Reading()
        quotes: list[tuple[int, int, str]] = []
        for claim in result.claims:
            if claim.note != name or claim.problems:
                continue
            if claim_checks(claim):
                reading.add_claim(note, claim)
                continue
            match = _match(note, claim.text, claim.section, claim.near, claim.after)
            if match is not None:
                quotes.append((match.start, match.end, claim.id))
                reading.add_used_holes(_used_hole_spans(note, claim, used))
        quotes += reading.quotes
        waived = []
        for waiver in result.waivers:
            if waiver.note == name and "statements" in waiver.waives:
                match = _match(note, waiver.text, waiver.section, waiver.near, waiver.after)
                if match is not None:
                    waived.append((match.start, match.end))
        headings = [(sec.start, sec.header_end) for sec in note.sections]
        for a, b in sentences(note.text):
            text = note.text[a:b]
            if states_law(text) or any(x <= a < y for x, y in headings):
                continue  # a heading names a section: a title, no fact
            items = items_of(text)
            relations = relation_spans(note.text, a, b)
            if len(items) < 2 or not relations:
                continue
            status, claim = _status(a, b, relations, reading, quotes, waived)
            out.append(Fact(name, note.position(a)[0], a, b, text, items, relations[0][2],
                            status, claim))
    return out


def _status(a: int, b: int, relations: list[tuple[int, int, str]], reading: _Reading,
            quotes: list[tuple[int, int, str]], waived: list[tuple[int, int]]
            ) -> tuple[str, str | None]:
    if any(a <= x and y <= b for x, y in reading.word_holes):
        return READ, _quoting(a, b, quotes)
    inside = [(x, y) for x, y in reading.read if x < b and y > a]
    if any(x <= c and d <= y for c, d, _ in relations for x, y in inside):
        return READ, _quoting(a, b, quotes)  # a relation word lies inside what a claim reads
    if any(x < b and y > a for x, y in waived):
        return WAIVED, None
    claim = _quoting(a, b, quotes)
    return (QUOTED, claim) if claim is not None else (UNCOVERED, None)


def _quoting(a: int, b: int, quotes: list[tuple[int, int, str]]) -> str | None:
    return next((cid for x, y, cid in sorted(quotes) if x < b and y > a), None)


def unread(facts: list[Fact]) -> list[Fact]:
    """The fact sentences no claim reads and no waiver records."""
    return [f for f in facts if f.status in (QUOTED, UNCOVERED)]


def table(facts: list[Fact]) -> str:
    """Per note and per relation word (the largest groups first): counts by status."""
    kinds = (READ, QUOTED, WAIVED, UNCOVERED)
    rows = [f"{'':<34}{'total':>7}" + "".join(f"{k:>10}" for k in kinds)]
    for label, key in (("note", lambda f: f.note), ("relation", lambda f: f.relation)):
        groups: dict[str, Counter] = {}
        for f in facts:
            groups.setdefault(key(f), Counter())[f.status] += 1
        ordered = sorted(groups.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
        for name, c in ordered[:12] if label == "relation" else ordered:
            rows.append(f"{label + ' ' + name:<34}{sum(c.values()):>7}"
                        + "".join(f"{c[k]:>10}" for k in kinds))
    total = Counter(f.status for f in facts)
    rows.append(f"{'total':<34}{len(facts):>7}" + "".join(f"{total[k]:>10}" for k in kinds))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    from verifiers.run import run

    args = sys.argv[1:] if argv is None else argv
    listing = "--list" in args
    args = [a for a in args if a != "--list"]
    notes = Path(args[0]) if args else Path("notes")
    claims = Path(args[1]) if len(args) > 1 else Path("claims")
    facts = fact_sentences(run(notes, claims, lambda claim: False))
    print(table(facts))
    if listing:
        for f in facts:
            print(f"{f.note}:{f.line}: [{f.status}] {f.relation} {f.text[:80]!r}"
                  f"{' (' + f.claim + ')' if f.claim else ''}")
    print(f"fact sentences not read: {len(unread(facts))} of {len(facts)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
