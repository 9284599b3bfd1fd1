"""Laws of law-stating sentences that the other law modules do not state (issue 12 item 4).

Each law holds tinygpt's own code to account, passed in as the implementation, so that a test
can hand in a broken one (``tests/test_laws_statements.py``):

- ``generation-keeps-parameters`` — ``tinygpt.generate`` (greedy / sampled, cache or not)
  leaves every parameter as it was ("普通生成过程保持参数不变");
- ``bpe-merges-shorten-text`` — ``tinygpt.bpe.train_bpe``: each merge enlarges the vocabulary
  and strictly lowers the token count ("V 越大，同一段文字切出的 token 越少");
- ``vocab-proportional-parameters`` — ``TinyGPT``'s E and U have d·V entries each ("嵌入矩阵和
  输出层的大小都正比于 V");
- ``bigram-context-blind`` — the bigram trained by ``tinygpt.bigram.fit_bigram`` predicts from
  the current token only ("bigram 只看到「很」…在两句里完全相同");
- ``chain-rule-scores-text`` — products of ``TinyGPT``'s next-token probabilities sum to 1
  over all texts of a length ("会预测下一个 token 就等于会给任意一段文字打分");
- ``max-likelihood-min-nll`` — ``tinygpt.cross_entropy`` summed over positions ranks
  candidates as the product of their probabilities does ("最大化这个乘积等价于最小化其负对数");
- ``variance-mean-square`` — the population variance (``torch.var``) equals the mean square
  exactly when the mean is 0 ("方差并不总是平方的期望，只有均值为 0 时，二者才相等"); each
  word of the sentence is a slot the law reads (总是: for every X; 不只: also; 为 1: mean 1).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

from tinygpt import TinyGPT, cross_entropy, generate, softmax
from tinygpt.bigram import BigramRun, fit_bigram, numpy_init
from tinygpt.bpe import BPETrace, train_bpe
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, ModelSpec, floats, models, show, token_lists

Vec = torch.Tensor


# -- generation keeps the parameters -------------------------------------------------------------

def tinygpt_generate(model: TinyGPT, prompt: list[int], steps: int, strategy: str,
                     use_cache: bool, seed: int) -> list[int]:
    generator = torch.Generator().manual_seed(seed)
    return generate(model, prompt, steps, strategy=strategy, use_cache=use_cache,
                    generator=generator)


@law("generation-keeps-parameters")
def _keeps_parameters(p: Mapping[str, Any]) -> Law:
    """Slot ``params``: "不变" states the law; "改变" states its opposite (the expectation flips,
    so the claim verifies only if generation were found to change a parameter)."""
    specs = models(max_layers=p["max_layers"])

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec = d(specs)
        prompt = d(token_lists(spec.vocab, 1, p["max_len"]))
        return (spec, prompt, d(st.integers(1, 3)), d(st.sampled_from(["greedy", "sample"])),
                d(st.booleans()), d(st.integers(0, 2**16)))

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, prompt, steps, strategy, use_cache, seed = example
        model = spec.build()
        before = {k: v.detach().clone() for k, v in model.state_dict().items()}
        out = f(model, prompt, steps, strategy, use_cache, seed)
        for name, value in model.state_dict().items():
            if not torch.equal(value, before[name]):
                gap = float((value - before[name]).abs().max())
                fail(f"{spec}, prompt {prompt}, {steps} {strategy} step(s) "
                     f"({'with' if use_cache else 'without'} the KV cache) -> {out}: parameter "
                     f"{name} changed by up to {show(gap, 4)}")
    return Law(draw(), check, {"tinygpt.generate": tinygpt_generate})


# -- BPE: a larger vocabulary cuts the same text into fewer tokens -------------------------------

def tinygpt_bpe_counts(corpus: list[tuple[str, int]]) -> list[tuple[int, int]]:
    """(vocabulary size, token count of the corpus) at the start and after every merge."""
    trace: BPETrace = train_bpe(corpus)
    return [(len(trace.initial_vocab), trace.initial_tokens)] + [
        (m.vocab_size, m.tokens) for m in trace.merges]


@law("bpe-merges-shorten-text")
def _bpe_shortens(p: Mapping[str, Any]) -> Law:
    """Slot ``tokens``: the way the token count moves as V grows (the note: 越少)."""
    fewer = p["tokens"] == "decreases"
    words = st.text(alphabet="abcd", min_size=1, max_size=6)
    corpus = st.lists(st.tuples(words, st.integers(1, 5)), min_size=1,
                      max_size=p["max_words"], unique_by=lambda w: w[0])

    def check(example: Any, f: Callable[..., Any]) -> None:
        counts = f(example)
        for (v0, t0), (v1, t1) in itertools.pairwise(counts):
            if v1 <= v0:
                fail(f"corpus {example}: a merge left the vocabulary at {v1} (was {v0})")
            if (t1 >= t0) if fewer else (t1 <= t0):
                fail(f"corpus {example}: V {v0} -> {v1} took the token count from {t0} to "
                     f"{t1}, not {'fewer' if fewer else 'more'}")
    return Law(corpus, check, {"tinygpt.bpe.train_bpe": tinygpt_bpe_counts})


# -- E and U grow in proportion to V ---------------------------------------------------------

def tinygpt_vocab_sizes(V: int, d: int) -> tuple[int, int]:
    """Entries of E and of the output matrix U of a TinyGPT with vocabulary V and width d."""
    model = ModelSpec(vocab=V, d_model=d, heads=1, d_k=2, layers=1).build()
    return int(model.E.numel()), int(model.U.numel())


@law("vocab-proportional-parameters")
def _proportional(p: Mapping[str, Any]) -> Law:
    draw = st.tuples(st.integers(2, p["max_vocab"]), st.sampled_from([2, 4, 8]),
                     st.integers(2, 4))

    # the relation the sentence states (slot ``prop``: 正比于 / 反比于 / 与之无关)
    stated = p.get("prop", "proportional")

    def check(example: Any, f: Callable[..., Any]) -> None:
        V, d, k = example
        small, large = f(V, d), f(k * V, d)
        for what, a, b in zip(("E", "the output matrix U"), small, large, strict=True):
            if stated == "proportional" and (a != d * V or b != k * a):
                fail(f"d = {d}: {what} has {a} entries at V = {V} and {b} at V = {k * V}: "
                     f"not d V = {d * V} and {k} times as many")
            if stated == "inverse" and b * k != a:
                fail(f"d = {d}: {what} has {a} entries at V = {V} and {b} at V = {k * V}: "
                     f"not 1/{k} as many (inversely proportional to V)")
            if stated == "independent" and b != a:
                fail(f"d = {d}: {what} has {a} entries at V = {V} and {b} at V = {k * V}: "
                     "not the same (independent of V)")
    return Law(draw, check, {"tinygpt.TinyGPT E, U": tinygpt_vocab_sizes})


# -- the bigram sees the current token only -------------------------------------------------------

def tinygpt_bigram_predict(run: BigramRun, context: list[int]) -> Vec:
    """The bigram's next-token distribution: softmax(E[current] W_U) (lesson 1 §7)."""
    x = torch.as_tensor(run.E[context[-1]], dtype=F64)
    return softmax(x @ torch.as_tensor(run.WU, dtype=F64))


@law("bigram-context-blind")
def _bigram_blind(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        tokens = d(token_lists(V, 2, p["max_len"]))
        last = d(st.integers(0, V - 1))
        a = d(token_lists(V, 0, p["max_len"] - 1)) + [last]
        b = d(token_lists(V, 0, p["max_len"] - 1)) + [last]
        return V, d(st.sampled_from([2, 3])), tokens, d(st.integers(0, 3)), \
            d(st.integers(0, 2**16)), a, b

    def check(example: Any, f: Callable[..., Any]) -> None:
        V, dim, tokens, steps, seed, a, b = example
        run = fit_bigram(tokens, V, dim, lr=0.5, steps=steps, init=numpy_init(V, dim, seed))
        pa, pb = f(run, a), f(run, b)
        if not torch.allclose(pa, pb, rtol=0, atol=1e-15):
            fail(f"bigram (V = {V}, d = {dim}) trained {steps} step(s) on {tokens}: contexts "
                 f"{a} and {b} both end in {a[-1]} but give {show(pa, 4)} and {show(pb, 4)}")
    return Law(draw(), check, {"tinygpt.bigram (E[current] W_U)": tinygpt_bigram_predict})


# -- next-token probabilities score every text ---------------------------------------------------

def tinygpt_next(model: TinyGPT, tokens: list[int]) -> Vec:
    """p(· | tokens): softmax of the last row of the model's logits."""
    with torch.no_grad():
        return softmax(model(tokens)[-1])


@law("chain-rule-scores-text")
def _chain_rule(p: Mapping[str, Any]) -> Law:
    specs = models(max_layers=1, min_vocab=2, max_vocab=p["max_vocab"])

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec = d(specs)
        return spec, d(st.integers(0, spec.vocab - 1)), d(st.integers(1, p["max_len"]))

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, start, n = example
        model = spec.build()
        total = 0.0
        for text in itertools.product(range(spec.vocab), repeat=n):
            score, prefix = 1.0, [start]
            for token in text:
                score *= float(f(model, prefix)[token])
                prefix.append(token)
            total += score
        if not abs(total - 1.0) <= 1e-12:
            fail(f"{spec}, after token {start}: the chain-rule scores of the {spec.vocab}^{n} "
                 f"texts of length {n} sum to {show(total, 15)}, not 1")
    return Law(draw(), check, {"tinygpt.TinyGPT + softmax": tinygpt_next})


# -- maximum likelihood is minimum negative log-likelihood ----------------------------------------

def tinygpt_nll(probs: list[float]) -> float:
    """Σ_t −ln p_t by tinygpt.cross_entropy: logits (ln p, ln(1 − p)) make softmax (p, 1 − p)."""
    p = torch.as_tensor(probs, dtype=F64)
    logits = torch.stack([torch.log(p), torch.log1p(-p)], dim=1)
    return float(cross_entropy(logits, torch.zeros(len(probs), dtype=torch.long))) * len(probs)


@law("max-likelihood-min-nll")
def _ml_nll(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n = d(st.integers(1, p["max_len"]))
        k = d(st.integers(2, p["max_candidates"]))
        return [d(st.lists(floats(1e-3, 0.999), min_size=n, max_size=n)) for _ in range(k)]

    def check(example: Any, f: Callable[..., Any]) -> None:
        products = [math.prod(c) for c in example]
        ranked = sorted(range(len(example)), key=products.__getitem__, reverse=True)
        if products[ranked[0]] <= products[ranked[1]] * (1 + 1e-9):
            return  # a tie (to rounding) has no unique maximiser to compare
        losses = [f(c) for c in example]
        best = int(np.argmin(losses))
        if best != ranked[0]:
            fail(f"candidates {[show(c, 4) for c in example]}: the largest product is "
                 f"candidate {ranked[0]} ({show(products[ranked[0]], 6)}), but the smallest "
                 f"negative log-likelihood is candidate {best} ({show(losses[best], 6)})")
    return Law(draw(), check, {"tinygpt.cross_entropy (summed)": tinygpt_nll})


# -- the variance is the mean square only for mean 0 ----------------------------------------------

def torch_moments(values: list[float]) -> tuple[float, float, float]:
    """(Var X, E[X^2], E X) of X uniform on ``values`` (population variance, torch)."""
    x = torch.as_tensor(values, dtype=F64)
    return float(torch.var(x, unbiased=False)), float(torch.mean(x * x)), float(torch.mean(x))


@law("variance-mean-square")
def _variance_mean_square(p: Mapping[str, Any]) -> Law:
    """Slots: ``always`` (总是: equal for every X / 并不总是), ``only`` (只有…才: equal only at
    mean m / 不只: also at another mean, looked for among every small X), ``mean`` (m: 0 or
    1). Each stated part is searched; X takes small integer values, so a mean is 0 exactly
    or at least 1/8 away from it (no rounding decides)."""
    m = 0.0 if p["mean"] == "zero" else 1.0
    draw = st.lists(st.integers(-4, 4), min_size=1, max_size=p["max_values"])
    found: dict[int, bool] = {}  # implementation -> whether 不只 has a witness

    def others(f: Callable[..., Any]) -> bool:
        """不只 states an X with another mean where the two are equal: looked for once among
        every small X (an existence, which the search cannot draw)."""
        if id(f) not in found:
            found[id(f)] = any(
                abs(v - q) <= 1e-9 * (1 + q) and abs(e - m) > 1e-6
                for n in (1, 2, 3) for xs in itertools.product(range(-3, 4), repeat=n)
                for v, q, e in [f([float(x) for x in xs])])
        return found[id(f)]

    def check(example: Any, f: Callable[..., Any]) -> None:
        xs = [float(v) for v in example]
        var, msq, mean = f(xs)
        equal = abs(var - msq) <= 1e-9 * (1 + msq)
        shown = f"X uniform on {example}: Var X = {show(var, 6)}, E[X^2] = {show(msq, 6)}"
        if p["always"] == "ensures" and not equal:
            fail(f"{shown}: not equal (E X = {show(mean, 6)})")
        if p["only"] == "only" and equal and abs(mean - m) > 1e-6:
            fail(f"{shown}: equal, though E X = {show(mean, 6)}, not {show(m, 1)}")
        if p["only"] == "also" and not others(f):
            fail(f"不只 (not only at mean {show(m, 1)}): no X uniform on up to 3 values in "
                 f"-3..3 with E X != {show(m, 1)} has Var X = E[X^2] (all searched)")
        ys = [x - mean + m for x in xs]  # the same spread with mean m: equal there
        var2, msq2, mean2 = f(ys)
        if abs(var2 - msq2) > 1e-9 * (1 + msq2):
            fail(f"X uniform on {show(ys, 6)} (E X = {show(mean2, 6)}): Var X = "
                 f"{show(var2, 6)}, E[X^2] = {show(msq2, 6)}: not equal")
    return Law(draw, check, {"torch.var (population), torch.mean": torch_moments})
