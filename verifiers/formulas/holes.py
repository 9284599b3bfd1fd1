"""A plain-text definition the note prints, evaluated and compared with tinygpt.

Some notes print a definition as plain text, entry by entry:
``Attention_Weight[i,j] = exp(score[i,j] / √d_k) / Σ_j exp(score[i,j] / √d_k)``. The LaTeX
reader does not read ``score[i,j]`` or a bare ``Σ_j``, so no claim read it, and a dropped root
in one of its two ``√d_k`` went unseen. A symbolic claim names such a formula hole with
``reference: {W: attention-weights}``: the hole is read here (:func:`read_definition`, a small
reader of its own: numbers, names, entries ``name[i,j]``, ``+ - * / × · ^``, unary minus,
``√atom``, ``Σ_j term``, ``exp ln log sqrt sin cos (…)`` and parentheses; no eval), evaluated
entry by entry on the reference's inputs and compared with what tinygpt computes from them
(:data:`REFERENCES`). A formula this reader cannot read is ``unparsed``; values that differ
are a ``discrepancy`` at the formula, naming the first entry, its inputs and both values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["REFERENCES", "Definition", "FormulaError", "entries", "read_definition",
           "reference_value"]


class FormulaError(ValueError):
    """A formula this reader cannot read (or evaluate on the reference's inputs)."""


_TOKEN = re.compile(r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<name>[A-Za-z][A-Za-z0-9_]*)"
                    r"|(?P<op>Σ_|[-+*/×·^()\[\],=√−]))")
_FUNCS: dict[str, Callable[[float], float]] = {
    "exp": math.exp, "ln": math.log, "log": math.log, "sqrt": math.sqrt, "sin": math.sin,
    "cos": math.cos}
_VECTOR_FUNCS = frozenset({"softmax"})  # of a whole vector: read, evaluated by chains.py
MAX_CHARS = 400


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip().rstrip("。.")
    if len(text) > MAX_CHARS:
        raise FormulaError(f"longer than {MAX_CHARS} characters")
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise FormulaError(f"cannot read {text[pos:pos + 12]!r} (column {pos})")
        kind = m.lastgroup or "op"
        value = m.group(kind)
        out.append((kind, "-" if value == "−" else value))
        pos = m.end()
    return out


# A read expression is a small tree of tuples: ("num", x), ("name", n), ("entry", n, idx),
# ("neg", e), ("bin", op, a, b), ("call", f, e), ("sum", index, e).


class _Reader:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.toks, self.i = tokens, 0

    def peek(self) -> tuple[str, str]:
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok[0] == "end" or (value is not None and tok[1] != value):
            raise FormulaError(f"expected {value or 'more'}, found {tok[1] or 'the end'!r}")
        self.i += 1
        return tok

    def expr(self) -> Any:
        node = self.term()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            node = ("bin", op, node, self.term())
        return node

    def term(self) -> Any:
        node = self.unary()
        while self.peek()[1] in ("*", "/", "×", "·"):
            op = self.take()[1]
            node = ("bin", "/" if op == "/" else "*", node, self.unary())
        return node

    def unary(self) -> Any:
        tok = self.peek()
        if tok[1] == "-":
            self.take()
            return ("neg", self.unary())
        if tok[1] == "√":
            self.take()
            return ("call", "sqrt", self.power())
        if tok[1] == "Σ_":
            self.take()
            index = self.take()
            if index[0] != "name":
                raise FormulaError("Σ_ needs an index name")
            return ("sum", index[1], self.unary())
        return self.power()

    def power(self) -> Any:
        base = self.atom()
        if self.peek()[1] == "^":
            self.take()
            return ("bin", "^", base, self.unary())
        return base

    def atom(self) -> Any:
        kind, value = self.take()
        if kind == "num":
            return ("num", float(value))
        if kind == "name":
            if (value in _FUNCS or value in _VECTOR_FUNCS) and self.peek()[1] == "(":
                self.take("(")
                inner = self.expr()
                self.take(")")
                return ("call", value, inner)
            if self.peek()[1] == "[":
                self.take("[")
                idx = [self.take()[1]]
                while self.peek()[1] == ",":
                    self.take(",")
                    idx.append(self.take()[1])
                self.take("]")
                return ("entry", value, tuple(idx))
            return ("name", value)
        if value == "(":
            inner = self.expr()
            self.take(")")
            return inner
        raise FormulaError(f"unexpected {value!r}")


@dataclass(frozen=True)
class Definition:
    """``name[i,j] = expression``: the defined name, its index names and the expression."""

    name: str
    indices: tuple[str, ...]
    body: Any


def read_definition(text: str) -> Definition:
    """Read ``name[i,j] = expression`` (plain text); FormulaError when it cannot."""
    toks = _tokens(text)
    reader = _Reader(toks)
    lhs = reader.atom()
    if lhs[0] not in ("entry", "name"):
        raise FormulaError("the left side is not a name or an entry name[i,j]")
    reader.take("=")
    body = reader.expr()
    if reader.peek()[0] != "end":
        raise FormulaError(f"unexpected {reader.peek()[1]!r} after the formula")
    return Definition(lhs[1], lhs[2] if lhs[0] == "entry" else (), body)


def evaluate(node: Any, env: dict[str, Any], index: dict[str, int], extent: int,
             at: int | None = None) -> float:
    """The value of a read expression; ``Σ_j`` runs j over ``range(extent)``. In a chain
    (chains.py) ``at`` is the entry being checked: a bare vector name is its entry there,
    and ``softmax(…)`` of a whole vector is evaluated over all ``extent`` entries."""
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "name":
        if node[1] in index:
            return float(index[node[1]])
        if node[1] not in env:
            raise FormulaError(f"{node[1]!r} is not an input of the reference "
                               f"({', '.join(sorted(env))})")
        value = env[node[1]]
        return float(value[at]) if at is not None and hasattr(value, "__len__") else float(value)
    if kind == "entry":
        if node[1] not in env:
            raise FormulaError(f"{node[1]!r} is not an input of the reference")
        try:
            where = tuple(index[i] for i in node[2])
        except KeyError as err:
            raise FormulaError(f"index {err.args[0]!r} is not bound here") from None
        return float(env[node[1]][where])
    if kind == "neg":
        return -evaluate(node[1], env, index, extent, at)
    if kind == "call" and node[1] in _VECTOR_FUNCS and at is not None:  # softmax of a vector
        row = [evaluate(node[2], env, index, extent, k) for k in range(extent)]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        return exps[at] / math.fsum(exps)
    if kind == "call":
        if node[1] not in _FUNCS:
            raise FormulaError(f"{node[1]} of a whole vector is read in a chain only")
        x = evaluate(node[2], env, index, extent, at)
        try:
            return _FUNCS[node[1]](x)
        except (ValueError, OverflowError) as err:
            raise FormulaError(f"{node[1]}({x:g}): {err}") from None
    if kind == "sum":
        return math.fsum(evaluate(node[2], env, {**index, node[1]: k}, extent, at)
                         for k in range(extent))
    a = evaluate(node[2], env, index, extent, at)
    b = evaluate(node[3], env, index, extent, at)
    op = node[1]
    try:
        return a + b if op == "+" else a - b if op == "-" else a * b if op == "*" \
            else a / b if op == "/" else a ** b
    except (ZeroDivisionError, OverflowError) as err:
        raise FormulaError(f"{a:g} {op} {b:g}: {err}") from None


# an index written as a subscript of a word or a call's argument: logits_i, P(token_i)
_CALL_ENTRY = re.compile(r"\b(?!(?:exp|ln|log|sqrt|sin|cos)\()([A-Za-z]\w*)"
                         r"\(\s*[A-Za-z]+_([ijk])\s*\)")
_WORD_ENTRY = re.compile(r"\b([A-Za-z][A-Za-z]+)_([ijk])\b")
_BARE_SUM = re.compile(r"Σ(?!_)\s*")


def entries(text: str) -> str:
    """A plain-text definition by entries in the notation of :mod:`verifiers.formulas.holes`:
    ``P(token_i) = exp(logits_i) / Σ exp(logits_j)`` is ``P[i] = exp(logits[i]) / Σ_j
    exp(logits[j])`` (a bare ``Σ`` sums over the one index its term adds)."""
    text = _CALL_ENTRY.sub(r"\1[\2]", text)
    text = _WORD_ENTRY.sub(r"\1[\2]", text)
    out, pos = [], 0
    for m in _BARE_SUM.finditer(text):
        rest = text[m.end():]
        index = re.search(r"\[([ijk])\]", rest)
        bound = set(re.findall(r"\[([ijk])\]", text[:m.start()]))
        if index is None or index.group(1) in bound:
            raise ValueError("a bare Σ whose index cannot be told")
        out.append(text[pos:m.start()] + f"Σ_{index.group(1)} ")
        pos = m.end()
    return "".join(out) + text[pos:]


# --------------------------------------------------------------------------- references


def _attention_weights(seed: int, n: int, d_k: int) -> tuple[dict[str, Any], Any]:
    """Inputs ``score = Q K^T`` (raw) and ``d_k``; tinygpt's attention weights."""
    import torch

    from tinygpt.model import attention

    g = torch.Generator().manual_seed(seed)
    q = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    k = torch.randn(n, d_k, generator=g, dtype=torch.float64)
    _, weights = attention(q, k, torch.zeros(n, 1, dtype=torch.float64))
    return {"score": (q @ k.T).numpy(), "d_k": d_k}, weights.numpy()


def _softmax_entries(seed: int, n: int, _: int) -> tuple[dict[str, Any], Any]:
    """Inputs ``logits`` (n values); tinygpt.softmax of them (the next-token distribution)."""
    import torch

    from tinygpt.model import softmax

    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, generator=g, dtype=torch.float64)
    return {"logits": logits.numpy()}, softmax(logits).numpy()


def _tempered(seed: int, n: int, _: int) -> tuple[dict[str, Any], Any]:
    """Inputs ``logits`` (n values) and a temperature ``T``; tinygpt's softmax of
    apply_temperature(logits, T), the sampling distribution."""
    import torch

    from tinygpt.generate import apply_temperature
    from tinygpt.model import softmax

    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(n, generator=g, dtype=torch.float64)
    t = 0.3 + 1.5 * float(torch.rand(1, generator=g, dtype=torch.float64))
    return {"logits": logits.numpy(), "T": t}, softmax(apply_temperature(logits, t)).numpy()


#: name -> (what it is, the cases: (seed, n, d_k), the function giving inputs and tinygpt's value)
REFERENCES: dict[str, tuple[str, tuple[tuple[int, int, int], ...], Callable[..., Any]]] = {
    "attention-weights": ("tinygpt.attention's weights softmax(Q K^T / √d_k), row by row",
                          ((0, 3, 3), (1, 4, 64)), _attention_weights),
    # P(token_i) = exp(logits_i) / Σ exp(logits_j), read through formulas/plain.py's entries
    "softmax-entries": ("tinygpt.softmax of the logits, entry by entry", ((0, 6, 0), (1, 5, 0)),
                        _softmax_entries),
    # P(x) = softmax(logits / T) = exp(logits_i / T) / Σ exp(logits_j / T): a chain (chains.py)
    "softmax-temperature": ("tinygpt's softmax(apply_temperature(logits, T))",
                            ((0, 6, 0), (1, 5, 0)), _tempered),
}
#: references whose formula is a chain of sides, each checked entry by entry (chains.py)
CHAINS = frozenset({"softmax-temperature"})
#: references whose formula is plain text with indices as subscripts (logits_i): rewritten
PLAIN_ENTRIES = frozenset({"softmax-entries"})


def reference_value(claim: Any, hole: str, printed: Any, note: Any) -> Any:
    """The claim's value for formula hole ``hole`` checked against its reference."""
    from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

    name = claim.reference[hole]
    what, cases, make = REFERENCES[name]

    def value(status: str, message: str) -> ValueVerdict:
        return ValueVerdict(name=hole, printed=printed.text, expected=what, status=status,
                            start=note.position(printed.start), end=note.position(printed.end),
                            message=f"{hole}: {message}", suggestion=None)

    if name in CHAINS:
        return _chain_value(what, cases, make, printed.text, value)
    try:
        text = printed.text
        if name in PLAIN_ENTRIES:
            try:
                text = entries(text)
            except ValueError as err:
                raise FormulaError(str(err)) from None
        definition = read_definition(text)
    except FormulaError as err:
        return value(UNPARSED, f"cannot read the formula: {err}")
    for seed, n, d_k in cases:
        env, expected = make(seed, n, d_k)
        for at in _entries(expected.shape):
            if len(definition.indices) != len(at):
                return value(UNPARSED, f"{definition.name} has {len(definition.indices)} "
                             f"indices; the reference has {len(at)}")
            try:
                got = evaluate(definition.body, env, dict(zip(definition.indices, at,
                                                              strict=True)), n)
            except FormulaError as err:
                return value(UNPARSED, f"cannot evaluate the formula: {err}")
            want = float(expected[at])
            if not math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12):
                where = ", ".join(f"{i}={k}" for i, k in zip(definition.indices, at,
                                                              strict=True))
                return value(DISCREPANCY, (
                    f"the formula gives {definition.name}[{where}] = {got:.6g} on inputs "
                    f"with {f'd_k = {d_k} ' if d_k else ''}(n = {n}, seed {seed}); {what} "
                    f"gives {want:.6g}"))
    return value(VERIFIED, f"the formula agrees with {what} on {len(cases)} inputs")


def _chain_value(what: str, cases: Any, make: Callable[..., Any], text: str,
                 value: Callable[[str, str], Any]) -> Any:
    """A chain ``name = side = side …``: every side checked entry by entry (chains.py)."""
    from verifiers.formulas.chains import ChainError, check_chain, read_chain
    from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED

    def read_side(side: str) -> Any:
        reader = _Reader(_tokens(side))
        node = reader.expr()
        if reader.peek()[0] != "end":
            raise FormulaError(f"unexpected {reader.peek()[1]!r} after {side.strip()!r}")
        return node

    try:
        try:
            text = entries(text)
        except ValueError as err:
            raise FormulaError(str(err)) from None
        sides = read_chain(text, read_side)
        for seed, n, d_k in cases:
            env, expected = make(seed, n, d_k)
            extent = len(expected)
            differs = check_chain(sides, expected, lambda side, index, at: evaluate(
                side, env, index, extent, at))  # noqa: B023 (called in this iteration)
            if differs is not None:
                return value(DISCREPANCY, f"{differs} (n = {n}, T = {env.get('T', 0):.4g}, "
                             f"seed {seed}): it is not {what}")
    except (FormulaError, ChainError) as err:
        return value(UNPARSED, f"cannot read the formula: {err}")
    return value(VERIFIED, f"every side agrees with {what} on {len(cases)} inputs")


def _entries(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for size in shape:
        out = [(*p, k) for p in out for k in range(size)]
    return out
