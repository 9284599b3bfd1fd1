"""matrix-by-matrix.txt: the three-token example as tinygpt runs.

Every number comes from the note through the claim (claims/matrix-by-matrix/20-model.yaml);
nothing here is typed in from the note. Three examples:

- ``mbm_single_head`` (ch. 1-5): token ids → rows of ``W_embed`` + sinusoidal positions
  (tinygpt's ``sinusoidal_positions`` with the note's d_model and base) → one head of a
  one-layer TinyGPT (no LayerNorm, no FFN, no causal mask: the note's self-attention sees
  all three tokens) → Q, K, V, QKᵀ, QKᵀ/√d_k, A, Z;
- ``mbm_two_heads`` (ch. 6): the same X_input through a two-head TinyGPT layer with the
  given W_q1 … W_v2 and W_o (the Z₁, Z₂ the weights really give, their concat, the output
  projection), tinygpt's ``multi_head_attention`` as an independent second route, and the
  note's own product concat(assumed Z₁, Z₂) · W_o done the way the layer does it;
- ``mbm_decoding`` (ch. 7-10): one row of logits through tinygpt's decoding functions:
  temperature, softmax, top-k, top-p, greedy.
"""

from __future__ import annotations

import torch

from tinygpt.examples import example
from tinygpt.generate import apply_temperature, greedy, top_k_filter, top_p_filter
from tinygpt.model import (
    DTYPE,
    GPTConfig,
    TinyGPT,
    attention,
    multi_head_attention,
    sinusoidal_positions,
    softmax,
)


def _exact(**tensors: torch.Tensor) -> None:
    """TinyGPT.from_params copies numbers into parameters, so no autograd path leads back
    to them: the claims pass these inputs ``as: printed`` (exact digits; the engine's
    local radius is then only the ~1e-42 of a decimal in binary intervals, which the
    missing Jacobian cannot widen noticeably). Refuse anything that is not a plain tensor."""
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"input {name!r} must be a tensor")


def _shape(t: torch.Tensor) -> torch.Tensor:
    return torch.tensor([float(n) for n in t.shape], dtype=DTYPE)


@example("mbm_single_head")
def single_head(
    E: torch.Tensor,
    ids: torch.Tensor,
    d_model: torch.Tensor,
    base: torch.Tensor,
    W_q: torch.Tensor,
    W_k: torch.Tensor,
    W_v: torch.Tensor,
    X_note: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """Ch. 1-5 as one TinyGPT configuration: 1 layer, 1 head, no mask, no LN, no FFN.

    The layer runs twice: on the exact X_input = E[ids] + PE (the whole chain: outputs
    ``X_input, Q, K, V, S, Sc, A, Z``), and on ``X_note``, the X_input the note prints in
    1.5 with two decimals and computes on from there (outputs with ``_note``: the global
    truth of 2.3-5.3 as the arithmetic claims define it, since they restart from it).

    The positions are added outside the model because GPTConfig's sinusoidal table has
    no base switch (it always uses 10000); here the base is the note's. The note stops at
    Z (5.3): there is no W_O or output layer, so the model's W_O and U are zero and unread.
    """
    _exact(E=E, ids=ids, W_q=W_q, W_k=W_k, W_v=W_v, X_note=X_note)
    d, n = int(d_model), ids.shape[0]
    config = GPTConfig(
        vocab_size=E.shape[0], d_model=d, n_heads=1, d_k=W_q.shape[1], d_v=W_v.shape[1],
        n_layers=1, positions="none", causal=False, layer_norm=False, ffn=False,
    )
    model = TinyGPT.from_params(
        config, E=E, W_Q=W_q, W_K=W_k, W_V=W_v,
        W_O=torch.zeros(W_v.shape[1], d, dtype=DTYPE), U=torch.zeros(d, E.shape[0], dtype=DTYPE),
    )
    tokens = ids.long()
    X = model.E[tokens]  # 1.3: rows of W_embed
    PE = sinusoidal_positions(n, d, float(base))  # 1.4
    X_input = X + PE  # 1.5
    out = {"X": X, "PE": PE, "X_input": X_input}
    for suffix, x in (("", X_input), ("_note", X_note)):
        layer = model.blocks[0].forward_trace(x, torch.arange(n))
        Q, K, V = layer["q"][0], layer["k"][0], layer["v"][0]
        S = Q @ K.T  # 3.1, to compare with the printed QKᵀ (attention() scales it inside)
        scaled = S / torch.sqrt(torch.tensor(float(Q.shape[1]), dtype=DTYPE))
        out.update({f"Q{suffix}": Q, f"K{suffix}": K, f"V{suffix}": V, f"S{suffix}": S,
                    f"Sc{suffix}": scaled, f"A{suffix}": layer["weights"][0],
                    f"Z{suffix}": layer["z_heads"][0]})
    Q, S, A, Z = out["Q"], out["S"], out["A"], out["Z"]
    return {
        **out,
        "shape_X_input": _shape(X_input), "shape_W_q": _shape(W_q), "shape_W_k": _shape(W_k),
        "shape_W_v": _shape(W_v), "shape_Q": _shape(Q), "shape_K": _shape(out["K"]),
        "shape_V": _shape(out["V"]), "shape_S": _shape(S), "shape_A": _shape(A),
        "shape_Z": _shape(Z),
    }


@example("mbm_two_heads")
def two_heads(
    X_input: torch.Tensor,
    W_q1: torch.Tensor, W_k1: torch.Tensor, W_v1: torch.Tensor,
    W_q2: torch.Tensor, W_k2: torch.Tensor, W_v2: torch.Tensor,
    W_o: torch.Tensor,
    Z1_assumed: torch.Tensor, Z2_assumed: torch.Tensor,
) -> dict[str, torch.Tensor]:
    """Ch. 6: a two-head TinyGPT layer (1 layer, no mask, no LN, no FFN) on X_input.

    ``Z1``, ``Z2``, ``Z_concat``, ``out``: what the given weights produce (the layer's
    trace); ``mha_disagree``: largest difference from tinygpt's ``multi_head_attention``
    and from per-head ``attention`` (an independent route; ≈ 1e-15); ``out_assumed``: the
    note's own 6.6 product, concat(assumed Z₁, Z₂) · W_o, formed as the layer forms it.
    """
    _exact(X_input=X_input, W_q1=W_q1, W_k1=W_k1, W_v1=W_v1, W_q2=W_q2, W_k2=W_k2,
           W_v2=W_v2, W_o=W_o)
    n, d = X_input.shape
    heads_q, heads_k, heads_v = [W_q1, W_q2], [W_k1, W_k2], [W_v1, W_v2]
    config = GPTConfig(
        vocab_size=1, d_model=d, n_heads=len(heads_q), d_k=W_q1.shape[1], d_v=W_v1.shape[1],
        n_layers=1, positions="none", causal=False, layer_norm=False, ffn=False,
    )
    model = TinyGPT.from_params(config, E=torch.zeros(1, d, dtype=DTYPE), W_Q=heads_q,
                                W_K=heads_k, W_V=heads_v, W_O=W_o,
                                U=torch.zeros(d, 1, dtype=DTYPE))
    layer = model.blocks[0].forward_trace(X_input, torch.arange(n))
    Z1, Z2 = layer["z_heads"]
    mha, _ = multi_head_attention(X_input, heads_q, heads_k, heads_v, W_o)
    direct = [attention(X_input @ q, X_input @ k, X_input @ v)[0]
              for q, k, v in zip(heads_q, heads_k, heads_v, strict=True)]
    disagree = torch.stack([(mha - layer["attn_out"]).abs().max(),
                            (direct[0] - Z1).abs().max(), (direct[1] - Z2).abs().max()]).max()
    assumed = torch.cat([Z1_assumed, Z2_assumed], dim=-1)
    return {
        "Z1": Z1, "Z2": Z2, "Z_concat": layer["z"], "out": layer["attn_out"],
        "mha_disagree": disagree, "out_assumed": assumed @ model.blocks[0].W_O,
        "n_heads": torch.tensor(float(config.n_heads), dtype=DTYPE),
        "d_head": torch.tensor(float(config.d_k), dtype=DTYPE),
        "concat_width": torch.tensor(float(layer["z"].shape[1]), dtype=DTYPE),
        "shape_X_input": _shape(X_input), "shape_Z1": _shape(Z1), "shape_Z2": _shape(Z2),
        "shape_W_o": _shape(W_o), "shape_out": _shape(layer["attn_out"]),
    }


@example("mbm_decoding")
def decoding(logits: torch.Tensor, T: torch.Tensor, k: torch.Tensor,
             p: torch.Tensor) -> dict[str, torch.Tensor]:
    """Ch. 7-10 through tinygpt.generate: one logits row, temperatures ``T`` (a vector),
    top-k with ``k``, top-p with ``p`` (both on the T = 1 softmax, as the note does), greedy.

    ``probs_T``: one row per temperature, softmax(apply_temperature(logits, T));
    ``probs``: softmax(logits); ``top_k``/``top_p``: the renormalised kept distributions
    (in vocabulary order); ``kept_k``/``kept_p``: how many tokens each keeps;
    ``greedy``: the chosen token id; ``greedy_is_top1``: 1 when top-k with k = 1 puts all
    its mass on the greedy token.
    """
    probs = softmax(logits)
    probs_T = torch.stack([softmax(apply_temperature(logits, t)) for t in T])
    top_k = top_k_filter(probs, int(k.detach()))
    top_p = top_p_filter(probs, float(p.detach()))
    g = greedy(logits)
    return {
        "probs": probs, "probs_T": probs_T, "top_k": top_k, "top_p": top_p,
        "kept_k": (top_k > 0).sum().to(DTYPE), "kept_p": (top_p > 0).sum().to(DTYPE),
        "greedy": torch.tensor(float(g), dtype=DTYPE),
        "greedy_is_top1": top_k_filter(probs, 1)[g],
    }
