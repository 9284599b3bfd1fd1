"""Comparison, count and condition words read as laws (laws8, issue 12 item 1).

Why: the vocabulary classes ``comparison`` (≪ 小于 约等于 大于 ≫), ``count`` (个数相同 / 必须相等
/ 可以不同) and ``condition`` (只要 / 只有当 / 当且仅当) only made a changed word ``unparsed``: no
law was searched, so a true sentence was not verified by them and a false one got no
counterexample. Each is a law here (specs: :mod:`.specs_relations`):

- ``quantity-compare``: every value of a named quantity of a drawn score vector (exp(s),
  softmax(s), sigmoid(s), tanh(s), the loss -ln p_y, the entropy) stands in the stated
  relation to the stated constant (0 or 1). 约等于 is within 5% (of the larger size, or 0.05
  of 0); ≪ / ≫ are an order of magnitude apart on the constant's scale (1 for 0: 10 ≫ 1,
  9 ≫ 0, 0.1 ≪ 1);
- ``shapes-agree``: an operation on two sizes (a matrix product's inner sizes, a dot
  product's lengths, a residual sum's widths) is defined exactly when the sizes are equal
  (torch is asked); "可以不同" states that it is defined whatever the sizes, and fails with
  the sizes that break it;
- ``component-condition``: a trait of a component under a condition word: sufficient (the
  trait holds on the component, searched), necessary (the contrasted component lacks it, on
  seeded inputs), iff (both);
- ``component-cause``: 因为 A，所以 B. The cause A is a word of class ``reason``; it must hold
  on the component named (its premise trait, :data:`REASONS`, searched), B must hold, and A
  must be a known reason for B in the table: "因为减去了均值，所以缩放不变" fails (subtracting
  the mean explains shift invariance only), a cause outside the class is ``unparsed``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import assume
from hypothesis import strategies as st

from tinygpt.model import softmax
from verifiers.properties.base import Law, fail, law
from verifiers.properties.laws_components import component_output, trait_problem
from verifiers.properties.strategies import F64, floats, show

#: relation -> (test of a against b, the words of a message)
RELATIONS: dict[str, tuple[Callable[[float, float], bool], str]] = {
    "less": (lambda a, b: a < b, "less than"),
    "greater": (lambda a, b: a > b, "greater than"),
    "approx": (lambda a, b: abs(a - b) <= 0.05 * max(abs(a), abs(b), 1.0), "about equal to"),
    # an order of magnitude apart, on the constant's scale (1 for 0): 10 ≫ 1, 9 ≫ 0, 0.1 ≪ 1
    "much_less": (lambda a, b: b - a >= 0.9 * max(abs(b), 1.0), "much less than"),
    "much_greater": (lambda a, b: a - b >= 9 * max(abs(b), 1.0), "much greater than"),
}
BOUNDS = {"zero": 0.0, "one": 1.0}


def _loss(s: torch.Tensor, y: int) -> torch.Tensor:
    return -torch.log(softmax(s.unsqueeze(0))[0, y]).reshape(1)


def _entropy(s: torch.Tensor, y: int) -> torch.Tensor:
    p = softmax(s.unsqueeze(0))[0]
    return -(p * torch.log(p.clamp_min(1e-300))).sum().reshape(1)


#: quantity -> its values on a score vector s with target y (tinygpt's softmax, torch's rest)
QUANTITIES: dict[str, Callable[[torch.Tensor, int], torch.Tensor]] = {
    "exp": lambda s, y: torch.exp(s),
    "softmax": lambda s, y: softmax(s.unsqueeze(0))[0],
    "sigmoid": lambda s, y: torch.sigmoid(s),
    "tanh": lambda s, y: torch.tanh(s),
    "loss": _loss,
    "entropy": _entropy,
}


def compare_problem(values: torch.Tensor, relation: str, bound: float) -> str | None:
    """The first value that breaks the relation, said in words (None: all hold)."""
    test, said = RELATIONS[relation]
    for k, v in enumerate(values.tolist()):
        if not test(float(v), bound):
            return f"value {k} is {show(float(v), 8)}, not {said} {show(bound)}"
    return None


@law("quantity-compare")
def _quantity_compare(p: Mapping[str, Any]) -> Law:
    name, relation, bound = p["quantity"], p["relation"], BOUNDS[p["bound"]]

    @st.composite
    def draw(dr: st.DrawFn) -> dict[str, Any]:
        n = dr(st.integers(1, p["max_len"]))
        s = torch.tensor(dr(st.lists(floats(-p["scale"], p["scale"]), min_size=n,
                                     max_size=n)), dtype=F64)
        return {"s": s, "y": dr(st.integers(0, n - 1))}

    def check(ex: dict[str, Any], f: Callable[[str, torch.Tensor, int], torch.Tensor]) -> None:
        problem = compare_problem(f(name, ex["s"], ex["y"]), relation, bound)
        if problem is not None:
            fail(f"{name} of the scores {show(ex['s'])} (target {ex['y']}): {problem}")
    return Law(draw(), check, {"tinygpt / torch": quantity_values})


def quantity_values(name: str, s: torch.Tensor, y: int) -> torch.Tensor:
    """The named quantity's values on scores ``s`` (the implementation under test)."""
    with torch.no_grad():
        return QUANTITIES[name](s, y)


def _apply(operation: str, a: int, b: int) -> None:
    """Run the operation on sizes a and b (raises when torch finds it undefined)."""
    g = torch.Generator().manual_seed(a * 31 + b)
    if operation == "matmul":  # (2 x a)(b x 3)
        torch.randn(2, a, generator=g, dtype=F64) @ torch.randn(b, 3, generator=g, dtype=F64)
    elif operation == "dot":  # q · k
        torch.dot(torch.randn(a, generator=g, dtype=F64), torch.randn(b, generator=g, dtype=F64))
    elif operation == "add":  # X + F(X): an n x a matrix plus an n x b one
        torch.randn(2, a, generator=g, dtype=F64) + torch.randn(2, b, generator=g, dtype=F64)
    else:
        raise ValueError(f"unknown operation {operation!r}")


def defined(operation: str, a: int, b: int) -> bool:
    """Does torch compute the operation on these sizes (the implementation under test)?"""
    try:
        _apply(operation, a, b)
    except RuntimeError:
        return False
    return True


@law("shapes-agree")
def _shapes_agree(p: Mapping[str, Any]) -> Law:
    """``same``: defined exactly when the sizes are equal; ``different`` (可以不同): defined
    whatever the sizes, so two sizes that differ and break it are the counterexample."""
    operation, same = p["operation"], p["count"] == "same"
    sizes = st.integers(2, p["max_size"])  # 1 broadcasts in a sum: not a size that agrees

    def check(ex: tuple[int, int], f: Callable[[str, int, int], bool]) -> None:
        a, b = ex
        ok = f(operation, a, b)
        if ok != (a == b or not same):
            fail(f"{operation} of sizes {a} and {b} is {'defined' if ok else 'undefined'}, "
                 f"yet the sentence says the sizes {'must agree' if same else 'may differ'}")
    return Law(st.tuples(sizes, sizes), check, {"torch": defined},
               examples=((2, 3), (3, 3)))


#: seeded inputs for a necessity check (the contrasted component must lack the trait on one)
NECESSITY_INPUTS = 48


@functools.cache
def _seeded_examples(n: int, d: int, bound: float) -> tuple[dict[str, Any], ...]:
    g = torch.Generator().manual_seed(2026 + 7 * n + d)
    out = []
    for k in range(NECESSITY_INPUTS):
        x = (torch.rand(n, d, generator=g, dtype=F64) * 2 - 1) * bound
        out.append({"x": x, "x2": (torch.rand(n, d, generator=g, dtype=F64) * 2 - 1) * bound,
                    "c": bound / 2, "a": 2.0, "delta": 0.5, "i": k % n, "j": k % d,
                    "perm": list(reversed(range(n)))})
    return tuple(out)


def necessity_problem(trait: str, contrast: str, bound: float) -> str | None:
    """None when the contrasted component lacks the trait on a seeded input; else why the
    condition is not necessary."""
    for n, d in ((3, 3), (4, 2), (2, 4)):
        for ex in _seeded_examples(n, d, bound):
            if trait_problem(trait, contrast, component_output, ex) is not None:
                return None
    return (f"{contrast} is also {trait.replace('_', ' ')} on {NECESSITY_INPUTS * 3} seeded "
            "inputs: the condition is not necessary")


@st.composite
def _component_inputs(dr: st.DrawFn, p: Mapping[str, Any]) -> dict[str, Any]:
    """One input of a component law (the names ``trait_problem`` reads): X and a second X,
    a shift, a scale, a step, a row, a column and a permutation of the rows."""
    n = dr(st.integers(1, p["max_len"]))
    d = dr(st.integers(2, p["max_width"]))
    rows = st.lists(st.lists(floats(-p["bound"], p["bound"]), min_size=d, max_size=d),
                    min_size=n, max_size=n)
    x = torch.tensor(dr(rows), dtype=F64)
    assume(bool((x.var(dim=-1, unbiased=False) >= 0.25).all()))  # as laws_components
    return {"x": x, "x2": torch.tensor(dr(rows), dtype=F64),
            "c": dr(floats(-p["bound"], p["bound"])), "a": dr(floats(0.5, 3.0)),
            "delta": dr(floats(0.01, 1.0)), "i": dr(st.integers(0, n - 1)),
            "j": dr(st.integers(0, d - 1)), "perm": dr(st.permutations(range(n)))}


@law("component-condition")
def _component_condition(p: Mapping[str, Any]) -> Law:
    """The trait on the component named (sufficiency, searched), and not on the contrasted
    one (necessity, seeded); which of the two per the condition word."""
    name, trait, condition = p["component"], p["trait"], p["condition"]
    need = condition in ("necessary", "iff")
    suffice = condition in ("sufficient", "iff")
    if need and p["contrast"] == name:
        raise ValueError("contrast must name another component than the condition")
    not_needed = necessity_problem(trait, p["contrast"], p["bound"]) if need else None

    def check(ex: dict[str, Any], f: Callable[[str, torch.Tensor], torch.Tensor]) -> None:
        if not_needed is not None:
            fail(f"the sentence says {trait.replace('_', ' ')} needs {name}: {not_needed}")
        if suffice:
            problem = trait_problem(trait, name, f, ex)
            if problem is not None:
                fail(f"{name} is not {trait.replace('_', ' ')} on X = {show(ex['x'])}: "
                     f"{problem}")
    return Law(_component_inputs(p), check, {"tinygpt / torch component": component_output})


#: cause -> (the trait it states of the component, the traits it is a known reason for)
REASONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "common_factor": ("shift_invariant", ("shift_invariant",)),
    "mean_removed": ("mean_zero", ("shift_invariant", "mean_zero")),
    "spread_divided": ("unit_variance", ("scale_invariant", "unit_variance")),
    "sum_divided": ("sums_to_one", ("sums_to_one",)),
    "exp_positive": ("positive", ("positive", "nonneg")),
    "own_row": ("per_position", ("per_position", "causal")),
    "future_masked": ("causal", ("causal",)),
}


@law("component-cause")
def _component_cause(p: Mapping[str, Any]) -> Law:
    """The cause's premise and the conclusion, searched on the component named; a cause that
    is no known reason for the conclusion fails on every example."""
    name, because, so = p["component"], p["because"], p["so"]
    premise, explains = REASONS[because]
    unknown = None if so in explains else (
        f"{because.replace('_', ' ')} is no known reason for {so.replace('_', ' ')} (it "
        f"explains {', '.join(e.replace('_', ' ') for e in explains)})")

    def check(ex: dict[str, Any], f: Callable[[str, torch.Tensor], torch.Tensor]) -> None:
        if unknown is not None:
            fail(f"因为 … 所以: {unknown}")
        for trait, role in ((premise, "the cause"), (so, "the conclusion")):
            problem = trait_problem(trait, name, f, ex)
            if problem is not None:
                fail(f"{role}: {name} is not {trait.replace('_', ' ')} on X = "
                     f"{show(ex['x'])}: {problem}")
    return Law(_component_inputs(p), check, {"tinygpt / torch component": component_output})
