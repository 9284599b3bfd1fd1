"""Last-digit survey: every covered computed value's last digit moved by ±1 (issue 13).

    python -m benchmarks.lastdigit                 # all notes
    python -m benchmarks.lastdigit --note lesson1-text-to-distribution.txt --sample 200

Each printed number of a checked hole that verifies today is edited twice (its last
digit +1 and −1 unit, with carry) and the claims the edit reaches are re-run:

* an edit whose new text is an honest route's value at that precision
  (:mod:`verifiers.arithmetic.routes`) is *honest*: flagging the edited value is a
  false alarm;
* an edit within an approximate word's ±1 (约, about …) is *approximate*: the rule
  admits it by design and it is counted apart;
* an edit of a value the claim reads as the input of a statement (the panel's "after n1
  steps the loss is still above lo"), after which the claim re-runs with the new text and
  the statement still holds, is counted apart: the edited note is true;
* every other edit is one *no honest route admits*: it must be caught (goal 100%).

False alarms also count the values of the unedited notes that fail without a pin
(arithmetic, model and given claims: the kinds routes decide).
Figures are printed, never asserted (tests/test_routes.py asserts on a fixture and on lesson1).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verifiers.arithmetic.edits import bump, number_spans  # noqa: E402
from verifiers.arithmetic.routes import matches_a_route  # noqa: E402
from verifiers.engine import Engine, flat  # noqa: E402
from verifiers.holes import read_number  # noqa: E402
from verifiers.mutate import reach  # noqa: E402
from verifiers.notes import Note  # noqa: E402
from verifiers.run import load_claims, load_notes  # noqa: E402
from verifiers.schema import Claim  # noqa: E402
from verifiers.verdicts import DISCREPANCY, ERROR, VERIFIED  # noqa: E402

CAUGHT, MISSED = "caught", "missed"
# Not re-run per edit (SymPy and Hypothesis are slow): only arithmetic, model and given
# claims may catch an edit here, so "caught" is a lower bound.
SLOW = ("symbolic", "property")
HONEST_OK, HONEST_FLAGGED = "honest, passes", "honest, flagged"
APPROXIMATE = "approximate"
# The value is the input of a statement the claim checks ("the loss is still above lo after
# n1 steps"): after the edit the claim recomputes it from the new text and the statement
# still holds, so the edited note is true. Counted apart, never as caught.
STILL_TRUE = "input of a statement that still holds"


@dataclass(frozen=True)
class Edit:
    note: str
    claim_id: str
    hole: str
    index: int
    offset: int  # of the number's text in the note
    old: str
    new: str
    honest: bool
    approximate: bool


@dataclass
class Survey:
    outcomes: list[tuple[Edit, str]]
    clean_alarms: list[str]  # failing values of the unedited notes that no pin explains

    def counts(self) -> Counter[str]:
        return Counter(outcome for _, outcome in self.outcomes)


def edits(engine: Engine, claims: list[Claim], notes: dict[str, Note]) -> list[Edit]:
    """±1 of the last digit of every number of every verified checked hole."""
    found: list[Edit] = []
    for claim in claims:
        if claim.note not in notes or not claim.check:
            continue
        verdict = engine.verdict(claim.id)
        ev = engine.evaluations[claim.id]
        if ev.failure is not None:
            continue
        for value in verdict.values:
            state = ev.states.get(value.name)
            if value.status != VERIFIED or state is None:
                continue
            printed = ev.match.values[value.name]
            spans = number_spans(printed)
            for i, (pn, (start, _)) in enumerate(zip(printed.numbers, spans, strict=False)):
                if pn.kind == "fraction":  # 1/3 is no rounded value
                    continue
                routes = [flat(part)[i] for part in state.candidates.values()]
                for delta in (1, -1):
                    new = bump(pn.text, delta)
                    if new is None:
                        continue
                    honest = matches_a_route(read_number(new), routes)  # 25$ 亿 too
                    found.append(Edit(claim.note, claim.id, value.name, i, start, pn.text, new,
                                      honest, value.approximate))
    return found


def outcome(notes: dict[str, Note], claims: list[Claim], spans: dict[str, tuple[int, int]],
            edit: Edit) -> str:
    original = notes[edit.note]
    text = original.text
    edited = text[:edit.offset] + edit.new + text[edit.offset + len(edit.old):]
    changed = dict(notes)
    changed[edit.note] = Note(original.path, edited, original.name)
    engine = Engine(changed, claims)
    if edit.honest:
        own = engine.verdict(edit.claim_id)
        value = next((v for v in own.values if v.name == edit.hole), None)
        return HONEST_OK if value is not None and value.status == VERIFIED else HONEST_FLAGGED
    if edit.approximate:
        return APPROXIMATE
    # the same reach as the one-digit survey: the quote covering the edit and its users
    reached = [cid for cid in reach(claims, spans, edit.offset, edit.claim_id)
               if cid in spans]
    if any(not engine.verdict(cid).passed for cid in reached):
        return CAUGHT
    return STILL_TRUE if _follows_its_text(engine, edit) else MISSED


def _follows_its_text(engine: Engine, edit: Edit) -> bool:
    """After the edit, a route of the value itself gives the new text: the value is read
    from the edited note (an input its statement is checked for), not derived elsewhere."""
    state = engine.evaluations[edit.claim_id].states.get(edit.hole)
    if state is None:
        return False
    routes = [flat(part)[edit.index] for part in state.candidates.values()]
    return matches_a_route(read_number(edit.new), routes)


def survey(notes_dir: Path, claims_dir: Path, note: str | None = None,
           sample: int | None = None) -> Survey:
    notes = load_notes(notes_dir)
    claims, _ = load_claims(claims_dir, set(notes))
    engine = Engine(notes, claims)
    spans: dict[str, tuple[int, int]] = {}
    alarms: list[str] = []
    for claim in claims:
        if claim.kind in SLOW or (note is not None and claim.note != note):
            continue
        verdict = engine.verdict(claim.id)
        ev = engine.evaluations[claim.id]
        if ev.match is not None:
            spans[claim.id] = (ev.match.start, ev.match.end)
        if verdict.status in (DISCREPANCY, ERROR):
            alarms.append(f"{claim.id}: {verdict.status}: {verdict.message[:120]}")
    chosen = [c for c in claims if note is None or c.note == note]
    todo = edits(engine, chosen, notes)
    if sample is not None and sample < len(todo):
        step = len(todo) / sample
        todo = [todo[int(i * step)] for i in range(sample)]
    return Survey([(e, outcome(notes, claims, spans, e)) for e in todo], alarms)


def report(result: Survey) -> str:
    counts = result.counts()
    dishonest = counts[CAUGHT] + counts[MISSED]
    honest = counts[HONEST_OK] + counts[HONEST_FLAGGED]
    caught = f"{counts[CAUGHT]}/{dishonest} = {100 * counts[CAUGHT] / dishonest:.1f}%" \
        if dishonest else "0/0"
    lines = [
        f"last-digit ±1 edits of verified computed values: {len(result.outcomes)}",
        f"  no honest route admits: {dishonest}; caught {caught}",
        f"  honest (a route's value): {honest}; flagged (false alarms): {counts[HONEST_FLAGGED]}",
        f"  approximate words' ±1 (admitted by the rule): {counts[APPROXIMATE]}",
        f"  inputs of statements that still hold after the edit: {counts[STILL_TRUE]}",
        f"  false alarms in the unedited notes: {len(result.clean_alarms)}",
    ]
    for e, what in result.outcomes:
        if what in (MISSED, HONEST_FLAGGED, STILL_TRUE):
            lines.append(f"  {what}: {e.note} {e.claim_id} {e.hole}[{e.index}] {e.old} -> {e.new}")
    lines += [f"  alarm: {a}" for a in result.clean_alarms]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=Path, default=ROOT / "notes")
    parser.add_argument("--claims", type=Path, default=ROOT / "claims")
    parser.add_argument("--note", help="only the values of this note (file name)")
    parser.add_argument("--sample", type=int, help="an evenly spaced sample of the edits")
    args = parser.parse_args(argv)
    print(report(survey(args.notes, args.claims, args.note, args.sample)))


if __name__ == "__main__":
    main()
