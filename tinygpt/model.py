"""The reference GPT, read top to bottom: positions, attention, blocks, the model, the loss.

Conventions (those of notes/architecture-and-training.txt):

- row vectors: one token per row, ``X @ W``; ``Q = X W_Q``, ``K = X W_K``, ``V = X W_V``
  (6.1), heads concatenated along features then ``@ W_O`` (6.4-6.5);
- ``E`` is the embedding table ``[V, d]``, ``U`` the output matrix ``[d, V]``, ``ℓ = h U + b``
  (13.2, 15.3); with tied weights ``U = E.T`` (15.6);
- everything is float64, created with an explicit ``dtype``; the global default dtype is
  never touched, so importing tinygpt changes nothing for other code.

Functions (plain tensors in, tensors out):

- ``sinusoidal_positions(n_positions, d_model, base=10000.0) -> Tensor[n, d]``
- ``rope(x, positions, base=10000.0) -> Tensor``
- ``causal_mask(n_q, n_k) -> BoolTensor[n_q, n_k]`` (True = may read)
- ``softmax(scores) -> Tensor`` (over the last axis, the key axis)
- ``attention(q, k, v, causal=False, scale=True) -> (out, weights)``
- ``multi_head_attention(x, W_Q, W_K, W_V, W_O, causal=False) -> (out, per_head_weights)``
- ``layer_norm(x, gamma, beta, eps=1e-5)``, ``gelu(x)``,
  ``ffn(x, W1, b1, W2, b2, activation="relu")``
- ``cross_entropy(logits, targets, loss_mask=None) -> Tensor`` (scalar)
- ``sgd_step(params, grads, lr) -> dict[str, Tensor]`` (new tensors)

Modules:

- ``GPTConfig`` (dataclass) -- every switch of the model;
- ``KVCache(n_layers, n_heads)`` -- per-layer, per-head keys and values (14.4);
- ``Block(config)`` -- one layer; ``forward(x)``, ``forward_trace(x, positions, cache, layer)``;
- ``TinyGPT(config, seed=0)`` -- ``forward(tokens) -> logits [n, V]``,
  ``forward_trace(tokens, cache=None) -> dict``, ``params() -> dict``,
  ``loss(tokens, targets, loss_mask=None)``, ``loss_and_grads(...) -> (loss, grads)``,
  ``TinyGPT.from_params(config, **tensors)``.

Parameter names (``model.params()`` keys; ``from_params`` accepts them back):
``E``, ``U`` (absent when tied), ``b`` (if ``out_bias``), ``gamma_f``/``beta_f`` (final norm),
and per layer ``l`` and head ``h``: ``blocks.l.W_Q.h``, ``blocks.l.W_K.h``, ``blocks.l.W_V.h``,
``blocks.l.W_O``, ``blocks.l.W1``, ``blocks.l.b1``, ``blocks.l.W2``, ``blocks.l.b2``,
``blocks.l.gamma1``, ``blocks.l.beta1``, ``blocks.l.gamma2``, ``blocks.l.beta2``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import torch
from torch import Tensor, nn

from .steps import scope, step

__all__ = [
    "DTYPE",
    "Block",
    "GPTConfig",
    "KVCache",
    "TinyGPT",
    "attention",
    "causal_mask",
    "cross_entropy",
    "ffn",
    "gelu",
    "layer_norm",
    "multi_head_attention",
    "rope",
    "sgd_step",
    "sinusoidal_positions",
    "softmax",
]

DTYPE = torch.float64


def _as_tensor(x: Any) -> Tensor:
    """Numbers from the notes arrive as lists; make them float64 tensors."""
    return torch.as_tensor(x, dtype=DTYPE)


def _as_positions(positions: Any) -> Tensor:
    return torch.as_tensor(positions, dtype=DTYPE)


# --------------------------------------------------------------------------- positions


def sinusoidal_positions(n_positions: int, d_model: int, base: float = 10000.0) -> Tensor:
    """Added position vectors p_i (7.2: x̃_i = x_i + p_i), the 2017 sinusoid table.

    PE(pos, 2i) = sin(pos / base^(2i/d)),  PE(pos, 2i+1) = cos(pos / base^(2i/d)).
    Returns ``[n_positions, d_model]``; an odd ``d_model`` ends with a sine column.
    """
    pos = torch.arange(n_positions, dtype=DTYPE)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=DTYPE)
    angle = pos / base ** (two_i / d_model)  # [n, ceil(d/2)]
    pe = torch.zeros(n_positions, d_model, dtype=DTYPE)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d_model // 2])
    return pe


def rope(x: Tensor, positions: Any, base: float = 10000.0) -> Tensor:
    """Rotate each pair (x_{2i}, x_{2i+1}) of row ``x[r]`` by angle θ = pos_r · base^(-2i/d).

    Follows 15.6: there (column vectors) ``q̃_i = R_i q_i`` with the ordinary rotation
    ``R(θ) = [[cos θ, -sin θ], [sin θ, cos θ]]`` on every 2-D block, so that
    ``q̃_m · k̃_n = q_m^T R((n - m) ω) k_n`` depends on positions only through n - m.
    In the main text's row convention the same numbers are ``x̃ = x R^T``:

        x̃_{2i}   = x_{2i} cos θ - x_{2i+1} sin θ
        x̃_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ

    ``x`` is ``[..., n, d]`` with even d; ``positions`` has n entries (ints or floats).
    """
    d = x.shape[-1]
    if d % 2:
        raise ValueError(f"RoPE rotates pairs of coordinates; d = {d} is odd")
    cos, sin = _rope_angles(_as_positions(positions), d, base)
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x0 * cos - x1 * sin
    out[..., 1::2] = x0 * sin + x1 * cos
    return out


# cos θ and sin θ of RoPE by (positions, d, base): a forward rotates q and k of every head
# and layer by the same angles, which were computed anew each time (a sixth of a rope
# model's forward). Keyed by the positions' bits (-0.0 is not 0.0), so a hit is the same
# computation on the same inputs.
_ANGLES: dict[tuple[Any, ...], tuple[Tensor, Tensor]] = {}
_ANGLES_MAX = 256


def _rope_angles(positions: Tensor, d: int, base: float) -> tuple[Tensor, Tensor]:
    """``(cos θ, sin θ)`` ``[n, d/2]`` for θ = pos_r · base^(-2i/d), computed once per
    content (a positions tensor that carries a gradient is never cached)."""
    key = None
    if not positions.requires_grad and positions.dim() == 1:
        key = (positions.numpy().tobytes(), positions.dtype, d, float(base))  # exact bits
        if key in _ANGLES:
            return _ANGLES[key]
    omega = base ** (-torch.arange(0, d, 2, dtype=DTYPE) / d)  # [d/2]
    theta = positions[:, None] * omega  # [n, d/2]
    angles = (torch.cos(theta), torch.sin(theta))
    if key is not None:
        if len(_ANGLES) >= _ANGLES_MAX:
            _ANGLES.clear()
        _ANGLES[key] = angles
    return angles


# --------------------------------------------------------------------------- attention


def causal_mask(n_q: int, n_k: int) -> Tensor:
    """Which keys each query may read (8.2, 8.6): True where j <= i.

    The queries are the *last* ``n_q`` of the ``n_k`` positions (as with a KV cache, 14.4),
    so query i sits at absolute position ``i + n_k - n_q`` and may read keys j up to there.
    """
    i = torch.arange(n_q)[:, None] + (n_k - n_q)
    j = torch.arange(n_k)[None, :]
    return j <= i


_HIDDEN: dict[tuple[Any, int, int], Tensor] = {}


def _hidden(n_q: int, n_k: int) -> Tensor:
    """``~causal_mask(n_q, n_k)`` (the keys a query may not read), built once per shape and
    per ``causal_mask`` in force (a test's mutant replaces it and gets its own entries)."""
    key = (causal_mask, n_q, n_k)
    hidden = _HIDDEN.get(key)
    if hidden is None:
        if len(_HIDDEN) >= 256:
            _HIDDEN.clear()
        hidden = _HIDDEN[key] = ~causal_mask(n_q, n_k)
    return hidden


def softmax(scores: Tensor) -> Tensor:
    """Row-wise softmax over the key axis (the last), 3.3 / 6.2; max-shifted for stability.

    Done as its two recorded operations (3.3's two steps, matrix-by-matrix 8.2's exp then
    normalise): the exponential of the shifted scores, then each row divided by its sum.
    """
    with scope("softmax"):
        e = torch.exp(scores - scores.amax(dim=-1, keepdim=True).detach())
        step("exp")
        out = e / e.sum(dim=-1, keepdim=True)
        step("normalize")
    return out


def one_hot(ids: Any, vocab_size: int) -> Tensor:
    """Rows e_i of the identity (lesson1 §2): the one-hot vectors of ``ids`` over V tokens.

    The target y of ``p - y`` (``tinygpt.backward.softmax_cross_entropy_grad``) is built
    with it, so a law about one-hot vectors holds this code to account.
    """
    ids = torch.as_tensor(ids, dtype=torch.long)
    out = torch.zeros(*ids.shape, vocab_size, dtype=DTYPE)
    return out.scatter_(-1, ids.unsqueeze(-1), 1.0)


def scaled_scores(q: Tensor, k: Tensor, scale: bool = True) -> Tensor:
    """S = Q K^T / sqrt(d_k) (4.6, 6.2): every query against every key, batched over any
    leading axes. ``attention`` and ``Block.attend`` both compute their scores here."""
    scores = q @ k.transpose(-2, -1)
    return scores / math.sqrt(q.shape[-1]) if scale else scores


def attention(
    q: Tensor, k: Tensor, v: Tensor, causal: bool = False, scale: bool = True
) -> tuple[Tensor, Tensor]:
    """A = softmax(Q K^T / sqrt(d_k) + M), Z = A V  (6.2, 8.4).

    ``q, k: [n_q, d_k], [n_k, d_k]``; ``v: [n_k, d_v]``. ``causal`` sets scores of
    disallowed keys (``causal_mask``) to -inf, so their weights are exactly 0 (8.6).
    Returns ``(Z [n_q, d_v], A [n_q, n_k])``.
    """
    scores = scaled_scores(q, k, scale)
    step("scores")  # recorded here, not in scaled_scores: Block.attend re-reads them
    if scale:
        step("scale")
    if causal:
        scores = scores.masked_fill(_hidden(q.shape[0], k.shape[0]), float("-inf"))
        step("mask")
    weights = softmax(scores)
    out = weights @ v
    step("weighted_sum")
    return out, weights


def multi_head_attention(
    x: Tensor,
    W_Q: Sequence[Tensor],
    W_K: Sequence[Tensor],
    W_V: Sequence[Tensor],
    W_O: Tensor,
    causal: bool = False,
    scale: bool = True,
) -> tuple[Tensor, list[Tensor]]:
    """O = Concat(Z^(1), ..., Z^(H)) W_O with Z^(h) = Attention(X W_Q^(h), X W_K^(h), X W_V^(h))
    (6.4-6.5). Returns ``(O [n, d], [A^(h) for each head])``. Plain attention of ch. 6: no
    positions; ``Block.attend`` is the same loop with RoPE and the KV cache added."""
    zs, weights = [], []
    for wq, wk, wv in zip(W_Q, W_K, W_V, strict=True):
        q, k, v = x @ wq, x @ wk, x @ wv
        step("qkv")
        z, a = attention(q, k, v, causal=causal, scale=scale)
        zs.append(z)
        weights.append(a)
    z = torch.cat(zs, dim=-1)
    step("concat")
    out = z @ W_O
    step("output_projection")
    return out, weights


# --------------------------------------------------------------------------- LN and FFN


def layer_norm(x: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """LN(x)_r = γ_r (x_r - μ) / sqrt(v + ε) + β_r per row (15.5).

    v is the mean squared deviation (divide by d, not d - 1), as 15.5 insists.
    """
    mu = x.mean(dim=-1, keepdim=True)
    v = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    out = gamma * (x - mu) / torch.sqrt(v + eps) + beta
    step("layernorm")
    return out


def gelu(x: Tensor) -> Tensor:
    """Exact GELU, x Φ(x) = x (1 + erf(x / √2)) / 2 (not the tanh approximation)."""
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def ffn(
    x: Tensor,
    W1: Tensor,
    b1: Tensor | None,
    W2: Tensor,
    b2: Tensor | None,
    activation: Literal["relu", "gelu", "identity"] = "relu",
) -> Tensor:
    """FFN(x) = σ(x W1 + b1) W2 + b2 (7.1, 15.5); a ``None`` bias is left out.

    ``activation="identity"`` is 7.1's FFN without a non-linearity (two linear layers).
    """
    return _ffn_trace(x, W1, b1, W2, b2, activation)["ffn_out"]


def _ffn_trace(x, W1, b1, W2, b2, activation) -> dict[str, Tensor]:
    """15.5's names: B = X W1 + b1, C = σ(B), Y = C W2 + b2."""
    with scope("ffn"):
        B = x @ W1 if b1 is None else x @ W1 + b1
        step("linear")
        if activation == "relu":
            C = torch.relu(B)
        elif activation == "gelu":
            C = gelu(B)
        elif activation == "identity":
            C = B
        else:
            raise ValueError(f"unknown activation {activation!r}")
        step("activation")
        Y = C @ W2 if b2 is None else C @ W2 + b2
        step("linear")
    return {"ffn_pre": B, "ffn_act": C, "ffn_out": Y}


# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class GPTConfig:
    """Every switch of TinyGPT; worked examples are configurations of it.

    ``d_k``/``d_v`` are per head; ``W_O`` is ``[n_heads * d_v, d_model]`` (6.5).
    ``d_ff`` defaults to ``4 * d_model``. ``layer_norm=False`` removes *every* LayerNorm
    (including the final one, whatever ``final_norm`` says); together with ``ffn=False`` and
    ``positions="none"`` a block is exactly ch. 13's ``R = X + Z W_O``.
    ``arrangement``: "pre" (7.7/15.5: T = X + MHA(LN1(X)), Y = T + FFN(LN2(T))) or
    "post" (2017: T = LN1(X + MHA(X)), Y = LN2(T + FFN(T))).
    """

    vocab_size: int
    d_model: int
    n_heads: int
    d_k: int
    d_v: int
    n_layers: int
    d_ff: int | None = None
    positions: Literal["none", "sinusoidal", "rope"] = "none"
    causal: bool = True
    layer_norm: bool = True
    arrangement: Literal["pre", "post"] = "pre"
    final_norm: bool = True
    ffn: bool = True
    activation: Literal["relu", "gelu"] = "relu"
    out_bias: bool = False
    tie_weights: bool = False
    eps: float = 1e-5
    rope_base: float = 10000.0

    def __post_init__(self) -> None:
        if self.positions not in ("none", "sinusoidal", "rope"):
            raise ValueError(f"positions must be none|sinusoidal|rope, not {self.positions!r}")
        if self.arrangement not in ("pre", "post"):
            raise ValueError(f"arrangement must be pre|post, not {self.arrangement!r}")
        if self.activation not in ("relu", "gelu"):
            raise ValueError(f"activation must be relu|gelu, not {self.activation!r}")
        if self.positions == "rope" and self.d_k % 2:
            raise ValueError("RoPE needs an even d_k")

    @property
    def ffn_width(self) -> int:
        return self.d_ff if self.d_ff is not None else 4 * self.d_model


class KVCache:
    """Keys and values of the positions seen so far, for every layer and head (14.4).

    Every layer is cached, not just the last: old positions' K/V at layer l were built
    from their own (causal) prefixes, so they stay valid when a token is appended (8.6).
    Keys are stored after RoPE, i.e. exactly as the scores read them.
    """

    def __init__(self, n_layers: int, n_heads: int) -> None:
        empty = [[None] * n_heads for _ in range(n_layers)]
        self.keys: list[list[Tensor | None]] = [list(row) for row in empty]
        self.values: list[list[Tensor | None]] = [list(row) for row in empty]

    @property
    def length(self) -> int:
        """Number of positions cached (the next token's position)."""
        k = self.keys[0][0]
        return 0 if k is None else k.shape[0]

    def update(self, layer: int, head: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Append the new rows and return all keys and values, the new ones included."""
        old_k, old_v = self.keys[layer][head], self.values[layer][head]
        if old_k is not None:
            k, v = torch.cat([old_k, k]), torch.cat([old_v, v])
        self.keys[layer][head], self.values[layer][head] = k, v
        return k, v


def _matrix(*shape: int, generator: torch.Generator) -> nn.Parameter:
    """Random start ~ N(0, 1/fan_in): readable numbers, activations of order 1."""
    w = torch.randn(*shape, dtype=DTYPE, generator=generator) / math.sqrt(shape[0])
    return nn.Parameter(w)


def _filled(value: float, *shape: int) -> nn.Parameter:
    return nn.Parameter(torch.full(shape, value, dtype=DTYPE))


class Block(nn.Module):
    """One layer: multi-head attention + residual, optional LayerNorms, optional FFN (7.7)."""

    def __init__(self, config: GPTConfig, generator: torch.Generator | None = None) -> None:
        super().__init__()
        c = self.config = config
        g = generator if generator is not None else torch.Generator().manual_seed(0)
        heads = range(c.n_heads)
        self.W_Q = nn.ParameterList([_matrix(c.d_model, c.d_k, generator=g) for _ in heads])
        self.W_K = nn.ParameterList([_matrix(c.d_model, c.d_k, generator=g) for _ in heads])
        self.W_V = nn.ParameterList([_matrix(c.d_model, c.d_v, generator=g) for _ in heads])
        self.W_O = _matrix(c.n_heads * c.d_v, c.d_model, generator=g)
        if c.layer_norm:
            self.gamma1, self.beta1 = _filled(1.0, c.d_model), _filled(0.0, c.d_model)
        if c.ffn:
            self.W1 = _matrix(c.d_model, c.ffn_width, generator=g)
            self.b1 = _filled(0.0, c.ffn_width)
            self.W2 = _matrix(c.ffn_width, c.d_model, generator=g)
            self.b2 = _filled(0.0, c.d_model)
            if c.layer_norm:
                self.gamma2, self.beta2 = _filled(1.0, c.d_model), _filled(0.0, c.d_model)

    def forward(self, x: Tensor) -> Tensor:
        """Y for input rows X (positions 0..n-1, no cache)."""
        return self.forward_trace(x, torch.arange(x.shape[0]))["y"]

    def _ln(self, x: Tensor, which: int) -> Tensor:
        if not self.config.layer_norm:
            return x
        gamma, beta = getattr(self, f"gamma{which}"), getattr(self, f"beta{which}")
        return layer_norm(x, gamma, beta, self.config.eps)

    def attend(
        self, a: Tensor, positions: Tensor, cache: KVCache | None = None, layer: int = 0
    ) -> dict[str, Any]:
        """MHA(a) head by head, keeping q, k, v, scores and weights of each head (6.4-6.5).

        ``scores`` are q k^T / sqrt(d_k) before the mask (the numbers 8.4 feeds to softmax).
        With a cache, the new rows' k/v are appended first and q reads all cached k/v.
        """
        c = self.config
        t: dict[str, Any] = {name: [] for name in ("q", "k", "v", "scores", "weights", "z_heads")}
        for h in range(c.n_heads):
            q, k, v = a @ self.W_Q[h], a @ self.W_K[h], a @ self.W_V[h]
            step("qkv")
            if c.positions == "rope":
                q = rope(q, positions, c.rope_base)
                k = rope(k, positions, c.rope_base)
            keys, values = (k, v) if cache is None else cache.update(layer, h, k, v)
            z, w = attention(q, keys, values, causal=c.causal)
            scores = scaled_scores(q, keys)
            for name, value in zip(("q", "k", "v", "scores", "weights", "z_heads"),
                                   (q, k, v, scores, w, z), strict=True):
                t[name].append(value)
        t["z"] = torch.cat(t["z_heads"], dim=-1)  # Concat(Z^(1), ..., Z^(H))
        step("concat")
        t["attn_out"] = t["z"] @ self.W_O
        step("output_projection")
        return t

    def forward_trace(
        self, x: Tensor, positions: Any, cache: KVCache | None = None, layer: int = 0
    ) -> dict[str, Any]:
        """All intermediates of one layer, named as in 7.7 / 15.5 (T, Y) and ch. 13 (z)."""
        c = self.config
        positions = _as_positions(positions)
        t: dict[str, Any] = {"x": x}
        if c.arrangement == "pre":
            t["attn_in"] = self._ln(x, 1)
            with scope("attention"):
                t.update(self.attend(t["attn_in"], positions, cache, layer))
            t["t"] = _residual(x, t["attn_out"])  # T = X + MHA(LN1(X))
        else:
            t["attn_in"] = x
            with scope("attention"):
                t.update(self.attend(x, positions, cache, layer))
            t["t"] = self._ln(_residual(x, t["attn_out"]), 1)  # T = LN1(X + MHA(X))
        if not c.ffn:
            t["y"] = t["t"]
            return t
        ffn_in = self._ln(t["t"], 2) if c.arrangement == "pre" else t["t"]
        t["ffn_in"] = ffn_in
        t.update(_ffn_trace(ffn_in, self.W1, self.b1, self.W2, self.b2, c.activation))
        if c.arrangement == "pre":
            t["y"] = _residual(t["t"], t["ffn_out"])  # Y = T + FFN(LN2(T))
        else:
            t["y"] = self._ln(_residual(t["t"], t["ffn_out"]), 2)  # Y = LN2(T + FFN(T))
        return t


def _residual(x: Tensor, out: Tensor) -> Tensor:
    """x + sublayer(x): the residual connection (7.7)."""
    y = x + out
    step("residual")
    return y


class TinyGPT(nn.Module):
    """Token ids -> embedding rows (+ positions) -> blocks -> final LN -> h U + b (ch. 9, 13)."""

    def __init__(self, config: GPTConfig, seed: int = 0) -> None:
        super().__init__()
        c = self.config = config
        g = torch.Generator().manual_seed(seed)
        # embedding rows ~ N(0, 1): inputs of order 1, like the notes' examples
        self.E = nn.Parameter(torch.randn(c.vocab_size, c.d_model, dtype=DTYPE, generator=g))
        self.blocks = nn.ModuleList([Block(c, g) for _ in range(c.n_layers)])
        if c.layer_norm and c.final_norm:
            self.gamma_f, self.beta_f = _filled(1.0, c.d_model), _filled(0.0, c.d_model)
        if not c.tie_weights:
            self.U = _matrix(c.d_model, c.vocab_size, generator=g)
        if c.out_bias:
            self.b = _filled(0.0, c.vocab_size)

    def __getattr__(self, name: str) -> Any:
        """``model.U`` when tied: the view ``E.T`` (15.6), not a parameter of its own.

        It shares E's storage, so autograd adds the input-path and output-path gradients
        into ``E.grad``; untied, ``U`` is an ordinary parameter found by nn.Module.
        """
        config = self.__dict__.get("config")
        if name == "U" and config is not None and config.tie_weights:
            return self.E.T
        return super().__getattr__(name)

    # ----- running the model

    def forward(self, tokens: Any) -> Tensor:
        """Logits ℓ [n, V] for every position (row i predicts token i + 1)."""
        return self.forward_trace(tokens)["logits"]

    def forward_trace(self, tokens: Any, cache: KVCache | None = None) -> dict[str, Any]:
        """Every named intermediate, for comparing with the printed ones.

        Keys: ``tokens``, ``positions``, ``x`` (embedded input, positions added),
        ``layers`` (one dict per layer: ``x, attn_in, q, k, v, scores, weights, z_heads,
        z, attn_out, t, ffn_in, ffn_pre, ffn_act, ffn_out, y``; q/k/v/scores/weights/z_heads
        are lists over heads, q/k after RoPE; the ffn_* keys only with an FFN),
        ``h`` (final rows, after the final norm), ``logits``, ``p`` (softmax of logits).

        With a cache, ``tokens`` are the new ones, at positions ``cache.length,
        cache.length + 1, ...``; every row of the trace (q, k, v, weights, h, ...) is then
        a new position's row, and the weights' columns run over all cached positions.
        """
        c = self.config
        tokens = torch.as_tensor(tokens, dtype=torch.long)
        start = 0 if cache is None else cache.length
        positions = torch.arange(start, start + tokens.shape[0])
        step("tokens")
        x = self.E[tokens]  # look up rows of E (13.2)
        step("embedding")
        if c.positions == "sinusoidal":
            x = x + sinusoidal_positions(start + tokens.shape[0], c.d_model)[start:]
            step("positions")
        trace: dict[str, Any] = {"tokens": tokens, "positions": positions, "x": x, "layers": []}
        for layer, block in enumerate(self.blocks):
            with scope("block"):
                t = block.forward_trace(x, positions, cache, layer)
            trace["layers"].append(t)
            x = t["y"]
        if c.layer_norm and c.final_norm:
            x = layer_norm(x, self.gamma_f, self.beta_f, c.eps)
        trace["h"] = x
        step("hidden")
        logits = x @ self.U
        if c.out_bias:
            logits = logits + self.b
        step("unembedding")
        trace["logits"] = logits
        step("logits")
        trace["p"] = softmax(logits)
        return trace

    # ----- parameters and training

    def params(self) -> dict[str, Tensor]:
        """Named parameters (the names ``from_params`` and ``torch.func.functional_call``
        take); no ``U`` when tied."""
        return dict(self.named_parameters())

    def loss(self, tokens: Any, targets: Any, loss_mask: Any = None) -> Tensor:
        """Mean −ln p[target] of this model on one sequence (11.7)."""
        return cross_entropy(self(tokens), targets, loss_mask)

    def loss_and_grads(
        self, tokens: Any, targets: Any, loss_mask: Any = None
    ) -> tuple[Tensor, dict[str, Tensor]]:
        """Loss and all its gradients at the *current* parameters, in one backward pass."""
        params = self.params()
        with scope("forward"):
            logits = self(tokens)
        loss = cross_entropy(logits, targets, loss_mask)
        grads = torch.autograd.grad(loss, list(params.values()))
        step("backward")
        return loss.detach(), dict(zip(params, grads, strict=True))

    @classmethod
    def from_params(cls, config: GPTConfig, **tensors: Any) -> TinyGPT:
        """A model whose parameters are the given numbers (e.g. ch. 13's E, W_Q, ..., U).

        Names are those of ``params()`` (``"blocks.0.W_Q.1"``; pass via ``**dict``), or the
        notes' short names for every layer at once: ``W_Q``/``W_K``/``W_V`` as a list over
        layers of lists over heads -- with one layer a list over heads, with one layer and
        one head a single matrix -- and ``W_O, W1, b1, W2, b2, gamma1, beta1, gamma2,
        beta2`` as a list over layers, or a single tensor when there is one layer.
        Everything except LayerNorm γ/β (default 1/0) and biases (default 0) must be given.
        """
        model = cls(config)
        c = config
        given: dict[str, Tensor] = {}
        for name, value in tensors.items():
            if name in ("W_Q", "W_K", "W_V"):
                for layer, heads in enumerate(_per_layer_heads(value, c, name)):
                    for head, w in enumerate(heads):
                        given[f"blocks.{layer}.{name}.{head}"] = _as_tensor(w)
            elif name in ("W_O", "W1", "b1", "W2", "b2", "gamma1", "beta1", "gamma2", "beta2"):
                for layer, w in enumerate(_per_layer(value, c, name)):
                    given[f"blocks.{layer}.{name}"] = _as_tensor(w)
            else:
                given[name] = _as_tensor(value)
        own = model.params()
        unknown = sorted(set(given) - set(own))
        if unknown:
            raise ValueError(f"no such parameters for this config: {unknown}")
        defaulted = ("gamma", "beta", "b1", "b2", "b")
        missing = [n for n in own if n not in given and not n.split(".")[-1].startswith(defaulted)]
        if missing:
            raise ValueError(f"parameters not given: {missing}")
        with torch.no_grad():
            for name, value in given.items():
                if value.shape != own[name].shape:
                    raise ValueError(f"{name}: shape {tuple(value.shape)}, "
                                     f"expected {tuple(own[name].shape)}")
                own[name].copy_(value)
        return model


def _depth(value: Any) -> int:
    """Nesting depth: 0 for a number, 2 for a matrix (tensor or list of lists), ..."""
    if isinstance(value, Tensor):
        return value.dim()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return 1 + _depth(value[0]) if len(value) else 1
    return 0


def _per_layer_heads(value: Any, c: GPTConfig, name: str) -> list[list[Any]]:
    """Normalise W_Q/W_K/W_V to [layer][head] (see ``TinyGPT.from_params``)."""
    depth = _depth(value)
    if depth == 2:  # one matrix
        if c.n_layers != 1 or c.n_heads != 1:
            raise ValueError(f"{name}: one matrix for {c.n_layers} layers x {c.n_heads} heads")
        return [[value]]
    if depth == 3:  # a list of matrices: the heads of the one layer, or one head per layer
        if c.n_layers == 1:
            return [list(value)]
        if c.n_heads == 1:
            return [[w] for w in value]
        raise ValueError(f"{name}: give a list over layers of lists over heads")
    return [list(heads) for heads in value]


def _per_layer(value: Any, c: GPTConfig, name: str) -> list[Any]:
    """Normalise a per-layer parameter (matrix or vector) to a list over layers."""
    base = 1 if name.startswith(("b", "gamma")) else 2  # b1, b2, beta*, gamma*: vectors
    if _depth(value) == base:
        if c.n_layers != 1:
            raise ValueError(f"{name}: one value given for {c.n_layers} layers")
        return [value]
    if len(value) != c.n_layers:
        raise ValueError(f"{name}: expected a list over {c.n_layers} layers")
    return list(value)


# --------------------------------------------------------------------------- training


def cross_entropy(logits: Tensor, targets: Any, loss_mask: Any = None) -> Tensor:
    """L = (1/|I|) Σ_{i∈I} −ln p_{i, t_i} (11.7); I = positions where ``loss_mask`` is true.

    ``logits [n, V]``, ``targets [n]`` (ids). The loss mask chooses which positions count;
    it is not the attention mask (11.7).
    """
    targets = torch.as_tensor(targets, dtype=torch.long)
    step("targets")
    log_p = torch.log_softmax(logits, dim=-1)
    nll = -log_p[torch.arange(targets.shape[0]), targets]
    if loss_mask is not None:
        nll = nll[torch.as_tensor(loss_mask, dtype=torch.bool)]
    loss = nll.mean()
    step("loss")
    return loss


def sgd_step(params: dict[str, Tensor], grads: dict[str, Tensor], lr: float) -> dict[str, Tensor]:
    """θ_new = θ − lr · ∂L/∂θ for every parameter at once (13.10).

    All gradients must have been taken at the old parameters; the old tensors are left
    untouched and new (detached) tensors are returned, so no update can leak into another.
    """
    new = {name: p.detach() - lr * grads[name].detach() for name, p in params.items()}
    step("update")
    return new
