"""A LaTeX definition the note prints, evaluated on an instance and compared with tinygpt.

Many formulas of a note are definitions printed once -- ``FFN (x) = σ (x W_{1} + b_{1})
W_{2} + b_{2}``, the causal mask ``M_{i j}``, the output layer ``ℓ = h_{n} W_{out} + b``, the
update ``W_{Q}^{new} = W_{Q}^{old} - η \\frac{\\partial L}{\\partial W_{Q}}`` -- that no step of
the note uses, so an edit of one (a flipped sign, a dropped bias, a swapped product) went
unseen. What checks them is the program the note describes: a symbolic claim names such a
formula hole with ``reference: {F: tinygpt-ffn}``. The hole is read by the LaTeX reader (so a
formula it cannot read is ``unparsed``), every chain ``left = right`` of it is evaluated on the
reference's inputs (random matrices of a fixed seed; names are matrices, so products keep
their order) and compared with what tinygpt computes from the same inputs
(:data:`REFERENCES`): a value that differs is a ``discrepancy`` at the formula, naming the
left side and the largest difference. No eval: the evaluator walks the SymPy tree
(``+``, ordered products, ``^{T}``, ``^{-1}`` and ``\\sqrt`` of numbers, ``\\exp``/``\\ln``,
``softmax`` by rows, the reference's functions, ``∂L/∂W`` as the reference's gradient, and
``\\begin{cases}`` on index values for a definition by entries such as ``M_{i j}``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch
from sympy.core.function import AppliedUndef

from verifiers.latex import LatexError, parse_latex, split_chains

__all__ = ["REFERENCES", "Reference", "reference_value"]

DTYPE = torch.float64
SEEDS = (0, 1)


class _Unread(ValueError):
    """The formula cannot be evaluated on the reference's inputs."""


class _Shape(ValueError):
    """Sizes that do not fit (a product ``W h`` of a row ``h``): the formula is wrong."""


@dataclass(frozen=True)
class Instance:
    """Inputs (reader names -> tensors or numbers), functions, and tinygpt's values."""

    env: dict[str, Any]
    expected: dict[str, Any]  # left side's reader name -> tinygpt's value
    calls: dict[str, Callable[..., Any]] = field(default_factory=dict)
    grads: dict[str, Any] = field(default_factory=dict)  # W -> ∂L/∂W
    entries: tuple[str, ...] = ()  # index names of a definition by entries (M_{i j})


@dataclass(frozen=True)
class Reference:
    what: str  # what tinygpt computes, for messages
    matrices: tuple[str, ...]  # names read as matrices (ordered products)
    functions: tuple[str, ...]
    make: Callable[[int], Instance]


def _randn(g: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=DTYPE)


# --------------------------------------------------------------------------- references


def _ffn(seed: int) -> Instance:
    from tinygpt.model import ffn, gelu

    g = torch.Generator().manual_seed(seed)
    x, w1, b1, w2, b2 = (_randn(g, *s) for s in ((2, 3), (3, 4), (1, 4), (4, 3), (1, 3)))
    out = ffn(x, w1, b1, w2, b2, activation="gelu")
    return Instance({"x": x, "W_1": w1, "b_1": b1, "W_2": w2, "b_2": b2}, {"FFN": out},
                    {"sigma": gelu})


def _mask(seed: int) -> Instance:
    from tinygpt.model import causal_mask

    n = 3 + seed
    allowed = causal_mask(n, n)
    additive = torch.where(allowed, torch.tensor(0.0, dtype=DTYPE),
                           torch.tensor(float("-inf"), dtype=DTYPE))
    return Instance({}, {"M_ij": additive}, entries=("i", "j"))


def _sgd(names: tuple[str, ...], old: Callable[[str], str]) -> Callable[[int], Instance]:
    """``W^{new} = W^{old} - η ∂L/∂W`` for each W of ``names``: tinygpt.sgd_step."""
    def make(seed: int) -> Instance:
        from tinygpt.model import sgd_step

        g = torch.Generator().manual_seed(seed)
        params = {n: _randn(g, 2, 3) for n in names}
        grads = {n: _randn(g, 2, 3) for n in names}
        lr = 0.1 + 0.05 * seed
        new = sgd_step(params, grads, lr)
        env: dict[str, Any] = {old(n): params[n] for n in names}
        env["eta"] = lr
        return Instance(env, {f"{n}^new": new[n] for n in names}, grads=grads)
    return make


def _scalar_sgd(seed: int) -> Instance:
    from tinygpt.model import sgd_step

    w, grad, lr = torch.tensor(0.3 - seed, dtype=DTYPE), torch.tensor(-0.7 + seed, dtype=DTYPE), 0.1
    new = sgd_step({"w": w}, {"w": grad}, lr)["w"]
    return Instance({"w_old": w, "eta": lr}, {"w_new": new}, grads={"w": grad})


def _residual(seed: int) -> Instance:
    from tinygpt.model import _residual as residual

    g = torch.Generator().manual_seed(seed)
    x = _randn(g, 2, 3)
    w = _randn(g, 3, 3)

    def sublayer(v: torch.Tensor) -> torch.Tensor:
        return torch.tanh(v @ w)
    return Instance({"x": x}, {"x_new": residual(x, sublayer(x))}, {"F": sublayer})


def _model(seed: int) -> tuple[Any, dict[str, Any]]:
    from tinygpt.model import GPTConfig, TinyGPT

    config = GPTConfig(vocab_size=5, d_model=4, n_heads=1, d_k=4, d_v=4, n_layers=1,
                       positions="sinusoidal", out_bias=True)
    model = TinyGPT(config, seed=seed)
    with torch.no_grad():
        model.b.copy_(_randn(torch.Generator().manual_seed(seed + 7), 5))
        trace = model.forward_trace([1, 3, 0, 2])
    return model, trace


def _output_last(seed: int) -> Instance:
    """``ℓ = h_{n} W_{out} + b``: the last row of tinygpt's logits."""
    model, trace = _model(seed)
    h = trace["h"].detach()
    return Instance({"h_n": h[-1:], "W_out": model.U.detach(), "b": model.b.detach()[None, :]},
                    {"ell": trace["logits"].detach()[-1:]})


def _output_rows(seed: int) -> Instance:
    """``ℓ_{i} = h_{i} U + b, p_{i} = softmax (ℓ_{i})`` at the row i = 2."""
    model, trace = _model(seed)
    h = trace["h"].detach()
    return Instance({"h_i": h[1:2], "U": model.U.detach(), "b": model.b.detach()[None, :]},
                    {"ell_i": trace["logits"].detach()[1:2], "p_i": trace["p"].detach()[1:2]})


def _positions(seed: int) -> Instance:
    """``\\tilde{x}_{i} = x_{i} + p_{i}``: tinygpt's input row i = 2, the embedding row of its
    token plus the sinusoidal position vector."""
    from tinygpt.model import sinusoidal_positions

    model, trace = _model(seed)
    token = int(trace["tokens"][1])
    return Instance({"x_i": model.E.detach()[token:token + 1],
                     "p_i": sinusoidal_positions(4, 4)[1:2].to(DTYPE)},
                    {"xtilde_i": trace["x"].detach()[1:2]})


#: name -> what tinygpt computes, the names read as matrices, the functions, the instance maker
REFERENCES: dict[str, Reference] = {
    "tinygpt-ffn": Reference("tinygpt.model.ffn (GELU)", ("x", "W_1", "b_1", "W_2", "b_2"),
                             ("sigma", "FFN"), _ffn),
    "tinygpt-causal-mask": Reference("tinygpt.model.causal_mask (0 where allowed, −∞ else)",
                                     (), (), _mask),
    "tinygpt-sgd-old": Reference("tinygpt.model.sgd_step", ("W_Q", "W_Q^old"), (),
                                 _sgd(("W_Q",), lambda n: f"{n}^old")),
    "tinygpt-sgd": Reference("tinygpt.model.sgd_step", ("W_Q", "W_out"), (),
                             _sgd(("W_Q", "W_out"), lambda n: n)),
    "tinygpt-sgd-scalar": Reference("tinygpt.model.sgd_step on one scalar", (), (), _scalar_sgd),
    "tinygpt-residual": Reference("tinygpt's residual x + sublayer(x)", ("x",), ("F",),
                                  _residual),
    "tinygpt-output-last": Reference("tinygpt's logits h U + b, last row",
                                     ("h_n", "W_out", "b"), (), _output_last),
    "tinygpt-output-rows": Reference("tinygpt's logits h U + b and p = softmax of a row",
                                     ("h_i", "U", "b"), ("softmax",), _output_rows),
    "tinygpt-positions": Reference("tinygpt's input row (embedding + sinusoidal position)",
                                   ("x_i", "p_i", "xtilde_i"), (), _positions),
}


# --------------------------------------------------------------------------- evaluation


def _value(expr: Any, inst: Instance) -> Any:
    """The value of a read side on the instance (tensors, floats; products in order)."""
    if isinstance(expr, sympy.Symbol):
        if expr.name not in inst.env:
            raise _Unread(f"{expr.name} is not an input of the reference")
        return inst.env[expr.name]
    if expr is sympy.oo or expr is sympy.S.NegativeInfinity:
        return float(expr)
    if isinstance(expr, sympy.Number):
        return float(expr)
    if isinstance(expr, sympy.Add):
        out = _value(expr.args[0], inst)
        for a in expr.args[1:]:
            out = out + _value(a, inst)
        return out
    if isinstance(expr, sympy.Mul):
        out: Any = None
        for a in expr.args:
            v = _value(a, inst)
            both = isinstance(out, torch.Tensor) and isinstance(v, torch.Tensor) \
                and out.dim() == 2 and v.dim() == 2
            try:
                out = v if out is None else (out @ v if both else out * v)
            except RuntimeError as err:  # sizes that do not fit: the formula is wrong
                raise _Shape(f"the product cannot be formed ({err})") from None
        return out
    if isinstance(expr, sympy.Pow):
        base, exp = _value(expr.base, inst), expr.exp
        if isinstance(base, torch.Tensor) and base.dim() == 2 and exp != sympy.S.Half:
            raise _Unread("a power of a matrix")
        if exp == sympy.S.Half:
            return base ** 0.5
        return base ** float(exp)
    if isinstance(expr, sympy.Derivative):
        (var, _), = expr.variable_count
        name = getattr(var, "name", "")
        if getattr(expr.expr, "name", "") != "L" or name not in inst.grads:
            raise _Unread(f"no gradient ∂{expr.expr}/∂{var} in the reference")
        return inst.grads[name]
    if isinstance(expr, sympy.Piecewise):
        for value, cond in expr.args:
            if cond is sympy.true or bool(cond.subs({sympy.Symbol(n, real=True): inst.env[n]
                                                     for n in inst.entries})):
                return _value(value, inst)
        raise _Unread("no case of the cases holds")
    if isinstance(expr, sympy.exp):
        return torch.exp(torch.as_tensor(_value(expr.args[0], inst), dtype=DTYPE))
    if isinstance(expr, sympy.log):
        return torch.log(torch.as_tensor(_value(expr.args[0], inst), dtype=DTYPE))
    if isinstance(expr, AppliedUndef):
        name = expr.func.__name__
        args = [_value(a, inst) for a in expr.args]
        if name == "transpose" and len(args) == 1:
            return args[0].T
        if name == "softmax" and len(args) == 1:
            return torch.softmax(args[0], dim=-1)
        if name in inst.calls:
            return inst.calls[name](*args)
        raise _Unread(f"the function {name} is not one of the reference's")
    raise _Unread(f"{type(expr).__name__} is not evaluated here")


def _key(lhs: Any) -> str:
    if isinstance(lhs, AppliedUndef):
        return lhs.func.__name__
    return getattr(lhs, "name", str(lhs))


def _differs(got: Any, want: torch.Tensor) -> str | None:
    got = torch.as_tensor(got, dtype=DTYPE)
    if got.shape != want.shape:
        return f"shape {tuple(got.shape)}, tinygpt's {tuple(want.shape)}"
    finite = torch.isfinite(want)
    if not torch.equal(torch.isfinite(got), finite) or not torch.equal(got[~finite], want[~finite]):
        return "infinite entries differ"
    if not bool(finite.any()):
        return None
    gap = float((got[finite] - want[finite]).abs().max())
    scale = 1.0 + float(want[finite].abs().max())
    return None if gap <= 1e-9 * scale else f"largest difference {gap:.3g}"


def _check(chains: list[list[str]], ref: Reference, inst: Instance) -> tuple[str, str] | None:
    """(left side, how it differs) for the first chain that disagrees; None when all agree."""
    for chain in chains:
        lhs = parse_latex(chain[0], matrices=ref.matrices, functions=ref.functions)
        key = _key(lhs)
        if key not in inst.expected:
            raise _Unread(f"{chain[0]} is not what the reference computes "
                          f"({', '.join(sorted(inst.expected))})")
        want = inst.expected[key]
        for side in chain[2::2]:
            expr = parse_latex(side, matrices=ref.matrices, functions=ref.functions)
            if inst.entries:  # M_{i j} = …: every entry, the indices from 1
                got = torch.empty_like(want)
                for at in itertools.product(*(range(n) for n in want.shape)):
                    env = {**inst.env, **{n: k + 1 for n, k in zip(inst.entries, at,
                                                                   strict=True)}}
                    got[at] = float(_value(expr, Instance(env, {}, entries=inst.entries)))
            else:
                try:
                    got = _value(expr, inst)
                except _Shape as err:
                    return f"{chain[0]} = {side}", str(err)
            differs = _differs(got, want)
            if differs is not None:
                return f"{chain[0]} = {side}", differs
        inst.env[key] = want  # a later chain may use it (ℓ_{i} = …, p_{i} = softmax (ℓ_{i}))
    return None


def reference_value(claim: Any, hole: str, printed: Any, note: Any) -> Any:
    """The claim's value for formula hole ``hole``, checked against its tinygpt reference."""
    from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

    ref = REFERENCES[claim.reference[hole]]

    def value(status: str, message: str) -> ValueVerdict:
        return ValueVerdict(name=hole, printed=printed.text, expected=ref.what, status=status,
                            start=note.position(printed.start), end=note.position(printed.end),
                            message=f"{hole}: {message}", suggestion=None)

    try:
        chains = split_chains(printed.text)
        if any(len(c) < 3 or any(r != "=" for r in c[1::2]) for c in chains):
            return value(UNPARSED, "a reference formula is a definition 'left = right'")
        for seed in SEEDS:
            found = _check(chains, ref, ref.make(seed))
            if found is not None:
                return value(DISCREPANCY, f"{found[0]}: on the reference's inputs (seed {seed}) "
                             f"it differs from {ref.what}: {found[1]}")
    except (LatexError, _Unread) as err:
        return value(UNPARSED, f"cannot evaluate the formula against {ref.what}: {err}")
    return value(VERIFIED, f"agrees with {ref.what} on {len(SEEDS)} random instances")
