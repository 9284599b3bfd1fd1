"""Honest routes (issue 13): a printed value verifies only when some honest computation
gives it at the printed precision; a value only the interval hull admits is a discrepancy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_engine import check, project
from verifiers.arithmetic.edits import bump
from verifiers.arithmetic.routes import matches_a_route
from verifiers.cli import main
from verifiers.engine import Engine
from verifiers.mutate import APPROXIMATE, CAUGHT, CORRECTED, MISSED, Mutation, outcome
from verifiers.numbers import parse_printed
from verifiers.run import load_claims, load_notes

# 8.2 of matrix-by-matrix in miniature: exp of the printed 1.71 is 5.53 (5.529),
# the exact exp(1.2/0.7) = exp(1.714…) is 5.55 (5.553); 5.54 is only inside the hull.
EXP_NOTE = """1 温度
l = 1.2, T = 0.7
logits/T = 1.71
exp = {e}
"""

EXP_CLAIMS = """note: n.txt
claims:
  - id: t-exp
    text: |
      l = ⟨l⟩, T = ⟨T⟩
      logits/T = ⟨lt⟩
      exp = ⟨e⟩
    check:
      lt: l / T
      e: exp(lt)
{extra}"""


def _exp(tmp_path, e: str, extra: str = ""):
    return project(tmp_path, EXP_CLAIMS.format(extra=extra), EXP_NOTE.format(e=e))


def _value(data: dict, name: str) -> dict:
    return next(v for c in data["claims"] for v in c["values"] if v["name"] == name)


def test_a_value_only_the_hull_admits_is_a_discrepancy_naming_the_routes(tmp_path, capsys):
    code, out, data = check(_exp(tmp_path, "5.54"), capsys)
    assert code == 1, out
    e = _value(data, "e")
    assert e["status"] == "discrepancy" and e["local"] == "wrong"
    assert e["route"] is None
    assert "no honest route gives 5.54 (5.55 exact, 5.53 from the printed inputs" in e["message"]


@pytest.mark.parametrize(("printed", "route", "words"), [
    ("5.53", "printed", "5.53 verified from the printed inputs"),
    ("5.55", "exact", "5.55 verified"),
])
def test_each_honest_route_verifies_and_is_named(tmp_path, capsys, printed, route, words):
    code, out, data = check(_exp(tmp_path, printed), capsys)
    assert code == 0, out
    e = _value(data, "e")
    assert e["status"] == "verified" and e["route"] == route
    assert e["message"] == f"e: {words}"


def test_finer_route_carries_inputs_correctly_rounded_past_the_printed_digits():
    # 1.714285… to one more digit is 1.714: exp(1.714) = 5.5513 -> 5.55 at 2 decimals,
    # but at 3 decimals 5.551 is neither exact (5.553) nor printed-route (5.529) nor hull-only
    from verifiers.arithmetic.routes import FINER, Route, carry_number

    pn = parse_printed("1.71")
    carried = carry_number(pn, 12 / 7, True, Route(FINER, 1))
    assert str(carried) == "1.714"
    assert str(carry_number(pn, 12 / 7, False, Route(FINER, 1))) == "1.71"  # wrong: as printed


# -- hidden intermediates ----------------------------------------------------------------

HIDDEN_NOTE = "1 隐藏\ny = 10 × 2 ÷ 3 = {y}\n"
HIDDEN_CLAIMS = """note: n.txt
claims:
  - id: h
    text: y = ⟨k⟩ × ⟨n⟩ ÷ ⟨d⟩ = ⟨y⟩
    where:
      x: n / d
    check:
      y: k * x
{hidden}"""


@pytest.mark.parametrize(("printed", "hidden", "status"), [
    ("6.70", "", "discrepancy"),  # 10 × 0.67: the author rounded 2/3, the claim does not say
    ("6.70", "    hidden: {x: {decimals: 2}}\n", "verified"),  # declared: exactly that
    ("6.71", "    hidden: {x: {decimals: 2}}\n", "discrepancy"),  # not a tolerance
    ("6.69", "    hidden: {x: {decimals: 2}}\n", "discrepancy"),
    ("6.70", "    hidden: {x: {decimals: 3}}\n", "discrepancy"),  # 10 × 0.667 = 6.67
    ("6.70", "    hidden: {x: {digits: 2}}\n", "verified"),
    ("6.67", "    hidden: {x: {decimals: 2}}\n", "verified"),  # the exact route still holds
])
def test_hidden_admits_exactly_its_rounding(tmp_path, capsys, printed, hidden, status):
    root = project(tmp_path, HIDDEN_CLAIMS.format(hidden=hidden), HIDDEN_NOTE.format(y=printed))
    code, out, data = check(root, capsys)
    y = _value(data, "y")
    assert y["status"] == status, out
    if status == "verified" and printed == "6.70":
        assert y["route"] == "exact+hidden"
        assert "with the hidden intermediates rounded" in y["message"]


@pytest.mark.parametrize(("hidden", "message"), [
    ("    hidden: {z: {decimals: 2}}\n", "hidden: 'z' is not a 'where' name"),
    ("    hidden: {x: {decimals: 2, digits: 2}}\n", "give one of digits or decimals"),
    ("    hidden: {x: {decimals: -1}}\n", "give one of digits or decimals"),
    ("    hidden: {x: {places: 2}}\n", "unknown key 'places'"),
])
def test_hidden_is_validated(tmp_path, capsys, hidden, message):
    root = project(tmp_path, HIDDEN_CLAIMS.format(hidden=hidden), HIDDEN_NOTE.format(y="6.67"))
    code, out, _ = check(root, capsys)
    assert code != 0 and message in out, out


# -- suggestions follow the note's honest chain (issue 14) ---------------------------------

CHAIN_NOTE = "1 链\na = 2 ÷ 3 = 0.667\nb = 2 ÷ 3 = 0.667\ns = 0.667 + 0.667 = {s}\n"
CHAIN_CLAIMS = """note: n.txt
claims:
  - id: chain
    text: |
      a = ⟨n1⟩ ÷ ⟨d1⟩ = ⟨a⟩
      b = ⟨n2⟩ ÷ ⟨d2⟩ = ⟨b⟩
      s = ⟨a2⟩ + ⟨b2⟩ = ⟨s⟩
    check:
      a: n1 / d1
      b: n2 / d2
      a2: a
      b2: b
      s: a2 + b2
"""


def test_suggestion_follows_the_printed_chain_not_the_exact_value(tmp_path, capsys,
                                                                  monkeypatch):
    root = project(tmp_path, CHAIN_CLAIMS, CHAIN_NOTE.format(s="1.335"))
    code, out, data = check(root, capsys)
    assert code == 1, out
    s = _value(data, "s")
    assert s["suggestion"] == "1.334"  # 0.667 + 0.667, not the exact 4/3 = 1.333
    assert "1.333 exact, 1.334 from the printed inputs" in s["message"]
    monkeypatch.chdir(root)
    assert main(["fix", "--write"]) == 0
    assert "s = 0.667 + 0.667 = 1.334\n" in (root / "notes" / "n.txt").read_text("utf-8")
    code, out, data = check(root, capsys)
    assert code == 0, out
    assert _value(data, "s")["route"] == "printed"


def test_suggestion_is_exact_when_the_chain_is_itself_wrong(tmp_path, capsys):
    # a is printed wrong and the sum goes on with it: the chain gives 1.344, which is no fix
    note = (CHAIN_NOTE.format(s="1.335").replace("a = 2 ÷ 3 = 0.667", "a = 2 ÷ 3 = 0.677")
            .replace("s = 0.667", "s = 0.677"))
    root = project(tmp_path, CHAIN_CLAIMS, note)
    _, out, data = check(root, capsys)
    assert _value(data, "a")["suggestion"] == "0.667"
    assert "1.344 from the printed inputs" in _value(data, "s")["message"]
    assert _value(data, "s")["suggestion"] == "1.333", out


# -- the sensitivity survey's labels --------------------------------------------------------

def _mutation_outcome(root, old: str, new: str, digit_at: int) -> str:
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    text = notes["n.txt"].text
    offset = text.index(f"exp = {old}") + len("exp = ") + digit_at
    m = Mutation("n.txt", "t-exp", "e", offset, text[offset], new, 4, 7 + digit_at)
    engine = Engine(notes, claims)
    engine.verdict("t-exp")
    ev = engine.evaluations["t-exp"]
    spans = {"t-exp": (ev.match.start, ev.match.end)}
    return outcome(notes, claims, m, set(), spans)


WIDE = ("    widen:\n      e: {abs: 0.05, reason: \"a knob: an accepted edit that no "
        "route gives\"}\n")


@pytest.mark.parametrize(("extra", "new", "label"), [
    ("", "5", CORRECTED),  # 5.53 -> 5.55: the exact route's value
    ("", "4", CAUGHT),  # 5.54: only the hull admitted it
    (WIDE, "4", MISSED),  # accepted by a widen, equal to no route: not "corrected"
])
def test_an_accepted_edit_is_corrected_only_when_a_route_gives_it(tmp_path, extra, new, label):
    root = _exp(tmp_path, "5.53", extra)
    assert _mutation_outcome(root, "5.53", new, 3) == label


def test_an_approximate_words_digit_is_labelled_apart(tmp_path):
    root = project(tmp_path, EXP_CLAIMS.format(extra="").replace("exp = ⟨e⟩", "exp = 约 ⟨e⟩"),
                   EXP_NOTE.format(e="约 5.55"))
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    text = notes["n.txt"].text
    offset = text.index("5.55") + 3
    m = Mutation("n.txt", "t-exp", "e", offset, "5", "6", 4, 10)  # 5.56: within ±0.01
    engine = Engine(notes, claims)
    engine.verdict("t-exp")
    ev = engine.evaluations["t-exp"]
    assert outcome(notes, claims, m, set(), {"t-exp": (ev.match.start, ev.match.end)}) \
        == APPROXIMATE


# -- the last-digit survey ------------------------------------------------------------------

def test_last_digit_survey_catches_every_edit_no_route_admits(tmp_path):
    from benchmarks.lastdigit import CAUGHT as LD_CAUGHT
    from benchmarks.lastdigit import HONEST_FLAGGED, HONEST_OK, survey

    root = project(tmp_path, CHAIN_CLAIMS, CHAIN_NOTE.format(s="1.334"))
    result = survey(root / "notes", root / "claims")
    got = {(e.hole, e.new): what for e, what in result.outcomes}
    assert got[("s", "1.333")] == HONEST_OK  # the exact route's value
    assert got[("s", "1.335")] == LD_CAUGHT
    assert got[("a", "0.668")] == LD_CAUGHT and got[("a", "0.666")] == LD_CAUGHT
    assert HONEST_FLAGGED not in got.values() and "missed" not in got.values()
    assert result.clean_alarms == []


@pytest.mark.parametrize(("text", "delta", "new"), [
    ("2.19", 1, "2.20"), ("2.10", -1, "2.09"), ("386 万", 1, "387 万"), ("13.5%", -1, "13.4%"),
    ("0.00", -1, None), ("9.99", 1, None), ("1.5 \\times 10^{3}", 1, "1.6 \\times 10^{3}"),
    ("10^{-5}", 1, None),
])
def test_bump_moves_the_last_digit_with_carry(text, delta, new):
    assert bump(text, delta) == new


def test_a_route_value_matches_on_either_side_of_a_tie_and_integers_round_to_units():
    assert matches_a_route(parse_printed("0.963"), [0.9625])
    assert matches_a_route(parse_printed("0.962"), [0.9625])
    assert not matches_a_route(parse_printed("0.964"), [0.9625])
    assert matches_a_route(parse_printed("2143"), [2143.08])
    assert not matches_a_route(parse_printed("2144"), [2143.08])
    assert not matches_a_route(parse_printed("3"), [2.0])  # an integer result is exact
    assert not matches_a_route(parse_printed("1"), [0.901])  # one digit: no rounding


def test_a_one_digit_integer_is_not_a_rounding_of_its_value(tmp_path):
    """aat 3.2: "a1 + a2 + a3 = 1" over the shares 60 %, 30 %, 10 %. Writing the third as
    0.1 % makes the sum 0.901, which the printed 1 used to admit as "rounded to units"."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    shutil.copytree(root / "notes", tmp_path / "notes")
    path = tmp_path / "notes" / "architecture-and-training.txt"
    text = path.read_text(encoding="utf-8")
    assert text.count("从第三个获取 10%") == 1
    path.write_text(text.replace("从第三个获取 10%", "从第三个获取 0.1%"), encoding="utf-8")
    notes = load_notes(tmp_path / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    verdict = Engine(notes, claims).verdict("aat-3-2-example-shares")
    assert verdict.status == "discrepancy"
    total = next(v for v in verdict.values if v.name == "total")
    assert (total.status, total.printed, total.expected) == ("discrepancy", "1", "0.901")


def test_the_issue_example_on_the_real_note_is_now_caught():
    """matrix-by-matrix 8.2, T = 0.7: exp 5.53 edited to 5.54 passed through the hull."""
    from pathlib import Path

    from verifiers.notes import Note

    root = Path(__file__).resolve().parent.parent
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    note = notes["matrix-by-matrix.txt"]
    engine = Engine(notes, claims)
    before = next(v for v in engine.verdict("mbm-8-2-t-0-7").values if v.name == "e")
    assert before.status == "verified"
    at = note.text.index("[1.15, 0.49, 26.8, 5.53, 3.13, 0.65]")
    edited = note.text[:at] + "[1.15, 0.49, 26.8, 5.54, 3.13, 0.65]" + note.text[at + 36:]
    changed = dict(notes)
    changed["matrix-by-matrix.txt"] = Note(note.path, edited, note.name)
    after = next(v for v in Engine(changed, claims).verdict("mbm-8-2-t-0-7").values
                 if v.name == "e")
    assert after.status == "discrepancy"
    assert "5.55 exact" in after.message and "5.53 from the printed inputs" in after.message


def test_an_edited_input_of_a_statement_that_still_holds_is_not_a_miss():
    """lesson1's panel: "after n1 = 3000 steps the loss is still above lo" stays true at 3001
    (the claim reruns with the edited n1), while an edit of the vocabulary size is caught."""
    from benchmarks.lastdigit import CAUGHT as LD_CAUGHT
    from benchmarks.lastdigit import STILL_TRUE, edits, outcome

    root = Path(__file__).resolve().parent.parent
    notes = load_notes(root / "notes")
    claims, _ = load_claims(root / "claims", set(notes))
    claims = [c for c in claims if c.note == "lesson1-text-to-distribution.txt"]
    engine = Engine(notes, claims)
    panel = [c for c in claims if c.id == "l1-7-panel"]
    found = {(e.hole, e.new): e for e in edits(engine, panel, notes)}
    spans = {c.id: (engine.evaluations[c.id].match.start, engine.evaluations[c.id].match.end)
             for c in panel if engine.evaluations[c.id].match is not None}
    assert outcome(notes, claims, spans, found[("n1", "3001")]) == STILL_TRUE
    wrong_v = next(e for (hole, _), e in found.items() if hole == "V")
    assert outcome(notes, claims, spans, wrong_v) == LD_CAUGHT
