"""Printed traces recomputed entry by entry (tinygpt/examples/shape_traces.py, target_traces.py):
an invented trace with one planted error fails at that entry and only there; the unedited
trace verifies; the real notes' traces fail at the edited line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import run_edited
from tinygpt.examples.shape_traces import shape_trace_findings
from tinygpt.examples.target_traces import target_findings

CONCAT = """A (Head₁ 输出，2×3) = [[1, 2, 3],
[4, 5, 6]]
B (Head₂ 输出，2×3) = [[0, 0, 0],
[1, 1, 1]]
C = concat(A, B) → 形状 (2, 3+3) = (2, 6)
concat 沿 dim=1
C (2 × 6)："""


def _bad(findings: list) -> list[tuple[int, str]]:
    return [(f.line, f.name) for f in findings if f.status != "verified"]


def test_a_clean_concat_trace_verifies() -> None:
    found = shape_trace_findings(CONCAT, "", 1)
    assert _bad(found) == [] and len(found) == 4  # the axis and three printed shapes


@pytest.mark.parametrize(("find", "replace", "line", "name"), [
    ("dim=1", "dim=0", 6, "axis"),                  # the axis edited: the shapes say dim=1
    ("= (2, 6)", "= (4, 3)", 5, "shape"),           # the result written along the other axis
    ("(2, 3+3)", "(2, 3+2)", 5, "shape"),           # a wrong part
    ("C (2 × 6)", "C (2 × 5)", 7, "shape"),         # the result's later label
])
def test_a_planted_concat_error_fails_at_its_entry(find: str, replace: str, line: int,
                                                   name: str) -> None:
    assert _bad(shape_trace_findings(CONCAT.replace(find, replace), "", 1)) == [(line, name)]


def test_stack_inserts_an_axis() -> None:
    block = "a (4×3)\nb (4×3)\nS = stack(a, b) → (4, 2, 3)\nstack 沿 dim=1"
    assert _bad(shape_trace_findings(block, "", 1)) == []
    assert _bad(shape_trace_findings(block.replace("dim=1", "dim=0"), "", 1)) == [(4, "axis")]


@pytest.mark.parametrize(("line", "bad"), [
    ("A (3×4) @ B (4×2) → (3×2)", []),
    ("A (3×4) @ B (4×2) → (4×2)", ["product shape"]),
    ("Q (2×3) · K^T (2×2) = (2×2)", ["inner sizes"]),
])
def test_matmul_shapes(line: str, bad: list[str]) -> None:
    assert [n for _, n in _bad(shape_trace_findings(line, "", 1))] == bad


def test_a_dataflow_diagram_multiplies_by_the_standalone_shape_above() -> None:
    block = "输入 X (5×8)\n│ ├─→ · W_a (8×2) ──→ A (5×2)\n│ └─→ · W_b (8×6) ──→ B (5×6)"
    assert _bad(shape_trace_findings(block, "", 1)) == []
    assert _bad(shape_trace_findings(block.replace("B (5×6)", "B (8×6)"), "", 1)) == [
        (3, "product shape")]
    assert _bad(shape_trace_findings(block.replace("W_a (8×2)", "W_a (5×2)"), "", 1)) == [
        (2, "inner sizes")]


def test_a_named_product_reads_the_shapes_printed_above() -> None:
    block = "Q (2×4)\nK (3×4)\nQ · K^T (2×3)"
    assert _bad(shape_trace_findings(block, "", 1)) == []
    assert _bad(shape_trace_findings(block.replace("(2×3)", "(2×4)"), "", 1)) == [
        (3, "product shape")]
    assert _bad(shape_trace_findings(block.replace("K^T", "K"), "", 1)) == [(3, "inner sizes")]


def test_a_block_without_a_trace_is_an_error() -> None:
    assert shape_trace_findings("no shapes here", "", 1)[0].status == "error"
    assert target_findings("no targets here", "", 1)[0].status == "error"


LABELS = """输入序列："the cat sat down"
position0: 目标="cat"
position1: 目标="sat"
position2: 目标="down\""""


@pytest.mark.parametrize(("find", "replace", "line"), [
    ('position1: 目标="sat"', 'position1: 目标="cat"', 3),    # target not shifted
    ('position2: 目标="down"', 'position2: 目标="sat"', 4),   # a row copied from above
])
def test_a_planted_label_fails_at_its_position(find: str, replace: str, line: int) -> None:
    assert _bad(target_findings(LABELS, "", 1)) == []
    assert [ln for ln, _ in _bad(target_findings(LABELS.replace(find, replace), "", 1))] == [line]


def test_symbol_rows_and_pairs_and_ranges() -> None:
    table = "$h_{1}$\t$t_{2}$\nh₂ → t₃\n$h_{3}$\t$t_{4}$"
    assert _bad(target_findings(table, "", 1)) == []
    assert [ln for ln, _ in _bad(target_findings(table.replace("t₃", "t₂"), "", 1))] == [2]
    pairs = 'sequence: "a b c"\n"a" → "b"\n"b" → "c"'
    assert _bad(target_findings(pairs, "", 1)) == []
    assert [ln for ln, _ in _bad(target_findings(pairs.replace('"b" → "c"', '"b" → "b"'),
                                                 "", 1))] == [3]
    ranged = "inputs x1 to x9, targets x2 to x10"
    assert _bad(target_findings(ranged, "", 1)) == []
    assert len(_bad(target_findings(ranged.replace("x2 to x10", "x1 to x9"), "", 1))) == 2


@pytest.mark.parametrize(("claim", "note", "find", "replace"), [
    ("mbm-6-5-concat-shape-trace", "matrix-by-matrix.txt", "concat 沿 dim=1", "concat 沿 dim=0"),
    ("mbm-5-4-dataflow-shapes", "matrix-by-matrix.txt", "· W_k (4×3) ──→ K (3×3)",
     "· W_k (4×3) ──→ K (3×4)"),
    ("mbm-5-4-dataflow-shapes", "matrix-by-matrix.txt", "│ Q · K^T (3×3) │", "│ Q · K^T (3×4) │"),
    ("mbm-12-training-labels", "matrix-by-matrix.txt", 'position1: 正确答案="老鼠"',
     'position1: 正确答案="追"'),
    ("aat-9-targets-table", "architecture-and-training.txt", "$h_{2}$\t$t_{3}$",
     "$h_{2}$\t$t_{2}$"),
    ("aat-10-7-label-range", "architecture-and-training.txt", "标签设为t2到t7", "标签设为t1到t6"),
    ("l1-0-id-base", "lesson1-text-to-distribution.txt", "token 的编号（id）从 0 开始",
     "token 的编号（id）从 1 开始"),
])
def test_the_notes_traces_fail_at_the_edited_line(tmp_path: Path, claim: str, note: str,
                                                  find: str, replace: str) -> None:
    edited, line = run_edited(tmp_path, claim, note, find, replace)
    assert edited.status == "discrepancy", edited.message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited.values)
