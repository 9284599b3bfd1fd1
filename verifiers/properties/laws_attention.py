"""Attention: weights, convex combinations, the matrix form, masks, RoPE and tied Q/K.

Implementations under test: ``tinygpt.attention`` (scaled dot-product attention, optional
causal mask), ``tinygpt.Block`` (its ``attend`` trace and whole-layer output), ``tinygpt.rope``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import torch
from hypothesis import strategies as st

from tinygpt import Block, GPTConfig, attention, multi_head_attention, rope
from verifiers.properties.base import Law, close, fail, law
from verifiers.properties.strategies import F64, matrices, show, tensor

Vec = torch.Tensor


def tinygpt_attention(causal: bool) -> Callable[..., tuple[Vec, Vec]]:
    def run(q: Vec, k: Vec, v: Vec) -> tuple[Vec, Vec]:
        return attention(q, k, v, causal=causal)
    return run


def qkv(max_len: int, bound: float = 3.0, min_len: int = 1, integer: bool = False
        ) -> st.SearchStrategy[Any]:
    """Queries, keys and values for one head: q, k [n, d_k], v [n, d_v]."""
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n = d(st.integers(min_len, max_len))
        dk, dv = d(st.integers(1, 4)), d(st.integers(1, 3))
        return tuple(d(matrices(n, c, bound, integer)) for c in (dk, dk, dv))
    return draw()


def run_attention(f: Callable[..., Any], q: Any, k: Any, v: Any) -> tuple[Vec, Vec]:
    z, a = f(tensor(q), tensor(k), tensor(v))
    return torch.as_tensor(z, dtype=F64), torch.as_tensor(a, dtype=F64)


def restricted_softmax(row: list[float]) -> list[float]:
    m = max(row)
    e = [math.exp(x - m) for x in row]
    total = math.fsum(e)
    return [x / total for x in e]


def dot(a: list[float], b: list[float]) -> float:
    return math.fsum(x * y for x, y in zip(a, b, strict=True))


def scaled_scores(q: Any, k: Any) -> list[list[float]]:
    d = len(q[0])
    return [[dot(list(qi), list(kj)) / math.sqrt(d) for kj in k] for qi in q]


def head(q: Any, k: Any, v: Any) -> str:
    return f"q = {show(q, 4)}, k = {show(k, 4)}, v = {show(v, 4)}"


@law("attention-rows-simplex")
def _simplex(p: Mapping[str, Any]) -> Law:
    causal = p["mask"] == "causal"
    want = 1.0 if p["total"] == "one" else 0.0  # slot ``total``: the row sum stated
    axis = p.get("axis", "row")  # slot ``axis``: softmax over each row (行) or column (列)

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v = example
        _, A = run_attention(f, q, k, v)
        for i, row in enumerate((A.T if axis == "column" else A).tolist()):
            where = f"{head(q, k, v)}: attention {axis} {i} = {show(row)}"
            if any(not x >= 0 for x in row):
                fail(f"{where} has a negative weight")
            if not close(math.fsum(row), want, 0, 1e-12):
                fail(f"{where} sums to {show(math.fsum(row), 12)}, not {want:g}")
            if not causal and any(not x > 0 for x in row):
                fail(f"{where} has a zero weight without a mask")
    return Law(qkv(p["max_len"]), check, {"tinygpt.attention": tinygpt_attention(causal)})


_DIRECTIONS: dict[int, list[list[float]]] = {}


def directions(dim: int) -> list[list[float]]:
    """±axes and 32 fixed random unit vectors: a point outside a hull is seen along one."""
    if dim not in _DIRECTIONS:
        g = torch.Generator().manual_seed(dim)
        rand = torch.randn(32, dim, generator=g, dtype=F64)
        rand = rand / rand.norm(dim=1, keepdim=True)
        axes = torch.cat([torch.eye(dim, dtype=F64), -torch.eye(dim, dtype=F64)])
        _DIRECTIONS[dim] = torch.cat([axes, rand]).tolist()
    return _DIRECTIONS[dim]


def outside_hull(points: list[list[float]], z: list[float]) -> tuple[list[float], float,
                                                                      float] | None:
    """A direction u with u·z beyond every u·point (a witness that z is outside), or None."""
    scale = 1.0 + max(abs(x) for row in points for x in row)
    for u in directions(len(z)):
        top = max(dot(u, pt) for pt in points)
        if dot(u, z) > top + 1e-12 * scale:
            return u, dot(u, z), top
    return None


#: The unit roundoff of float64 (round to nearest): every operation's relative error.
UNIT = 2.0 ** -53
#: The smallest positive (subnormal) float64: the absolute error of a product that underflows.
ETA = 2.0 ** -1074


def gamma(n: int) -> float:
    """Higham's gamma_n = n u / (1 - n u): a float64 sum or dot product of n terms, in any
    order (with or without FMA), is within gamma_n * sum |terms| of the exact one
    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1, (3.5))."""
    return n * UNIT / (1 - n * UNIT)


def hull_gap(weights: list[float], values: list[list[float]], z: list[float]) -> str | None:
    """Why ``z`` is not certified to lie in the convex hull of ``values`` by ``weights``.

    The certificate is exact up to float64 rounding, with bounds that rounding cannot
    exceed: each weight is >= 0; their exact sum s is within gamma_{n+1} of 1 (softmax
    sums n exponentials, then divides each by the sum: n - 1 additions and a division or
    a reciprocal and a product per weight); and each z_u is within gamma_n sum_j |a_j v_ju|
    (+ n * ETA for products that underflow) of the exact sum_j a_j v_ju, computed here in
    rationals. Then z is that close to sum_j (a_j / s) v_j, a point exactly in the hull.
    None when the certificate holds.
    """
    n = len(weights)
    exact = [Fraction(a) for a in weights if math.isfinite(a)]
    if len(exact) < n or any(a < 0 for a in exact):
        return f"its weights {show(weights)} are not all finite and >= 0"
    total = sum(exact, Fraction(0))
    if abs(total - 1) > Fraction(gamma(n + 1)):
        return (f"its weights {show(weights)} sum to {show(float(total), 17)}, not 1 "
                f"(|s - 1| = {show(float(abs(total - 1)), 3)} > gamma_{n + 1} = "
                f"{show(gamma(n + 1), 3)})")
    for u, got in enumerate(z):
        terms = [a * Fraction(v[u]) for a, v in zip(exact, values, strict=True)]
        want = sum(terms, Fraction(0))
        bound = Fraction(gamma(n)) * sum((abs(t) for t in terms), Fraction(0)) + n * Fraction(ETA)
        if not math.isfinite(got) or abs(Fraction(got) - want) > bound:
            return (f"component {u} is {show(got, 17)}, but sum_j a_j v_j = "
                    f"{show(float(want), 17)} with its weights {show(weights)} (off by more "
                    f"than float64 rounding allows, gamma_{n} sum |a_j v_j| = "
                    f"{show(float(bound), 3)})")
    return None


@law("attention-convex-hull")
def _hull(p: Mapping[str, Any]) -> Law:
    """Each output row is certified to lie in the hull of the value rows by its own
    attention weights (:func:`hull_gap`): an exact membership test, not a probe along
    directions."""
    causal = p["mask"] == "causal"

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v = example
        Z, A = run_attention(f, q, k, v)
        values = [list(r) for r in v]
        if tuple(A.shape) != (len(q), len(k)):
            fail(f"{head(q, k, v)}: the weights have shape {tuple(A.shape)}, not "
                 f"({len(q)}, {len(k)})")
        for i, (z, a) in enumerate(zip(Z.tolist(), A.tolist(), strict=True)):
            why = hull_gap(a, values, z)
            if why is not None:
                fail(f"{head(q, k, v)}: output row {i} = {show(z)} is not shown to be in the "
                     f"hull of the value rows: {why}")
    return Law(qkv(p["max_len"]), check, {"tinygpt.attention": tinygpt_attention(causal)})


@law("attention-matrix-equals-loop")
def _loop(p: Mapping[str, Any]) -> Law:
    causal = p["mask"] == "causal"

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v = example
        Z, _ = run_attention(f, q, k, v)
        S = scaled_scores(q, k)
        for i in range(len(q)):
            allowed = i + 1 if causal else len(k)
            a = restricted_softmax(S[i][:allowed])
            z = [math.fsum(a[j] * v[j][u] for j in range(allowed)) for u in range(len(v[0]))]
            got = Z[i].tolist()
            if any(not close(x, y, 1e-10, 1e-12) for x, y in zip(got, z, strict=True)):
                fail(f"{head(q, k, v)}: the matrix form gives row {i} = {show(got)}, the loop "
                     f"z_{i} = Σ_j a_{i}j v_j gives {show(z)}")
    return Law(qkv(p["max_len"]), check, {"tinygpt.attention": tinygpt_attention(causal)})


#: Slot ``allowed`` (and ``allowed2``): which positions j position i reads, by meaning.
ALLOWED: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "le": ("j <= i", lambda j, i: j <= i), "lt": ("j < i", lambda j, i: j < i),
    "ge": ("j >= i", lambda j, i: j >= i), "gt": ("j > i", lambda j, i: j > i),
    "next": ("j = i + 1", lambda j, i: j == i + 1), "all": ("every j", lambda j, i: True),
}


@law("causal-weights")
def _causal(p: Mapping[str, Any]) -> Law:
    """a_ij = 0 exactly where the sentence's relation fails; row i is the softmax over the rest."""
    rules = [ALLOWED[p[s]] for s in ("allowed", "allowed2")]
    if p.get("masked", "future") == "past":  # "过去位置的权重等于 0": row i reads j >= i only
        rules.append(ALLOWED["ge"])

    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v = example
        _, A = run_attention(f, q, k, v)
        S = scaled_scores(q, k)
        for said, allowed in rules:
            for i, row in enumerate(A.tolist()):
                for j in range(len(row)):
                    if not allowed(j, i) and row[j] != 0.0:
                        fail(f"{head(q, k, v)}: position {i} gives position {j} weight "
                             f"{show(row[j])} (row {show(row)}), not exactly 0 as {said} says")
                keep = [j for j in range(len(row)) if allowed(j, i)]
                want = restricted_softmax([S[i][j] for j in keep]) if keep else []
                got = [row[j] for j in keep]
                if any(not close(x, y, 1e-10, 1e-13) for x, y in zip(got, want, strict=True)):
                    fail(f"{head(q, k, v)}: row {i} = {show(got)} is not the softmax over "
                         f"the allowed {said.replace('i', str(i))}, {show(want)}")
    return Law(qkv(p["max_len"]), check, {"tinygpt.attention(causal=True)":
                                          tinygpt_attention(True)})


@law("attention-not-linear")
def _not_linear(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n, dim = d(st.integers(2, min(3, p["max_len"]))), d(st.integers(1, 2))
        # small integers: the counterexample is found at once and shrinks in a few steps
        ws = [d(matrices(dim, dim, 2.0, integer=True)) for _ in range(3)]
        return d(matrices(n, dim, 2.0, True)), d(matrices(n, dim, 2.0, True)), ws

    def check(example: Any, f: Callable[..., Any]) -> None:
        X, Y, (WQ, WK, WV) = example

        def Z(M: Vec) -> Vec:
            return torch.as_tensor(f(M, tensor(WQ), tensor(WK), tensor(WV)), dtype=F64)

        lhs, rhs = Z(tensor(X) + tensor(Y)), Z(tensor(X)) + Z(tensor(Y))
        gap = float((lhs - rhs).abs().max())
        if not gap <= 1e-9 * (1 + float(rhs.abs().max())):
            fail(f"X = {show(X, 3)}, Y = {show(Y, 3)}, W_Q = {show(WQ, 3)}, W_K = "
                 f"{show(WK, 3)}, W_V = {show(WV, 3)}: Z(X + Y) differs from Z(X) + Z(Y) by "
                 f"{show(gap, 3)}")

    def tinygpt_z(X: Vec, WQ: Vec, WK: Vec, WV: Vec) -> Vec:
        """One head of tinygpt's multi-head attention (it projects X itself), W_O = I."""
        eye = torch.eye(WV.shape[1], dtype=F64)
        return multi_head_attention(X, [WQ], [WK], [WV], eye)[0]
    return Law(draw(), check, {"tinygpt.multi_head_attention (one head, W_O = I)": tinygpt_z})


@law("attention-weights-underflow")
def _underflow(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        q, k, v = example
        _, A = run_attention(f, q, k, v)
        for i, row in enumerate(A.tolist()):
            for j, x in enumerate(row):
                if not x > 0:
                    s = scaled_scores(q, k)[i]
                    fail(f"scores row {i} = {show(s, 5)} (no mask): weight a_{i}{j} = "
                         f"{show(x)} underflows to 0 in float64")
    return Law(qkv(min(3, p["max_len"]), p["scale"], 2), check,
               {"tinygpt.attention": tinygpt_attention(False)})


# -- blocks ---------------------------------------------------------------------------------

def block_and_input(max_len: int, dims: tuple[int, ...] = (2, 4), heads: tuple[int, ...] = (1, 2),
                    square: bool = False, positions: str = "none", ffn: bool = True
                    ) -> st.SearchStrategy[Any]:
    """(config, seed, x): a tinygpt Block and an input matrix x [n, d_model]."""
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        dm = d(st.sampled_from(dims))
        h = 1 if square else d(st.sampled_from(heads))
        dk = dm if square else d(st.sampled_from([2, 4]))
        config = GPTConfig(vocab_size=2, d_model=dm, n_heads=h, d_k=dk, d_v=dk, n_layers=1,
                           d_ff=2 * dm, positions=positions, ffn=ffn)
        n = d(st.integers(1, max_len))
        return config, d(st.integers(0, 2**16)), d(matrices(n, dm, 2.0))
    return draw()


def make_block(config: GPTConfig, seed: int) -> Block:
    return Block(config, torch.Generator().manual_seed(seed))


def block_name(config: GPTConfig, seed: int) -> str:
    return (f"Block(d={config.d_model}, heads={config.n_heads}, d_k={config.d_k}, "
            f"{'FFN' if config.ffn else 'no FFN'}, seed={seed})")


def tinygpt_attend(block: Block, x: Vec) -> dict[str, Any]:
    return block.attend(block._ln(x, 1), torch.arange(x.shape[0]))


_ROLE = {"query": "q", "key": "k", "value": "v"}


@law("attention-scores-are-dot-products")
def _scores(p: Mapping[str, Any]) -> Law:
    """Slots ``first``/``second`` (第 i 行、第 j 列) name the entry, ``q``/``k`` (查询 / 键) the
    vectors whose dot product the sentence says it is: the law checks what the words state."""
    first, second = p.get("first", "row"), p.get("second", "column")
    a, b = _ROLE[p.get("q", "query")], _ROLE[p.get("k", "key")]

    def check(example: Any, f: Callable[..., Any]) -> None:
        config, seed, x = example
        block = make_block(config, seed)
        if first == second:
            fail(f"the sentence puts i and j both in a {first}: that names no entry of Q K^T")
        with torch.no_grad():
            t = f(block, tensor(x))
        for h in range(config.n_heads):
            u, w, S = t[a][h].tolist(), t[b][h].tolist(), t["scores"][h]
            for i in range(len(u)):
                for j in range(len(w)):
                    want = dot(u[i], w[j])
                    r, c = (i, j) if first == "row" else (j, i)
                    got = float(S[r, c]) * math.sqrt(config.d_k)
                    if not close(got, want, 1e-12, 1e-12):
                        fail(f"{block_name(config, seed)}, x = {show(x, 3)}: head {h} has "
                             f"(Q K^T)_{r}{c} = {show(got)} but {a}_{i}·{b}_{j} = "
                             f"{show(want)}")
    return Law(block_and_input(p["max_len"]), check, {"tinygpt.Block.attend": tinygpt_attend})


def tinygpt_block_output(block: Block, x: Vec) -> tuple[Vec, Vec]:
    t = block.forward_trace(x, torch.arange(x.shape[0]))
    return t["y"], t["v"][0]


@law("block-output-outside-value-hull")
def _block_hull(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        config, seed, x = example
        with torch.no_grad():
            y, v = f(make_block(config, seed), tensor(x))
        values = v.tolist()
        for i, row in enumerate(y.tolist()):
            witness = outside_hull(values, row)
            if witness is not None:
                u, uy, top = witness
                fail(f"{block_name(config, seed)}, x = {show(x, 3)}: output row {i} = "
                     f"{show(row, 4)} is outside the hull of the value rows {show(values, 4)} "
                     f"(along u = {show(u, 3)}: {show(uy, 4)} > {show(top, 4)})")
    return Law(block_and_input(p["max_len"], dims=(2, 3, 4), square=True), check,
               {"tinygpt.Block (W_O, residual, FFN)": tinygpt_block_output})


def tinygpt_scores(block: Block, x: Vec) -> list[Vec]:
    return block.attend(x, torch.arange(x.shape[0]))["scores"]


@law("qk-tied-symmetric-psd")
def _tied_qk(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        config, seed, x = example
        block = make_block(config, seed)
        with torch.no_grad():
            for h in range(config.n_heads):
                block.W_K[h].copy_(block.W_Q[h])
            scores = f(block, tensor(x))
        for h in range(config.n_heads):
            B = block.W_Q[h].detach() @ block.W_Q[h].detach().T
            for name, M in (("B = W_Q W_Q^T", B), ("the score table", scores[h])):
                M = torch.as_tensor(M, dtype=F64)
                big = 1.0 + float(M.abs().max())
                asym = float((M - M.T).abs().max())
                low = float(torch.linalg.eigvalsh((M + M.T) / 2).min())
                if asym > 1e-12 * big or low < -1e-10 * big:
                    fail(f"{block_name(config, seed)} with W_K = W_Q, x = {show(x, 3)}: head "
                         f"{h}: {name} {show(M, 4)} is not symmetric positive semi-definite "
                         f"(asymmetry {show(asym, 3)}, smallest eigenvalue {show(low, 3)})")
    return Law(block_and_input(p["max_len"]), check, {"tinygpt.Block.attend": tinygpt_scores})


def tinygpt_rope(x: Vec, positions: list[float]) -> Vec:
    return rope(x, positions)


@law("rope-relative-position")
def _rope(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        dim = d(st.sampled_from([2, 4, 6, 8]))
        m, n = d(st.integers(0, 64)), d(st.integers(0, 64))
        s = d(st.integers(-min(m, n), 64))
        return d(matrices(1, dim, 3.0)), d(matrices(1, dim, 3.0)), m, n, s

    def check(example: Any, f: Callable[..., Vec]) -> None:
        q, k, m, n, s = example
        tq, tk = tensor(q), tensor(k)

        def score(a: int, b: int) -> float:
            return float((f(tq, [a]) * f(tk, [b])).sum())

        first, second = score(m, n), score(m + s, n + s)
        scale = 1 + float(tq.norm() * tk.norm())
        if not abs(first - second) <= 1e-9 * scale:
            fail(f"q = {show(q[0], 4)}, k = {show(k[0], 4)}: after RoPE q at {m} · k at {n} = "
                 f"{show(first)}, but q at {m + s} · k at {n + s} (same n - m = {n - m}) = "
                 f"{show(second)}")
    return Law(draw(), check, {"tinygpt.rope": tinygpt_rope})
