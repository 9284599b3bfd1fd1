"""Formulas read since branch formulas4: each edit is a discrepancy at the edited line.

Two general gaps closed: a restatement of *words* no longer hides the math inside the words
(``verifiers/formulas/restated_words.py``), and plain-text formulas that a quote skipped are
read by a claim of their own. Each conversion gets an edit here (a flipped index, a dropped
root, a wrong shape) that must fail at the note's line, and the unedited note must pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.formulas.printings import _same, read_printing
from verifiers.formulas.restated_words import side_differs, words_differ

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
AAT = "architecture-and-training.txt"
L1 = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"


def test_words_keep_their_formulas() -> None:
    restated = r"\sum_{m} (e_i)_m E_{mk} = \delta_{ii} E_{ik}"
    reason = 'the note says it in words ("求和里只有 $m=i$ 那一项不为 0")'
    assert words_differ("求和里只有 $m=i$ 那一项不为 0", restated, reason) is None
    assert words_differ("求和里只有 $m = i$ 那一项不为 0", restated, reason) is None  # spacing
    bad = words_differ("求和里只有 $m=k$ 那一项不为 0", restated, reason)
    assert bad is not None and "'m=k'" in bad
    assert words_differ("求和里只有一项不为 0", restated, reason) is None  # no math: nothing


def test_sides_not_compared_are_quoted() -> None:
    reason = "the reader has no \\max (the note: m=\\max_jz_j)"
    assert side_differs("\\max_jz_j", "m = z_{1}", reason) is None
    assert side_differs("\\max_j z_j", "m = z_{1}", reason) is None  # spacing
    assert side_differs("\\min_jz_j", "m = z_{1}", reason) is not None


def test_printings_agree_up_to_the_row_index() -> None:
    k_i, k_j = read_printing("k_{i} = x_{i} W_{K}"), read_printing("k_{j} = x_{j} W_{K}")
    assert _same(k_i, k_j) and _same(k_j, k_i)
    assert not _same(read_printing("k_{i} = x_{j} W_{K}"), k_j)  # the index of x not renamed
    assert not _same(read_printing("k_{i} = x_{i} W_{Q}"), k_j)
    assert not _same(read_printing("q_{i} = x_{i} W_{K}"), k_j)  # another name


EDITS = [
    # a restatement of words: the inline math of the words is kept
    ("l1-c-2-onehot-step3", "只有 $m=i$ 那一项", "只有 $m=k$ 那一项", 93, L1),
    ("aat-s-12-5-input-gradient",
     "若 $x_{i} = E_{t_{i}, :} + p_{i}$", "若 $x_{i} = E_{t_{i}, :} - p_{i}$", 2463, AAT),
    # a side of a printed formula that the restatement replaces without comparing it
    # (unreadable, an opaque name, a sum or ellipsis written out) is quoted by the restatement
    ("l1-c-5-stable-bounds", r"$m=\max_jz_j$", r"$m=\min_jz_j$", 159, L1),
    ("aat-f-7-5-composition", r"F_{L} \circ F_{L - 1}", r"F_{L} \circ F_{L + 1}", 1383, AAT),
    # 3.2's divisor, skipped by the arithmetic claim's quote, read with its value
    ("mbm-f4-3-2-divide-by", "除以 √d_k = 1.732 后", "除以 d_k = 1.732 后", 207, MBM),
    # shape declarations once waived, read against tinygpt's sizes
    ("l1-f78-0-row-vector-shape",
     r"也简写为 $x\in\mathbb{R}^d$", r"也简写为 $x\in\mathbb{R}^V$", 21, L1),
    ("l1-f78-4-stacked-rows-shape",
     r"$X\in\mathbb{R}^{T\times d}$", r"$X\in\mathbb{R}^{d\times T}$", 131, L1),
    ("l1-f78-5-logits-shape", r"$z\in\mathbb{R}^V$", r"$z\in\mathbb{R}^d$", 139, L1),
    ("l1-f78-7-parameter-shapes",
     r"$W_U\in\mathbb{R}^{d\times V}$", r"$W_U\in\mathbb{R}^{V\times d}$", 238, L1),
    ("l1-f4-4-product-shapes",
     r"$W\in\mathbb{R}^{d\times m}$", r"$W\in\mathbb{R}^{n\times m}$", 123, L1),
    ("aat-f4-9-7-last-row-shape", r"h_{n} \in R^{d_{model}}", r"h_{n} \in R^{n}", 1734, AAT),
    ("aat-f4-12-3-embedding-shape",
     r"W_{E} \in R^{N \times d}", r"W_{E} \in R^{d \times N}", 2409, AAT),
    ("aat-f4-12-5-embedding-shape",
     r"E \in R^{N \times d} .", r"E \in R^{N \times N} .", 2455, AAT),
    # definitions once waived, read against tinygpt
    ("aat-f4-12-3-tied", "W_{out} = W_{E}^{T}", "W_{out} = W_{E}", 2413, AAT),
    ("aat-f4-6-3-row-of-av",
     r"$z_{i} = \sum_{j} a_{i j} v_{j}$ 。", r"$z_{i} = \sum_{j} a_{j i} v_{j}$ 。", 1159, AAT),
    ("l1-f4-8-summary-gradient",
     r"$\partial L/\partial z=p-\mathbf y$；", r"$\partial L/\partial z=\mathbf y-p$；", 352, L1),
    ("l1-f4-8-summary-gradient", r"损失为 $\ln V$。", r"损失为 $\ln 2V$。", 352, L1),
    # summary-table cells, read as bare expressions against tinygpt
    ("aat-f4-11-5-loss-cell", r"计算 $- \ln p$", r"计算 $\ln p$", 2287, AAT),
    ("aat-f4-11-6-loss-cell", r"计算 $- \ln p$", r"计算 $- \ln (1 - p)$", 2306, AAT),
    ("aat-f4-12-8-prediction-cell", r"$softmax (h W_{out} + b)$", r"$softmax (h W_{out})$", 2535,
     AAT),
    ("aat-f4-14-3-temperature", r"$softmax (ℓ / T)$", r"$softmax (ℓ T)$", 2768, AAT),
    # counts in prose, compared with the number of entries tinygpt has
    ("l1-f4-2-embedding-count", r"一共有 $V\times d$ 个参数", r"一共有 $V+d$ 个参数", 99, L1),
    ("l1-f4-8-embedding-count", r"参数量 $V\times d$", r"参数量 $V\times V$", 348, L1),
    ("l1-f4-4-product-count", r"结果有 $n\times m$ 个元素", r"结果有 $n\times d$ 个元素", 125, L1),
    ("l1-f4-4-batch-count", r"$T\times m$ 个输出", r"$T\times d$ 个输出", 131, L1),
]

# A printing compared with its other printing: the edited one is a discrepancy (two printings
# that differ: both are, since nothing tells which was edited).
PRINTING_EDITS = [
    ("l1-f4-8-cosine-summary", ("l1-f4-3-cosine-printings",),
     r"• 点积 $a\cdot b=\lVert a\rVert\lVert b\rVert\cos\theta$",
     r"• 点积 $a\cdot b=\lVert a\rVert\lVert b\rVert\sin\theta$", 349, L1),
    # 4.1's k_i = x_i W_K compared with 5.4's k_j = x_j W_K (the index renamed) and 5.4's k_j
    ("aat-fp2-row-q-4-1", ("aat-fp2-row-k-5-4", "aat-fp2-row-qk-2-4"),
     "k_{i} = x_{i} W_{K}\n", "k_{i} = x_{i} W_{V}\n", 396, AAT),
]


def _verdicts(tmp_path: Path, real_verdict, cid: str, name: str, find: str, replace: str,
              line: int) -> tuple:
    """The claim's verdict on the notes as they are (the session's: tests/conftest.py), then
    with the one edit (on ``line``)."""
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    note = notes / name
    lines = note.read_text(encoding="utf-8").split("\n")
    assert find in lines[line - 1]
    clean = real_verdict(cid)
    lines[line - 1] = lines[line - 1].replace(find, replace, 1)
    note.write_text("\n".join(lines), encoding="utf-8")
    (edited,) = run(notes, CLAIMS, select=lambda c: c.id == cid).verdicts
    return clean, edited


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{e[3]}" for e in EDITS])
def test_an_edited_formula_fails_at_its_line(tmp_path: Path, real_verdict, cid: str, find: str,
                                             replace: str, line: int, name: str) -> None:
    clean, edited = _verdicts(tmp_path, real_verdict, cid, name, find, replace, line)
    assert clean.status in ("verified", "known"), clean.message
    assert edited.status == "discrepancy", edited.message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited.values)


@pytest.mark.usefixtures("real_claims_parsed_once")
@pytest.mark.parametrize(("cid", "others", "find", "replace", "line", "name"), PRINTING_EDITS,
                         ids=[e[0] for e in PRINTING_EDITS])
def test_an_edited_printing_fails_at_its_line(tmp_path: Path, cid: str, others: tuple[str, ...],
                                              find: str, replace: str, line: int,
                                              name: str) -> None:
    from verifiers.run import run

    notes = tmp_path / "notes"
    notes.mkdir()
    for p in (ROOT / "notes").iterdir():
        notes.joinpath(p.name).write_bytes(p.read_bytes())
    note = notes / name
    text = note.read_text(encoding="utf-8")
    assert text.count(find) == 1
    pick = {cid, *others}
    clean = run(notes, CLAIMS, select=lambda c: c.id in pick).verdicts
    assert all(v.status == "verified" for v in clean), [v.message for v in clean]
    note.write_text(text.replace(find, replace), encoding="utf-8")
    edited = {v.id: v for v in run(notes, CLAIMS, select=lambda c: c.id in pick).verdicts}
    assert edited[cid].status == "discrepancy", edited[cid].message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited[cid].values)
