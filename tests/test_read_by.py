"""Formula holes that another claim reads (``read_by:``, verifiers/formulas/readby.py).

The property claims of PROPERTY_BASELINE quoted formulas as literal text beside their law
words; now each formula is a formula hole read by the claim that checks it. An edit of the
formula is then a real verdict at the formula's line in the property claim itself (the
reader's step, named), never ``stale`` and never a pass; a reader that reads another span,
or that checks nothing, is an ``error``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import run_edited
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
L1 = "lesson1-text-to-distribution.txt"
AAT = "architecture-and-training.txt"
MBM = "matrix-by-matrix.txt"

# (property claim, find, replace, line of the formula, note)
EDITS = [
    ("l1-p-5-jacobian-signs", r"$p_i(1-p_i)\gt0$", r"$p_i(p_i-1)\gt0$", 184, L1),
    ("l1-p-5-jacobian-signs", r"$-p_ip_j\lt0$", r"$p_ip_j\lt0$", 184, L1),
    ("l1-p-5-sum", r"{\sum_je^{z_j}}=1$", r"{\sum_je^{z_i}}=1$", 141, L1),
    ("l1-p-5-sum", r"{\sum_je^{z_j}}=1$", r"{\sum_je^{z_j}}=2$", 141, L1),  # the law's total
    ("l1-p-5-t-zero", r"$(z_j-z_k)/T\to-\infty$", r"$(z_k-z_j)/T\to-\infty$", 171, L1),
    ("l1-p-2-onehot-orthogonal", r"$\lVert e_i-e_j\rVert=\sqrt2$",
     r"$\lVert e_i-e_j\rVert=2$", 79, L1),
    ("l1-p-5-naive-overflow", r"接着 $\infty/\infty$", r"接着 $1/\infty$", 157, L1),
    # readers against tinygpt (verifiers/formulas/tinygpt_refs.py)
    ("aat-p-6-2-qk-entry", "\n(Q K^{T})_{i j} = q_{i} \\cdot k_{j}\n",
     "\n(Q K^{T})_{i j} = q_{j} \\cdot k_{i}\n", 1119, AAT),
    ("aat-p-12-5-tied", "来自输出路径的 ${\\bar{U}}^{T}$", "来自输出路径的 ${\\bar{U}}$", 2467,
     AAT),
    ("aat-p-12-5-tied", "若 $U = E^{T}$ ，还需", "若 $U = E$ ，还需", 2467, AAT),
    ("mbm-p-3-1-score", "score(i, j) = Q[i] · K[j]^T =", "score(i, j) = Q[i] · Q[j]^T =", 180,
     MBM),
]


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EDITS)])
def test_an_edited_formula_fails_the_property_claim_at_its_line(
        tmp_path: Path, real_verdict, cid: str, find: str, replace: str, line: int,
        name: str) -> None:
    clean = real_verdict(cid)
    assert clean.status == "verified", clean.message
    edited, _ = run_edited(tmp_path, cid, name, find, replace)
    assert edited.status in ("discrepancy", "unparsed"), (edited.status, edited.message)
    assert any(v.status in ("discrepancy", "unparsed") and v.start[0] == line
               and "which reads this formula" in v.message for v in edited.values), \
        [(v.name, v.status, v.start, v.message) for v in edited.values]


def _write(tmp_path: Path, claims: str, formula: str = "a + a = 2 a") -> Path:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "n.md").write_text(f"# 1\n\n比例 ${formula}$ ，所以更大。\n", encoding="utf-8")
    folder = tmp_path / "claims"
    folder.mkdir()
    (folder / "c.yaml").write_text(claims, encoding="utf-8")
    return notes


_READER = """note: n.md
claims:
  - id: reader
    kind: symbolic
    says: a + a = 2 a
    text: 比例 $⟪F⟫$
  - id: prop
    kind: property
    says: the dependence
    text: 比例 $⟪G⟫$ ，所以更大。
    property: softmax-positive
    read_by: {G: %s}
"""


@pytest.mark.parametrize(("ref", "message"), [
    ("reader.F", "read and checked by reader"),
    ("nobody.F", "unknown claim 'nobody'"),
    ("reader.Z", "has no formula hole ⟪Z⟫"),
])
def test_the_reader_is_checked(tmp_path: Path, ref: str, message: str) -> None:
    notes = _write(tmp_path, _READER % ref)
    verdicts = {v.id: v for v in run(notes, tmp_path / "claims").verdicts}
    (value,) = [v for v in verdicts["prop"].values if v.name == "G"]
    assert message in value.message, value.message
    assert (value.status == "verified") == (ref == "reader.F")


def test_a_reader_of_another_span_is_an_error(tmp_path: Path) -> None:
    claims = (_READER % "reader.F").replace("text: 比例 $⟪F⟫$", "text: 比例 $⟪F⟫$ ，所以")
    claims = claims.replace("text: 比例 $⟪G⟫$ ，所以更大。", "text: $a + a = ⟪G⟫$ ，所以更大。")
    notes = _write(tmp_path, claims)
    verdicts = {v.id: v for v in run(notes, tmp_path / "claims").verdicts}
    (value,) = [v for v in verdicts["prop"].values if v.name == "G"]
    assert value.status == "error" and "not this formula" in value.message, value.message


def test_a_step_the_reader_fails_fails_this_claim_at_the_formula(tmp_path: Path) -> None:
    notes = _write(tmp_path, _READER % "reader.F", formula="a + a = 3 a")
    verdicts = {v.id: v for v in run(notes, tmp_path / "claims").verdicts}
    assert verdicts["reader"].status == "discrepancy"
    (value,) = [v for v in verdicts["prop"].values if v.name == "G"]
    assert value.status == "discrepancy" and value.start == (3, 5), value
    assert "reader, which reads this formula, finds: F.step1" in value.message
