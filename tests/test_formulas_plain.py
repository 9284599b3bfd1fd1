"""Plain-text math (verifiers/formulas/plain.py) read and checked against tinygpt
(verifiers/formulas/plain_refs.py): each plain-text reference verifies the note's formula and
fails a planted edit of it, and the front end rewrites only what the reader refuses."""

from __future__ import annotations

import ast
import inspect

import pytest

from verifiers.formulas.code import REFERENCES, _check, _condition
from verifiers.formulas.plain import normalize, read_plain
from verifiers.formulas.plain_refs import PLAIN_REFERENCES
from verifiers.latex import split_chains

# reference: (the note's formulas as matrix-by-matrix prints them, "|" between two holes;
# planted wrong ones)
FORMULAS = {
    "tinygpt-attention": ("Attention(Q, K, V) = softmax(Q · K^T / √d_k) · V",
                          ["Attention(Q, K, V) = softmax(Q · K^T / d_k) · V",
                           "Attention(Q, K, V) = softmax(Q · K / √d_k) · V",
                           "Attention(Q, K, V) = softmax(Q · K^T / √d_k)"]),
    "tinygpt-two-heads": ("Z₁ = softmax(Q₁·K₁^T/√2) · V₁ → 3×2 矩阵",
                          ["Z₁ = softmax(Q₁·K₁^T/2) · V₁ → 3×2 矩阵",
                           "Z₁ = softmax(Q₁·K₁^T/√2) · V₁ → 2×3 矩阵",
                           "Z₁ = softmax(Q₂·K₁^T/√2) · V₁ → 3×2 矩阵"]),
    "tinygpt-multihead": ("MultiHead = concat(head₁, ..., headₕ) · W_o|"
                          "headᵢ = Attention(X · W_qᵢ, X · W_kᵢ, X · W_vᵢ)",
                          ["MultiHead = concat(head₁, ..., headₕ)",
                           "MultiHead = concat(head₂, ..., headₕ) · W_o",
                           "headᵢ = Attention(X · W_qᵢ, X · W_qᵢ, X · W_vᵢ)"]),
    "tinygpt-temperature": ("P = softmax(logits / T)",
                            ["P = softmax(logits × T)", "P = softmax(logits)"]),
    "tinygpt-sgd-lowers-w": (r"\frac{d L}{d w} > 0",
                             [r"\frac{d L}{d w} < 0", r"\frac{d L}{d w} > 1",
                              r"\frac{d L}{d w} \geq -1"]),
    "tinygpt-sgd-raises-w": (r"\frac{d L}{d w} < 0",
                             [r"\frac{d L}{d w} > 0", r"\frac{d L}{d w} < -1"]),
    "tinygpt-tied": ("U = E^{T}", ["U = E"]),
    "tinygpt-input-card": ("X_input = Embedding(Token) + Positional_Encoding(pos)",
                           ["X_input = Embedding(Token) - Positional_Encoding(pos)",
                            "X_input = Embedding(Token)"]),
}


def _found(text: str, name: str, seed: int) -> tuple[str, str] | None:
    ref = REFERENCES[name]
    formula, shape = read_plain(text)
    inst = ref.make(seed)
    if inst.truths:  # a printed condition (11.2's dL/dw > 0)
        found = _condition(split_chains(formula), ref, inst)
        return None if found is None else (formula, found)
    return _check(split_chains(formula), ref, inst, shape)


def test_every_plain_reference_has_planted_edits():
    assert set(FORMULAS) == set(PLAIN_REFERENCES)


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_the_plain_formula_agrees_with_tinygpt_and_its_edits_do_not(name):
    good, bads = FORMULAS[name]
    for seed in (0, 1):
        for one in good.split("|"):
            assert _found(one, name, seed) is None, (name, one)
    for bad in bads:
        found = _found(bad, name, 0)
        assert found is not None and found[1], (name, bad, found)


def test_the_card_qkv_reads_x():
    assert _found("Q = X · W_q", "tinygpt-qkv", 0) is None
    assert _found("Q = X · W_k", "tinygpt-qkv", 0) is not None


@pytest.mark.parametrize(("plain", "latex"), [
    ("Z₁ = softmax(Q₁·K₁^T/√2) · V₁", "Z_{1} = softmax(Q_{1}·K_{1}^T/√2) · V_{1}"),
    ("headᵢ = Attention(X · W_qᵢ)", "head_{i} = Attention(X · W_{qi})"),
    ("concat(head₁, ..., headₕ)", r"concat(head_{1}, \dots, head_{h})"),
    ("Q₁ = X · W_q1", "Q_{1} = X · W_{q1}"),
    ("X_input · W_q + d_k", "X_input · W_q + d_k"),  # what the reader reads is left alone
    (r"s_{i j} = \frac{q_{i}}{\sqrt{d_{k}}}", r"s_{i j} = \frac{q_{i}}{\sqrt{d_{k}}}"),
])
def test_the_front_end_rewrites_only_what_the_reader_refuses(plain, latex):
    assert normalize(plain) == latex


def test_indices_as_subscripts_become_entries():
    from verifiers.formulas.holes import entries

    assert entries("P(token_i) = exp(logits_i) / Σ exp(logits_j)") == (
        "P[i] = exp(logits[i]) / Σ_j exp(logits[j])")
    with pytest.raises(ValueError):  # the sum's index is the definition's own: not told
        entries("P(token_i) = exp(logits_i) / Σ exp(logits_i)")


@pytest.mark.parametrize(("text", "status"), [
    ("P(token_i) = exp(logits_i) / Σ exp(logits_j)", "verified"),
    ("P(token_i) = exp(logits_i) / Σ logits_j", "discrepancy"),
    ("P(token_i) = exp(-logits_i) / Σ exp(logits_j)", "discrepancy"),
    ("P(token_i) = exp(logits_i) / Σ exp(logits_i)", "unparsed"),
])
def test_softmax_entries_against_tinygpt(text, status):
    from types import SimpleNamespace

    from verifiers.formulas.holes import reference_value

    printed = SimpleNamespace(text=text, start=0, end=len(text))
    note = SimpleNamespace(position=lambda i: (1, i + 1))
    claim = SimpleNamespace(reference={"P": "softmax-entries"})
    assert reference_value(claim, "P", printed, note).status == status


def test_a_shape_annotation_is_split_off():
    assert read_plain("K₁ = X · W_k1 → 3×2 矩阵") == ("K_{1} = X · W_{k1}", (3, 2))
    assert read_plain("Q = X · W_q") == ("Q = X · W_q", None)


def test_no_string_evaluation_in_the_plain_modules():
    import verifiers.formulas.plain
    import verifiers.formulas.plain_refs

    banned = {"eval", "exec", "compile", "sympify", "parse_expr"}
    for mod in (verifiers.formulas.plain, verifiers.formulas.plain_refs):
        for node in ast.walk(ast.parse(inspect.getsource(mod))):
            if isinstance(node, ast.Call):
                func = node.func
                if getattr(getattr(func, "value", None), "id", "") == "re":
                    continue  # re.compile: a pattern, not code
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                assert name not in banned, (mod.__name__, name)
