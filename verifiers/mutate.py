"""One-digit edits of the notes: does the suite notice every printed number it covers?

A mutation changes the last digit of one printed number inside one hole and
re-runs the claims of that note against the edited text. It is *caught* when
some claim stops passing. This is the measure behind "a one-digit edit
anywhere is caught".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from verifiers.arithmetic.edits import number_at
from verifiers.arithmetic.routes import matches_a_route
from verifiers.engine import Engine, flat
from verifiers.notes import Note, lines_at
from verifiers.run import load_claims, run
from verifiers.schema import Claim
from verifiers.verdicts import RunResult

_DIGIT = re.compile(r"[0-9]")


CAUGHT = "caught"
MISSED = "missed"
CORRECTED = "corrected"  # the new text is an honest route's value at its precision
APPROXIMATE = "approximate"  # accepted by an approximate word's ±1 of its last digit
UNREAD = "unread input"  # an input no check reads: an edit cannot change a verdict


@dataclass(frozen=True)
class Mutation:
    note: str
    claim_id: str
    hole: str
    offset: int  # of the digit in the note text
    old: str
    new: str
    line: int
    col: int


def mutations(result: RunResult) -> list[Mutation]:
    """One mutation per value (hole) of every resolved claim: its last digit, +1 mod 10."""
    found: dict[tuple[str, int], Mutation] = {}
    for verdict in result.verdicts:
        note = result.notes.get(verdict.note)
        if note is None:
            continue
        for value in verdict.values:
            start = note.offset(*value.start)
            end = note.offset(*value.end)
            digits = list(_DIGIT.finditer(note.text, start, end))
            if not digits:
                continue
            d = digits[-1]
            new = str((int(d.group()) + 1) % 10)
            key = (verdict.note, d.start())
            found.setdefault(key, Mutation(verdict.note, verdict.id, value.name, d.start(),
                                           d.group(), new, *note.position(d.start())))
    return sorted(found.values(), key=lambda m: (m.note, m.offset))


def read_inputs(claims: list[Claim]) -> set[tuple[str, str]]:
    """(claim id, hole name) of every input that some expression reads."""
    from verifiers.expr import free_names

    read: set[tuple[str, str]] = set()
    for claim in claims:
        names: set[str] = set()
        for tree, _ in [*claim.where.values(), *claim.check.values()]:
            names |= free_names(tree)
        read |= {(claim.id, n) for n in names if n in claim.inputs}
        read |= {(use.claim_id, use.hole) for use in claim.uses.values()}
    return read


def affected(claims: list[Claim], spans: dict[str, tuple[int, int]], mutation: Mutation
             ) -> list[str]:
    """Claims whose quote covers the edited digit, and every claim that uses them."""
    return reach(claims, spans, mutation.offset, mutation.claim_id)


def reach(claims: list[Claim], spans: dict[str, tuple[int, int]], offset: int, claim_id: str
          ) -> list[str]:
    """``claim_id``, the claims whose quote covers note ``offset``, and their users."""
    dependents: dict[str, set[str]] = {}
    for claim in claims:
        for use in claim.uses.values():
            dependents.setdefault(use.claim_id, set()).add(claim.id)
    todo = [cid for cid, (start, end) in spans.items()
            if start <= offset < end]
    todo.append(claim_id)
    seen: list[str] = []
    while todo:
        cid = todo.pop()
        if cid not in seen:
            seen.append(cid)
            todo.extend(sorted(dependents.get(cid, ())))
    return seen


def outcome(notes: dict[str, Note], claims: list[Claim], mutation: Mutation,
            read: set[tuple[str, str]], spans: dict[str, tuple[int, int]]) -> str:
    """Re-run the claims the edit can reach, with one digit changed, and classify the result."""
    hole = mutation.hole.split("[", 1)[0]
    if (mutation.claim_id, hole) not in read and any(
            c.id == mutation.claim_id and hole in c.inputs for c in claims):
        return UNREAD
    original = notes[mutation.note]
    text = original.text
    edited = text[:mutation.offset] + mutation.new + text[mutation.offset + 1:]
    changed = dict(notes)
    changed[mutation.note] = Note(original.path, edited, original.name)
    engine = Engine(changed, claims)
    if any(not engine.verdict(cid).passed for cid in affected(claims, spans, mutation)):
        return CAUGHT
    return accepted(engine, mutation)


def accepted(engine: Engine, mutation: Mutation) -> str:
    """Why an edit that no claim noticed passed: its new text is some honest route's value
    at that precision (``corrected``), an approximate word's ±1, or nothing (``missed``)."""
    edited_value = next((v for v in engine.verdict(mutation.claim_id).values
                         if v.name == mutation.hole), None)
    ev = engine.evaluations[mutation.claim_id]
    state = ev.states.get(mutation.hole)
    if edited_value is None or edited_value.status != "verified" or state is None:
        return MISSED
    printed = ev.match.values[mutation.hole]
    i = number_at(printed, mutation.offset)
    if i is None:
        return MISSED
    candidates = [flat(part)[i] for part in state.candidates.values()]
    if matches_a_route(printed.numbers[i], candidates):
        return CORRECTED
    return APPROXIMATE if edited_value.approximate else MISSED


def survey(
    notes_dir: Path, claims_dir: Path, sample: int | None = None, result: RunResult | None = None
) -> list[tuple[Mutation, str]]:
    """Apply every mutation (or an evenly spaced sample) and classify each outcome.

    ``result``: the unedited run of these folders, when the caller has it already."""
    result = result if result is not None else run(notes_dir, claims_dir)
    todo = mutations(result)
    if sample is not None and sample < len(todo):
        step = len(todo) / sample
        todo = [todo[int(i * step)] for i in range(sample)]
    notes = result.notes  # read once, by run()
    claims, _ = load_claims(claims_dir, set(notes))
    read = read_inputs(claims)
    spans = {}
    for v in result.verdicts:
        if v.span is not None and v.note in result.notes:
            note = result.notes[v.note]
            spans[v.id] = (note.offset(*v.span[0]), note.offset(*v.span[1]))
    return [(m, outcome(notes, claims, m, read, spans)) for m in todo]


# -- mutation sites of every class (benchmarks/mutants.py) -------------------------------------
# The one-digit survey above mutates only numbers a claim reads. The sites below are every place
# of a class in a note, read or not, so the survey also measures what no claim reads.

NUMBER, LAW_WORD, COMPONENT, PIPELINE, SCRIPT = (
    "number", "law-word", "component", "pipeline", "script")
#: a number some claim's quote holds as literal text (verifiers/readers.py): the population
#: "one reader per token" is about; its sites depend on the claims (:func:`quoted_sites`)
QUOTED = "quoted-number"
SITE_CLASSES = (NUMBER, LAW_WORD, COMPONENT, PIPELINE, SCRIPT, QUOTED)

#: component names, each group a ring: a name becomes the next of its group (another component
#: in the same place of a model, which the note's sentence then states wrongly)
COMPONENT_GROUPS = (("Softmax", "Sigmoid"), ("LayerNorm", "RMSNorm", "BatchNorm"),
                    ("ReLU", "GELU", "Tanh"), ("Attention", "FFN"), ("Encoder", "Decoder"),
                    ("Embedding", "Unembedding"))
#: a sub/superscript letter becomes another index or matrix name; a digit is counted up
_SCRIPT_LETTERS = {"i": "j", "j": "i", "k": "j", "t": "s", "n": "m", "m": "n", "x": "y",
                   "y": "x", "Q": "K", "K": "Q", "V": "K", "O": "V", "q": "k"}
_SCRIPT = re.compile(r"[_^](?:\{([^{}\n]{1,12})\}|([A-Za-z0-9]))")
_ARROW = re.compile(r"\s*(?:→|->|⟶|=>)\s*")
_BOX = frozenset("│├┤┌┐└┘─┬┴┼")  # a box drawing's lines are no pipeline step
_MAX_ITEM = 30  # characters of a pipeline item: a longer piece is a sentence, not a step


@dataclass(frozen=True)
class Site:
    """One mutation of a note: ``old`` at ``start`` replaced by ``new``."""

    cls: str
    note: str
    start: int
    old: str
    new: str
    line: int
    col: int

    @property
    def end(self) -> int:
        return self.start + len(self.old)

    def apply(self, text: str) -> str:
        assert text[self.start:self.end] == self.old, self
        return text[:self.start] + self.new + text[self.end:]


def sites(note: Note, cls: str, claims: list[Claim] | None = None) -> list[Site]:
    """Every mutation site of class ``cls`` in ``note``, in note order (``claims``: needed for
    :data:`QUOTED`)."""
    if cls == QUOTED:
        return quoted_sites(note, claims or [])
    found = {NUMBER: _number_sites, LAW_WORD: _law_word_sites, COMPONENT: _component_sites,
             PIPELINE: _pipeline_sites, SCRIPT: _script_sites}[cls](note.text)
    return [Site(cls, note.name, a, old, new, *note.position(a)) for a, old, new in found
            if old != new]


def quoted_sites(note: Note, claims: list[Claim]) -> list[Site]:
    """The last digit of every number a claim's quote holds as literal text, counted up; a
    label or list marker (the coverage rules: ``(1)``, ``第 3 章``) is no value, left out."""
    from verifiers.coverage.literals import RULES
    from verifiers.coverage.quoted import quoted_literals

    out = {}
    for _, lit, _ in quoted_literals(note, claims):
        if any(rule(note, lit) for rule in RULES.values()):
            continue
        d = list(_DIGIT.finditer(note.text, lit.start, lit.end))[-1:]
        if d:
            out[d[0].start()] = Site(QUOTED, note.name, d[0].start(), d[0].group(),
                                     str((int(d[0].group()) + 1) % 10),
                                     *note.position(d[0].start()))
    return [out[k] for k in sorted(out)]


def _number_sites(text: str) -> list[tuple[int, str, str]]:
    """The last digit of every printed number, counted up mod 10."""
    from verifiers.numbers import NUMBER_PATTERN

    out = []
    for m in re.finditer(NUMBER_PATTERN, text):
        digits = list(_DIGIT.finditer(text, m.start(), m.end()))
        if digits:
            d = digits[-1]
            out.append((d.start(), d.group(), str((int(d.group()) + 1) % 10)))
    return out


def _law_word_sites(text: str) -> list[tuple[int, str, str]]:
    """Every law vocabulary word (verifiers/properties/vocabulary.yaml, as the phrase reader
    scans it) of a sentence that states a law (verifiers/meaning/cues.yaml), replaced by the
    first word of another meaning of its first class. One-character words (大, 可) are left
    out: in prose they are mostly no law word."""
    from verifiers.meaning.statements import find_statements
    from verifiers.words import _scan, classes, normal

    table = classes()
    out = []
    for item in find_statements(text):
        for a, b, meanings in _scan(item.text):
            if len(normal(item.text[a:b])) < 2:
                continue
            for cls in sorted(meanings):
                others = [m for m in table.get(cls, {}) if m != meanings[cls]]
                if others:
                    out.append((item.start + a, item.text[a:b], table[cls][others[0]][0]))
                    break
    return out


def _component_sites(text: str) -> list[tuple[int, str, str]]:
    ring = {name: group[(i + 1) % len(group)] for group in COMPONENT_GROUPS
            for i, name in enumerate(group)}
    pattern = re.compile(r"(?<![A-Za-z])(" + "|".join(sorted(ring, key=len, reverse=True))
                         + r")(?![a-z])")
    return [(m.start(), m.group(), ring[m.group()]) for m in pattern.finditer(text)]


def _pipeline_sites(text: str) -> list[tuple[int, str, str]]:
    """Two neighbouring items of an arrow pipeline (three items or more on a line) swapped;
    the first item starts after the line's last ``：``/``，`` before it, the last ends at the
    first ``，``/``。`` after it (the sentence around a pipeline is no step)."""
    out = []
    for pos, line in lines_at(text):
        arrows = list(_ARROW.finditer(line))
        if len(arrows) >= 2:
            bounds = [0, *[x for m in arrows for x in (m.start(), m.end())], len(line)]
            items = [[bounds[i], bounds[i + 1]] for i in range(0, len(bounds), 2)]
            lead = max(line.rfind(c, 0, items[0][1]) for c in "：:，,]")
            items[0][0] = max(items[0][0], lead + 1)
            tail = [k for k in (line.find(c, items[-1][0]) for c in "，。,;；") if k >= 0]
            items[-1][1] = min([items[-1][1], *tail])
            items = [(a + len(line[a:b]) - len(line[a:b].lstrip()), b) for a, b in items]
            for (a1, b1), (a2, b2) in zip(items, items[1:], strict=False):
                first, second = line[a1:b1], line[a2:b2]
                if first and second and first != second and max(len(first), len(second)) \
                        <= _MAX_ITEM and not _BOX & set(first + second):
                    between = line[b1:a2]
                    out.append((pos + a1, line[a1:b2], second + between + first))
    return out


def _script_sites(text: str) -> list[tuple[int, str, str]]:
    """The last character of a sub/superscript: a letter becomes another index or matrix name
    (i → j, Q → K), a digit is counted up."""
    out = []
    for m in _SCRIPT.finditer(text):
        group = 1 if m.group(1) is not None else 2
        at = m.end(group) - 1
        ch = text[at]
        new = (str((int(ch) + 1) % 10) if ch.isdigit() else _SCRIPT_LETTERS.get(ch))
        if new is not None:
            out.append((at, ch, new))
    return out
