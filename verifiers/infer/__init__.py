"""``notecheck scaffold --infer``: claims whose checks are inferred from what a note shows.

Pipeline, one module per step:

* :mod:`.tokens` -- the note's literals (coverage's exclusion rules applied, URLs
  skipped), printed vectors and matrices, operators, relations, functions;
* :mod:`.chains`, :mod:`.aggregates`, :mod:`.tables`, :mod:`.restate`,
  :mod:`.substitute`, :mod:`.formulas`, :mod:`.assembled`, :mod:`.units`,
  :mod:`.vectors`, :mod:`.scaled`, :mod:`.products`, :mod:`.grams`, :mod:`.rates`,
  :mod:`.shares`, :mod:`.worded`, :mod:`.dtypes`, :mod:`.coefficients`,
  :mod:`.headers`, :mod:`.arrays`, :mod:`.windows`, :mod:`.listed`, :mod:`.programs`,
  :mod:`.instances`, :mod:`.laws`, :mod:`.unitwords`, :mod:`.unittables`, :mod:`.named`,
  :mod:`.monotone` --
  the pattern families, each proposing
  :class:`~.candidate.Candidate` claims over *uncovered* values only;
* :mod:`.quote` -- a quote that resolves exactly once (context lines, never line
  numbers);
* :mod:`.evaluate` -- the real loader and engine decide: verified is kept, an
  unambiguous wrong value is pinned ``known`` with ``why: "inferred; review"``,
  anything else is dropped;
* :mod:`.write` -- ``claims/<stem>/90-inferred.yaml``, existing entries kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from verifiers.coverage.literals import coverage
from verifiers.infer.aggregates import (
    aggregate_candidates,
    listed_total_candidates,
    percent_candidates,
)
from verifiers.infer.arrays import array_candidates
from verifiers.infer.assembled import assembled_candidates
from verifiers.infer.bigops import bigop_candidates
from verifiers.infer.candidate import Candidate
from verifiers.infer.chains import chain_candidates
from verifiers.infer.coefficients import coefficient_candidates
from verifiers.infer.counts import count_claims
from verifiers.infer.dtypes import dtype_candidates
from verifiers.infer.evaluate import Inferred, settle
from verifiers.infer.fenced import fenced_program_claims
from verifiers.infer.formulas import formula_row_candidates
from verifiers.infer.grams import gram_candidates
from verifiers.infer.headers import expression_cell_candidates, header_formula_candidates
from verifiers.infer.instances import instance_candidates
from verifiers.infer.laws import law_candidates
from verifiers.infer.listed import listed_column_candidates
from verifiers.infer.listwords import list_word_candidates
from verifiers.infer.merge import merge_by_lines
from verifiers.infer.monotone import monotone_candidates
from verifiers.infer.named import (
    named_instance_candidates,
    named_table_candidates,
    prose_formula_candidates,
)
from verifiers.infer.orders import order_claims
from verifiers.infer.products import product_candidates
from verifiers.infer.programs import program_candidates, program_spans
from verifiers.infer.rates import rate_candidates
from verifiers.infer.restate import (
    repeat_candidates,
    restate_candidates,
    scalar_repeat_candidates,
)
from verifiers.infer.scaled import scaled_candidates
from verifiers.infer.sentshares import sentence_share_candidates
from verifiers.infer.shapealg import shape_algebra_candidates
from verifiers.infer.shapes import shape_candidates
from verifiers.infer.shares import share_candidates
from verifiers.infer.substitute import substitution_candidates
from verifiers.infer.tables import table_candidates
from verifiers.infer.tokens import NUM, VAL, allowed_literals, tokenize, url_spans
from verifiers.infer.trends import trend_candidates
from verifiers.infer.units import unit_candidates
from verifiers.infer.unittables import unit_table_candidates
from verifiers.infer.unitwords import unit_word_candidates
from verifiers.infer.vectors import vector_candidates
from verifiers.infer.wholes import whole_candidates
from verifiers.infer.windows import window_candidates
from verifiers.infer.worded import worded_sum_candidates
from verifiers.verdicts import RunResult

__all__ = ["Inference", "infer"]


@dataclass
class Inference:
    """What inference found for one note, and the figures ``benchmarks/infer.py`` prints."""

    note: str
    literals: int = 0  # literals that can be claims (coverage's count)
    uncovered_before: int = 0
    claims: list[Inferred] = field(default_factory=list)
    definitions: list[tuple[str, str]] = field(default_factory=list)  # (id, YAML), used ones

    @property
    def covered(self) -> int:
        """Literals inside a hole of an inferred claim (checked or read as an input)."""
        return len(self.covered_starts)

    covered_starts: set[int] = field(default_factory=set)

    def entries(self) -> list[str]:
        """YAML entries to append: the definitions used first, then the claims."""
        return [y for _, y in self.definitions] + [c.yaml for c in self.claims]

    @property
    def pinned(self) -> list[Inferred]:
        return [c for c in self.claims if c.pinned]


def infer(result: RunResult, note_name: str) -> Inference:
    """Inferred claims for one note, evaluated, in note order; none duplicates a claim."""
    note = result.notes[note_name]
    covs, _ = coverage(result)
    cov = next(c for c in covs if c.note == note_name)
    open_starts = {lit.start for lit in cov.uncovered}
    report = Inference(note_name, len(cov.literals), len(open_starts))
    literals = allowed_literals(note)
    tokens = tokenize(note, 0, len(note.text), literals, url_spans(note.text))
    uncovered = {t.start for t in tokens if t.kind in (NUM, VAL) and _all_open(
        note, t.start, t.end, open_starts)}
    programs = program_spans(note.text)
    uncovered_outside = {s for s in uncovered if not any(a <= s < b for a, b in programs)}
    candidates: list[Candidate] = []
    keys = {s.start: k for k, s in enumerate(note.sections)}

    def section_of(offset: int) -> int:
        found = note.section_at(offset)
        return -1 if found is None else keys[found.start]

    # an array of expressions first: a chain reads the same `= [[…]]` as a bare (unreadable) value
    candidates += array_candidates(note, tokens, uncovered_outside, literals,
                                   url_spans(note.text))
    candidates += chain_candidates(note.text, tokens, uncovered_outside, section_of)
    candidates += substitution_candidates(note.text, tokens, uncovered_outside, section_of)
    candidates += formula_row_candidates(note.text, tokens, uncovered_outside, section_of)
    candidates += assembled_candidates(note.text, tokens, uncovered_outside, section_of)
    # a table column computed by a formula printed in its header or for the quantity it names
    candidates += named_table_candidates(note.text, tokens, uncovered_outside, section_of)
    # units and shares (sieved against the printed digits) before restate: merged, the first
    # check of a value wins (`… bytes, about 674 MiB`)
    for family in (aggregate_candidates, listed_total_candidates, percent_candidates,
                   header_formula_candidates, expression_cell_candidates, table_candidates,
                   unit_candidates, dtype_candidates, share_candidates,
                   sentence_share_candidates, restate_candidates,
                   repeat_candidates, vector_candidates, scaled_candidates, product_candidates,
                   rate_candidates, worded_sum_candidates, list_word_candidates,
                   window_candidates,
                   listed_column_candidates, coefficient_candidates, scalar_repeat_candidates):
        candidates += family(note.text, tokens, uncovered_outside)
    # a Gram matrix (read cell by cell in a table, `⟨g[0,1]⟩` parts) is its own claim, never
    # merged, and settled first: its check is stronger than a copy or a sum of its cells
    candidates = gram_candidates(note.text, tokens, uncovered_outside) + \
        merge_by_lines(note, candidates)
    # percentages that make a whole: one claim per entry (1 − the others), never merged
    candidates += whole_candidates(note.text, tokens, uncovered_outside)
    # the shape printed with a matrix's name, `W_q (4 × 3)：`, against the matrix printed
    candidates += shape_candidates(note.text, tokens, uncovered_outside)
    # the shape printed after a product (`X · W_q = Q (3 × 3)`, `→ 3×2`) from its factors'
    candidates += shape_algebra_candidates(note.text, tokens, uncovered_outside)
    # a program's output is one claim of its own kind (model, with a code hole): never merged
    candidates += program_candidates(note.text, tokens, uncovered)
    # a formula read on its worked instance (computes:): its own claim, never merged
    candidates += instance_candidates(note.text, tokens, uncovered_outside)
    # a named formula read on its worked instance, names bound to the note's definitions
    candidates += named_instance_candidates(note.text, tokens, uncovered_outside, section_of)
    candidates += prose_formula_candidates(note.text, tokens, uncovered_outside, section_of)
    # a Σ/∏ formula read on the entries the note prints (x_1 = …) and its printed result
    candidates += bigop_candidates(note.text, tokens, uncovered_outside, section_of)
    # the unit word of a restated size (states: unit): its own claim, never merged
    candidates += unit_word_candidates(note.text, tokens, uncovered_outside)
    candidates += unit_table_candidates(note.text, tokens, uncovered_outside)
    # a direction word read over the values after it (states:): alternatives, first kept wins
    candidates += trend_candidates(note.text, tokens, uncovered_outside)
    # a monotone law in prose (X 越大，Y 越小) read over the note's table (states: sign)
    candidates += monotone_candidates(note.text, tokens, uncovered_outside)
    # a sentence that says every word of a law (kind: property, word holes): searched by
    # Hypothesis, kept only when no counterexample is found
    statements = cov.kinds.get("statements")
    candidates += law_candidates(note.text, {it.start for it in statements.uncovered}
                                 if statements else set())
    existing = {c.id for c in result.claims}
    stem = Path(note_name).stem
    taken: set[int] = set()  # values a kept claim already checks
    groups: set[str] = set()  # groups of alternatives one kept candidate settled
    for cand in candidates:
        if cand.group and cand.group in groups:
            continue
        if cand.family == "shape" and _reads_open(note, cand, open_starts, report.covered_starts):
            continue  # a shape check cannot fail on an entry: it must not be what covers it
        cand.checks = [c for c in cand.checks
                       if not any(t.start in taken for t in cand.parts(c.hole))]
        got = settle(result.notes, note_name, stem, cand, existing)
        if got is None:
            continue
        existing.add(got.id)
        groups.add(cand.group)
        taken.update(a for a, _ in got.checked)
        for def_id, def_yaml in got.defs:
            if def_id not in existing:
                existing.add(def_id)
                report.definitions.append((def_id, def_yaml))
        report.claims.append(got)
        for tok in _holes_of(cand, got) + [(t.start, t.end) for t in cand.used_names().values()]:
            report.covered_starts.update(
                lit.start for lit in note.literals_in(tok[0], tok[1]) if lit.start in open_starts)
    report.claims += fenced_program_claims(result.notes, note_name, stem, existing)
    report.claims += order_claims(result.notes, note_name, stem, existing)
    report.claims += count_claims(result.notes, note_name, stem, existing)  # 三个 next to 3 items
    return report


def _reads_open(note: object, cand: Candidate, open_starts: set[int], covered: set[int]
                ) -> bool:
    """Does a shape candidate read (besides its printed shape ``r``, ``c``) a literal that no
    claim covers yet? Its check counts rows and columns, so an edited entry would pass."""
    return any(lit.start in open_starts and lit.start not in covered
               for name, t in cand.holes.items() if name not in ("r", "c")
               for lit in note.literals_in(t.start, t.end))  # type: ignore[attr-defined]


def _all_open(note: object, start: int, end: int, open_starts: set[int]) -> bool:
    lits = note.literals_in(start, end)  # type: ignore[attr-defined]
    return bool(lits) and all(lit.start in open_starts for lit in lits)


def _holes_of(cand: Candidate, got: Inferred) -> list[tuple[int, int]]:
    """Spans of the holes the written claim reads (its quote names them)."""
    return [(t.start, t.end) for name, t in cand.holes.items() if f"⟨{name}⟩" in got.yaml]
