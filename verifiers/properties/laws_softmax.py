"""Softmax, temperature, the softmax Jacobian and the cross-entropy gradient.

Implementations under test: ``tinygpt.softmax`` and the engine's own ``softmax()`` (the
expression language, 40-digit mpmath) for the softmax laws; ``tinygpt.apply_temperature``;
``tinygpt.backward`` (the notes' hand-derived backward formulas) for Jacobian and gradient;
``tinygpt.cross_entropy`` for the loss.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import mpmath
import numpy as np
import torch
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tinygpt import apply_temperature, cross_entropy
from tinygpt import softmax as tg_softmax
from tinygpt.backward import softmax_cross_entropy_grad, softmax_rows_backward
from verifiers import expr as ex
from verifiers.properties.base import Law, close, fail, law, worst_gap
from verifiers.properties.strategies import F64, floats, integer_vectors, show, tensor, vectors

Vec = torch.Tensor

# -- implementations under test ----------------------------------------------------------

_TREES: dict[str, Any] = {}


def engine(source: str, **env: Any) -> Any:
    """Evaluate one expression of the claim language (point mode, 40 digits) on floats."""
    tree = _TREES.get(source)
    if tree is None:
        tree = _TREES[source] = ex.parse(source)

    def mp(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            v = v.tolist()
        if isinstance(v, (list, tuple)):
            return tuple(mp(x) for x in v)
        return mpmath.mpf(float(v))

    value = ex.evaluate(tree, {k: mp(v) for k, v in env.items()}, "point")
    if isinstance(value, tuple):
        return torch.tensor([float(x) for x in value], dtype=F64)
    return float(value)


def engine_softmax(s: Vec) -> Vec:
    return engine("softmax(s)", s=s)


def tinygpt_tempered(s: Vec, T: float) -> Vec:
    return tg_softmax(apply_temperature(s, T))


def engine_tempered(s: Vec, T: float) -> Vec:
    return engine("softmax(s / T)", s=s, T=T)


def plain_softmax(s: Vec) -> Vec:
    """exp(s) / sum exp(s), exactly as written: no max subtracted."""
    e = torch.exp(s)
    return e / e.sum()


def backward_jacobian(s: Vec) -> torch.Tensor:
    """Row i of J is 15.3's softmax backward fed the unit gradient e_i."""
    p = tg_softmax(s)[None, :]
    eye = torch.eye(s.shape[0], dtype=F64)
    return torch.stack([softmax_rows_backward(p, eye[i][None, :])[0] for i in range(s.shape[0])])


def lesson1_jacobian(s: Vec) -> torch.Tensor:
    """lesson1 §5: J = diag(p) - p p^T."""
    p = tg_softmax(s)
    return torch.diag(p) - torch.outer(p, p)


def tinygpt_loss(z: Vec, y: int) -> float:
    return float(cross_entropy(z[None, :], [y]))


SOFTMAX_IMPLS = {"tinygpt.softmax": tg_softmax, "engine softmax()": engine_softmax}
TEMPERED_IMPLS = {"tinygpt softmax(apply_temperature(l, T))": tinygpt_tempered,
                  "engine softmax(s / T)": engine_tempered}
JACOBIAN_IMPLS = {"tinygpt.backward.softmax_rows_backward": backward_jacobian,
                  "lesson1 diag(p) - p p^T": lesson1_jacobian}
GRAD_IMPLS = {"tinygpt.backward.softmax_cross_entropy_grad": softmax_cross_entropy_grad}
LOSS_IMPLS = {"tinygpt.cross_entropy": tinygpt_loss}


def scores(p: Mapping[str, Any], min_len: int = 1) -> st.SearchStrategy[Any]:
    return vectors(p["max_len"], p["bound"], min_len)


def as_probs(out: Any, n: int) -> Vec:
    t = torch.as_tensor(out, dtype=F64).reshape(-1)
    if t.shape[0] != n:
        fail(f"returned {t.shape[0]} values for {n} scores")
    return t


# -- softmax ----------------------------------------------------------------------------

@law("softmax-positive")
def _positive(p: Mapping[str, Any]) -> Law:
    def check(s: Any, f: Callable[[Vec], Vec]) -> None:
        out = as_probs(f(tensor(s)), len(s))
        for i, x in enumerate(out.tolist()):
            if not x > 0:
                fail(f"scores {show(s)} give p = {show(out)}: p[{i}] = {show(x)} is not > 0")
    return Law(scores(p), check, SOFTMAX_IMPLS)


@law("softmax-sums-to-one")
def _sums(p: Mapping[str, Any]) -> Law:
    """Slot ``total``: the sum the sentence states (1; 0 is the flipped word)."""
    want = 1.0 if p["total"] == "one" else 0.0

    def check(s: Any, f: Callable[[Vec], Vec]) -> None:
        out = as_probs(f(tensor(s)), len(s))
        total = math.fsum(out.tolist())
        if not close(total, want, 0, 1e-12):
            fail(f"scores {show(s)} give p = {show(out)}, which sums to {total!r}, not "
                 f"{want:g}")
    return Law(scores(p), check, SOFTMAX_IMPLS)


@law("softmax-keeps-order")
def _order(p: Mapping[str, Any]) -> Law:
    """Slot ``prob``: a larger score gives a larger (increases) or smaller (decreases) p."""
    sign = 1.0 if p["prob"] == "increases" else -1.0

    def check(s: Any, f: Callable[[Vec], Vec]) -> None:
        out = [sign * x for x in as_probs(f(tensor(s)), len(s)).tolist()]
        for i in range(len(s)):
            for j in range(len(s)):
                gap = s[i] - s[j]
                bad = (out[i] < out[j]) if gap > 0 else False
                bad |= gap > 1e-9 * max(1.0, abs(s[i])) and not out[i] > out[j]
                bad |= gap == 0 and not close(out[i], out[j], 1e-12, 0)
                if bad:
                    q = [sign * x for x in out]
                    fail(f"scores {show(s)} give p = {show(q)}: s[{i}] = {show(s[i])} vs "
                         f"s[{j}] = {show(s[j])} but p[{i}] = {show(q[i])} vs "
                         f"p[{j}] = {show(q[j])}")
    return Law(scores(p, 2), check, SOFTMAX_IMPLS)


def operate(op: str, s: Vec, c: float) -> Vec:
    """Slot ``op`` (operation): the same c added to (shift) or multiplied into (scale) s."""
    return s + c if op == "shift" else s * c


def operated(op: str) -> str:
    return "shifted by" if op == "shift" else "multiplied by"


@law("softmax-shift-invariance")
def _shift(p: Mapping[str, Any]) -> Law:
    """softmax(x + c) = softmax(x); with the word 乘以/scale the law searched is softmax(c x)."""
    c = p["max_shift"]

    def check(example: Any, f: Callable[[Vec], Vec]) -> None:
        s, shift = example
        a = as_probs(f(tensor(s)), len(s))
        b = as_probs(f(operate(p["op"], tensor(s), shift)), len(s))
        i, gap = worst_gap(a.tolist(), b.tolist())
        if not close(b[i].item(), a[i].item(), 1e-9, 1e-300):
            fail(f"scores {show(s)} give p = {show(a)}, but {operated(p['op'])} c = "
                 f"{show(shift)} they give {show(b)} (p[{i}] moves by {show(gap, 3)})")
    return Law(st.tuples(scores(p), floats(-c, c)), check, SOFTMAX_IMPLS)


@law("softmax-ratio")
def _ratio(p: Mapping[str, Any]) -> Law:
    """a_j / a_k = e^(s_j - s_k), and the ratio survives the ``op`` (shift: it does)."""
    def check(example: Any, f: Callable[[Vec], Vec]) -> None:
        s, c = example
        out = as_probs(f(tensor(s)), len(s)).tolist()
        moved = as_probs(f(operate(p["op"], tensor(s), c)), len(s)).tolist()
        if all(x > 0 for x in out + moved):
            for j in range(1, len(s)):
                before = math.log(out[j]) - math.log(out[0])
                after = math.log(moved[j]) - math.log(moved[0])
                if not close(after, before, 1e-9, 1e-9):
                    fail(f"scores {show(s)} give p = {show(out)}, {operated(p['op'])} c = "
                         f"{show(c)} they give {show(moved)}: a[{j}]/a[0] goes from "
                         f"{show(math.exp(before))} to {show(math.exp(after))}")
        for j in range(len(s)):
            for k in range(len(s)):
                if not (out[j] > 0 and out[k] > 0):
                    fail(f"scores {show(s)} give p = {show(out)}: a zero probability has no "
                         "ratio")
                got = math.log(out[j]) - math.log(out[k])
                want = s[j] - s[k]
                if not close(got, want, 1e-9, 1e-9):
                    fail(f"scores {show(s)} give p = {show(out)}: a[{j}]/a[{k}] = "
                         f"{show(math.exp(got))} but e^(s[{j}] - s[{k}]) = {show(math.exp(want))}")
    c = 100.0 if p["op"] == "shift" else 3.0  # a scale by at most 3 keeps every p > 0
    return Law(st.tuples(scores(p, 2), floats(-c, c)), check, SOFTMAX_IMPLS)


@law("softmax-equal-scores-uniform")
def _uniform(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[[Vec], Vec]) -> None:
        n, c = example
        out = as_probs(f(torch.full((n,), c, dtype=F64)), n)
        i, gap = worst_gap(out.tolist(), [1.0 / n] * n)
        if not gap <= 1e-12:
            fail(f"{n} equal scores {show(c)} give p = {show(out)}, not 1/{n} each")
    b = p["bound"]
    return Law(st.tuples(st.integers(1, p["max_len"]), floats(-b, b)), check, SOFTMAX_IMPLS)


@law("softmax-stable-form")
def _stable(p: Mapping[str, Any]) -> Law:
    c = p["max_shift"]

    def check(example: Any, f: Callable[[Vec], Vec]) -> None:
        base, shift = example
        s = tensor(base) + shift
        out = as_probs(f(s), len(base))
        where = f"at scores {show(s, 8)}"
        if not all(math.isfinite(x) for x in out.tolist()):
            fail(f"{where} the result {show(out)} is not finite")
        reference = [plain_softmax(tensor(base))]  # finite: |base| <= 50
        here = plain_softmax(s)
        if all(math.isfinite(x) for x in here.tolist()):
            reference.append(here)  # where the plain form is finite, the two must agree
        for ref in reference:
            i, gap = worst_gap(out.tolist(), ref.tolist())
            if not close(out[i].item(), ref[i].item(), 1e-9, 1e-300):
                fail(f"{where} the result {show(out)} differs from the plain form "
                     f"exp(s)/sum exp(s) = {show(ref)} (p[{i}] by {show(gap, 3)})")
    return Law(st.tuples(vectors(p["max_len"], 50.0), floats(-c, c)), check, SOFTMAX_IMPLS,
               examples=(([2.0, 1.0, 0.0], 998.0),))


@law("softmax-plain-form-overflows")
def _plain_overflows(p: Mapping[str, Any]) -> Law:
    def check(s: Any, f: Callable[[Vec], Vec]) -> None:
        out = as_probs(f(tensor(s)), len(s))
        if not all(math.isfinite(x) for x in out.tolist()):
            fail(f"at scores {show(s)} exp(s) / sum exp(s) gives {show(out)}")
    return Law(hnp_vectors_upper(p["max_len"], p["bound"]), check,
               {"exp(s) / sum exp(s)": plain_softmax})


def hnp_vectors_upper(max_len: int, upper: float) -> st.SearchStrategy[Any]:
    """Scores in [-50, upper]: large positive scores, no all-underflow vectors."""
    return hnp.arrays(np.float64, st.integers(1, max_len), elements=floats(-50.0, upper))


# -- temperature --------------------------------------------------------------------------

def entropy(q: Vec) -> float:
    return float(-torch.special.xlogy(q, q).sum())


def temperature_statements(p: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """(side of T = 1, shape there, the slot that says it) from the temperature slots.

    ``low``/``high`` are the shapes the sentence gives at its ``low_t``/``high_t`` side (越低…
    越尖，越高…越平); ``gap`` is how the gap between high and low probabilities moves at T < 1
    (变大: sharper); ``others`` how the other tokens' chances move at T > 1 (增加: flatter).
    """
    return [
        (p["low_t"], p["low"], "low"),
        (p["high_t"], p["high"], "high"),
        ("lower", "sharp" if p["gap"] == "increases" else "flat", "gap"),
        ("higher", "flat" if p["others"] == "increases" else "sharp", "others"),
    ]


def check_side(s: Any, side: str, shape: str, T: float, f: Callable[[Vec, float], Vec]) -> None:
    """At T on ``side`` of 1, softmax(s / T) is ``shape`` compared with T = 1 (or equal)."""
    a, one = as_probs(f(tensor(s), T), len(s)), as_probs(f(tensor(s), 1.0), len(s))
    ha, h1 = entropy(a), entropy(one)
    sharper = ha <= h1 + 1e-12 and float(a.max()) >= float(one.max()) - 1e-12
    flatter = ha >= h1 - 1e-12 and float(a.max()) <= float(one.max()) + 1e-12
    if not (sharper if shape == "sharp" else flatter):
        fail(f"logits {show(s)}: at the {side} temperature T = {show(T)} p = {show(a)} "
             f"(entropy {show(ha)}, top {show(float(a.max()))}) is not {shape}er than at "
             f"T = 1, p = {show(one)} (entropy {show(h1)}, top {show(float(one.max()))})")


@law("temperature-entropy-monotone")
def _entropy(p: Mapping[str, Any]) -> Law:
    """Entropy rises with T; the slots say which shape each side of T = 1 gives."""
    lo, hi = p["t_min"], p["t_max"]
    statements = temperature_statements(p)

    def check(example: Any, f: Callable[[Vec, float], Vec]) -> None:
        s, t1, t2 = example
        lo_t, hi_t = min(t1, t2), max(t1, t2)
        if lo_t != hi_t:
            a, b = as_probs(f(tensor(s), lo_t), len(s)), as_probs(f(tensor(s), hi_t), len(s))
            ha, hb = entropy(a), entropy(b)
            if not ha <= hb + 1e-12:
                fail(f"logits {show(s)}: T = {show(lo_t)} gives entropy {show(ha)} (p = "
                     f"{show(a)}) but the larger T = {show(hi_t)} gives less, {show(hb)} "
                     f"(p = {show(b)})")
            if not float(a.max()) >= float(b.max()) - 1e-12:
                fail(f"logits {show(s)}: the top probability is {show(float(a.max()))} at "
                     f"T = {show(lo_t)} but {show(float(b.max()))} at the larger T = {show(hi_t)}")
        for side, shape, _ in statements:
            T = min(lo_t, 1.0) if side == "lower" else max(hi_t, 1.0)
            if T != 1.0:
                check_side(s, side, shape, T, f)
    temps = floats(lo, hi)
    return Law(st.tuples(scores(p), temps, temps), check, TEMPERED_IMPLS)


def temperature_limit(p: Mapping[str, Any]) -> Law:
    """Slots ``limit`` (T -> 0 or infinity) and ``outcome`` (one-hot or uniform) of one law."""
    check = _onehot_check if p["outcome"] == "onehot" else _uniform_check
    if p["limit"] == "zero":
        temps = floats(1e-3, 0.02)
        logits = integer_vectors(p["max_len"])
    else:
        temps = floats(1e6, 1e9)
        logits = vectors(p["max_len"], p.get("bound", 50.0))
    return Law(st.tuples(logits, temps), check, TEMPERED_IMPLS)


@law("temperature-zero-argmax")
def _zero_t(p: Mapping[str, Any]) -> Law:
    return temperature_limit(p)


@law("temperature-infinity-uniform")
def _inf_t(p: Mapping[str, Any]) -> Law:
    return temperature_limit(p)


def _onehot_check(example: Any, f: Callable[[Vec, float], Vec]) -> None:
    """All mass on the arg-max, split evenly among tied maxima."""
    s, T = example
    out = as_probs(f(tensor(s), T), len(s)).tolist()
    top = max(s)
    winners = [i for i, x in enumerate(s) if x == top]
    for i, x in enumerate(out):
        want = 1.0 / len(winners) if i in winners else 0.0
        if not abs(x - want) <= 1e-12:
            tie = f", tied between {winners}" if len(winners) > 1 else ""
            fail(f"logits {show(s)} at T = {show(T)} give p = {show(out)}: the arg-max "
                 f"is {winners[0] if len(winners) == 1 else winners}{tie}, so p[{i}] "
                 f"should be {show(want)}")


def _uniform_check(example: Any, f: Callable[[Vec, float], Vec]) -> None:
    """Every p_i near 1/n (within what the spread of the logits over T allows)."""
    s, T = example
    n = len(s)
    out = as_probs(f(tensor(s), T), n).tolist()
    spread = float(max(s) - min(s)) if n else 0.0
    for i, x in enumerate(out):
        # spread / T bounds the deviation for large T; near T = 0 it says nothing, so a
        # uniform claim there is held to 1% (a one-hot row is far from it)
        if not abs(x * n - 1) <= min(2 * spread / T, 0.01) + 1e-12:
            fail(f"logits {show(s)} at T = {show(T)} give p = {show(out)}: p[{i}] is not "
                 f"near 1/{n} = {show(1 / n)}")


# -- the softmax Jacobian ---------------------------------------------------------------

def autograd_jacobian(s: Vec) -> torch.Tensor:
    return torch.autograd.functional.jacobian(lambda x: torch.softmax(x, dim=-1), s)


def jacobian_of(f: Callable[[Vec], Any], s: Any) -> torch.Tensor:
    J = torch.as_tensor(f(tensor(s)), dtype=F64)
    n = len(s)
    if J.shape != (n, n):
        fail(f"scores {show(s)}: the Jacobian has shape {tuple(J.shape)}, not ({n}, {n})")
    return J


@law("softmax-jacobian")
def _jacobian(p: Mapping[str, Any]) -> Law:
    """Slot ``rowsum``: the value every row of J sums to (the note: 0)."""
    target = 0.0 if p["rowsum"] == "zero" else 1.0

    def check(s: Any, f: Callable[[Vec], Any]) -> None:
        J = jacobian_of(f, s)
        n = len(s)
        head = f"scores {show(s)}, J = {show(J)}"
        asym = float((J - J.T).abs().max())
        if not asym <= 1e-15:
            fail(f"{head}: not symmetric (|J - J^T| up to {show(asym, 3)})")
        for i in range(n):
            row = math.fsum(J[i].tolist())
            if not abs(row - target) <= 1e-15:
                fail(f"{head}: row {i} sums to {show(row, 3)}, not {target:g}")
        auto = autograd_jacobian(tensor(s))
        gap = float((J - auto).abs().max())
        if not gap <= 1e-12:
            fail(f"{head}: autograd's Jacobian is {show(auto)} (off by up to {show(gap, 3)})")
    return Law(scores(p), check, JACOBIAN_IMPLS)


@law("softmax-jacobian-signs")
def _jacobian_signs(p: Mapping[str, Any]) -> Law:
    """Slots ``own`` / ``other``: raising z_i moves p_i (own) and p_j, j != i (other) this way."""
    own_up, other_up = p["own"] == "increases", p["other"] == "increases"

    def check(s: Any, f: Callable[[Vec], Any]) -> None:
        J = jacobian_of(f, s)
        for i in range(len(s)):
            for j in range(len(s)):
                x = float(J[i, j])
                up = own_up if i == j else other_up
                if not (x > 0 if up else x < 0):
                    sign = "> 0" if up else "< 0"
                    fail(f"scores {show(s)}, J = {show(J)}: dp[{i}]/dz[{j}] = {show(x)} is "
                         f"not {sign}")
    return Law(scores(p, 2), check, JACOBIAN_IMPLS)


@law("softmax-jacobian-saturation")
def _saturation(p: Mapping[str, Any]) -> Law:
    def check(s: Any, f: Callable[[Vec], Any]) -> None:
        J = jacobian_of(f, s)
        q = tg_softmax(tensor(s)).tolist()
        top = max(range(len(q)), key=q.__getitem__)
        rest = math.fsum(x for i, x in enumerate(q) if i != top)  # 1 - max p, without rounding
        big = float(J.abs().max())
        if not big <= rest * (1 + 1e-9) + 1e-15:  # 1 - p rounds to within 1e-16
            fail(f"scores {show(s)} give p = {show(q)}: max p = {show(q[top])} leaves "
                 f"1 - max p = {show(rest)}, but the Jacobian has an entry of size {show(big)}")
    return Law(scores(p), check, JACOBIAN_IMPLS)


# -- cross-entropy ------------------------------------------------------------------------

def logits_and_target(p: Mapping[str, Any]) -> st.SearchStrategy[Any]:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        z = d(scores(p))
        return z, d(st.integers(0, len(z) - 1))
    return draw()


def grad_of(f: Callable[..., Any], z: Any, y: int) -> list[float]:
    g = torch.as_tensor(f(tensor(z), y), dtype=F64).reshape(-1)
    if g.shape[0] != len(z):
        fail(f"logits {show(z)}: the gradient has {g.shape[0]} components")
    return g.tolist()


@law("ce-gradient-autograd")
def _ce_autograd(p: Mapping[str, Any]) -> Law:
    """Slot ``op``: the sentence's gradient is p - y (减去); 加上 states p + y, held to autograd."""
    plus = p.get("op", "subtract") == "add"

    def check(example: Any, f: Callable[..., Any]) -> None:
        z, y = example
        g = grad_of(f, z, y)
        if plus:  # the implementation is p - y; the sentence's p + y is 2 y away from it
            g = [x + 2.0 * (i == y) for i, x in enumerate(g)]
        zt = tensor(z).requires_grad_(True)
        (auto,) = torch.autograd.grad(cross_entropy(zt[None, :], [y]), [zt])
        i, gap = worst_gap(g, auto.tolist())
        if not gap <= 1e-12:
            fail(f"logits {show(z)}, target {y}: dL/dz = {'p + y = ' * plus}{show(g)} but "
                 f"autograd gives {show(auto)} (component {i} off by {show(gap, 3)})")
    return Law(logits_and_target(p), check, GRAD_IMPLS)


@law("ce-gradient-bounded")
def _ce_bounded(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        z, y = example
        g = grad_of(f, z, y)
        for i, x in enumerate(g):
            if not -1 <= x <= 1:
                fail(f"logits {show(z)}, target {y}: dL/dz = {show(g)} has component {i} = "
                     f"{show(x)} outside [-1, 1]")
        total = math.fsum(g)
        if not abs(total) <= 1e-12:
            fail(f"logits {show(z)}, target {y}: dL/dz = {show(g)} sums to {show(total, 3)}, "
                 "not 0")
    return Law(logits_and_target(p), check, GRAD_IMPLS)


@law("ce-gradient-signs")
def _ce_signs(p: Mapping[str, Any]) -> Law:
    """Slots: the descent step moves z_y (``target``) and the others (``other``) this way; the
    target's push |p_y - 1| grows (``push`` strong) as p_y falls, the others' pull |p_j| as p_j
    rises (``pull``)."""
    up = {"target": p["target"] == "increases", "other": p["other"] == "increases"}
    strong = {"push": p["push"] == "strong", "pull": p["pull"] == "strong"}

    def sign_ok(i: int, y: int, x: float) -> bool:
        step_up = up["target"] if i == y else up["other"]  # the step is -x
        return x <= 0 if step_up else x >= 0

    def grows(slot: str, z: Any, y: int, i: int, delta: float, f: Callable[..., Any]) -> None:
        moved = tensor(z).clone()
        moved[i] += -delta if i == y else delta  # less sure of y / more mass taken by i
        before, after = abs(grad_of(f, z, y)[i]), abs(grad_of(f, moved.tolist(), y)[i])
        if not (after >= before - 1e-12 if strong[slot] else after <= before + 1e-12):
            what = f"lowering z_{y} (less sure)" if i == y else f"raising z_{i} (p_{i} larger)"
            fail(f"logits {show(z)}, target {y}: {what} by {show(delta)} takes |dL/dz_{i}| "
                 f"from {show(before, 10)} to {show(after, 10)}: the push is not "
                 f"{'harder' if strong[slot] else 'lighter'}")

    def check(example: Any, f: Callable[..., Any]) -> None:
        (z, y), delta = example
        g = grad_of(f, z, y)
        for i, x in enumerate(g):
            if not sign_ok(i, y, x):
                which = "the target's p_y - 1" if i == y else f"p_{i}"
                want = "<= 0" if (x > 0) else ">= 0"
                fail(f"logits {show(z)}, target {y}: dL/dz = {show(g)}: {which} = {show(x)} "
                     f"is not {want}")
        grows("push", z, y, y, delta, f)
        if len(z) > 1:
            grows("pull", z, y, (y + 1) % len(z), delta, f)
    return Law(st.tuples(logits_and_target(p), floats(1e-3, 10.0)), check, GRAD_IMPLS)


def exact_loss(z: Any, y: int) -> mpmath.mpf:
    """-ln p_y = logsumexp(z) - z_y at 40 digits, from the float logits."""
    with mpmath.workdps(40):
        m = max(mpmath.mpf(float(x)) for x in z)
        lse = m + mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(float(x)) - m) for x in z))
        return lse - mpmath.mpf(float(z[y]))


@law("ce-onehot-equals-neg-log")
def _ce_onehot(p: Mapping[str, Any]) -> Law:
    def check(example: Any, f: Callable[..., Any]) -> None:
        z, y = example
        got = float(f(tensor(z), y))
        want = float(exact_loss(z, y))
        if not close(got, want, 1e-12, 1e-15):
            fail(f"logits {show(z)}, target {y}: the loss is {show(got, 12)} but -sum y_i ln "
                 f"p_i = -ln p_{y} = {show(want, 12)}")
    return Law(logits_and_target(p), check, LOSS_IMPLS)


@law("ce-decreases-with-target-prob")
def _ce_decreases(p: Mapping[str, Any]) -> Law:
    """Slots ``prob`` and ``loss``: p_y moved one way, the loss must move the stated way."""
    up = p["prob"] == "increases"
    falls = p["loss"] == "decreases"

    def check(example: Any, f: Callable[..., Any]) -> None:
        (z, y), delta = example
        moved = tensor(z).clone()
        moved[y] += delta if up else -delta
        before, after = float(f(tensor(z), y)), float(f(moved, y))
        if falls:  # strictly, unless the loss is already ~0
            ok = after < before if before > 1e-9 else after <= before
        else:
            ok = after > before if after > 1e-9 else after >= before
        if not ok:
            fail(f"logits {show(z)}, target {y}: {'raising' if up else 'lowering'} z_{y} by "
                 f"{show(delta)} {'raises' if up else 'lowers'} p_{y} but the loss goes from "
                 f"{show(before, 10)} to {show(after, 10)}")
    return Law(st.tuples(logits_and_target(p), floats(1e-3, 10.0)), check, LOSS_IMPLS)


@law("uniform-guess-loss-ln-v")
def _uniform_loss(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        V = d(st.integers(2, p["max_vocab"]))
        return V, d(floats(-50.0, 50.0)), d(st.integers(0, V - 1))

    ppl = {"v": lambda V: V, "ln_v": math.log, "inv_v": lambda V: 1 / V,
           "one": lambda V: 1.0}[p["ppl"]]

    def check(example: Any, f: Callable[..., Any]) -> None:
        V, c, y = example
        loss = float(f(torch.full((V,), c, dtype=F64), y))
        if not close(loss, math.log(V), 1e-12, 0):
            fail(f"{V} equal logits {show(c)}, target {y}: the loss is {show(loss, 12)}, not "
                 f"ln {V} = {show(math.log(V), 12)}")
        if not close(math.exp(loss), ppl(V), 1e-9, 0):
            fail(f"{V} equal logits: perplexity e^L = {show(math.exp(loss), 12)}, not "
                 f"{show(ppl(V), 12)} (the sentence's {p['ppl']})")
    return Law(draw(), check, LOSS_IMPLS)
