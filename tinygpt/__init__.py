"""tinygpt: the reference model the notes' worked examples are checked against.

A small, readable GPT in PyTorch (float64), following the notes' conventions
(row vectors, ``x @ W``). It arrives with the model claims (issue 3); the
arithmetic engine never imports it, so plain arithmetic checks stay fast.
"""

from .generate import apply_temperature, generate, greedy, top_k_filter, top_p_filter
from .model import (
    DTYPE,
    Block,
    GPTConfig,
    KVCache,
    TinyGPT,
    attention,
    causal_mask,
    cross_entropy,
    ffn,
    gelu,
    layer_norm,
    multi_head_attention,
    one_hot,
    rope,
    scaled_scores,
    sgd_step,
    sinusoidal_positions,
    softmax,
)

__all__ = [
    "DTYPE",
    "Block",
    "GPTConfig",
    "KVCache",
    "TinyGPT",
    "apply_temperature",
    "attention",
    "causal_mask",
    "cross_entropy",
    "ffn",
    "gelu",
    "generate",
    "greedy",
    "layer_norm",
    "multi_head_attention",
    "one_hot",
    "rope",
    "scaled_scores",
    "sgd_step",
    "sinusoidal_positions",
    "softmax",
    "top_k_filter",
    "top_p_filter",
]
