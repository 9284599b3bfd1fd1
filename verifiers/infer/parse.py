"""Read one segment of tokens (the text between two relations) as an expression.

The result is text in our own expression grammar (``verifiers/expr.py``) whose
numbers are hole names, never the printed numbers themselves: the claim keeps
reading the note. A segment that is anything but a complete expression (a
word, an implicit product, an unclosed bracket) gives ``None``: inference
only writes what it can read whole.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from verifiers.infer.tokens import (
    COMMA,
    CONST,
    FRAC,
    FUNC,
    LB,
    LP,
    NAME,
    NUM,
    OP,
    RB,
    RP,
    VAL,
    Token,
)

#: A name the note defined earlier (``x = (2, 1)``): its value token, or None when unbound.
Binder = Callable[[Token], Token | None]

__all__ = ["Expr", "parse_segment"]

_MATRIXLIKE = ("vector", "matrix")


@dataclass
class Expr:
    """A parsed segment: its grammar text, the value tokens it reads, how it is built."""

    text: str
    values: list[Token] = field(default_factory=list)
    ops: int = 0  # operations and function applications: 0 means a lone value
    shape: str = "scalar"
    terms: list[Expr] = field(default_factory=list)  # top-level + / - terms (unsigned)
    signs: list[str] = field(default_factory=list)  # the operator before each term
    implicit: bool = False  # a reading the note does not spell out (``0.5 (1)^{2}``, ``log``)
    func: str | None = None  # ``f(arg)`` as a whole: the function's name ...
    arg: Expr | None = None  # ... and its argument
    uses: dict[str, Token] = field(default_factory=dict)  # names read: local -> definition

    @property
    def lone(self) -> Token | None:
        """The value token when the segment is one printed value and nothing else."""
        return self.values[0] if self.ops == 0 and len(self.values) == 1 else None


class _Fail(Exception):
    pass


class _Parser:
    def __init__(self, tokens: list[Token], name: dict[int, str], bind: Binder | None) -> None:
        self.toks = tokens
        self.k = 0
        self.name = name  # token start -> hole name
        self.bind = bind
        self.uses: dict[str, Token] = {}  # local name -> the defining value token

    def peek(self, kind: str | None = None, text: str | None = None) -> Token | None:
        if self.k >= len(self.toks):
            return None
        t = self.toks[self.k]
        if (kind is None or t.kind == kind) and (text is None or t.text == text):
            return t
        return None

    def take(self, kind: str, text: str | None = None) -> Token:
        t = self.peek(kind, text)
        if t is None:
            raise _Fail
        self.k += 1
        return t

    def expr(self) -> Expr:
        first = self.term()
        terms, signs = [first], ["+"]
        while (t := self.peek(OP)) and t.text in "+-":
            self.k += 1
            terms.append(self.term())
            signs.append(t.text)
        if len(terms) == 1:
            return first
        rest = zip(signs[1:], terms[1:], strict=True)
        text = terms[0].text + "".join(f" {s} {e.text}" for s, e in rest)
        shape = next((e.shape for e in terms if e.shape != "scalar"), "scalar")
        return Expr(text, [v for e in terms for v in e.values],
                    sum(e.ops for e in terms) + len(terms) - 1, shape, terms, signs)

    def term(self) -> Expr:
        left = self.unary()
        while ((t := self.peek(OP)) and t.text in "*/") or self._implicit():
            if t is not None:
                self.k += 1
            right = self.unary()
            op = t.text if t is not None else "*"
            if t is None:
                left.implicit = True
            if op == "*" and left.shape in _MATRIXLIKE and right.shape in _MATRIXLIKE:
                op = "@"  # a product of two printed arrays is a matrix (or dot) product
            shape = "matrix" if "matrix" in (left.shape, right.shape) else \
                ("scalar" if op == "@" else max(left.shape, right.shape, key=len))
            if op == "@" and left.shape == "vector" and right.shape == "matrix":
                shape = "vector"
            left = Expr(f"{left.text} {op} {right.text}", left.values + right.values,
                        left.ops + right.ops + 1, shape, implicit=left.implicit or right.implicit)
        return left

    def _implicit(self) -> bool:
        """A value directly followed by a bracket or a function: ``0.665 (2, 0)``."""
        nxt = self.peek()
        return self.k > 0 and nxt is not None and (
            nxt.kind in (LP, FRAC, FUNC, NAME, CONST)
            or (nxt.kind == VAL and nxt.text.startswith("(")))

    def unary(self) -> Expr:
        if (t := self.peek(OP)) and t.text in "+-":
            self.k += 1
            inner = self.unary()
            return Expr(f"(-{inner.text})" if t.text == "-" else inner.text, inner.values,
                        inner.ops + 1, inner.shape)
        return self.power()

    def power(self) -> Expr:
        base = self.primary()
        if self.peek(OP, "^") and self._transpose():
            return Expr(f"transpose({base.text})", base.values, base.ops + 1, base.shape,
                        implicit=base.implicit)
        if self.peek(OP, "^"):
            self.k += 1
            exp = self.unary()
            return Expr(f"{base.text} ^ {exp.text}", base.values + exp.values,
                        base.ops + exp.ops + 1, base.shape)
        return base

    def _transpose(self) -> bool:
        """``^{T}`` / ``^T`` after a value: a transpose, not a power."""
        ahead = [t.kind + ":" + t.text for t in self.toks[self.k + 1:self.k + 4]]
        if ahead[:1] == ["name:T"]:
            self.k += 2
            return True
        if ahead[:3] == ["lp:(", "name:T", "rp:)"]:
            self.k += 4
            return True
        return False

    def group(self, open_: str = LP, close: str = RP) -> Expr:
        self.take(open_)
        items = [self.expr()]
        while self.peek(COMMA):
            self.k += 1
            items.append(self.expr())
        self.take(close)
        if len(items) == 1 and open_ == LP:
            inner = items[0]
            text = inner.text if inner.ops == 0 else f"({inner.text})"
            return Expr(text, inner.values, inner.ops, inner.shape,
                        implicit=inner.implicit)
        if len(items) == 1 and items[0].shape == "matrix" and items[0].ops == 0:
            return items[0]  # `[\begin{matrix} … \end{matrix}]`: the brackets are decoration
        if any(e.shape != "scalar" for e in items):
            raise _Fail  # a list of lists written out: leave it to the printed-value reader
        return Expr("[" + ", ".join(e.text for e in items) + "]",
                    [v for e in items for v in e.values], sum(e.ops for e in items), "vector",
                    implicit=any(e.implicit for e in items))

    def primary(self) -> Expr:
        t = self.peek()
        if t is None:
            raise _Fail
        if t.kind in (NUM, VAL):
            self.k += 1
            return Expr(self.name[t.start], [t], 0, t.shape)
        if t.kind == CONST:
            self.k += 1
            return Expr(t.text, [], 0)
        if t.kind == NAME:
            value = self.bind(t) if self.bind is not None else None
            if value is None:
                raise _Fail
            self.k += 1
            local = f"u{value.start}"
            self.uses[local] = value
            return Expr(local, [], 0, value.shape)
        if t.kind == LP:
            return self.group()
        if t.kind == LB:
            return self.group(LB, RB)
        if t.kind == FRAC:
            self.k += 1
            num, den = self.group(), self.group()
            return Expr(f"{num.text} / {den.text}", num.values + den.values,
                        num.ops + den.ops + 1)
        if t.kind == FUNC:
            self.k += 1
            arg = self.group() if self.peek(LP) else self.power()
            shape = arg.shape if t.text in ("softmax", "exp", "ln", "log", "sqrt") else "scalar"
            func = "ln" if t.text == "log" else t.text  # the notes' log is natural (lesson 1, §0)
            if func in ("sigmoid", "sigma"):  # σ(x) is a reading: kept verified, never pinned
                return Expr(f"1 / (1 + exp(-({arg.text})))", arg.values, arg.ops + 1, shape,
                            implicit=func == "sigma" or arg.implicit)
            body = arg.text[1:-1] if arg.text.startswith("(") and arg.text.endswith(")") \
                and _balanced(arg.text[1:-1]) else arg.text
            # ``log`` is read as ln, the notes' convention; a note meaning base 10 would
            # disagree, so a check through ``log`` is only kept verified, never pinned.
            return Expr(f"{func}({body})", arg.values, arg.ops + 1, shape,
                        implicit=arg.implicit or t.text == "log", func=func, arg=arg)
        raise _Fail


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def parse_segment(tokens: list[Token], name: dict[int, str],
                  bind: Binder | None = None) -> Expr | None:
    """The whole segment as one expression, or ``None``; names read through ``bind``."""
    if not tokens:
        return None
    p = _Parser(tokens, name, bind)
    try:
        e = p.expr()
    except _Fail:
        return None
    if p.k != len(tokens):
        return None
    e.uses = p.uses
    return e
