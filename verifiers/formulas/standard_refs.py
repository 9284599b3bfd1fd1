"""References for definitions of standard quantities (a length, a dot product, a cosine, a
mean, a variance, a perplexity): the instances :mod:`verifiers.formulas.code` evaluates a
printed definition on, with the value torch computes.

A note that defines ``‖a‖ = √(a·a)`` once and never uses the definition in a step left it
waived, so an edit to ``a·a`` (the square of the length) only made it ``uncovered``. A claim
reads such a definition in a formula hole with ``reference: {N: tinygpt-vector-norm}``: the
definition is evaluated on random vectors and compared with ``torch.linalg.vector_norm``, so
a dropped root, factor or normaliser is a ``discrepancy`` at the formula. The names keep the
``tinygpt-`` prefix that sends a reference to code.py (torch instances).
"""

from __future__ import annotations

import torch

from verifiers.formulas.tinygpt_refs import DTYPE, Instance, Reference

__all__ = ["STANDARD_REFERENCES"]

_D = 5  # entries of the random vectors


def _vectors(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(_D, generator=g, dtype=DTYPE)
    b = torch.randn(_D, generator=g, dtype=DTYPE)
    return a, b


def _norm(v: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(v)


def _length(seed: int) -> Instance:
    """``‖a‖ = √(a·a)``: the Euclidean length of a (and of b)."""
    a, b = _vectors(seed)
    return Instance({"a": a, "b": b, "d": _D, "n": _D, "N": _D}, {"norm": _norm(a)},
                    {"norm": _norm})


def _dot(seed: int) -> Instance:
    """``a·b = Σ_i a_i b_i``: the dot product."""
    a, b = _vectors(seed)
    return Instance({"a": a, "b": b, "d": _D, "n": _D, "N": _D}, {"a*b": a @ b},
                    {"norm": _norm})


def _cosine(seed: int) -> Instance:
    """``cos θ = a·b / (‖a‖ ‖b‖)``: torch's cosine similarity of a and b."""
    a, b = _vectors(seed)
    cos = torch.nn.functional.cosine_similarity(a, b, dim=0)
    return Instance({"a": a, "b": b}, {"cos(theta)": cos}, {"norm": _norm})


def _moments(seed: int) -> Instance:
    """``μ = (1/d) Σ_i x_i`` and ``σ² = (1/d) Σ_i (x_i − μ)²`` (the population variance
    LayerNorm uses): torch's mean and var(unbiased=False) of a random row."""
    x, _ = _vectors(seed)
    mean, var = x.mean(), x.var(unbiased=False)
    return Instance({"x": x, "d": _D, "n": _D, "N": _D, "mu": mean},
                    {"mu": mean, "sigma**2": var, "sigma": var.sqrt()})


#: name -> what torch computes, the names read as matrices, the functions, the maker
STANDARD_REFERENCES: dict[str, Reference] = {
    "tinygpt-vector-norm": Reference("the Euclidean length torch.linalg.vector_norm(a)", (),
                                     ("norm",), _length),
    "tinygpt-dot": Reference("the dot product a @ b", (), ("norm",), _dot),
    "tinygpt-cosine": Reference("torch's cosine_similarity(a, b)", (), ("norm",), _cosine),
    "tinygpt-moments": Reference("torch's mean and population variance of a row", (), (),
                                 _moments),
}
