"""Decoding: from the last row's logits to the next token, and the generation loop.

Order of the steps (matrix-by-matrix ch. 8-11; architecture-and-training 14.3):
Logits → Temperature → Softmax → TopK / TopP → sample → token.

- ``apply_temperature(logits, T) -> Tensor``: ``logits / T`` for T > 0 (softmax(ℓ/T));
- ``top_k_filter(probs, k) -> Tensor``: keep the k largest, zero the rest, renormalise;
- ``top_p_filter(probs, p) -> Tensor``: keep the smallest prefix of the sorted probabilities
  whose cumulative sum reaches p (≥ p), zero the rest, renormalise;
- ``greedy(logits) -> int``: the index of the largest entry;
- ``generate(model, prompt, max_new_tokens, strategy="greedy", eos=None, use_cache=True,
  generator=None, temperature=1.0, top_k=None, top_p=None, return_logits=False)``:
  returns the prompt plus the new tokens as ``list[int]`` (and, with ``return_logits``,
  the ``[steps, V]`` logits each choice was made from).

The filters take one distribution (a 1-D tensor over the vocabulary).
Ties: sorting is stable and descending, so among equal probabilities the lower token id
comes first (kept first by top-k/top-p, chosen by greedy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from .model import DTYPE, KVCache, TinyGPT, softmax
from .steps import scope, step

# Round-off in a cumulative sum (0.5 + 0.25 + 0.15 = 0.9000000000000001) must not move the
# top-p cut: sums within this of p count as reaching p.
TOP_P_TOLERANCE = 1e-12


def apply_temperature(logits: Tensor, T: float) -> Tensor:
    """ℓ / T. T = 0 is a limit (greedy), not a division, so it is refused (14.3)."""
    if T <= 0:
        raise ValueError(f"temperature must be > 0 (use greedy for the T → 0 limit), got {T}")
    out = logits / T
    step("temperature")
    return out


def _sorted_desc(probs: Tensor) -> tuple[Tensor, Tensor]:
    return torch.sort(probs, descending=True, stable=True)


def _keep(probs: Tensor, order: Tensor, n_keep: int) -> Tensor:
    """Zero all but the first ``n_keep`` of ``order`` and renormalise."""
    kept = torch.zeros_like(probs)
    idx = order[:n_keep]
    kept[idx] = probs[idx]
    out = kept / kept.sum()
    step("renormalize")
    return out


def top_k_filter(probs: Tensor, k: int) -> Tensor:
    """Keep the k most probable tokens, renormalised (matrix-by-matrix 9.1)."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    with scope("top_k"):
        _, order = _sorted_desc(probs)
        step("sort")
        return _keep(probs, order, min(k, probs.shape[-1]))


def top_p_filter(probs: Tensor, p: float) -> Tensor:
    """Keep the smallest most-probable set whose total reaches p, renormalised (10.1).

    With sorted probabilities (0.555, 0.185, 0.124, 0.061, ...) and p = 0.9 the running
    sums are 0.555, 0.740, 0.864, 0.925: the fourth is the first ≥ 0.9, so four are kept.
    """
    if not 0 < p <= 1:
        raise ValueError(f"p must be in (0, 1], got {p}")
    with scope("top_p"):
        sorted_probs, order = _sorted_desc(probs)
        step("sort")
        cumulative = torch.cumsum(sorted_probs, dim=-1)
        step("cumulative")
        reached = (cumulative >= p - TOP_P_TOLERANCE).nonzero()
        n_keep = int(reached[0]) + 1 if len(reached) else probs.shape[-1]
        step("cut")
        return _keep(probs, order, n_keep)


def greedy(logits: Tensor) -> int:
    """The most probable token (14.3); the first one on a tie."""
    token = int(_sorted_desc(logits)[1][0])
    step("argmax")
    return token


def _choose(
    logits: Tensor,
    strategy: str | Callable[[Tensor], int],
    temperature: float,
    top_k: int | None,
    top_p: float | None,
    generator: torch.Generator | None,
) -> int:
    if callable(strategy):
        return int(strategy(logits))
    if strategy == "greedy":
        return greedy(logits)
    if strategy != "sample":
        raise ValueError(f"strategy must be 'greedy', 'sample' or a callable, not {strategy!r}")
    probs = softmax(apply_temperature(logits, temperature))
    if top_k is not None:
        probs = top_k_filter(probs, top_k)
    if top_p is not None:
        probs = top_p_filter(probs, top_p)
    token = int(torch.multinomial(probs, 1, generator=generator))
    step("sample")
    return token


@torch.no_grad()
def generate(
    model: TinyGPT,
    prompt: Sequence[int],
    max_new_tokens: int,
    strategy: str | Callable[[Tensor], int] = "greedy",
    eos: int | None = None,
    use_cache: bool = True,
    generator: torch.Generator | None = None,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    return_logits: bool = False,
) -> list[int] | tuple[list[int], Tensor]:
    """Append tokens one at a time, each chosen from the last row's logits (14.1-14.2, 14.5).

    ``strategy``: "greedy", "sample" (temperature, then top-k, then top-p) or a callable
    from a logits row to a token id. Stops after ``max_new_tokens`` or once ``eos`` has
    been chosen (it is included). With ``use_cache`` the prompt is run once and every
    later step feeds only the new token, whose q reads the cached k/v of every layer
    (14.4); this needs a causal model, and gives the same logits as recomputing the prefix.
    """
    tokens = [int(t) for t in prompt]
    if not tokens:
        raise ValueError("generation needs a non-empty prompt")
    if use_cache and not model.config.causal:
        raise ValueError("a KV cache is valid only for causal attention (14.4)")
    cache = KVCache(model.config.n_layers, model.config.n_heads) if use_cache else None
    step_logits: list[Tensor] = []
    new: list[int] = list(tokens)  # what the model has not read yet
    for _ in range(max_new_tokens):
        with scope("forward"):
            if cache is None:
                logits = model.forward_trace(tokens)["logits"][-1]
            else:
                logits = model.forward_trace(new, cache)["logits"][-1]
        step("logits")  # the last row's: the next token is chosen from them
        step_logits.append(logits)
        token = _choose(logits, strategy, temperature, top_k, top_p, generator)
        step("token")
        tokens.append(token)
        step("append")
        new = [token]
        if eos is not None and token == eos:
            break
    if return_logits:
        empty = torch.zeros(0, model.config.vocab_size, dtype=DTYPE)
        return tokens, torch.stack(step_logits) if step_logits else empty
    return tokens


__all__ = [
    "apply_temperature",
    "generate",
    "greedy",
    "top_k_filter",
    "top_p_filter",
]
