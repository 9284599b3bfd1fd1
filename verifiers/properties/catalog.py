"""The property catalog: every law a ``kind: property`` claim may name, with its parameters.

This module is deliberately light (no torch, no Hypothesis): the schema validates claim
files with it, so a misspelt property or parameter is a load error with the claim file's
line, and an arithmetic-only run stays fast. The checks themselves live in
:mod:`verifiers.properties.laws`; a test keeps the two in step.

``expect`` is "holds" for a law the note states (verified = no counterexample found) or
"fails" for a law the note warns does *not* hold (verified = Hypothesis found the
counterexample the note describes). ``cost`` scales the profile's example budget for laws
whose examples are expensive (a forward pass of a model, thousands of samples).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifiers.properties.params import (
    ALLOWED,
    DIGIT,
    DIRECTION,
    EFFECT,
    FAILS,
    LEVEL,
    LIMIT,
    MAGNITUDE,
    OPERATION,
    OUTCOME,
    PERPLEXITY,
    SHAPE,
    SYMMETRY,
    Param,
    Spec,
    slot,
)
from verifiers.properties.specs_components import specs as component_specs
from verifiers.properties.specs_hedges import specs as hedge_specs
from verifiers.properties.specs_necessity import specs as necessity_specs
from verifiers.properties.specs_prose import specs as prose_specs
from verifiers.properties.specs_reading import specs as reading_specs
from verifiers.properties.specs_relations import specs as relation_specs
from verifiers.properties.specs_statements import specs as statement_specs
from verifiers.properties.specs_words import with_words

# -- parameter families ------------------------------------------------------------------

def max_len(default: int = 8, lo: int = 1, hi: int = 16) -> Param:
    return Param("max_len", "int", default, lo, hi)


def bound(default: float = 50.0, hi: float = 300.0) -> Param:
    """Scores are drawn from [-bound, bound]."""
    return Param("bound", "float", float(default), 0.5, float(hi))


SOFTMAX = (max_len(), bound())
MASK = Param("mask", "choice", "none", choices=("none", "causal"))
POSITIONS = Param("positions", "choice", "any", choices=("any", "none", "sinusoidal", "rope"))
LAYERS = Param("max_layers", "int", 3, 1, 3)
TOKENS = max_len(6, 2, 8)
MODEL = (LAYERS, TOKENS)
MODEL_POS = (LAYERS, TOKENS, POSITIONS)


def op_slot() -> Param:
    return slot("op", "operation", "shift", OPERATION)


def effect_slot(name: str = "effect") -> Param:
    return slot(name, "effect", "invariant", EFFECT)


TEMPERATURE_SLOTS = (
    slot("low", "shape", "sharp", SHAPE), slot("high", "shape", "flat", SHAPE),
    slot("low_t", "level", "lower", LEVEL), slot("high_t", "level", "higher", LEVEL),
    slot("gap", "direction", "increases", DIRECTION),
    slot("others", "direction", "increases", DIRECTION),
)


def limit_slots(limit: str, outcome: str) -> tuple[Param, Param]:
    return slot("limit", "limit", limit, LIMIT), slot("outcome", "outcome", outcome, OUTCOME)


def _breaks_symmetry(params: Mapping[str, Any]) -> str | None:
    if params.get("mask") == "none" and params.get("positions") == "none":
        return "with mask: none and positions: none nothing breaks the symmetry; set one"
    return None


def _lr_range(params: Mapping[str, Any]) -> str | None:
    if params["lr_min"] > params["lr_max"]:
        return "lr_min must not exceed lr_max"
    return None


def _t_range(params: Mapping[str, Any]) -> str | None:
    if params["t_min"] >= params["t_max"]:
        return "t_min must be below t_max"
    return None


_SPECS = (
    # -- softmax ------------------------------------------------------------------------
    Spec("softmax-positive", "every softmax output is > 0", params=SOFTMAX),
    Spec("softmax-sums-to-one", "softmax outputs sum to 1",
         params=(max_len(), bound(50, 700), slot("total", "digit", "one", DIGIT))),
    Spec("softmax-keeps-order", "a larger score gets a larger probability",
         params=(*SOFTMAX, slot("prob", "direction", "increases", DIRECTION),
                 effect_slot("order")), negated_by=(("order", "changes"),)),
    Spec("softmax-shift-invariance", "adding one constant to every score changes nothing",
         params=(*SOFTMAX, Param("max_shift", "float", 1000.0, 0.0, 1e4), op_slot(),
                 effect_slot()), negated_by=(("effect", "changes"),)),
    Spec("softmax-ratio", "a_j / a_k = e^(s_j - s_k), and a common shift keeps the ratio",
         params=(*SOFTMAX, op_slot(), effect_slot()), negated_by=(("effect", "changes"),)),
    Spec("softmax-equal-scores-uniform", "equal scores give every candidate 1/n",
         params=(*SOFTMAX, effect_slot()), negated_by=(("effect", "changes"),)),
    Spec("softmax-stable-form", "the max-subtracted form equals the plain form where that is "
         "finite, and stays finite at scores like (1000, 999, 998)",
         params=(max_len(), Param("max_shift", "float", 1e4, 0.0, 1e5))),
    Spec("softmax-plain-form-overflows", "exp(s) / sum exp(s) computed as written overflows "
         "to inf/NaN for large scores (the note: NaN at (1000, 999, 998))", FAILS,
         params=(max_len(), bound(1e4, 1e5))),
    Spec("temperature-entropy-monotone", "softmax(s / T) gets flatter as T grows: entropy "
         "rises and the top probability falls (T < 1 sharpens, T > 1 flattens)",
         params=(*SOFTMAX, Param("t_min", "float", 0.05, 0.01, 100.0),
                 Param("t_max", "float", 20.0, 0.01, 100.0), *TEMPERATURE_SLOTS),
         check_params=_t_range),
    Spec("temperature-zero-argmax", "as T -> 0, softmax(s / T) puts all mass on the arg-max, "
         "split evenly among tied maxima", params=(max_len(), *limit_slots("zero", "onehot"))),
    Spec("temperature-infinity-uniform", "as T -> infinity, softmax(s / T) tends to 1/V",
         params=(*SOFTMAX, *limit_slots("infinity", "uniform"))),
    Spec("softmax-jacobian", "the softmax Jacobian diag(p) - p p^T is symmetric, has zero row "
         "sums and equals autograd's",
         params=(*SOFTMAX, slot("rowsum", "digit", "zero", DIGIT))),
    Spec("softmax-jacobian-signs", "d p_i / d z_i > 0 and d p_i / d z_j < 0 for j != i "
         "(scores within 15 of each other: beyond that 1 - p rounds to 0 in float64)",
         params=(max_len(), bound(7.5, 15), slot("own", "direction", "increases", DIRECTION),
                 slot("other", "direction", "decreases", DIRECTION))),
    Spec("softmax-jacobian-saturation", "every Jacobian entry is at most 1 - max p: near a "
         "one-hot output all derivatives are near 0", params=(max_len(), bound(50, 300))),
    # -- cross-entropy and its gradient --------------------------------------------------
    Spec("ce-gradient-autograd", "dL/dz = p - y equals autograd's gradient of -ln p_y",
         params=SOFTMAX),
    Spec("ce-gradient-bounded", "every component of p - y lies in [-1, 1] and they sum to 0",
         params=(max_len(), bound(50, 1e4))),
    Spec("ce-gradient-signs", "the target's component p_y - 1 is <= 0, every other p_j >= 0; "
         "|p_y - 1| grows as p_y falls, p_j as it rises",
         params=(*SOFTMAX, slot("target", "direction", "increases", DIRECTION),
                 slot("other", "direction", "decreases", DIRECTION),
                 slot("push", "magnitude", "strong", MAGNITUDE),
                 slot("pull", "magnitude", "strong", MAGNITUDE))),
    Spec("ce-onehot-equals-neg-log", "-sum_i y_i ln p_i with one-hot y is -ln p_y",
         params=SOFTMAX),
    Spec("ce-decreases-with-target-prob", "raising the target's probability lowers the loss "
         "strictly", params=(max_len(), bound(20, 300),
                             slot("prob", "direction", "increases", DIRECTION),
                             slot("loss", "direction", "decreases", DIRECTION))),
    Spec("uniform-guess-loss-ln-v", "a uniform guess over V tokens costs ln V per position "
         "(perplexity V)", params=(Param("max_vocab", "int", 64, 2, 100_000),
                                   slot("ppl", "perplexity", "v", PERPLEXITY))),
    Spec("bigram-gradients", "the bigram's hand-derived gradients (x^T g summed over the "
         "batch, g W_U^T added into the rows of E with np.add.at) equal autograd's; unused "
         "rows get exactly 0", params=(Param("max_vocab", "int", 8, 2, 16),
                                      Param("max_pairs", "int", 8, 1, 16))),
    Spec("embedding-fancy-index-loses-repeats", "dE[cur] += dX (fancy-index assignment) "
         "drops repeated tokens' contributions, so it is not the gradient", FAILS,
         params=(Param("max_vocab", "int", 4, 2, 16), Param("max_pairs", "int", 4, 2, 16))),
    # -- attention ------------------------------------------------------------------------
    Spec("attention-rows-simplex", "every attention row is non-negative and sums to 1 "
         "(strictly positive without a mask)",
         params=(MASK, TOKENS, slot("total", "digit", "one", DIGIT))),
    Spec("attention-convex-hull", "each single-head attention output row lies in the convex "
         "hull of the value rows", params=(MASK, TOKENS)),
    Spec("attention-matrix-equals-loop", "softmax(Q K^T / sqrt(d_k)) V equals the per-vector "
         "loop z_i = sum_j a_ij v_j", params=(MASK, TOKENS, effect_slot()),
         negated_by=(("effect", "changes"),)),
    Spec("attention-scores-are-dot-products", "entry (i, j) of Q K^T is q_i . k_j",
         params=(TOKENS,)),
    Spec("attention-not-linear", "X -> softmax(X W_Q W_K^T X^T / sqrt(d_k)) X W_V is not "
         "linear, although its last step is a weighted average", FAILS, params=(TOKENS,)),
    Spec("attention-weights-underflow", "unmasked weights are positive in exact arithmetic, "
         "but in float64 a tiny one underflows to 0", FAILS,
         params=(TOKENS, Param("scale", "float", 1000.0, 1.0, 1e4))),
    Spec("causal-weights", "with the causal mask a_ij = 0 exactly for j > i, and row i is the "
         "softmax over the allowed j <= i",
         params=(TOKENS, slot("allowed", "allowed", "le", ALLOWED),
                 slot("allowed2", "allowed", "le", ALLOWED))),
    Spec("block-output-outside-value-hull", "a whole block (W_O, residual, FFN) is not held "
         "to the convex hull of the value rows", FAILS, params=(TOKENS,)),
    Spec("qk-tied-symmetric-psd", "with W_Q = W_K, B = W_Q W_Q^T and the score table are "
         "symmetric positive semi-definite", params=(TOKENS,)),
    Spec("rope-relative-position", "after RoPE, q_m . k_n depends on the positions only "
         "through n - m", params=(TOKENS,)),
    # -- the model ------------------------------------------------------------------------
    Spec("causal-no-future-dependence", "changing or appending tokens after position i "
         "leaves every layer's hidden state and the logits at positions <= i unchanged",
         params=(*MODEL_POS, effect_slot()), cost=0.25, negated_by=(("effect", "changes"),)),
    Spec("permutation-equivariance", "without mask and positions, permuting the tokens "
         "permutes every hidden state and logit row",
         params=(*MODEL, slot("symmetry", "symmetry", "equivariant", SYMMETRY)), cost=0.25,
         negated_by=(("symmetry", "aware"),)),
    Spec("permutation-breaks-with-order", "with a causal mask or positions, permuting the "
         "tokens does not simply permute the outputs", FAILS,
         params=(Param("mask", "choice", "causal", choices=("none", "causal")),
                 Param("positions", "choice", "none",
                       choices=("none", "sinusoidal", "rope")), *MODEL),
         cost=0.25, check_params=_breaks_symmetry),
    Spec("kv-cache-equals-recompute", "generating with a KV cache gives the logits of full "
         "recomputation (to 1e-12)", params=MODEL_POS, cost=0.25),
    Spec("train-inference-same-distribution", "the training pass's row i and an inference "
         "pass over the same prefix give the same next-token distribution",
         params=(*MODEL_POS, effect_slot()), cost=0.25, negated_by=(("effect", "changes"),)),
    Spec("next-token-distribution", "each row of the model's output is a distribution over "
         "the vocabulary: positive, summing to 1",
         params=(*MODEL_POS, slot("total", "digit", "one", DIGIT)), cost=0.2),
    Spec("tied-gradient-sum", "with U = E^T the shared matrix's gradient is the input-path "
         "plus the output-path gradient", params=MODEL, cost=0.25),
    Spec("embedding-gradient-rows", "a row of E gets the sum of the gradients of the positions "
         "that looked it up: unused rows 0, repeated tokens accumulate", params=MODEL,
         cost=0.25),
    Spec("onehot-lookup", "the one-hot row u_t times E is row t of E: lookup and product "
         "agree", params=(Param("max_vocab", "int", 8, 2, 64), effect_slot()),
         negated_by=(("effect", "changes"),)),
    Spec("projection-rows-independent", "row t of X W is X_t W: each token is projected on "
         "its own", params=(TOKENS, effect_slot()), negated_by=(("effect", "changes"),)),
    Spec("layernorm-per-position", "LayerNorm of a row does not depend on any other row",
         params=(TOKENS,)),
    Spec("layernorm-shift-invariance", "adding a constant to a row does not change its "
         "LayerNorm", params=(TOKENS,)),
    Spec("ffn-linear-collapses", "without a non-linearity (x W1 + b1) W2 + b2 = x (W1 W2) + "
         "(b1 W2 + b2): one matrix", params=(TOKENS,)),
    Spec("ffn-nonlinear-does-not-collapse", "with ReLU (or GELU) the FFN is not one affine "
         "map", FAILS, params=(Param("activation", "choice", "relu",
                                         choices=("relu", "gelu")),)),
    Spec("residual-jacobian", "the Jacobian of y = x + F(x) is I + J_F",
         params=(Param("max_len", "int", 4, 1, 6),), cost=0.25),
    Spec("small-step-lowers-loss", "for g != 0 a small enough step against the gradient "
         "lowers the loss", params=(*MODEL, slot("loss", "direction", "decreases", DIRECTION)),
         cost=0.25),
    Spec("large-step-can-raise-loss", "a finite (large) step against the gradient can raise "
         "the loss", FAILS, params=(Param("lr_min", "float", 10.0, 1e-3, 1e4),
                                    Param("lr_max", "float", 100.0, 1e-3, 1e4), *MODEL),
         cost=0.25, check_params=_lr_range),
    # -- decoding -------------------------------------------------------------------------
    Spec("greedy-is-argmax", "greedy decoding picks a token of largest probability",
         params=SOFTMAX),
    Spec("top-k-keeps-k", "top-k keeps exactly the k most probable tokens and renormalises",
         params=(max_len(8, 1, 16),)),
    Spec("top-p-smallest-prefix", "top-p keeps the smallest most-probable prefix whose mass "
         "reaches p and renormalises", params=(max_len(8, 1, 16),)),
    Spec("top-k-1-is-greedy", "top-k with K = 1 keeps only the greedy token",
         params=(max_len(8, 1, 16),)),
    Spec("sampling-frequencies", "sampled tokens occur with the probabilities "
         "softmax(l / T) (chi-square test, fixed seed)",
         params=(max_len(6, 2, 8), Param("samples", "int", 2000, 200, 100_000)), cost=0.06),
    Spec("greedy-not-sequence-optimal", "greedy maximises each step, not the joint "
         "probability of the sequence", FAILS, params=(Param("steps", "int", 2, 2, 3),),
         cost=0.25),
    # -- statistics and geometry ------------------------------------------------------------
    Spec("dot-product-variance", "for independent zero-mean unit-variance entries, q . k has "
         "variance d_k and q . k / sqrt(d_k) variance 1 (sample statistics, fixed seeds)",
         params=(Param("dims", "ints", (4, 16, 64), 2, 1024),
                 Param("entries", "choice", "normal", choices=("normal", "sign")),
                 Param("samples", "int", 10_000, 2_000, 200_000),
                 slot("spread", "direction", "increases", DIRECTION)), cost=0.03),
    Spec("cosine-in-range", "cos θ = a.b / (‖a‖ ‖b‖) lies in [-1, 1]: 1 for the same "
         "direction, -1 for the opposite", params=(max_len(),)),
    Spec("onehot-orthogonal", "distinct one-hot vectors have dot product 0 and distance "
         "sqrt(2)", params=(Param("max_vocab", "int", 16, 2, 100_000),)),
    Spec("logit-matrix-rank", "the logit table E W_U (V x V) has rank at most d",
         params=(Param("max_d", "int", 4, 1, 8), Param("max_vocab", "int", 8, 2, 16))),
)

_SPECS = (*_SPECS, *statement_specs())  # laws of law-stating sentences (issue 12 item 4)
_SPECS = (*_SPECS, *prose_specs())  # comparatives and scope words (issue 12, second pass)
_SPECS = (*_SPECS, *hedge_specs())  # laws of sentences once waived as hedges
_SPECS = (*_SPECS, *reading_specs())  # sentences no slot could read (issue 12, laws6)
_SPECS = (*_SPECS, *component_specs())  # a trait searched on the component named (laws7)
_SPECS = (*_SPECS, *necessity_specs())  # necessity words as a searchable law (laws7)
_SPECS = (*_SPECS, *relation_specs())  # comparison, count, condition words (laws8)
_SPECS = tuple(with_words(s) for s in _SPECS)  # their words read (issue 12 item 1)
CATALOG: dict[str, Spec] = {s.name: s for s in _SPECS}
NAMES: tuple[str, ...] = tuple(CATALOG)


def complete(name: str, raw: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Defaults overlaid with ``raw`` (already validated), as the laws receive them."""
    spec = CATALOG[name]
    params = spec.defaults()
    for key, value in (raw or {}).items():
        params[key] = spec.param(key).parse(value)
    return params


LawKey = tuple[str, tuple[tuple[str, Any], ...]]


def law_key(name: str, params: Mapping[str, Any] | None = None) -> LawKey:
    """The law a claim states: its property and complete parameters (the words its sentence
    says included, as meanings). Claims with equal keys state the same law: one search."""
    return name, tuple(sorted(complete(name, params).items()))


def law_label(key: LawKey) -> str:
    """The key as one deterministic line: ``softmax-positive(bound=50.0, max_len=8)``."""
    name, params = key
    shown = ", ".join(f"{k}={list(v) if isinstance(v, tuple) else v}" for k, v in params)
    return f"{name}({shown})"
