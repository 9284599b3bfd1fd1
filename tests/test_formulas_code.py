"""Definitions printed once, checked against tinygpt (verifiers/formulas/code.py): each
reference verifies the note's formula and fails a planted edit of it (a flipped sign, a
dropped or swapped factor, a wrong condition), and a claim reports it at the formula."""

from __future__ import annotations

import pytest

from tests.test_engine import check, project
from verifiers.formulas.code import REFERENCES, _check, _Unread
from verifiers.latex import split_chains

# reference: (the note's formula, a planted wrong one)
FORMULAS = {
    "tinygpt-ffn": (r"FFN (x) = σ (x W_{1} + b_{1}) W_{2} + b_{2}",
                    r"FFN (x) = σ (x W_{1}) W_{2} + b_{2}"),
    "tinygpt-causal-mask": (
        r"M_{i j} = {\begin{cases} 0, & j \leq i \\ - \infty, & j > i \end{cases}",
        r"M_{i j} = {\begin{cases} 0, & j < i \\ - \infty, & j \geq i \end{cases}"),
    "tinygpt-sgd-old": (r"W_{Q}^{new} = W_{Q}^{old} - η \frac{\partial L}{\partial W_{Q}}",
                        r"W_{Q}^{new} = W_{Q}^{old} + η \frac{\partial L}{\partial W_{Q}}"),
    "tinygpt-sgd": (
        r"\begin{aligned} W_{Q}^{new} & = W_{Q} - η \frac{\partial L}{\partial W_{Q}} \\ "
        r"W_{out}^{new} & = W_{out} - η \frac{\partial L}{\partial W_{out}} \end{aligned}",
        r"\begin{aligned} W_{Q}^{new} & = W_{Q} - η \frac{\partial L}{\partial W_{Q}} \\ "
        r"W_{out}^{new} & = W_{out} - η \frac{\partial L}{\partial W_{Q}} \end{aligned}"),
    "tinygpt-sgd-scalar": (r"w_{new} = w_{old} - η \frac{d L}{d w}",
                           r"w_{new} = w_{old} - \frac{d L}{d w}"),
    "tinygpt-residual": (r"x_{new} = x + F (x)", r"x_{new} = x - F (x)"),
    "tinygpt-output-last": (r"ℓ = h_{n} W_{out} + b", r"ℓ = W_{out} h_{n} + b"),
    "tinygpt-output-rows": (r"ℓ_{i} = h_{i} U + b, p_{i} = softmax (ℓ_{i}) .",
                            r"ℓ_{i} = h_{i} U + b, p_{i} = softmax (- ℓ_{i}) ."),
    "tinygpt-positions": (r"{\tilde{x}}_{i} = x_{i} + p_{i}", r"{\tilde{x}}_{i} = x_{i}"),
    "tinygpt-scaled-score": (r"s_{j} = \frac{q \cdot k_{j}}{\sqrt{d_{k}}}",
                             r"s_{j} = \frac{q \cdot k_{j}}{d_{k}}"),
    "tinygpt-raw-score": (r"s_{j} = q \cdot k_{j}", r"s_{j} = \frac{q \cdot k_{j}}{\sqrt{d_{k}}}"),
    "tinygpt-weighted-sum": (r"z_{i} = \sum_{j = 1}^{n} a_{i j} v_{j}",
                             r"z_{i} = \sum_{j = 1}^{n} a_{j i} v_{j}"),
    "tinygpt-key-weighted-sum": (r"z = \sum_{j} a_{j} k_{j}", r"z = \sum_{j} a_{j} k_{1}"),
    "tinygpt-value-row": (r"v_{j} = x_{j} W_{V}", r"v_{j} = W_{V} x_{j}"),
    "tinygpt-head": (r"Z^{(h)} = Attention (Q^{(h)}, K^{(h)}, V^{(h)})",
                     r"Z^{(h)} = Attention (K^{(h)}, Q^{(h)}, V^{(h)})"),
    "tinygpt-raw-score-matrix": (r"X W_{Q} W_{K}^{T} X^{T}", r"X W_{Q} W_{K} X^{T}"),
    "tinygpt-hidden-row": (r"h_{3} = F_{θ} (x_{1}, x_{2}, x_{3})_{3}",
                           r"h_{3} = F_{θ} (x_{1}, x_{2}, x_{3})_{2}"),
    "tinygpt-heads": (r"Z = Concat (Z^{(1)}, \dots, Z^{(H)}) W_{O}",
                      r"Z = Concat (Z^{(2)}, \dots, Z^{(H)}) W_{O}"),
    "tinygpt-next-token": (r"P (t_{T + 1} ∣ t_{1}, \dots, t_{T}) = softmax (h_{T} W_{out} + b)",
                           r"P (t_{T + 1} ∣ t_{1}, \dots, t_{T}) = softmax (h_{T} W_{out})"),
    "tinygpt-next-token-entry": (r"P (t_{n + 1} = j) = \frac{e^{ℓ_{j}}}{\sum_{k} e^{ℓ_{k}}}",
                                 r"P (t_{n + 1} = j) = \frac{e^{ℓ_{j}}}{\sum_{k} ℓ_{k}}"),
    "tinygpt-word-loss": (r"L = - \ln P (t_{6} = 黑便 ∣ X)", r"L = - \ln P (t_{6} = 出血 ∣ X)"),
    "tinygpt-weights-of-x": (r"x_{i} ⟶ z_{i} = \sum_{j} a_{i j} (X) x_{j} W_{V}",
                             r"x_{i} ⟶ z_{i} = \sum_{j} a_{j i} (X) x_{j} W_{V}"),
    "tinygpt-linear-map": (r"y = x_{苹果} W", r"y = x_{苹果} W + x_{苹果}"),
    "tinygpt-attention-output": ("Attention_Output = A · V", "Attention_Output = V · A"),
    "tinygpt-logits": ("Logits = Z · W_linear", "Logits = Z"),
    "tinygpt-embedding-rows": (r"{\bar{E}}_{w, :} = \sum_{i : t_{i} = w} {\bar{X}}_{i, :} .",
                               r"{\bar{E}}_{w, :} = \sum_{i : t_{i} \ne w} {\bar{X}}_{i, :} ."),
    "tinygpt-preview-weights": (r"a=\mathrm{softmax}(s)", r"a=\mathrm{softmax}(-s)"),
    "tinygpt-preview-sum": (r"\sum_ja_jv_j", r"\sum_ja_j"),
    "tinygpt-ce-grad": (r"\partial L/\partial z=p-\mathbf y", r"\partial L/\partial z=\mathbf y-p"),
    "tinygpt-uniform-loss": (r"\ln V", r"\ln (V - 1)"),
    "tinygpt-softmax-jacobian": (r"\mathrm{diag}(p)-pp^\top", r"\mathrm{diag}(p)-p^\top p"),
    "tinygpt-qkv": ("V = X_input · W_v", "V = W_v · X_input"),
    "tinygpt-input": ("X_input = X + PE", "X_input = X - PE"),
    "tinygpt-shapes": (r"A \in R^{n \times n}, V \in R^{n \times d_{v}}",
                       r"A \in R^{n \times d}, V \in R^{n \times d_{v}}"),
    "tinygpt-embedding-count": (r"V\times d", r"V+d"),
    "tinygpt-score-entries": (r"(Q K^{T})_{i j} = q_{i} \cdot k_{j}",
                              r"(Q K^{T})_{i j} = q_{j} \cdot k_{i}"),
    "tinygpt-tied-output-gradient": (r"{\bar{U}}^{T}", r"- {\bar{U}}^{T}"),
    "tinygpt-softmax-as-written": (r"\infty/\infty", r"1/\infty"),
    "tinygpt-layernorm-stats": (
        r"μ = \frac{1}{d} \sum_{r} x_{r}, v = \frac{1}{d} \sum_{r} (x_{r} - μ)^{2}",
        r"μ = \frac{1}{d} \sum_{r} x_{r}, v = \frac{1}{d} \sum_{r} (x_{r} + μ)^{2}"),
    "tinygpt-product-count": (r"n\times m", r"n\times d"),
    "tinygpt-token-loss": (r"- \ln p", r"\ln p"),
    "tinygpt-lm-shapes": (r"x\in\mathbb{R}^{1\times d}, W_U\in\mathbb{R}^{d\times V}",
                          r"x\in\mathbb{R}^{d\times 1}, W_U\in\mathbb{R}^{d\times V}"),
    "tinygpt-cross-entropy": (r"L = \frac{1}{| I |} \sum_{i \in I} - \ln p_{i, t_{i + 1}} .",
                              r"L = \frac{1}{| I |} \sum_{i \in I} - \ln p_{i, t_{i}} ."),
}


def test_a_bare_expression_and_a_written_out_sum():
    scaled = REFERENCES["tinygpt-scaled-score"]
    assert _check(split_chains(r"\frac{q \cdot k}{\sqrt{d_{k}}}"), scaled, scaled.make(0)) is None
    assert _check(split_chains(r"\frac{q \cdot k}{d_{k}}"), scaled, scaled.make(0)) is not None
    weighted = REFERENCES["tinygpt-weighted-sum"]
    good = r"z = a_{1} v_{1} + a_{2} v_{2} + a_{3} v_{3}"
    assert _check(split_chains(good), weighted, weighted.make(1)) is None
    bad = r"z = a_{1} v_{1} + a_{2} v_{2} + a_{2} v_{3}"
    assert _check(split_chains(bad), weighted, weighted.make(1)) is not None
    word = r"z_{苹果} = \sum_{j} a_{苹果, j} v_{j}"  # a position named by its word (5.7)
    assert _check(split_chains(word), weighted, weighted.make(0)) is None
    swapped = r"z_{苹果} = \sum_{j} a_{j, 苹果} v_{j}"
    assert _check(split_chains(swapped), weighted, weighted.make(0)) is not None


def test_every_reference_has_a_planted_edit():
    from verifiers.formulas.plain_refs import PLAIN_REFERENCES  # tests/test_formulas_plain.py
    from verifiers.formulas.quote_refs import QUOTE_REFERENCES  # tests/test_formula_quotes5.py
    from verifiers.formulas.standard_refs import STANDARD_REFERENCES  # test_formula_standard

    assert set(FORMULAS) == (set(REFERENCES) - set(PLAIN_REFERENCES) - set(QUOTE_REFERENCES)
                             - set(STANDARD_REFERENCES))


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_the_formula_agrees_with_tinygpt_and_its_edit_does_not(name):
    good, bad = FORMULAS[name]
    ref = REFERENCES[name]
    for seed in (0, 1):
        assert _check(split_chains(good), ref, ref.make(seed)) is None, name
    found = _check(split_chains(bad), ref, ref.make(0))
    assert found is not None and found[1], (name, found)


def test_a_shape_statement_is_checked_too():
    ref = REFERENCES["tinygpt-heads"]
    good = r"O = Concat (Z^{(1)}, \dots, Z^{(H)}) W_{O}, W_{O} \in R^{H d_{v} \times d} ."
    assert _check(split_chains(good), ref, ref.make(0)) is None
    swapped = r"O = Concat (Z^{(1)}, \dots, Z^{(H)}) W_{O}, W_{O} \in R^{d \times H d_{v}} ."
    found = _check(split_chains(swapped), ref, ref.make(0))
    assert found is not None and "(6, 4)" in found[1]


def test_names_share_the_shape_after_them():
    ref = REFERENCES["tinygpt-shapes"]
    good = r"Q, K \in R^{n \times d_{k}}, V \in R^{n \times d_{v}}"
    assert _check(split_chains(good), ref, ref.make(0)) is None
    wrong = r"Q, K \in R^{n \times d}, V \in R^{n \times d_{v}}"  # Q is n×d_k, not n×d
    assert _check(split_chains(wrong), ref, ref.make(0)) is not None
    assert _check(split_chains(r"Q K \in R^{n \times n}"), ref, ref.make(0)) is not None
    with pytest.raises(_Unread):
        _check(split_chains(r"Q, K"), ref, ref.make(0))


def test_a_word_loss_reads_its_word():
    ref = REFERENCES["tinygpt-word-loss"]
    assert _check(split_chains(r"L = - \ln P (黑便 ∣ 前文)"), ref, ref.make(1)) is None
    assert _check(split_chains(r"L = \ln P (黑便 ∣ 前文)"), ref, ref.make(1)) is not None
    with pytest.raises(_Unread):  # a word the reference has no token for
        _check(split_chains(r"L = - \ln P (咳嗽 ∣ 前文)"), ref, ref.make(0))


def test_a_formula_about_something_else_is_not_read():
    ref = REFERENCES["tinygpt-ffn"]
    with pytest.raises(_Unread):  # y is not what tinygpt's ffn computes
        _check(split_chains(r"y = σ (x W_{1} + b_{1}) W_{2} + b_{2}"), ref, ref.make(0))
    with pytest.raises(_Unread):  # an input the reference does not have
        _check(split_chains(r"FFN (x) = σ (x W_{1} + b_{1}) W_{3} + b_{2}"), ref, ref.make(0))


def test_a_claim_reports_the_edited_formula_at_its_line(tmp_path, capsys):
    good, bad = FORMULAS["tinygpt-ffn"]
    note = f"第一个 FFN 可以写成：\n{good}\n另一个 FFN 可以写成：\n{bad}\n"
    claims = "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {cid}\n    kind: symbolic\n    text: |\n      {lead} FFN 可以写成：\n"
        f"      ⟪F⟫\n    reference: {{F: tinygpt-ffn}}\n"
        for cid, lead in (("ok", "第一个"), ("bad", "另一个")))
    _, out, data = check(project(tmp_path, claims, note), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    assert by_id["ok"]["status"] == "verified", out
    assert by_id["bad"]["status"] == "discrepancy", out
    assert "n.txt:4:1: discrepancy" in out and "tinygpt.model.ffn" in out, out


@pytest.mark.parametrize("formula", [
    r"z_{i} = \sum_{j = 1}^{99} a_{i j} v_{j}",  # entries out of range
    r"z_{i} = a_{i j}",                           # an index the reference does not give
    r"z_{i} = \frac{1}{0}",
])
def test_bad_input_is_unparsed_never_a_traceback(tmp_path, capsys, formula):
    note = f"Transformer 的注意力机制：\n{formula}\n"
    claims = ("note: n.txt\nclaims:\n  - id: c\n    kind: symbolic\n    text: |\n"
              "      Transformer 的注意力机制：\n      ⟪Z⟫\n"
              "    reference: {Z: tinygpt-weighted-sum}\n")
    _, out, data = check(project(tmp_path, claims, note), capsys)
    assert data["claims"][0]["status"] in ("unparsed", "discrepancy"), out
    assert "Traceback" not in out


def test_no_string_evaluation_in_the_new_readers():
    """The modules never hand formula text to an evaluator (checked on their syntax trees)."""
    import ast
    import inspect

    import verifiers.formulas.code
    import verifiers.formulas.ellipsis
    import verifiers.formulas.tinygpt_refs
    import verifiers.formulas.updates

    banned = {"eval", "exec", "compile", "sympify", "parse_expr"}
    for mod in (verifiers.formulas.ellipsis, verifiers.formulas.code,
                verifiers.formulas.tinygpt_refs, verifiers.formulas.updates):
        for node in ast.walk(ast.parse(inspect.getsource(mod))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                assert name not in banned, (mod.__name__, name)


def test_an_unknown_tinygpt_reference_is_an_error_at_the_formula(tmp_path, capsys):
    note = "第一个 FFN 可以写成：\nFFN (x) = σ (x W_{1} + b_{1}) W_{2} + b_{2}\n"
    claims = ("note: n.txt\nclaims:\n  - id: c\n    kind: symbolic\n    text: |\n"
              "      第一个 FFN 可以写成：\n      ⟪F⟫\n    reference: {F: tinygpt-nothing}\n")
    code, out, data = check(project(tmp_path, claims, note), capsys)
    assert code == 1 and data["claims"][0]["status"] == "error", out
    assert "unknown 'tinygpt-nothing'" in out and "tinygpt-ffn" in out
