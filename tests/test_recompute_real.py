"""Real repeated printings, once counted as copies, caught by recomputation at their own line.

Each case is a second printing of a derived value in a real note whose check only names the
first one (``a: a0``, ``c: e``, ``f: "[Xr[r], …]"``). Its last digit is edited in a copy of
the notes; the repeat must be a ``discrepancy`` at the edited line, rooted in its own claim,
with the computed value as expected (not "differs from the other printing").
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
NUMBER = re.compile(r"\d+(?:\.\d+)?")

CASES = [  # (claim, value key): a repeat classed `copy` before issue 13's recomputation
    ("aat-3-4-weights", "a"),  # a: a0, the weights of 3.3 printed again
    ("aat-13-9-query-gradient", "t1"),  # t1: gs1, a gradient term repeated
    ("mbm-2-3-q-row0", "f[0,1]"),  # X_input's row 0 printed again in the worked product
    ("mbm-7-3-softmax-pos0", "n[2]"),  # the exponentials repeated over the divisions
]


def _values(result, claim_id: str) -> dict[str, dict]:
    verdict = next(v for v in result.verdicts if v.id == claim_id)
    return {x.name: x for x in verdict.values}


def _bump(text: str) -> str:
    """The first number of ``text`` with its last digit moved by one."""
    m = NUMBER.search(text)
    assert m is not None
    digit = int(m.group()[-1])
    new = m.group()[:-1] + str(digit + 1 if digit < 9 else digit - 1)
    return text[:m.start()] + new + text[m.end():]


@pytest.mark.parametrize(("claim_id", "key"), CASES)
def test_an_edited_repeat_is_caught_by_recomputation(tmp_path, claim_id, key):
    notes = tmp_path / "notes"
    shutil.copytree(ROOT / "notes", notes)
    chosen = lambda claim: claim.id == claim_id  # noqa: E731
    result = run(notes, ROOT / "claims", chosen)
    before = _values(result, claim_id)[key]
    assert before.status == "verified", before.message
    note = notes / next(v for v in result.verdicts if v.id == claim_id).note
    lines = note.read_text(encoding="utf-8").split("\n")
    (line, col), (_, end) = before.start, before.end
    row = lines[line - 1]
    edited = _bump(row[col - 1:end - 1])
    lines[line - 1] = row[:col - 1] + edited + row[end - 1:]
    note.write_text("\n".join(lines), encoding="utf-8")
    after = _values(run(notes, ROOT / "claims", chosen), claim_id)[key]
    assert after.status == "discrepancy", after.message
    assert after.start[0] == line and after.root_cause == claim_id
    assert "no honest route gives" in after.message
    assert after.printed != before.printed and after.suggestion is not None
    assert NUMBER.search(after.suggestion).group() == NUMBER.search(before.printed).group()
