"""The words of the law-stating sentences that were quoted literally (issue 12 item 1).

Each entry gives a law slots read from its sentence: 能/不能, 保证/不保证, 消除/保留, 严格正/
非负/为 0, 行/列, 最大/最小, 正比于/反比于, … (classes of ``vocabulary.yaml``). A slot's default
is the word the true law is stated with; a word of another meaning *denies* the law (the
sentence then says the law fails, so it verifies only if Hypothesis finds a counterexample),
unless the slot lists that meaning as also true (a weaker statement of the same law).

Light, like :mod:`.catalog`: built from :mod:`.params` (with the classes, in
``SENTENCE_CLASSES``); the catalog applies :func:`with_words` to every spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from verifiers.properties.params import VOCAB_CLASSES, Spec, slot


@dataclass(frozen=True)
class Said:
    """One slot a sentence states: its class, the law's word, meanings that are also true.

    ``law_reads``: the law itself checks the relation the word states (正比于 / 反比于 / 无关
    each a different check), so no meaning denies it: a false one fails with its own
    counterexample.
    """

    name: str
    vocab: str
    default: str
    also: tuple[str, ...] = ()
    law_reads: bool = False


def _w(name: str, vocab: str, default: str, *also: str) -> Said:
    return Said(name, vocab, default, also)


def _r(name: str, vocab: str, default: str) -> Said:
    """A slot the law reads itself (each meaning its own check)."""
    return Said(name, vocab, default, law_reads=True)


#: property -> the slots its sentences state in words (beside the catalog's own slots).
SAID: Mapping[str, tuple[Said, ...]] = {
    "softmax-positive": (_w("negatives", "removal", "removes"),
                         _w("negative", "possible", "cannot"),
                         _w("zero", "possible", "cannot"),
                         _w("sign", "sign", "positive", "nonneg")),
    "softmax-stable-form": (_w("avoid", "removal", "removes"),
                            _w("overflow", "possible", "cannot"),
                            _w("ensure", "guarantee", "ensures")),
    "softmax-jacobian-saturation": (_w("size", "size", "small"), _w("grad", "size", "small")),
    "attention-convex-hull": (_w("weights", "sign", "nonneg", "positive"),
                              _w("ensure", "guarantee", "ensures"),
                              _w("where", "inside", "inside")),
    "attention-rows-simplex": (_w("is", "truth", "is"),
                               _w("sign", "sign", "positive", "nonneg"),
                               _w("ensure", "guarantee", "ensures"),
                               _r("axis", "axis", "row")),
    "attention-scores-are-dot-products": (_r("first", "axis", "row"),
                                          _r("second", "axis", "column"),
                                          _r("q", "role", "query"), _r("k", "role", "key")),
    "ffn-linear-collapses": (_w("can", "possible", "can"),),
    "ffn-nonlinear-does-not-collapse": (_w("can", "possible", "cannot"),),
    "block-output-outside-value-hull": (_w("where", "inside", "outside"),),
    "permutation-breaks-with-order": (_w("transfer", "possible", "cannot"),
                                      _w("intro", "presence", "some"),
                                      _w("provide", "possible", "can")),
    "rope-relative-position": (_w("kind", "position", "relative"),),
    "attention-not-linear": (_w("linear", "linearity", "nonlinear"),),
    "layernorm-per-position": (_w("scope", "scope", "same"),),
    "causal-weights": (_r("masked", "time", "future"), _w("weight", "sign", "zero"),
                       _w("others", "digit", "zero"), _w("first", "digit", "one")),
    "causal-no-future-dependence": (_w("dep", "dependence", "only"),
                                    _w("can", "possible", "cannot"),
                                    _w("ensure", "guarantee", "ensures"),
                                    _w("mix", "presence", "none")),
    "attention-weights-underflow": (_w("can", "possible", "can"),),
    "next-token-distribution": (_w("single", "truth", "isnot"),),
    "train-inference-same-distribution": (_w("can", "possible", "can"),
                                          _w("separate", "truth", "isnot")),
    "tied-gradient-sum": (_r("combine", "combine", "add"),),
    "large-step-can-raise-loss": (_w("auto", "guarantee", "not"),
                                  _w("loss", "direction", "increases")),
    "greedy-is-argmax": (_r("pick", "extreme", "max"),),
    "greedy-not-sequence-optimal": (_w("ensure", "guarantee", "not"),),
    "sampling-frequencies": (_w("can", "possible", "can"), _w("ensure", "guarantee", "not")),
    "top-k-keeps-k": (_w("renorm", "renormalise", "again"), _w("rest", "digit", "zero"),
                      _r("pick", "extreme", "max")),
    "top-p-smallest-prefix": (_w("renorm", "renormalise", "again"), _r("set", "extreme", "min")),
    "top-k-1-is-greedy": (_r("pick", "extreme", "max"),),
    "kv-cache-equals-recompute": (_w("effect", "effect", "invariant"),
                                  _w("need", "need", "none")),
    "embedding-gradient-rows": (_w("combine", "combine", "add"),
                                _w("combine2", "combine", "add"),
                                _w("unused", "digit", "zero")),
    "residual-jacobian": (_w("path", "presence", "some"),),
    "onehot-lookup": (_w("axis", "axis", "row"),),
    "cosine-in-range": (_r("same", "orientation", "same"),
                        _r("perp", "orientation", "perpendicular"),
                        _r("opposite", "orientation", "opposite"),
                        _w("every", "quantifier", "every")),
    "ce-onehot-equals-neg-log": (_w("effect", "effect", "invariant"),),
    "ce-gradient-autograd": (_r("op", "combine", "subtract"),),
    "ce-gradient-bounded": (_w("can", "possible", "cannot"),),
    "bigram-gradients": (_w("unused", "digit", "zero"), _w("can", "possible", "cannot"),
                         _w("combine", "combine", "add"), _r("row", "token", "input")),
    "logit-matrix-rank": (_r("bound", "bound", "atmost"),),
    "embedding-fancy-index-loses-repeats": (_w("result", "correct", "wrong"),
                                            _w("times", "digit", "one")),
    "chain-rule-scores-text": (_w("eq", "effect", "invariant"),
                               _w("need", "need", "none")),  # 不要求 Token 独立 (laws6)
    "vocab-proportional-parameters": (_r("prop", "proportion", "proportional"),),
    "dot-product-variance": (_w("cancel", "cancel", "cancel"),
                             _w("indep", "independence", "independent"),
                             _w("normalised", "digit", "one")),
    "qk-tied-symmetric-psd": (_w("matrix", "matrix", "psd"),),
    "onehot-orthogonal": (_w("every", "quantifier", "every"), _w("dot", "digit", "zero")),
    "projection-rows-independent": (_w("dep", "dependence", "only"),),
    "generation-keeps-parameters": (_w("update", "possible", "cannot"),),
    "attention-row-own-only": (_w("dep", "dependence", "also"),
                               _w("differ", "effect", "changes")),  # 也可以不同 (laws6)
    "step-raises-every-sample": (_w("means", "truth", "isnot"),
                                 _w("ensure", "guarantee", "not")),
    "residual-keeps-information": (_w("ensure", "guarantee", "not"),),
    "small-softmax-derivative-stalls": (_w("can", "possible", "cannot"),),
    "high-dim-dots-all-large": (_w("means", "truth", "isnot"),),
    "bigram-context-blind": (_w("dep", "dependence", "only"), _w("reach", "reach", "previous")),
}


def with_words(spec: Spec) -> Spec:
    """``spec`` with the slots its sentences state (and the meanings that deny it) added."""
    said = SAID.get(spec.name, ())
    if not said:
        return spec
    params = tuple(slot(s.name, s.vocab, s.default, VOCAB_CLASSES[s.vocab]) for s in said)
    denied = tuple((s.name, m) for s in said if not s.law_reads
                   for m in VOCAB_CLASSES[s.vocab] if m != s.default and m not in s.also)
    return replace(spec, params=(*spec.params, *params),
                   denied_by=(*spec.denied_by, *denied))
