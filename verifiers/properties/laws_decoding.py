"""Decoding (greedy, top-k, top-p, sampling) and the small statistical / geometric laws.

Implementations under test: ``tinygpt.generate``'s ``greedy``, ``top_k_filter``,
``top_p_filter`` and sampling step, and the engine's own ``topk()`` / ``topp()``; for the
statistics and geometry, ``tinygpt.scaled_scores``, ``tinygpt.one_hot``, the bigram's
``bigram_logits`` and the engine's cosine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

# tinygpt's functions are called through their modules: the law runs the code tinygpt runs
# (a bug planted in tinygpt.model.one_hot, say, is found here too)
import tinygpt.bigram as tg_bigram
import tinygpt.model as tg_model
from tinygpt import generate, greedy, top_k_filter, top_p_filter
from tinygpt import softmax as tg_softmax
from tinygpt.generate import _choose
from verifiers.properties.base import Law, close, fail, law
from verifiers.properties.laws_softmax import engine
from verifiers.properties.strategies import (
    F64,
    floats,
    matrices,
    models,
    show,
    tensor,
    token_lists,
    vectors,
)

Vec = torch.Tensor


def engine_topk(p: Vec, k: int) -> Vec:
    return engine("topk(p, k)", p=p, k=k)


def engine_topp(p: Vec, mass: float) -> Vec:
    return engine("topp(p, P)", p=p, P=mass)


TOPK_IMPLS = {"tinygpt.top_k_filter": top_k_filter, "engine topk()": engine_topk}
TOPP_IMPLS = {"tinygpt.top_p_filter": top_p_filter, "engine topp()": engine_topp}


def probabilities(max_len: int) -> st.SearchStrategy[Any]:
    """Logits in [-10, 10] and their softmax (every probability > 0)."""
    return vectors(max_len, 10.0).map(lambda z: (z, tg_softmax(tensor(z))))


def filtered(f: Callable[..., Any], probs: Vec, arg: Any) -> list[float]:
    out = torch.as_tensor(f(probs, arg), dtype=F64).reshape(-1)
    if out.shape[0] != probs.shape[0]:
        fail(f"returned {out.shape[0]} probabilities for {probs.shape[0]}")
    return out.tolist()


def check_renormalised(head: str, probs: list[float], out: list[float], kept: list[int]) -> None:
    """Kept entries proportional to the originals and summing to 1; the rest exactly 0."""
    mass = math.fsum(probs[i] for i in kept)
    for i in kept:
        if not close(out[i], probs[i] / mass, 1e-12, 1e-300):
            fail(f"{head}: kept token {i} has {show(out[i])}, not p/Σkept = "
                 f"{show(probs[i] / mass)}")
    total = math.fsum(out)
    if not close(total, 1.0, 0, 1e-12):
        fail(f"{head}: the result sums to {show(total, 12)}, not 1")


def check_top_set(head: str, probs: list[float], kept: list[int]) -> None:
    dropped = [i for i in range(len(probs)) if i not in kept]
    if kept and dropped and min(probs[i] for i in kept) < max(probs[i] for i in dropped):
        i = min(kept, key=probs.__getitem__)
        j = max(dropped, key=probs.__getitem__)
        fail(f"{head}: keeps token {i} (p = {show(probs[i])}) but drops the more probable "
             f"token {j} (p = {show(probs[j])})")


def check_bottom_set(head: str, probs: list[float], kept: list[int]) -> None:
    """The kept tokens are the least probable ones (what "概率最低的 K 个" states)."""
    dropped = [i for i in range(len(probs)) if i not in kept]
    if kept and dropped and max(probs[i] for i in kept) > min(probs[i] for i in dropped):
        i = max(kept, key=probs.__getitem__)
        j = min(dropped, key=probs.__getitem__)
        fail(f"{head}: keeps token {i} (p = {show(probs[i])}) but drops the less probable "
             f"token {j} (p = {show(probs[j])}), though the sentence keeps the least probable")


@law("greedy-is-argmax")
def _greedy(p: Mapping[str, Any]) -> Law:
    """Slot ``pick``: the end the sentence says greedy takes (最大 / 最小)."""
    end, word = (max, "largest") if p.get("pick", "max") == "max" else (min, "smallest")

    def check(z: Any, f: Callable[[Vec], int]) -> None:
        g = int(f(tensor(z)))
        if not (0 <= g < len(z)) or z[g] != end(z):
            got = show(z[g]) if 0 <= g < len(z) else "no such token"
            fail(f"logits {show(z)}: greedy picks token {g} ({got}), but the {word} logit is "
                 f"{show(end(z))} at token {list(z).index(end(z))}")
    return Law(vectors(p["max_len"], p["bound"]), check, {"tinygpt.greedy": greedy})


@law("top-k-keeps-k")
def _top_k(p: Mapping[str, Any]) -> Law:
    """Slot ``pick``: which end top-k keeps, as the sentence says (概率最高 / 最低的 K 个)."""
    kept_set = check_bottom_set if p.get("pick", "max") == "min" else check_top_set

    probs_of_logits = probabilities(p["max_len"])  # built once, not at every draw

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        z, probs = d(probs_of_logits)
        return z, probs, d(st.integers(1, len(z) + 1))

    def check(example: Any, f: Callable[..., Any]) -> None:
        z, probs, k = example
        out = filtered(f, probs, k)
        q = probs.tolist()
        head = f"p = {show(q)}, K = {k}: top-k gives {show(out)}"
        kept = [i for i, x in enumerate(out) if x != 0]
        if len(kept) != min(k, len(q)):
            fail(f"{head}, which keeps {len(kept)} tokens, not {min(k, len(q))}")
        kept_set(head, q, kept)
        check_renormalised(head, q, out, kept)
    return Law(draw(), check, TOPK_IMPLS)


@law("top-p-smallest-prefix")
def _top_p(p: Mapping[str, Any]) -> Law:
    """Slot ``set``: the smallest (最小) set reaching P, as the note says; 最大 states the
    largest such set, every token, which top-p keeps only when it must."""
    largest = p.get("set", "min") == "max"

    def check(example: Any, f: Callable[..., Any]) -> None:
        (z, probs), mass = example
        out = filtered(f, probs, mass)
        q = probs.tolist()
        head = f"p = {show(q)}, P = {show(mass)}: top-p gives {show(out)}"
        kept = [i for i, x in enumerate(out) if x != 0]
        if not kept:
            fail(f"{head}, which keeps nothing")
        if largest and len(kept) != len(q):
            fail(f"{head}, which keeps {len(kept)} of {len(q)} tokens, not the largest set "
                 "reaching P (all of them)")
        check_top_set(head, q, kept)
        reached = math.fsum(q[i] for i in kept)
        if not reached >= mass - 1e-12 - 1e-15:
            fail(f"{head}: the kept mass {show(reached)} does not reach P")
        smallest = min(kept, key=q.__getitem__)
        before = math.fsum(q[i] for i in kept if i != smallest)
        if len(kept) > 1 and not before < mass:
            fail(f"{head}: without token {smallest} the kept mass is already {show(before)} "
                 f">= P, so the set is not the smallest")
        check_renormalised(head, q, out, kept)
    return Law(st.tuples(probabilities(p["max_len"]), floats(0.05, 1.0)), check, TOPP_IMPLS)


@law("top-k-1-is-greedy")
def _top_1(p: Mapping[str, Any]) -> Law:
    """Slot ``pick``: the token the sentence says K = 1 keeps (最高 / 最低 probability)."""
    lowest = p.get("pick", "max") == "min"

    def check(example: Any, f: Callable[..., Any]) -> None:
        z, probs = example
        out = filtered(f, probs, 1)
        q = probs.tolist()
        g = min(range(len(q)), key=q.__getitem__) if lowest else greedy(probs)
        kept = [i for i, x in enumerate(out) if x != 0]
        if len(kept) != 1 or out[kept[0]] != 1.0 or q[kept[0]] != q[g]:
            said = "the sentence keeps the least probable" if lowest else "greedy picks"
            fail(f"p = {show(q)}: top-k with K = 1 gives {show(out)}, but {said} token {g} "
                 f"(p = {show(q[g])}) with certainty")
    return Law(probabilities(p["max_len"]), check, TOPK_IMPLS)


# -- sampling -----------------------------------------------------------------------------

Z_1E6 = 4.753424  # one-sided standard normal quantile for alpha = 1e-6


def chi2_critical(df: int, z: float = Z_1E6) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (no SciPy needed)."""
    a = 2.0 / (9.0 * df)
    return df * (1 - a + z * math.sqrt(a)) ** 3


def pooled(expected: list[float], counts: list[int]) -> tuple[list[float], list[int]]:
    """Merge the rarest cells until every expected count is at least 5."""
    cells = sorted(zip(expected, counts, strict=True))
    while len(cells) > 1 and cells[0][0] < 5:
        (e1, c1), (e2, c2) = cells[0], cells[1]
        cells = sorted([(e1 + e2, c1 + c2), *cells[2:]])
    return [e for e, _ in cells], [c for _, c in cells]


def tinygpt_sampler(logits: Vec, T: float, n: int, generator: torch.Generator) -> list[int]:
    """The sampling step ``generate`` uses (temperature, softmax, multinomial), n times."""
    return [_choose(logits, "sample", T, None, None, generator) for _ in range(n)]


@law("sampling-frequencies")
def _sampling(p: Mapping[str, Any]) -> Law:
    n = p["samples"]

    def check(example: Any, f: Callable[..., Any]) -> None:
        z, T, seed = example
        probs = tg_softmax(tensor(z) / T).tolist()
        draws = f(tensor(z), T, n, torch.Generator().manual_seed(seed))
        counts = [0] * len(z)
        for t in draws:
            if not 0 <= int(t) < len(z):
                fail(f"logits {show(z)}, T = {show(T)}: sampled token {t} does not exist")
            counts[int(t)] += 1
        expected, observed = pooled([q * n for q in probs], counts)
        if len(expected) < 2:
            return
        stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
        limit = chi2_critical(len(expected) - 1)
        if not stat <= limit:
            fail(f"logits {show(z)}, T = {show(T)}, seed {seed}: {n} samples give counts "
                 f"{counts} for probabilities {show(probs, 4)}; chi-square {show(stat, 4)} > "
                 f"{show(limit, 4)} (alpha 1e-6)")
    return Law(st.tuples(vectors(p["max_len"], 2.0, 2), floats(0.5, 2.0),
                         st.integers(0, 2**31 - 1)), check,
               {"tinygpt sampling step": tinygpt_sampler})


# -- greedy and the joint probability ----------------------------------------------------------

def tinygpt_greedy_decode(model: Any, prompt: list[int], steps: int) -> list[int]:
    return generate(model, prompt, steps, strategy="greedy")


@law("greedy-not-sequence-optimal")
def _greedy_joint(p: Mapping[str, Any]) -> Law:
    steps = p["steps"]

    specs = models(max_layers=1, positions="none", min_vocab=2, max_vocab=4)

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        spec = d(specs)
        return spec, d(token_lists(spec.vocab, 1, 3))

    def check(example: Any, f: Callable[..., Any]) -> None:
        spec, prompt = example
        model = spec.build()
        chosen = list(f(model, list(prompt), steps))[len(prompt):]
        with torch.no_grad():
            def joint(cont: list[int]) -> float:
                logp = torch.log_softmax(model(list(prompt) + cont), dim=-1)
                start = len(prompt) - 1
                return math.exp(math.fsum(float(logp[start + k, t]) for k, t in enumerate(cont)))

            best, best_p = None, -1.0
            for code in range(spec.vocab ** steps):
                cont = [(code // spec.vocab ** k) % spec.vocab for k in range(steps)]
                q = joint(cont)
                if q > best_p:
                    best, best_p = cont, q
            got = joint(chosen)
        if got < best_p - 1e-12:
            fail(f"{spec}, prompt {list(prompt)}: greedy continues with {chosen} (joint "
                 f"probability {show(got, 4)}), but {best} has {show(best_p, 4)}")
    return Law(draw(), check, {"tinygpt.generate greedy": tinygpt_greedy_decode})


# -- statistics and geometry ------------------------------------------------------------------

@law("dot-product-variance")
def _variance(p: Mapping[str, Any]) -> Law:
    dims, n, entries = p["dims"], p["samples"], p["entries"]
    grows = p["spread"] == "increases"  # slot: the raw dot product's spread as d_k grows

    def check(seed: int, scaled_dots: Callable[[Vec, Vec], Vec]) -> None:
        spreads: list[tuple[int, float]] = []
        for d in dims:
            g = torch.Generator().manual_seed(seed * 7919 + d)
            if entries == "normal":
                q = torch.randn(n, d, generator=g, dtype=F64)
                k = torch.randn(n, d, generator=g, dtype=F64)
            else:
                q = torch.randint(0, 2, (n, d), generator=g).to(F64) * 2 - 1
                k = torch.randint(0, 2, (n, d), generator=g).to(F64) * 2 - 1
            dots = (q * k).sum(dim=1)
            raw = float((dots ** 2).mean())
            spreads.append((d, raw))
            scaled = float((torch.as_tensor(scaled_dots(q, k), dtype=F64) ** 2).mean())
            head = f"d_k = {d}, {n} samples of {entries} entries (seed {seed})"
            if not abs(raw / d - 1) <= 0.1:
                fail(f"{head}: the mean square of q·k is {show(raw, 4)}, not about d_k = {d}")
            if not abs(scaled - 1) <= 0.1:
                fail(f"{head}: q·k has mean square {show(raw, 4)}; the scaled score "
                     f"q·k / sqrt(d_k) has {show(scaled, 4)}, not about 1")
        ordered = sorted(spreads)
        for (d1, r1), (d2, r2) in zip(ordered, ordered[1:], strict=False):
            if d1 < d2 and (r2 > r1) != grows:
                fail(f"{n} samples of {entries} entries (seed {seed}): the standard deviation "
                     f"of q·k is {show(r1 ** 0.5, 4)} at d_k = {d1} and {show(r2 ** 0.5, 4)} "
                     f"at d_k = {d2}: it {'does not grow' if grows else 'grows'} with d_k")
    return Law(st.integers(0, 2**31 - 1), check,
               {"tinygpt.scaled_scores (q k^T / sqrt(d_k))": tinygpt_scaled_dots})


def tinygpt_scaled_dots(q: Vec, k: Vec) -> Vec:
    """Row b's score q_b · k_b / sqrt(d_k), as tinygpt's attention computes scores."""
    return tg_model.scaled_scores(q[:, None, :], k[:, None, :])[:, 0, 0]


def engine_cosine(a: Vec, b: Vec) -> float:
    return engine("sum(a * b) / (sqrt(sum(a * a)) * sqrt(sum(b * b)))", a=a, b=b)


@law("cosine-in-range")
def _cosine(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n = d(st.integers(1, p["max_len"]))
        vec = hnp.arrays(np.float64, n, elements=floats(-10.0, 10.0)).map(
            lambda v: v if float(np.linalg.norm(v)) > 1e-3 else v + 1.0)  # no zero vector
        return d(vec), d(vec)

    # slots same / perp / opposite: the direction the sentence gives cos 1, 0 and -1 (方向相同为
    # 1，垂直为 0，相反为 −1); a swapped word states another value, checked as stated
    stated = ((p.get("same", "same"), 1.0), (p.get("perp", "perpendicular"), 0.0),
              (p.get("opposite", "opposite"), -1.0))

    def check(example: Any, f: Callable[..., float]) -> None:
        a, b = example
        ta, tb = tensor(a), tensor(b)
        c = float(f(ta, tb))
        if not -1 - 1e-12 <= c <= 1 + 1e-12:
            fail(f"a = {show(a)}, b = {show(b)}: cos θ = {show(c, 12)} is outside [-1, 1]")
        for direction, want in stated:
            pair = _pair(direction, ta)
            if pair is None:  # one dimension: no perpendicular direction
                continue
            label, y = pair
            c = float(f(ta, y))
            if not close(c, want, 0, 1e-12):
                fail(f"a = {show(a)}: cos({label}) = {show(c, 12)}, not {show(want)} as the "
                     f"sentence says for the {direction} direction")
    return Law(draw(), check, {"engine a·b / (|a| |b|)": engine_cosine})


def _pair(direction: str, a: Vec) -> tuple[str, Vec] | None:
    """A vector in ``direction`` from a: a itself, -a, or a perpendicular one, nonzero: with
    i the largest |a_i| and j another index, a⊥_i = -a_j, a⊥_j = a_i (a · a⊥ = 0 exactly)."""
    if direction == "same":
        return "a, a", a
    if direction == "opposite":
        return "a, -a", -a
    if a.shape[0] < 2:
        return None
    i = int(a.abs().argmax())
    j = 1 if i == 0 else 0
    perp = torch.zeros_like(a)
    perp[i], perp[j] = -a[j], a[i]
    return "a, a⊥", perp


def tinygpt_one_hot(i: int, V: int) -> Vec:
    return tg_model.one_hot(i, V)


@law("onehot-orthogonal")
def _onehot(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        i = d(st.integers(0, V - 1))
        return V, i, (i + 1 + d(st.integers(0, V - 2))) % V

    def check(example: Any, f: Callable[..., Vec]) -> None:
        V, i, j = example
        ei, ej = f(i, V), f(j, V)
        dot, dist = float(ei @ ej), float((ei - ej).norm())
        if not (dot == 0 and close(dist, math.sqrt(2), 1e-15, 0)):
            fail(f"V = {V}: e_{i} · e_{j} = {show(dot)} and |e_{i} - e_{j}| = {show(dist, 12)} "
                 "(want 0 and sqrt 2)")
    return Law(draw(), check, {"tinygpt.one_hot (the y of p - y)": tinygpt_one_hot})


def tinygpt_logit_table(E: Vec, WU: Vec) -> Vec:
    """The bigram's logits z = E[i] W_U for every current id i (the rows training scores)."""
    return tg_bigram.bigram_logits(E, WU, range(E.shape[0]))


_BOUND = {"atmost": "at most", "atleast": "at least", "exactly": "exactly"}


@law("logit-matrix-rank")
def _rank(p: Mapping[str, Any]) -> Law:
    """Slot ``bound``: the side of d the sentence puts the rank on (最多 / 至少 / 恰好)."""
    bound = p.get("bound", "atmost")

    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        dim = d(st.integers(1, min(p["max_d"], V - 1)))
        return d(matrices(V, dim, 2.0)), d(matrices(dim, V, 2.0))

    def check(example: Any, f: Callable[..., Vec]) -> None:
        E, WU = example
        M = torch.as_tensor(f(tensor(E), tensor(WU)), dtype=F64)
        rank, d = int(torch.linalg.matrix_rank(M)), E.shape[1]
        wrong = {"atmost": rank > d, "atleast": rank < d, "exactly": rank != d}[bound]
        if wrong:
            fail(f"E ({E.shape[0]}×{d}) = {show(E, 3)}, W_U = {show(WU, 3)}: the logit table "
                 f"E W_U has rank {rank}, not {_BOUND[bound]} d = {d}")
    return Law(draw(), check, {"tinygpt.bigram.bigram_logits for every id": tinygpt_logit_table})
