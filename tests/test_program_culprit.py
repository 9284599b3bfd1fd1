"""The code line behind a departure (verifiers/programs/culprit.py): planted errors are named
at their line; the unedited set-up names none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from verifiers.programs.culprit import pair_order, setup_ids, step_sizes

ROOT = Path(__file__).resolve().parents[1]
IDS = [0, 1, 2, 0, 3, 1, 2, 4]  # a corpus's ids, first occurrence from 0 (V = 5)
SOURCE = "ids = f()\ncur, nxt = ids[:-1], ids[1:]\nlr = 0.5\n"


def _setup(ids_value: list[int], cur: list[int], nxt: list[int]) -> list:
    a = np.array
    return [(1, "ids", -1, a(ids_value)), (2, "cur", -1, a(cur)), (2, "nxt", -1, a(nxt)),
            (3, "lr", -1, 0.5)]


def test_the_corpus_ids_name_no_line() -> None:
    events = _setup(IDS, IDS[:-1], IDS[1:])
    assert setup_ids(events, IDS, 5) is None
    assert pair_order(SOURCE, events, IDS) is None


def test_ids_over_the_vocabulary_are_named_where_they_are_built() -> None:
    events = _setup(list(range(5)), list(range(4)), list(range(1, 5)))
    found = setup_ids(events, IDS, 5)
    assert found is not None and found.line == 1 and "`ids`" in found.message


def test_ids_cut_short_are_named() -> None:
    events = _setup(IDS, IDS[:-2], IDS[1:])
    found = setup_ids(events, IDS, 5)
    assert found is not None and found.line == 2 and "`cur`" in found.message


def test_pairs_bound_next_first_are_named() -> None:
    events = _setup(IDS, IDS[1:], IDS[:-1])
    found = pair_order(SOURCE, events, IDS)
    assert found is not None and found.line == 2 and "(next, current)" in found.message



def _refs() -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(1)
    e, w = rng.normal(size=(5, 3)), rng.normal(size=(3, 5))
    return [{"E": e, "W_U": w, "∂L/∂E": rng.normal(size=(5, 3)),
             "∂L/∂W_U": rng.normal(size=(3, 5))}]


PARAMS = {"E": "∂L/∂E", "W_U": "∂L/∂W_U"}


def test_one_step_size_names_nothing() -> None:
    ref = _refs()[0]
    events = [(3, "lr", -1, 0.5), (9, "WU", 0, ref["W_U"] - 0.5 * ref["∂L/∂W_U"]),
              (10, "E", 0, ref["E"] - 0.5 * ref["∂L/∂E"])]
    assert step_sizes(events, _refs(), PARAMS) is None


def test_a_parameter_with_another_step_size_is_named_at_its_update() -> None:
    ref = _refs()[0]
    events = [(3, "lr", -1, 0.5), (9, "WU", 0, ref["W_U"] - 0.5 * ref["∂L/∂W_U"]),
              (10, "E", 0, ref["E"] - 0.5 / 8 * ref["∂L/∂E"])]
    found = step_sizes(events, _refs(), PARAMS)
    assert found is not None and found.line == 10 and "0.0625" in found.message


# ------------------------------------------------------------------ end to end, in the jail

@pytest.mark.parametrize(("find", "replace", "says"), [
    ("cur, nxt = ids[:-1], ids[1:]", "cur, nxt = ids[1:], ids[:-1]", "(next, current)"),
    ("ids = np.array([stoi[c] for c in text])", "ids = np.array([stoi[c] for c in text[:-2]])",
     "none of the corpus's id vectors"),
    ("E  -= lr * dE", "E  -= 0.5 * lr * dE", "one step size"),
])
def test_the_printed_program_names_the_edited_line(find: str, replace: str, says: str) -> None:
    from tinygpt.examples.lesson1 import bigram_program_findings
    from verifiers.programs.extract import locate_block

    note = (ROOT / "notes" / "lesson1-text-to-distribution.txt").read_text(encoding="utf-8")
    assert note.count(find) == 1
    line = note[:note.index(find)].count("\n") + 1
    edited = note.replace(find, replace)
    block = locate_block(edited, 0, len(edited), "import numpy as np", None)
    findings = bigram_program_findings(block.text, "", block.first_line)
    named = [f for f in findings if f.status == "discrepancy"
             and block.first_line + f.line - 1 == line]
    assert named and says in named[0].message, [(f.line, f.message) for f in findings]
    assert any(f.name.startswith("loss at step") and f.status == "discrepancy"
               for f in findings)  # and the printed output departs too
