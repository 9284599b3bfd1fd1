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
import re
from collections.abc import Callable
from typing import Any

import sympy
import torch
from sympy.core.function import AppliedUndef

from verifiers.formulas.plain import read_plain
from verifiers.formulas.plain_refs import PLAIN_REFERENCES
from verifiers.formulas.quote_refs import QUOTE_REFERENCES
from verifiers.formulas.shape_words import read_shape_words
from verifiers.formulas.standard_refs import STANDARD_REFERENCES
from verifiers.formulas.tinygpt_refs import DTYPE, Instance, Reference, Unread
from verifiers.formulas.tinygpt_refs import REFERENCES as _LATEX_REFERENCES
from verifiers.latex import LatexError, parse_latex, split_chains

__all__ = ["REFERENCES", "Reference", "reference_value"]

SEEDS = (0, 1)
REFERENCES: dict[str, Reference] = {**_LATEX_REFERENCES, **PLAIN_REFERENCES, **QUOTE_REFERENCES,
                                    **STANDARD_REFERENCES}
_Unread = Unread  # the formula cannot be evaluated on the reference's inputs


class _Shape(ValueError):
    """Sizes that do not fit (a product ``W h`` of a row ``h``): the formula is wrong."""


def _value(expr: Any, inst: Instance) -> Any:
    """The value of a read side on the instance (tensors, floats; products in order)."""
    if isinstance(expr, sympy.Symbol):
        base, _, index = expr.name.rpartition("_")  # ℓ_{j} at entry j of P_{j} = …: ℓ's entry
        if expr.name not in inst.env and index in inst.entries and base in inst.env:
            return inst.env[base][int(inst.env[index]) - 1]
        if expr.name not in inst.env:
            raise _Unread(f"{expr.name} is not an input of the reference")
        return inst.env[expr.name]
    if expr is sympy.oo or expr is sympy.S.NegativeInfinity:
        return float(expr)
    if isinstance(expr, sympy.Number):
        return float(expr)
    if isinstance(expr, sympy.Indexed):  # a_{i j}, v_{j}, p_{i, t_{i + 1}}: 1-based entries
        base = expr.base.label.name
        if base not in inst.env:
            raise _Unread(f"{base} is not an input of the reference")
        at = tuple(int(_value(k, inst)) - 1 for k in expr.indices)
        return inst.env[base][at]
    if isinstance(expr, sympy.Sum):
        return _sum(expr, inst)
    if (isinstance(expr, AppliedUndef) and expr.func.__name__ == "card") or (
            isinstance(expr, sympy.Abs) and isinstance(inst.env.get(
                getattr(expr.args[0], "name", "")), list)):  # |I|: the size of a set
        return float(len(inst.env[expr.args[0].name]))
    if isinstance(expr, sympy.Add):
        out = _value(expr.args[0], inst)
        for a in expr.args[1:]:
            try:
                out = out + _value(a, inst)
            except RuntimeError as err:  # a sum of two sizes: the formula is wrong
                raise _Shape(f"the sum cannot be formed ({err})") from None
        return out
    if isinstance(expr, sympy.Mul):
        out: Any = None
        for a in expr.args:
            v = _value(a, inst)
            tensors = isinstance(out, torch.Tensor) and isinstance(v, torch.Tensor)
            both = tensors and out.dim() == 2 and v.dim() == 2
            dot = tensors and out.dim() == 1 and v.dim() in (1, 2)  # q \cdot k; x_{j} W_{V}
            try:
                out = v if out is None else (out @ v if both or dot else out * v)
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
            if cond is sympy.true or _holds(cond, inst):
                return _value(value, inst)
        raise _Unread("no case of the cases holds")
    if isinstance(expr, sympy.exp):
        return torch.exp(torch.as_tensor(_value(expr.args[0], inst), dtype=DTYPE))
    if isinstance(expr, sympy.log):
        return torch.log(torch.as_tensor(_value(expr.args[0], inst), dtype=DTYPE))
    if isinstance(expr, AppliedUndef):
        name = expr.func.__name__
        if name in ("Concat", "concat"):
            return torch.cat(_listed(expr.args, inst), dim=-1)
        if name == "given" and "given" in inst.calls:  # P (黑便 ∣ 前文): the reference reads it
            return inst.calls["given"](*expr.args)
        dots = any(isinstance(a, AppliedUndef) and a.func.__name__ == "ellipsis"
                   for a in expr.args)  # F_{θ} (x_{1}, \dots, x_{i}): the run written out
        args = _listed(expr.args, inst) if dots else [_value(a, inst) for a in expr.args]
        if name == "transpose" and len(args) == 1:
            return args[0].T
        if name == "entry" and len(args) == 3 and isinstance(args[0], torch.Tensor):
            return args[0][int(args[1]) - 1, int(args[2]) - 1]  # a_{i j} (X)
        if name == "entry" and len(args) == 2 and isinstance(args[0], torch.Tensor):
            return args[0][int(args[1]) - 1:int(args[1])]  # F (X)_{3}: row 3 of the value
        if name == "softmax" and len(args) == 1:
            return torch.softmax(args[0], dim=-1)
        if name in inst.calls:
            return inst.calls[name](*args)
        raise _Unread(f"the function {name} is not one of the reference's")
    raise _Unread(f"{type(expr).__name__} is not evaluated here")


_RELATIONS: dict[type, Callable[[float, float], bool]] = {
    sympy.Eq: lambda a, b: a == b, sympy.Ne: lambda a, b: a != b,
    sympy.Lt: lambda a, b: a < b, sympy.Le: lambda a, b: a <= b,
    sympy.Gt: lambda a, b: a > b, sympy.Ge: lambda a, b: a >= b}


_INEQUALITIES: dict[str, Callable[[float, float], bool]] = {
    ">": _RELATIONS[sympy.Gt], "\\gt": _RELATIONS[sympy.Gt], "<": _RELATIONS[sympy.Lt],
    "\\lt": _RELATIONS[sympy.Lt], "≥": _RELATIONS[sympy.Ge], "\\geq": _RELATIONS[sympy.Ge],
    "\\ge": _RELATIONS[sympy.Ge], "≤": _RELATIONS[sympy.Le], "\\leq": _RELATIONS[sympy.Le],
    "\\le": _RELATIONS[sympy.Le]}


def _holds(cond: Any, inst: Instance) -> bool:
    """A condition of cases or of ``\\sum_{i : t_{i} = w}``, on the instance's values."""
    test = _RELATIONS.get(type(cond))
    if test is None:
        raise _Unread(f"the condition {cond} is not a relation")
    return bool(test(float(_value(cond.lhs, inst)), float(_value(cond.rhs, inst))))


def _listed(args: tuple[Any, ...], inst: Instance) -> list[Any]:
    """The values of an argument list, an ellipsis written out between its neighbours:
    ``Z^{(1)}, \\dots, Z^{(H)}`` is ``Z^{(1)}, Z^{(2)}, …, Z^{(H)}`` with the reference's H."""
    out: list[Any] = []
    for k, arg in enumerate(args):
        if not (isinstance(arg, AppliedUndef) and arg.func.__name__ == "ellipsis"):
            out.append(_value(arg, inst))
            continue
        before, after = (getattr(args[k + d], "name", "") if 0 <= k + d < len(args) else ""
                         for d in (-1, 1))
        mark = "^(" if "^(" in before else "_"  # Z^{(1)} … Z^{(H)}, head_{1} … head_{h}
        head, _, first = before.rpartition(mark)
        head2, _, last = after.rpartition(mark)
        if not head or head != head2 or not first.rstrip(")").isdigit():
            raise _Unread(f"the ellipsis between {before!r} and {after!r} is not a run")
        stop = inst.env.get(last.rstrip(")"), last.rstrip(")"))
        close = ")" if mark == "^(" else ""
        for h in range(int(first.rstrip(")")) + 1, int(stop)):
            out.append(_value(sympy.Symbol(f"{head}{mark}{h}{close}"), inst))
    return out


def _sum(expr: Any, inst: Instance) -> Any:
    """``\\sum_{j = 1}^{n}``, ``\\sum_{j}`` (over the reference's ``N``), ``\\sum_{i \\in I}``
    (over the members of the reference's set ``I``)."""
    (index, lo, hi), = expr.limits
    if isinstance(hi, AppliedUndef) and hi.func.__name__ == "card":  # i ∈ I
        members = [int(m) for m in inst.env[hi.args[0].name]]
    else:
        upper = inst.env["N"] if getattr(hi, "name", "") == "N_sum" else _value(hi, inst)
        members = list(range(int(_value(lo, inst)), int(upper) + 1))
    total: Any = 0.0
    for m in members:
        total = total + _value(expr.function, Instance({**inst.env, index.name: m}, {},
                                                       inst.calls, inst.grads, inst.entries))
    return total


def _name_of(text: str, ref: Reference) -> Any:
    try:
        return parse_latex(text, matrices=ref.matrices, functions=ref.functions)
    except LatexError:
        return None


_IN = r"\\in(?![A-Za-z])"  # \in, not the start of \infty
_SPACE_R = r"\\mathbb\s*\{\s*R\s*\}|\\mathbb\s*R|ℝ"  # the reals, written R by the reader


def _shape(text: str, ref: Reference, inst: Instance) -> tuple[str, str] | None:
    """``M \\in R^{a \\times b}``: the reference's M has a rows and b columns (a, b evaluated
    on the reference's sizes); (the statement, how it differs) when it does not."""
    cut = re.search(_IN, text)
    name, space = (text[:cut.start()], text[cut.end():]) if cut else (text, "")
    space = re.sub(_SPACE_R, "R", space.strip())  # \mathbb{R}^{1\times d}, ℝ^d: R^{…}
    if len(space) > 2 and space.startswith("R^") and space[2] != "{":
        space = f"R^{{{space[2:]}}}"  # R^d, R^V: one size without braces
    if not (space.startswith("R^{") and space.endswith("}")):
        raise _Unread(f"{text!r} is not a shape M \\in R^{{a \\times b}} or v \\in R^{{d}}")
    sizes = [parse_latex(d, functions=ref.functions) for d in space[3:-1].split("\\times")]
    try:
        matrix = _value(parse_latex(name, matrices=ref.matrices, functions=ref.functions), inst)
    except _Shape as err:  # Q K \in R^{n \times n}: the product cannot be formed
        return text, str(err)
    want = tuple(int(_value(d, inst)) for d in sizes)
    got = tuple(matrix.shape)
    if len(want) == 1 and len(got) == 2 and got[0] == 1:  # a row 1×d is also "in R^d"
        got = got[1:]
    return None if got == want else (text, f"the reference's matrix is {got}, the formula "
                                           f"says {want}")


def _key(lhs: Any) -> str:
    if isinstance(lhs, AppliedUndef) and lhs.func.__name__ == "given":  # P (a ∣ b): P
        return _key(lhs.args[0])
    if isinstance(lhs, sympy.Derivative):  # ∂L/∂z = …
        return f"Derivative({lhs.expr}, {lhs.variables[0]})"
    if isinstance(lhs, AppliedUndef):
        return lhs.func.__name__
    return getattr(lhs, "name", str(lhs))


def _same(got: torch.Tensor, want: torch.Tensor) -> bool:
    """Entries that are not finite agree: the same infinity, or both NaN (∞/∞ is NaN)."""
    return bool(((got == want) | (got.isnan() & want.isnan())).all())


def _differs(got: Any, want: torch.Tensor) -> str | None:
    got = torch.as_tensor(got, dtype=DTYPE)
    if got.shape != want.shape:
        return f"shape {tuple(got.shape)}, tinygpt's {tuple(want.shape)}"
    finite = torch.isfinite(want)
    if not torch.equal(torch.isfinite(got), finite) or not _same(got[~finite], want[~finite]):
        return "infinite entries differ"
    if not bool(finite.any()):
        return None
    gap = float((got[finite] - want[finite]).abs().max())
    scale = 1.0 + float(want[finite].abs().max())
    return None if gap <= 1e-9 * scale else f"largest difference {gap:.3g}"


def _check(chains: list[list[str]], ref: Reference, inst: Instance,
           shape: tuple[int, int] | None = None) -> tuple[str, str] | None:
    """(left side, how it differs) for the first chain that disagrees; None when all agree.
    ``shape``: the sizes a plain-text annotation ``→ a×b`` states for the last chain."""
    pending: list[str] = []  # Q, K \in R^{…}: names that share the next shape
    for n, chain in enumerate(chains):
        cut = re.search(_IN, chain[0]) if len(chain) == 1 else None
        if cut is not None:  # W_{O} \in R^{H d_{v} \times d}: a shape
            space = chain[0][cut.end():]
            for text in [*(f"{name} \\in{space}" for name in pending), chain[0]]:
                found = _shape(text, ref, inst)
                if found is not None:
                    return found
            pending = []
            continue
        if len(chain) == 1 and isinstance(_name_of(chain[0], ref), sympy.Symbol):
            pending.append(chain[0])
            continue
        chain = [chain[0].rsplit("⟶", 1)[-1].strip(), *chain[1:]]  # x_{i} ⟶ z_{i} = …: z_{i}
        if len(chain) == 1 and len(inst.expected) != 1:
            raise _Unread(f"{chain[0]!r} is neither a definition 'left = right' nor a shape")
        if len(chain) == 1:  # a bare expression: the reference's one value
            chain = [next(iter(inst.expected)), "=", chain[0]]
            lhs = sympy.Symbol(chain[0])
        else:
            lhs = parse_latex(chain[0], matrices=ref.matrices, functions=ref.functions)
        key = _key(lhs)
        if key in inst.each:  # head_i = …: every member of the family, on its own inputs
            for over, want in inst.each[key]:
                member = Instance({**inst.env, **over}, {key: want}, inst.calls, inst.grads)
                found = _check([chain], ref, member, shape)
                if found is not None:
                    at = ", ".join(f"{k} = {v}" for k, v in over.items() if isinstance(v, int))
                    return found[0], f"{found[1]} (at {at})"
            continue
        if key not in inst.expected:
            raise _Unread(f"{chain[0]} is not what the reference computes "
                          f"({', '.join(sorted(inst.expected))})")
        want = inst.expected[key]
        for side in chain[2::2]:
            expr = parse_latex(side, matrices=ref.matrices, functions=ref.functions)
            if inst.entries:  # M_{i j} = … (every entry), E̅_{w, :} = … (every row): from 1
                got = torch.empty_like(want)
                for at in itertools.product(*(range(n) for n in want.shape[:len(inst.entries)])):
                    env = {**inst.env, **{n: k + 1 for n, k in zip(inst.entries, at,
                                                                   strict=True)}}
                    got[at] = torch.as_tensor(
                        _value(expr, Instance(env, {}, inst.calls, inst.grads, inst.entries)),
                        dtype=DTYPE)
            else:
                try:
                    got = _value(expr, inst)
                except _Shape as err:
                    return f"{chain[0]} = {side}", str(err)
            differs = _differs(got, want)
            if differs is not None:
                return f"{chain[0]} = {side}", differs
        if shape is not None and n == len(chains) - 1 and tuple(want.shape) != shape:
            return (f"{chain[0]} → {shape[0]}×{shape[1]}", f"the formula says {shape[0]}×"
                    f"{shape[1]}, tinygpt's value is {'×'.join(map(str, want.shape))}")
        inst.env[key] = want  # a later chain may use it (ℓ_{i} = …, p_{i} = softmax (ℓ_{i}))
    if pending:
        raise _Unread(f"{', '.join(pending)}: a name with no shape or definition after it")
    return None


def _condition(chains: list[list[str]], ref: Reference, inst: Instance) -> str | None:
    """How a printed condition ``left > right`` misses the reference's case: it must hold on
    every instance of the case and fail on every other instance (None when it does)."""
    if len(chains) != 1 or len(chains[0]) != 3:
        raise _Unread("a condition is one relation 'left > right'")
    left, mark, right = chains[0]
    test = _INEQUALITIES.get(mark.strip())
    if test is None:
        raise _Unread(f"{mark!r} is not an inequality")
    sides = [parse_latex(t, matrices=ref.matrices, functions=ref.functions) for t in (left, right)]
    for env, grads, must in inst.truths:
        at = Instance(env, {}, inst.calls, grads)
        a, b = (float(_value(side, at)) for side in sides)
        if test(a, b) != must:
            where = "holds" if not must else "fails"
            return (f"{left} {mark} {right} {where} at {left} = {a:.3g}, "
                    f"where tinygpt's update {'does not move' if not must else 'moves'} w that way")
    return None


def reference_value(claim: Any, hole: str, printed: Any, note: Any) -> Any:
    """The claim's value for formula hole ``hole``, checked against its tinygpt reference."""
    from verifiers.verdicts import DISCREPANCY, ERROR, UNPARSED, VERIFIED, ValueVerdict

    name = claim.reference[hole]
    ref = REFERENCES.get(name)

    def value(status: str, message: str) -> ValueVerdict:
        return ValueVerdict(name=hole, printed=printed.text, expected=ref.what if ref else name,
                            status=status, start=note.position(printed.start),
                            end=note.position(printed.end), message=f"{hole}: {message}",
                            suggestion=None)

    if ref is None:
        return value(ERROR, f"reference: unknown {name!r}; one of {', '.join(sorted(REFERENCES))}")

    try:
        # a shape in words (E为N×d) is the shape formula it states; plain-text math in the
        # reader's notation
        text, shape = read_plain(read_shape_words(printed.text) or printed.text)
        chains = split_chains(text)
        if ref.make(SEEDS[0]).truths:  # a printed condition, judged where tinygpt says it holds
            for seed in SEEDS:
                found = _condition(chains, ref, ref.make(seed))
                if found is not None:
                    return value(DISCREPANCY, f"{found}: on the reference's inputs (seed {seed}) "
                                 f"it does not state {ref.what}")
            return value(VERIFIED, f"holds exactly in {ref.what}, on {len(SEEDS)} sets of "
                         "random instances")
        if any(r != "=" for c in chains for r in c[1::2]):
            return value(UNPARSED, "a reference formula is a definition 'left = right'")
        for seed in SEEDS:
            found = _check(chains, ref, ref.make(seed), shape)
            if found is not None:
                return value(DISCREPANCY, f"{found[0]}: on the reference's inputs (seed {seed}) "
                             f"it differs from {ref.what}: {found[1]}")
    except (LatexError, _Unread) as err:
        return value(UNPARSED, f"cannot evaluate the formula against {ref.what}: {err}")
    except (IndexError, KeyError, TypeError, RuntimeError, ValueError, ZeroDivisionError) as err:
        # an entry out of range (v_{99}), a name of the wrong kind: said, never a traceback
        return value(UNPARSED, f"cannot evaluate the formula against {ref.what}: "
                     f"{type(err).__name__}: {err}")
    return value(VERIFIED, f"agrees with {ref.what} on {len(SEEDS)} random instances")
