"""Formulas that claims quoted as literal text, now read (issue 12 item 2, session 21).

Each edit below changed a formula (or a name that indexes a printed row) that some claim
quoted character by character, so the edit made that claim ``stale`` and nothing said what
was wrong. Now a claim reads it, and the edit is a real verdict (``discrepancy``, or
``unparsed`` where nothing can be evaluated) at the edited line. The clean verdict is checked
too: a reading that fails on the note as it is would prove nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import run_edited

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"
AAT = "architecture-and-training.txt"
L1 = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"

#: (claim, text in the note, its edit, the edited line, note)
EDITS = [
    # held-out misses of the planted corpus, fixed by reading the formula / the index
    ("aat-fq-9-3-softmax-entries", r"P_{j} = \frac{e^{ℓ_{j}}}", r"P_{j} = \frac{e^{-ℓ_{j}}}",
     1653, AAT),
    ("aat-3-1-score-table", "$k_{2}$\t0", "$k_{3}$\t0", 235, AAT),
    ("l1-fq-4-row-of-product", "行是 $X_{t,:}W$", "行是 $X_{:,t}W$", 131, L1),
    ("l1-fq-4-row-of-product", "行是 $X_{t,:}W$", "行是 $W X_{t,:}$", 131, L1),
    # 9.2 and 9.4, quoted by aat-s-p-9-4-prediction before
    ("aat-fq-9-2-logits", "ℓ = h_{5} W_{out} + b\n", "ℓ = h_{5} W_{out} - b\n", 1616, AAT),
    ("aat-s-p-9-4-prediction", "H = F_{θ} (X)\n", "H = F_{θ} (X) + X\n", 1672, AAT),
    ("aat-fq-8-2-causal-prefix", "h_{i} = F_{θ} (x_{1}, \\dots, x_{i})",
     "h_{i} = F_{θ} (x_{2}, \\dots, x_{i})", 1472, AAT),
    ("aat-cov-4-9-delta", "在j=k时为", "在j=k+1时为", 0, AAT),
    ("aat-s-a-6-3-entries", "= q_{i} \\cdot k_{j} .", "= q_{j} \\cdot k_{i} .", 1153, AAT),
    ("aat-4-6-dims", "\\sum_{i = 1}^{64} q_{i} k_{i}", "\\sum_{i = 1}^{64} q_{i} q_{i}", 0, AAT),
    ("aat-4-6-dims", "k = (k_{1}, k_{2}, \\dots, k_{64})", "k = (k_{1}, k_{2}, \\dots, k_{32})", 0,
     AAT),
    ("aat-15-8-example", "W_{Q} = (1, 0)^{T}", "W_{Q} = (1, 0)^{2}", 0, AAT),
    ("aat-15-8-learned-matching", "W_{K} = (0, 1)^{T}", "W_{K} = (0, 1)^{-1}", 0, AAT),
    ("l1-s-7-c-dx-de", "（§2：$x=e_i^\\top E$）", "（§2：$x=e_i E$）", 0, L1),
    ("l1-s-2-onehot-orthogonal", "（记作 $e_i^\\top$）", "（记作 $e_i$）", 0, L1),
    ("aat-s-15-3-output-positions", "U_{r j} + b_{j}$", "U_{j r} + b_{j}$", 0, AAT),
    ("aat-s-15-3-output-positions", "= h_{r} {\\bar{ℓ}}_{j}$", "= h_{j} {\\bar{ℓ}}_{r}$", 0, AAT),
    ("aat-s-15-3-output-positions", r"\bar{h} = \bar{ℓ} U^{T}, \bar{b}",
     r"\bar{h} = U^{T} \bar{ℓ}, \bar{b}", 0, AAT),
    # matrix-by-matrix: plain-text formulas read by computes
    ("mbm-1-4-pe-formula", "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))",
     "PE(pos, 2i) = cos(pos / 10000^(2i/d_model))", 52, MBM),
    ("mbm-1-4-pe-formula", "PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))",
     "PE(pos, 2i+1) = cos(pos * 10000^(2i/d_model))", 53, MBM),
    ("mbm-3-1-score-row0", "= Q_猫 · K_追", "= Q_猫 · K_猫", 0, MBM),
    ("mbm-3-1-score-shapes", "Q · K^T = Q (", "Q · K = Q (", 0, MBM),
    ("mbm-4-2-softmax-row0", "exp(3.619) = e^3.619", "exp(3.619) = e^3.691", 0, MBM),
    ("mbm-6-5-concat", "Z_concat = concat(Z₁, Z₂)", "Z_concat = concat(Z₂, Z₁)", 0, MBM),
    ("mbm-12-total-loss", "(loss₀ + loss₁ + loss₂) / 3", "(loss₀ + loss₁) / 3", 0, MBM),
]


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[f"{e[0]}-{k}" for k, e in enumerate(EDITS)])
def test_an_edited_quoted_formula_fails_at_its_line(tmp_path: Path, real_verdict, cid: str,
                                                    find: str, replace: str, line: int,
                                                    name: str) -> None:
    clean = real_verdict(cid)
    assert clean.status in ("verified", "known"), clean.message
    edited, edit_line = run_edited(tmp_path, cid, name, find, replace)
    line = line or edit_line  # 0: the line of the edited text
    assert edited.status in ("discrepancy", "unparsed"), edited.message
    assert any(v.status in ("discrepancy", "unparsed") and v.start[0] == line
               for v in edited.values), [(v.name, v.status, v.start) for v in edited.values]


#: (reference, a formula that states it, an edit that does not): verifiers/formulas/quote_refs.py
QUOTE_FORMULAS = {
    "tinygpt-output-h5": ("ℓ = h_{5} W_{out} + b", "ℓ = h_{5} W_{out} - b"),
    "tinygpt-softmax-entries": (r"P_{j} = \frac{e^{ℓ_{j}}}{\sum_{k} e^{ℓ_{k}}}",
                                r"P_{j} = \frac{e^{-ℓ_{j}}}{\sum_{k} e^{ℓ_{k}}}"),
    "tinygpt-stack": ("H = F_{θ} (X)", "H = F_{θ} (X) + X"),
    "tinygpt-causal-prefix": (r"h_{i} = F_{θ} (x_{1}, \dots, x_{i})",
                              r"h_{i} = F_{θ} (x_{2}, \dots, x_{i})"),
    "tinygpt-score-entry": (r"q_{i} \cdot k_{j}", r"q_{i} \cdot q_{i}"),
    "tinygpt-onehot-lookup": (r"x = e_i^\top E", r"x = e_i^\top E + e_i^\top E"),
    "tinygpt-onehot-row": (r"e_i^\top", r"e_i^\top + e_i^\top"),
    "tinygpt-logit-entries": (r"ℓ_{j} = \sum_{r} h_{r} U_{r j} + b_{j}",
                              r"ℓ_{j} = \sum_{r} h_{r} U_{r j} - b_{j}"),
    "tinygpt-logit-grad-entries": (r"\partial L / \partial U_{r j} = h_{r} {\bar{ℓ}}_{j}",
                                   r"\partial L / \partial U_{r j} = h_{r} {\bar{ℓ}}_{r}"),
    "tinygpt-output-grads": (
        r"\bar{U} = h^{T} \bar{ℓ}, \bar{h} = \bar{ℓ} U^{T}, \bar{b} = \bar{ℓ}",
        r"\bar{U} = h^{T} \bar{ℓ}, \bar{h} = U^{T} \bar{ℓ}, \bar{b} = \bar{ℓ}"),
}


def test_every_quote_reference_has_a_planted_edit() -> None:
    from verifiers.formulas.quote_refs import QUOTE_REFERENCES

    assert set(QUOTE_FORMULAS) == set(QUOTE_REFERENCES)


@pytest.mark.parametrize("name", sorted(QUOTE_FORMULAS))
def test_a_quote_reference_agrees_with_tinygpt_and_its_edit_does_not(name: str) -> None:
    from verifiers.formulas.code import REFERENCES, _check
    from verifiers.latex import split_chains

    good, bad = QUOTE_FORMULAS[name]
    ref = REFERENCES[name]
    for seed in (0, 1):
        assert _check(split_chains(good), ref, ref.make(seed)) is None, name
    found = _check(split_chains(bad), ref, ref.make(0))
    assert found is not None and found[1], (name, found)
