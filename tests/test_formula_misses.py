"""Formula edits that no claim read at their line before (held-out misses of the planted
corpus), each read now by a general reader: a printed definition against the program the
note describes (verifiers/formulas/tinygpt_refs.py), a name in prose as a part of the formula
it names (verifiers/formulas/parts.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import run_edited

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
AAT = "architecture-and-training.txt"

EDITS = [
    # 15.5's LayerNorm statistics against tinygpt.layer_norm
    ("aat-f79-15-5-layernorm-stats", r"\sum_{r} (x_{r} - μ)^{2} .", r"\sum_{r} (x_{r} + μ)^{2} .",
     2884, AAT),
    ("aat-f79-15-5-layernorm-stats", r"v = \frac{1}{d} \sum_{r}", r"v = \frac{1}{d - 1} \sum_{r}",
     2884, AAT),
    ("aat-f79-15-5-layernorm-stats", r"μ = \frac{1}{d} \sum_{r} x_{r},", r"μ = \sum_{r} x_{r},",
     2884, AAT),
    # a name the prose gives must be the one the formula after it uses (parts:)
    ("aat-f79-5-9-last-hidden", "隐藏向量 $h_{T}$", "隐藏向量 $h_{T - 1}$", 1003, AAT),
    ("aat-f79-5-9-last-hidden", "隐藏向量 $h_{T}$", "隐藏向量 $h_{1}$", 1003, AAT),
    ("aat-f79-5-9-last-hidden", "= softmax (h_{T} W_{out} + b)",
     "= softmax (h_{T - 1} W_{out} + b)", 1005, AAT),
]


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EDITS)])
def test_an_edited_formula_is_flagged_at_its_line(tmp_path: Path, real_verdict, cid: str,
                                                  find: str, replace: str, line: int,
                                                  name: str) -> None:
    clean = real_verdict(cid)
    assert clean.status == "verified", clean.message
    edited, _ = run_edited(tmp_path, cid, name, find, replace)
    bad = ("discrepancy", "unparsed")  # never stale, never a pass
    assert edited.status in bad, (edited.status, edited.message)
    assert any(v.status in bad and v.start[0] == line for v in edited.values)
