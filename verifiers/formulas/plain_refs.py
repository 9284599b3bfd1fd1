"""Instances for the plain-text formulas of a note without LaTeX (matrix-by-matrix's summary
card and worked heads), checked by :mod:`verifiers.formulas.code` after
:mod:`verifiers.formulas.plain` rewrote them into the reader's notation.

Why a module of its own: these references read names as a plain-text note writes them
(``X``, ``W_q1``, ``head_i``, ``logits``, ``Token``), and some define a family by an index
(``head_i = Attention(X · W_qi, …)`` for every head i: :attr:`Instance.each`)."""

from __future__ import annotations

from typing import Any

import torch

from verifiers.formulas.tinygpt_refs import DTYPE, Instance, Reference

__all__ = ["PLAIN_REFERENCES"]


def _randn(g: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=DTYPE)


def _layer(seed: int, heads: int, d_k: int) -> tuple[Any, dict[str, Any]]:
    """A one-layer tinygpt without mask or LayerNorm (the plain attention of ch. 2–6)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=6, d_model=4, n_heads=heads, d_k=d_k, d_v=d_k,
                              n_layers=1, layer_norm=False, causal=False,
                              positions="sinusoidal"), seed=seed)
    with torch.no_grad():
        trace = model.forward_trace([1, 3, 0])
    return model, trace


def _attention(seed: int) -> Instance:
    """``Attention(Q, K, V) = softmax(Q · K^T / √d_k) · V`` (also ``Z = …``): tinygpt.attention."""
    from tinygpt.model import attention

    g = torch.Generator().manual_seed(seed)
    q, k, v = _randn(g, 3, 4), _randn(g, 3, 4), _randn(g, 3, 2)
    out = attention(q, k, v)[0]
    return Instance({"Q": q, "K": k, "V": v, "d_k": 4}, {"Attention": out, "Z": out},
                    {"Attention": lambda a, b, c: attention(a, b, c)[0]})


def _two_heads(seed: int) -> Instance:
    """6.4's ``Q₁ = X · W_q1`` … ``Z₂ = softmax(Q₂·K₂^T/√2) · V₂``: tinygpt's two heads of
    d_k = 2 (their projections of the layer input and their outputs)."""
    model, trace = _layer(seed, heads=2, d_k=2)
    layer, block = trace["layers"][0], model.blocks[0]
    env: dict[str, Any] = {"X": layer["attn_in"]}
    expected: dict[str, Any] = {}
    for h in (1, 2):
        for w, key, mat in (("q", "Q", block.W_Q), ("k", "K", block.W_K), ("v", "V", block.W_V)):
            env[f"W_{w}{h}"] = mat[h - 1].detach()
            expected[f"{key}_{h}"] = layer[key.lower()][h - 1]
            env[f"{key}_{h}"] = layer[key.lower()][h - 1]
        expected[f"Z_{h}"] = layer["z_heads"][h - 1]
    return Instance(env, expected)


def _multihead(seed: int) -> Instance:
    """``MultiHead = concat(head₁, ..., headₕ) · W_o`` with ``headᵢ = Attention(X · W_qᵢ, X ·
    W_kᵢ, X · W_vᵢ)`` (h = 3): tinygpt's multi-head output, and each head i."""
    from tinygpt.model import attention

    model, trace = _layer(seed, heads=3, d_k=2)
    layer, block = trace["layers"][0], model.blocks[0]
    heads = layer["z_heads"]
    env: dict[str, Any] = {f"head_{i + 1}": z for i, z in enumerate(heads)}
    env.update({"h": len(heads), "head_h": heads[-1], "W_o": block.W_O.detach(),
                "X": layer["attn_in"]})
    each = [({"i": i + 1, "W_qi": block.W_Q[i].detach(), "W_ki": block.W_K[i].detach(),
              "W_vi": block.W_V[i].detach()}, heads[i]) for i in range(len(heads))]
    return Instance(env, {"MultiHead": layer["attn_out"]},
                    {"Attention": lambda a, b, c: attention(a, b, c)[0]},
                    each={"head_i": each})


def _temperature(seed: int) -> Instance:
    """``P = softmax(logits / T)``: tinygpt's sampling distribution at temperature T."""
    from tinygpt.generate import apply_temperature
    from tinygpt.model import softmax

    g = torch.Generator().manual_seed(seed)
    logits, t = _randn(g, 6), 0.5 + float(torch.rand(1, generator=g, dtype=DTYPE))
    return Instance({"logits": logits, "ell": logits, "T": t},  # 14.3 names the logits ℓ
                    {"P": softmax(apply_temperature(logits, t))})


def _input(seed: int) -> Instance:
    """``X_input = Embedding(Token) + Positional_Encoding(pos)``: tinygpt's input rows, the
    embedding rows of the tokens plus the sinusoidal rows of their positions."""
    from tinygpt.model import sinusoidal_positions

    model, trace = _layer(seed, heads=1, d_k=4)
    table = sinusoidal_positions(8, 4).to(DTYPE)
    tokens = torch.as_tensor(trace["tokens"]).clone()
    pos = torch.arange(len(tokens))
    return Instance({"Token": tokens, "pos": pos}, {"X_input": trace["x"].detach()},
                    {"Embedding": lambda t: model.E.detach()[t.long()],
                     "Positional_Encoding": lambda p: table[p.long()]})


def _sgd_direction(lowers: bool) -> Any:
    """``\\frac{d L}{d w} > 0`` printed as the case in which the update lowers w (``< 0``: raises
    it): on scalar losses L(w) = (w − c)², the printed condition must hold exactly where
    tinygpt's sgd_step lowers (raises) w, and fail where it moves w the other way."""
    def make(seed: int) -> Instance:
        from tinygpt.model import sgd_step

        g = torch.Generator().manual_seed(seed)
        truths = []
        for _ in range(6):
            w, c = _randn(g, 1)[0], _randn(g, 1)[0]
            grad = 2 * (w - c)  # dL/dw of (w - c)²
            new = sgd_step({"w": w}, {"w": grad}, 0.1)["w"]
            if float(new) != float(w):
                truths.append(({"w": w}, {"w": grad}, (float(new) < float(w)) == lowers))
        return Instance({}, {}, truths=truths)
    return make


def _tied(seed: int) -> Instance:
    """``U = E^{T}`` (15.6, weight tying): tinygpt's output matrix when ``tie_weights`` is set,
    from its embedding table E (N×d; U is d×N)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=6, d_model=4, n_heads=1, d_k=4, d_v=4, n_layers=1,
                              tie_weights=True), seed=seed)
    E, U = model.E.detach(), model.U.detach()  # 12.3 names them W_E and W_out
    return Instance({"E": E, "W_E": E}, {"U": U, "W_out": U})


#: name -> what tinygpt computes, the names read as matrices, the functions, the maker
PLAIN_REFERENCES: dict[str, Reference] = {
    "tinygpt-attention": Reference("tinygpt.attention (softmax(Q Kᵀ/√d_k) V)",
                                   ("Q", "K", "V", "Z"), ("softmax", "Attention"), _attention),
    "tinygpt-two-heads": Reference(
        "tinygpt's two heads of d_k = 2 (projections of X and outputs)",
        ("X", "W_q1", "W_k1", "W_v1", "W_q2", "W_k2", "W_v2", "Q_1", "K_1", "V_1", "Z_1",
         "Q_2", "K_2", "V_2", "Z_2"), ("softmax",), _two_heads),
    "tinygpt-multihead": Reference(
        "tinygpt's multi-head output (heads concatenated, times W_o) and its heads",
        ("X", "W_qi", "W_ki", "W_vi", "W_o", "head", "MultiHead"),
        ("concat", "Attention"), _multihead),
    "tinygpt-temperature": Reference("tinygpt's softmax(apply_temperature(logits, T))",
                                     ("logits",), ("softmax",), _temperature),
    "tinygpt-input-card": Reference("tinygpt's input rows (embedding rows + position rows)",
                                    ("X_input", "Token", "pos"),
                                    ("Embedding", "Positional_Encoding"), _input),
    "tinygpt-tied": Reference("tinygpt's output matrix with tied weights",
                              ("E", "U", "W_E", "W_out"), (),
                              _tied),
    "tinygpt-sgd-lowers-w": Reference("the case in which tinygpt's sgd_step lowers w", (), (),
                                      _sgd_direction(True)),
    "tinygpt-sgd-raises-w": Reference("the case in which tinygpt's sgd_step raises w", (), (),
                                      _sgd_direction(False)),
}
