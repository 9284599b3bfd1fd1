"""Hypothesis strategies for the property laws: scores, probabilities, temperatures, tiny models.

Models are drawn as a :class:`ModelSpec` (configuration + seed), cheap to generate and to
shrink, and built by the law that needs them: a counterexample then names the model the way
a reader can rebuild it (``TinyGPT(V=4, d=4, heads=1, ..., seed=0)``). Everything is float64
and small (d <= 8, <= 3 layers, <= 8 tokens) so a whole property set runs in seconds.

The strategy helpers are memoised (``_shared``): a composite that draws ``matrices(n, d)``
for every example would otherwise build, validate and analyse a new strategy object each
time, which cost more than the draw. A strategy's draws depend on its definition, not on
the object, so the examples searched are the same.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tinygpt import GPTConfig, TinyGPT

F64 = torch.float64


_shared = lru_cache(maxsize=None, typed=True)


@_shared
def floats(lo: float, hi: float) -> st.SearchStrategy[float]:
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@_shared
def vectors(max_len: int, bound: float, min_len: int = 1) -> st.SearchStrategy[np.ndarray]:
    """A score / logit vector: float64 entries in [-bound, bound], length min_len..max_len."""
    return hnp.arrays(np.float64, st.integers(min_len, max(min_len, max_len)),
                      elements=floats(-bound, bound))


@_shared
def matrices(rows: int, cols: int, bound: float = 3.0, integer: bool = False
             ) -> st.SearchStrategy[np.ndarray]:
    """Float64 entries in [-bound, bound]; ``integer`` entries shrink fast (for laws that
    expect a counterexample, whose search ends with shrinking)."""
    elements = st.integers(-int(bound), int(bound)).map(float) if integer \
        else floats(-bound, bound)
    return hnp.arrays(np.float64, (rows, cols), elements=elements)


@_shared
def integer_vectors(max_len: int, top: int = 5, min_len: int = 1) -> st.SearchStrategy[Any]:
    """Integer-valued scores: ties are common and gaps are at least 1."""
    return hnp.arrays(np.float64, st.integers(min_len, max(min_len, max_len)),
                      elements=st.integers(-top, top).map(float))


def tensor(a: Any) -> torch.Tensor:
    return torch.as_tensor(np.asarray(a, dtype=np.float64), dtype=F64)


def temperatures(lo: float, hi: float) -> st.SearchStrategy[float]:
    return floats(lo, hi).filter(lambda t: t > 0)


@dataclass(frozen=True)
class ModelSpec:
    """A tiny TinyGPT, as configuration + seed; ``build()`` makes the float64 model."""

    vocab: int
    d_model: int
    heads: int
    d_k: int
    layers: int
    positions: str = "none"
    causal: bool = True
    arrangement: str = "pre"
    layer_norm: bool = True
    ffn: bool = True
    tie: bool = False
    seed: int = 0

    def config(self, **changes: Any) -> GPTConfig:
        spec = replace(self, **changes) if changes else self
        return GPTConfig(
            vocab_size=spec.vocab, d_model=spec.d_model, n_heads=spec.heads, d_k=spec.d_k,
            d_v=spec.d_k, n_layers=spec.layers, d_ff=2 * spec.d_model,
            positions=spec.positions, causal=spec.causal, layer_norm=spec.layer_norm,
            arrangement=spec.arrangement, ffn=spec.ffn, tie_weights=spec.tie,
        )

    def build(self, **changes: Any) -> TinyGPT:
        return TinyGPT(self.config(**changes), seed=self.seed)

    def __str__(self) -> str:
        parts = [f"V={self.vocab}", f"d={self.d_model}", f"heads={self.heads}",
                 f"d_k={self.d_k}", f"layers={self.layers}", f"positions={self.positions}",
                 "causal" if self.causal else "no mask", f"{self.arrangement}-LN"
                 if self.layer_norm else "no LN", "FFN" if self.ffn else "no FFN"]
        if self.tie:
            parts.append("tied E/U")
        return f"TinyGPT({', '.join(parts)}, seed={self.seed})"


@st.composite
def models(
    draw: st.DrawFn,
    max_layers: int = 3,
    positions: str = "any",
    causal: bool | None = True,
    tie: bool = False,
    min_vocab: int = 3,
    max_vocab: int = 8,
    deep_first: bool = False,
) -> ModelSpec:
    """A small model; ``positions="any"`` lets Hypothesis pick none / sinusoidal / rope.

    ``deep_first`` makes the deepest allowed model the simplest one (drawn first, shrunk
    to): for laws about what survives *several* layers.
    """
    pos = draw(_POSITIONS) if positions == "any" else positions
    d_k = draw(_D_K)
    heads = draw(st.integers(1, 2))
    d_model = draw(_D_MODEL)
    return ModelSpec(
        vocab=draw(st.integers(min_vocab, max_vocab)), d_model=d_model, heads=heads, d_k=d_k,
        layers=draw(_deepest_first(max_layers) if deep_first
                    else st.integers(1, max_layers)), positions=pos,
        causal=draw(st.booleans()) if causal is None else causal,
        arrangement=draw(_ARRANGEMENTS), tie=tie,
        seed=draw(st.integers(0, 2**16)),
    )


# The choices ``models`` draws from, built once (a sampled_from is not cached by Hypothesis).
_POSITIONS = st.sampled_from(["none", "sinusoidal", "rope"])
_D_K = st.sampled_from([2, 4])
_D_MODEL = st.sampled_from([4, 8])
_ARRANGEMENTS = st.sampled_from(["pre", "post"])


@_shared
def _deepest_first(max_layers: int) -> st.SearchStrategy[int]:
    return st.sampled_from(range(max_layers, 0, -1))


@_shared
def token_lists(vocab: int, min_len: int, max_len: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(0, vocab - 1), min_size=min_len, max_size=max(min_len, max_len))


def show(x: Any, digits: int = 6) -> str:
    """A tensor/array/number in a short, deterministic form for counterexample messages."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        if x.ndim == 0:
            return show(float(x), digits)
        return "[" + ", ".join(show(v, digits) for v in x) + "]"
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(show(v, digits) for v in x) + "]"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)
