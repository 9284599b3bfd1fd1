"""Markdown notes are first-class: headings, code, math units, tables; claims on a real lesson.

The lesson is ``tests/fixtures/markdown/notes/backprop-mini.md`` (written for these
tests in the notes' style); its claims are ``tests/fixtures/markdown/claims``. An
edited copy with one wrong digit, and one with a sign flipped in a row of an
``aligned`` display, must fail at the line and column of the edit.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.cli import main
from verifiers.holes import ResolveError, find
from verifiers.notes import MarkdownNote, Note, TextNote, read_note
from verifiers.schema import symbol_name

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "markdown"
LESSON = FIXTURE / "notes" / "backprop-mini.md"
NOTES = Path(__file__).resolve().parent.parent / "notes"


def lesson() -> Note:
    return read_note(LESSON)


# --- the parser ----------------------------------------------------------------------


def test_the_suffix_picks_the_parser_and_the_api_stays():
    assert isinstance(lesson(), MarkdownNote)
    assert isinstance(read_note(NOTES / "lesson1-text-to-distribution.txt"), TextNote)
    assert isinstance(Note.from_text("# A\n", "x.md"), MarkdownNote)
    assert isinstance(Note.from_text("1.1 A\n"), TextNote)  # no suffix: plain text


def test_the_three_text_notes_keep_their_index():
    counts = {p.name: (len(read_note(p).sections), len(read_note(p).literals))
              for p in sorted(NOTES.glob("*.txt"))}
    assert counts == {"architecture-and-training.txt": (147, 846),
                      "lesson1-text-to-distribution.txt": (9, 300),
                      "matrix-by-matrix.txt": (57, 1510)}
    assert all(read_note(p).displays == [] for p in NOTES.glob("*.txt"))


def test_headings_nest_by_level_and_numbered_titles_have_their_label():
    note = lesson()
    heads = [(s.label, s.level) for s in note.sections]
    assert heads[:4] == [("Backprop, one neuron at a time", 1), ("1", 2), ("2", 2),
                         ("Step 1: the net input", 3)]
    two = next(s for s in note.sections if s.label == "2")
    three = next(s for s in note.sections if s.label == "3")
    assert two.end == three.start  # a level-2 scope holds its level-3 steps
    assert len(note.scopes("Step 1")) == 2  # one per layer: the heading alone is ambiguous
    assert note.section_at(note.text.index("0.3775")).title == "Step 1: the net input"


def test_code_urls_and_labels_are_not_literals_and_cells_keep_signs():
    note = lesson()
    texts = [lit.text for lit in note.literals]
    code = note.text.index("```python")
    assert all(lit.start < code for lit in note.literals)  # the program's numbers
    assert "2015" not in texts and "17" not in texts  # URL and link target digits
    assert "3" in texts  # "Lesson 3" is prose (coverage's label rule excludes it)
    cells = Note.from_text("| a | -0.5 |\n|---|---|\n| b | − 2 |\n", "t.md")
    assert [lit.text for lit in cells.literals] == ["-0.5", "− 2"]


def test_math_units_span_lines():
    note = lesson()
    blocks = [d for d in note.displays if d.block]
    first = note.text[blocks[0].body_start:blocks[0].body_end]
    assert first.strip().startswith("\\begin{aligned}") and first.count("\n") >= 4
    inline = [note.text[d.start:d.end] for d in note.displays if not d.block]
    assert "$out_{h2} = 0.596884378$" in inline
    env = Note.from_text("x\n\\begin{align}\na &= b \\\\\n&= c\n\\end{align}\n", "e.md")
    assert [(d.block, env.text[d.start:d.end].count("\n")) for d in env.displays] == [(True, 3)]


# --- the claims ------------------------------------------------------------------------


def check(tmp_path: Path, notes: Path) -> dict:
    out = tmp_path / "report.json"
    main(["check", "--no-cache", "--notes", str(notes), "--claims", str(FIXTURE / "claims"),
          "--json", str(out)])
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_lesson_verifies(tmp_path):
    report = check(tmp_path, FIXTURE / "notes")
    status = {c["id"]: c["status"] for c in report["claims"]}
    assert status == dict.fromkeys(
        ["bpm-inputs", "bpm-net-h1", "bpm-out-h1", "bpm-net-o2", "bpm-net-o1",
         "bpm-sigmoid-derivative"], "verified")
    sym = next(c for c in report["claims"] if c["id"] == "bpm-sigmoid-derivative")
    assert [v["name"] for v in sym["values"]] == ["D.step1", "D.step2", "D.step3"]


@pytest.mark.parametrize("old, new, claim, where", [
    ("&= 0.3775\n", "&= 0.3785\n", "bpm-net-h1", (27, 4)),  # a wrong digit in the display
    ("}}} - \\frac{1}{(1", "}}} + \\frac{1}{(1", "bpm-sigmoid-derivative", (47, 1)),  # a sign
])
def test_an_edited_copy_fails_at_the_edit(tmp_path, old, new, claim, where):
    notes = tmp_path / "notes"
    notes.mkdir()
    text = LESSON.read_text(encoding="utf-8")
    assert text.count(old) == 1
    (notes / LESSON.name).write_text(text.replace(old, new), encoding="utf-8")
    report = check(tmp_path, notes)
    bad = [c for c in report["claims"] if c["status"] != "verified"]
    assert [c["id"] for c in bad] == [claim] and bad[0]["status"] == "discrepancy"
    failed = [v for v in bad[0]["values"] if v["status"] == "discrepancy"]
    # the edited place first; a definition the failing step used may be named after it
    # (``<hole>.used``), so that an edit of the definition itself is found at its line
    assert (failed[0]["start"]["line"], failed[0]["start"]["col"]) == where
    assert all(v["name"].endswith(".used") for v in failed[1:])


# --- quotes: formula holes, context, messages ---------------------------------------------


def test_a_formula_hole_reads_a_whole_display_and_joins_a_row_ending_in_a_relation():
    note = lesson()
    match = find(note.text, "The derivative of the activation, where ⟪F⟫:\n⟪D⟫",
                 [(0, len(note.text))], displays=note.displays)
    assert match.formulas["F"].text == "out_{h1} = \\frac{1}{1 + e^{-net_{h1}}}"
    d = match.formulas["D"]
    assert d.text.count("\n") == 6 and "(1 - out_{h1}) &=   \n" in d.text  # "\\" -> spaces
    assert note.text[d.start:d.end].count("\\\\") == 2  # offsets still point into the note


def test_two_formula_holes_on_consecutive_lines_bind_one_line_each():
    text = "设\na = b + c\nb + c = d\n"
    match = find(text, "设\n⟪A⟫\n⟪B⟫", [(0, len(text))])
    assert (match.formulas["A"].text, match.formulas["B"].text) == ("a = b + c", "b + c = d")


def test_an_ambiguous_quote_lists_its_candidates_and_near_or_after_picks_one():
    note = lesson()
    scope = note.scopes("3")
    with pytest.raises(ResolveError) as err:
        find(note.text, "with $b_2 = ⟨b⟩$:", scope)
    assert "found 2 times, at 55:58, 58:58" in err.value.message
    assert "near:" in err.value.message
    near = find(note.text, "with $b_2 = ⟨b⟩$:", scope, near="w_8")
    after = find(note.text, "with $b_2 = ⟨b⟩$:", scope, after="For $o_2$")
    assert note.position(near.start) == note.position(after.start) == (58, 58)
    first = find(note.text, "with $b_2 = ⟨b⟩$:", scope, near="w_6")
    assert note.position(first.start) == (55, 58)
    with pytest.raises(ResolveError, match="near: 'w_9' is not in the scope"):
        find(note.text, "with $b_2 = ⟨b⟩$:", scope, near="w_9")


def test_not_found_names_the_quote_line_that_stops_matching():
    note = lesson()
    quote = "net_{h1} &= w_1 i_1 + w_2 i_2 + b_1 \\\\\n&= 0.15 \\times 0.05 + 0.20 \\times 0.11"
    with pytest.raises(ResolveError) as err:
        find(note.text, quote, [(0, len(note.text))])
    assert "quote line 2" in err.value.message and "0.11" in err.value.message
    # the hint is a word diff against the closest line (verifiers.holes.closest_line)
    assert err.value.hint.startswith("&= 0.15 \\times 0.05 + 0.20 \\times")
    assert "[-0.11-]" in err.value.hint and "{+0.10" in err.value.hint


# --- names ------------------------------------------------------------------------------


def test_names_as_the_note_writes_them():
    assert symbol_name("out_{o1}") == "out_o1"
    assert symbol_name("out_o1") == "out_o1"
    assert symbol_name("w_{5}") == "w_5"
    assert symbol_name("E [X]") == "E [X]"


def test_define_and_assume_take_written_names(tmp_path):
    claims = tmp_path / "claims" / "backprop-mini"
    shutil.copytree(FIXTURE / "claims" / "backprop-mini", claims)
    path = claims / "01-forward.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("      out_{h1}: F ", "      out_h1: F ")
    text = text.replace('assume: {real: ["net_{h1}"]}', "assume: {real: true, positive: [net_h1]}")
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "r.json"
    main(["check", "--no-cache", "--notes", str(FIXTURE / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out), "-k", "derivative"])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert [c["status"] for c in report["claims"]] == ["verified"]


def test_a_waiver_takes_near_too(tmp_path):
    from verifiers.coverage.literals import WAIVED, coverage
    from verifiers.run import run

    claims = tmp_path / "claims"
    shutil.copytree(FIXTURE / "claims", claims)
    waiver = ("note: backprop-mini.md\nwaivers:\n  - text: with $b_2 = ⟨b⟩$\n"
              "    reason: the shared bias, restated\n    section: \"3\"\n")
    (claims / "backprop-mini" / "90-waivers.yaml").write_text(waiver, encoding="utf-8")
    covs, problems = coverage(run(FIXTURE / "notes", claims))
    assert len(problems) == 1 and "found 2 times, at 55:58, 58:58" in problems[0].message
    (claims / "backprop-mini" / "90-waivers.yaml").write_text(
        waiver + "    near: \"w_8\"\n", encoding="utf-8")
    covs, problems = coverage(run(FIXTURE / "notes", claims))
    note = read_note(LESSON)
    waived = [note.position(lit.start) for lit in covs[0].literals
              if covs[0].status[lit.start] == WAIVED]
    assert not problems and waived == [(58, 70)]


def test_a_stale_quote_points_at_a_candidate_or_where_matching_stopped(tmp_path, capsys):
    claims = tmp_path / "claims"
    shutil.copytree(FIXTURE / "claims", claims)
    path = claims / "backprop-mini" / "01-forward.yaml"
    text = path.read_text(encoding="utf-8").replace('    near: "w_8"\n', "")
    text = text.replace("&= ⟨w1⟩ \\times ⟨i1⟩ + ⟨w2⟩ \\times ⟨i2⟩ + ⟨b1⟩ \\\\",
                        "&= ⟨w1⟩ \\times ⟨i1⟩ + ⟨w2⟩ \\cdot ⟨i2⟩ + ⟨b1⟩ \\\\")
    path.write_text(text, encoding="utf-8")
    main(["check", "--no-cache", "--notes", str(FIXTURE / "notes"), "--claims", str(claims),
          "-k", "net_o2 or net_h1 or net-o2 or net-h1"])
    out = capsys.readouterr().out
    lines = {ln.split(": ")[2].split()[0]: ln for ln in out.splitlines() if "stale" in ln}
    assert lines["bpm-net-o2"].split(": ")[0].endswith("backprop-mini.md:55:58")
    assert "found 2 times, at 55:58, 58:58" in lines["bpm-net-o2"]
    # the quote's first row matches (line 25); its second row does not: the stale verdict
    # points at the first difference on the closest line and names the quote line that
    # stops matching
    assert lines["bpm-net-h1"].split(": ")[0].endswith("backprop-mini.md:26:23")
    assert "quote line 2" in lines["bpm-net-h1"]
    assert "closest line: &= 0.15 \\times 0.05 + [-" in lines["bpm-net-h1"]
