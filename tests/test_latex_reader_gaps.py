"""Formulas the reader could not read (issue 12 item 4), each read now and each with a
planted wrong formula that fails: a good line verifies, its edited twin is a discrepancy."""

from __future__ import annotations

import pytest

from tests.test_engine import check
from tests.test_latex_reader_more import reader_project

# name: (good line, planted wrong line, quote with the hole, extra claim keys)
LINES: dict[str, tuple[str, str, str, str]] = {
    "unicode-shape": (  # l1's §4 banner: the product of shapes printed with ×
        "(n×d)(d×m) → n×m", "(n×d)(e×m) → n×m", "{p}：⟪F⟫", ""),
    "tuple-dot": (  # aat 3.1: q · k_j of two printed tuples, term by term
        "$q = (1, 0)$，$k = (- 1, 2)$，$q \\cdot k = 1 \\times (- 1) + 0 \\times 2 = - 1$",
        "$q = (1, 0)$，$k = (- 1, 2)$，$q \\cdot k = 1 \\times (- 1) + 0 \\times 2 = 1$",
        "{p}：$⟪Q⟫$，$⟪K⟫$，$⟪D⟫$", "define: {q: Q, k: K}"),
    "approx-tuple": (  # aat 13.3: each element within half a unit of its own last digit
        "$(\\frac{e}{e + 1}, \\frac{1}{e + 1}) \\approx (0.731059, 0.27)$",
        "$(\\frac{e}{e + 1}, \\frac{1}{e + 1}) \\approx (0.731059, 0.268949)$",
        "{p}：$⟪P⟫$", ""),
    "approx-tuple-digit": (  # a wrong rounding in the 6th decimal of the first element
        "$(\\frac{e}{e + 1}, \\frac{1}{e + 1}) \\approx (0.731059, 0.268941)$",
        "$(\\frac{e}{e + 1}, \\frac{1}{e + 1}) \\approx (0.731058, 0.268941)$",
        "{p}：$⟪P⟫$", ""),
    "softmax-tuple": (  # aat 5.5: softmax of a tuple of scores is a vector of weights
        "$s = (\\ln 2, 0, 0)$，$softmax (s) = (\\frac{1}{2}, \\frac{1}{4}, \\frac{1}{4})$",
        "$s = (\\ln 2, 0, 0)$，$softmax (s) = (\\frac{1}{3}, \\frac{1}{3}, \\frac{1}{3})$",
        "{p}：$⟪S⟫$，$⟪A⟫$", "define: {s: S}\n    functions: [softmax]"),
    "function-prime": (  # aat 11.2: f^{'} (w) of a declared f is df/dw
        "$L = f (w)$，$f^{'} (w) = \\frac{d L}{d w}$",
        "$L = f (w)$，$f^{'} (w) = 2 \\frac{d L}{d w}$",
        "{p}：$⟪L⟫$，$⟪F⟫$", "define: {L: L}\n    functions: [f]"),
    "attention-call": (  # aat 6.2: Attention (Q, K, V) called as defined, on matrices
        "$A = softmax (\\frac{Q K^{T}}{\\sqrt{d_{k}}})$，$Z = A V$，整个过程合并："
        "$Attention (Q, K, V) = softmax (\\frac{Q K^{T}}{\\sqrt{d_{k}}}) V$",
        "$A = softmax (\\frac{Q K^{T}}{\\sqrt{d_{k}}})$，$Z = A V$，整个过程合并："
        "$Attention (Q, K, V) = softmax (Q K^{T}) V$",
        "{p}：$⟪A⟫$，$⟪Z⟫$，⟪M⟫：$⟪F⟫$",
        "define: {A: A, Z: Z, Attention: M}\n    functions: [Attention]\n"
        "    matrices: {Q: [2, 2], K: [2, 2], V: [2, 2], A: [2, 2], Z: [2, 2]}\n"
        "    assume: {positive: [d_k]}\n"
        "    restate: {M: {as: 'Attention (Q, K, V) = Z', reason: the merge in words}}"),
    "tuple-dot-lengths": (  # two lengths have no dot product: refused, never a pass
        "$q = (1, 0)$，$k = (- 1, 2)$，$q \\cdot k = - 1$",
        "$q = (1, 0)$，$k = (- 1, 2, 0)$，$q \\cdot k = - 1$",
        "{p}：$⟪Q⟫$，$⟪K⟫$，$⟪D⟫$", "define: {q: Q, k: K}"),
}

# A wrong step over a function of `functions:` has no point to refute it at (f has no values):
# it is undecided, an error that fails the gate, never a pass.
BAD = {"function-prime": "error"}


@pytest.mark.parametrize("name", sorted(LINES))
def test_the_formula_is_read_and_a_planted_error_fails(tmp_path, capsys, name):
    _, out, data = check(reader_project(tmp_path, LINES, [name]), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    ok, bad = by_id[f"{name}-ok"], by_id[f"{name}-bad"]
    assert ok["status"] == "verified", (name, ok["message"], out)
    assert bad["status"] == BAD.get(name, "discrepancy"), (name, bad["message"], out)
