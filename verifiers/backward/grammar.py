r"""The LaTeX of printed backward rules, evaluated numerically (no SymPy, no eval).

The notes print backward rules as matrix products (``{\bar{W}}_{O} = Z^{T} \bar{R}``), as
entry-wise rules with sums (``{\bar{S}}_{i j} = a_{i j} ({\bar{A}}_{i j} - \sum_{r \in J_{i}}
a_{i r} {\bar{A}}_{i r})``, ``\frac{\partial L}{\partial ℓ_{j}} = p_{j} - 1_{j = y}``), as
vector rules (``\bar{x} = \frac{1}{s} [u - mean (u) 1 - \hat{x} mean (u ⊙ \hat{x})]``) and as
differentials (``d v = 2 mean ((x - μ) ⊙ d x)``). :func:`evaluate` reads that subset and
computes its value from an environment of tensors, so a rule is compared as printed.

What it reads: names of one letter with a subscript (``W_{O}``, ``d_{k}``, ``W_U``), bars
(``\bar{X}``, ``{\bar{W}}_{O}``), hats, ``\partial L/\partial z`` and
``\frac{\partial L}{\partial X}`` (both mean X̄), Jacobian entries
``\frac{\partial z_i}{\partial x_j}`` (an environment's ``∂z/∂x``), ``^{T}``/``^\top``,
``^{2}``, ``^{'}`` (a function's derivative), juxtaposition (matrix product; a scalar
scales), ``⊙``, ``+ -``, ``/``, ``\frac``, ``\sqrt``, ``( )``, ``[ ]``, ``mean (…)``,
functions of the environment (``σ (B)``), ``\sum`` over an index, entries (``a_{i j}``:
entry i, j of A when ``i, j`` are bound indices; ``(W_U)_{kl}``), ``1_{j = y}`` and
``δ_{j l}``, and differentials ``d x``.
Anything else raises :class:`RuleError`; a rule is never guessed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["RuleError", "Tok", "evaluate", "split_top", "tokens"]


class RuleError(ValueError):
    """A formula outside the subset this reader evaluates."""


@dataclass(frozen=True)
class Tok:
    """One token: ``kind`` (name, num, op, …) and, for names, base/sub/bar/hat."""

    kind: str
    text: str = ""
    sub: str | None = None
    bar: bool = False
    hat: bool = False


_GREEK = "α-ωΑ-Ωℓ"
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<bar1>\{\\bar\{(?P<b1>[^{}]+)\}\})|(?P<bar2>\\bar\{(?P<b2>[^{}]+)\})"
    r"|(?P<bar3>\\bar\s+(?P<b3>[A-Za-z]))"
    r"|(?P<hat>\\hat\{(?P<h>[^{}]+)\})"
    r"|(?P<frac>\\[dt]?frac\{)|(?P<sqrt>\\sqrt\{)|(?P<partial>\\partial(?![A-Za-z]))"
    r"|(?P<sum>\\sum(?![A-Za-z]))|(?P<mathbf>\\mathbf\s*)|(?P<skip>\\[,;!]|\\left|\\right)"
    r"|(?P<odot>⊙|\\odot(?![A-Za-z]))"
    r"|(?P<T>\^\s*(?:\{\s*(?:T|\\top)\s*\}|T(?![A-Za-z])|\\top(?![A-Za-z])))"
    r"|(?P<prime>\^\s*(?:\{\s*'\s*\}|'))|(?P<pow>\^\s*(?:\{(?P<p1>\d+)\}|(?P<p2>\d)))"
    r"|(?P<sub>_\s*(?:\{(?P<s1>(?:[^{}]|\{[^{}]*\})+)\}|(?P<s2>[A-Za-z0-9])))"
    r"|(?P<num>\d+(?:\.\d+)?)|(?P<mean>mean(?![A-Za-z]))"
    rf"|(?P<name>\\delta(?![A-Za-z])|[A-Za-z{_GREEK}])"
    r"|(?P<op>[-−+/()\[\]{}=,.]))")
_GREEK_CMD = {r"\delta": "δ"}
_FRAC_SHORT = re.compile(r"\\[dt]?frac\s*([A-Za-z0-9])([A-Za-z0-9])")  # \frac1B


def tokens(latex: str) -> list[Tok]:
    """The tokens of ``latex``; a name's subscript is attached to it (``W_{O}``)."""
    out: list[Tok] = []
    pos, text = 0, _FRAC_SHORT.sub(r"\\frac{\1}{\2}", latex.strip())
    while pos < len(text) and text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise RuleError(f"cannot read {text[pos:pos + 12].strip()!r}")
        pos = m.end()
        kind = next(k for k in _KINDS if m.group(k) is not None)
        if kind in ("bar1", "bar2", "bar3"):
            base = m.group("b1") or m.group("b2") or m.group("b3")
            hat = base.startswith(r"\hat{")
            out.append(Tok("name", base[5:-1] if hat else base.strip(), bar=True, hat=hat))
        elif kind == "hat":
            out.append(Tok("name", m.group("h").strip(), hat=True))
        elif kind == "name":
            out.append(Tok("name", _GREEK_CMD.get(m.group("name"), m.group("name"))))
        elif kind == "sub":
            sub = (m.group("s1") or m.group("s2")).strip()
            last = out[-1] if out else None
            if last is not None and last.kind in ("name", "num") and last.sub is None:
                out[-1] = Tok(last.kind, last.text, sub, last.bar, last.hat)
            else:
                out.append(Tok("sub", sub))
        elif kind == "num":
            out.append(Tok("num", m.group("num")))
        elif kind == "pow":
            out.append(Tok("pow", m.group("p1") or m.group("p2")))
        elif kind == "op":
            out.append(Tok("op", "-" if m.group("op") == "−" else m.group("op")))
        elif kind not in ("skip", "mathbf"):
            out.append(Tok(kind))
    return out


_KINDS = ("bar1", "bar2", "bar3", "hat", "frac", "sqrt", "partial", "sum", "mathbf", "skip",
          "odot", "T", "prime", "pow", "sub", "num", "mean", "name", "op")
_STOP = {")", "]", "}", "=", ",", "+", "-", "/"}


def name_key(tok: Tok, with_sub: bool = True) -> str:
    """The environment's key of a name: ``W_O``, ``W_Obar``, ``xhat``, ``ℓbar``."""
    key = tok.text + ("hat" if tok.hat else "")
    if with_sub and tok.sub:
        key += "_" + tok.sub.replace(" ", "")
    return key + ("bar" if tok.bar else "")


class Parser:
    """expr := term (± term)*; term := factor (factor | ⊙ factor | / factor)*;
    factor := atom (^{T} | ^{2})*.  Values are computed while parsing; a sum re-reads
    its body once per value of its index."""

    def __init__(self, toks: list[Tok], env: Mapping[str, Any],
                 index: Mapping[str, int] | None = None) -> None:
        self.toks, self.i, self.env = toks, 0, env
        self.index: dict[str, int] = dict(index or {})
        self.extent: dict[str, int] = {}

    # ------------------------------------------------------------------ tokens
    def peek(self, k: int = 0) -> Tok | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self) -> Tok:
        tok = self.peek()
        if tok is None:
            raise RuleError("the formula ends too early")
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if (tok.kind, tok.text) != ("op", text):
            raise RuleError(f"expected {text!r}")

    def _is_op(self, tok: Tok | None, ops: set[str] | tuple[str, ...]) -> bool:
        return tok is not None and tok.kind == "op" and tok.text in ops

    # ------------------------------------------------------------------ grammar
    def expr(self) -> Any:
        value = self.term()
        while self._is_op(self.peek(), ("+", "-")):
            sign = self.take().text
            right = self.term()
            value = value + right if sign == "+" else value - right
        return value

    def term(self) -> Any:
        value = self.factor()
        while (tok := self.peek()) is not None and not self._is_op(tok, _STOP - {"/"}):
            if self._is_op(tok, ("/",)):
                self.take()
                value = value / self.factor()
            elif tok.kind == "odot":
                self.take()
                value = _entrywise(value, self.factor())
            elif self._is_op(tok, (".",)):
                break
            else:
                value = times(value, self.factor())
        return value

    def factor(self) -> Any:
        value = self.atom()
        while (tok := self.peek()) is not None and tok.kind in ("T", "pow"):
            self.take()
            value = value.T if tok.kind == "T" else value ** int(tok.text)
        return value

    def atom(self) -> Any:
        tok = self.take()
        if tok.kind == "name":
            return self._name(tok)
        if tok.kind == "num":
            return self._number(tok)
        if tok.kind == "sqrt":
            value = self.expr()
            self.expect("}")
            return value ** 0.5
        if tok.kind == "frac":
            if self.peek() is not None and self.peek().kind == "partial":
                grad = self._gradient(close="}")
                return grad
            top = self.expr()
            self.expect("}")
            self.expect("{")
            bottom = self.expr()
            self.expect("}")
            return top / bottom
        if tok.kind == "partial":
            self.i -= 1
            return self._gradient(close=None)
        if tok.kind == "mean":
            return self._paren().mean()
        if tok.kind == "sum":
            return self._sum()
        if self._is_op(tok, ("(", "[")):
            self.i -= 1
            value = self._paren()
            nxt = self.peek()
            if nxt is not None and nxt.kind == "sub":
                self.take()
                return self._entry(value, nxt.text)
            return value
        if self._is_op(tok, ("-",)):
            return -self.factor()
        raise RuleError(f"unexpected {tok.text or tok.kind!r}")

    def _paren(self) -> Any:
        tok = self.take()
        close = {"(": ")", "[": "]", "{": "}"}.get(tok.text) if tok.kind == "op" else None
        if close is None:
            raise RuleError("expected a parenthesis")
        value = self.expr()
        self.expect(close)
        return value

    # ------------------------------------------------------------------ pieces
    def _number(self, tok: Tok) -> Any:
        if tok.sub is None:
            return float(tok.text)
        if "=" in tok.sub:  # 1_{j = y}: an indicator (times the number printed)
            a, _, b = tok.sub.partition("=")
            return float(tok.text) * (self._index_value(a) == self._index_value(b))
        raise RuleError(f"cannot read {tok.text}_{{{tok.sub}}}")

    def _index_value(self, text: str) -> int:
        text = text.strip()
        if text in self.index:
            return self.index[text]
        value = self.env.get(text)
        if isinstance(value, int):
            return value
        raise RuleError(f"unknown index {text!r}")

    def _indices(self, sub: str) -> list[str] | None:
        """The index names of a subscript when every one is bound (``i j``, ``kl``)."""
        parts = sub.split() if " " in sub.strip() else list(sub.strip())
        bound = all(p in self.index or isinstance(self.env.get(p), int) for p in parts)
        return parts if parts and bound else None

    def _name(self, tok: Tok) -> Any:
        if tok.text == "d" and tok.sub is None and not tok.bar:  # a differential: d x
            nxt = self.peek()
            if nxt is not None and nxt.kind == "name" and f"d{name_key(nxt)}" in self.env:
                self.take()
                return self.env[f"d{name_key(nxt)}"]
            whole = f"d{name_key(nxt, with_sub=False)}" if nxt is not None and \
                nxt.kind == "name" else ""
            if nxt is not None and nxt.sub and whole in self.env:  # d X_{i r}: an entry
                self.take()
                return self._entry(self.env[whole], nxt.sub)
        if tok.text == "δ" and tok.sub:
            idx = self._indices(tok.sub)
            if idx is None or len(idx) != 2:
                raise RuleError(f"δ_{{{tok.sub}}} needs two bound indices")
            return 1.0 if self.index[idx[0]] == self.index[idx[1]] else 0.0
        key = name_key(tok)
        if key in self.env:
            return self._call_or_value(key)
        if tok.sub is not None and (idx := self._indices(tok.sub)) is not None:
            base = name_key(tok, with_sub=False)
            for candidate in (base, base[0].upper() + base[1:]):
                if candidate in self.env:
                    return self._entry(self.env[candidate], tok.sub)
        raise RuleError(f"unknown name {key!r}")

    def _call_or_value(self, key: str) -> Any:
        value = self.env[key]
        if callable(value):
            if self.peek() is not None and self.peek().kind == "prime":
                self.take()
                prime = self.env.get(key + "'")
                if prime is None:
                    raise RuleError(f"no derivative of {key!r}")
                value = prime
            return value(self._paren())
        if isinstance(value, int):
            raise RuleError(f"{key!r} is an index, not a value")
        return value

    def _entry(self, value: Any, sub: str) -> Any:
        idx = self._indices(sub)
        if idx is None:
            raise RuleError(f"cannot read the subscript {sub!r}")
        if getattr(value, "ndim", 0) == 2 and len(idx) == 1 and value.shape[0] == 1:
            value = value[0]
        if getattr(value, "ndim", 0) != len(idx):
            raise RuleError(f"{len(idx)} indices on a value of shape {tuple(value.shape)}")
        for k, name in enumerate(idx):
            size = int(value.shape[k])
            if self.extent.setdefault(name, size) != size:
                raise RuleError(f"the index {name} runs over {self.extent[name]} and {size}")
        return value[tuple(self._index_value(n) for n in idx)]

    def _gradient(self, close: str | None) -> Any:
        r"""``\partial L / \partial X`` or ``\frac{\partial L}{\partial X}``: the value of X̄."""
        self.expect_kind("partial")
        num = self.take()
        if num.kind != "name" or (num.text == "L" and num.sub):
            raise RuleError("expected the function of a derivative")
        if close:
            self.expect("}")
            self.expect("{")
        else:
            self.expect("/")
        self.expect_kind("partial")
        var = self.take()
        if var.kind != "name":
            raise RuleError("expected the variable of a gradient")
        if close:
            self.expect("}")
        if num.text != "L":
            return self._jacobian(num, var)
        return self._name(Tok("name", var.text, var.sub, True, var.hat))

    def _jacobian(self, num: Tok, var: Tok) -> Any:
        r"""``\frac{\partial z_i}{\partial x_j}``: entry (i, j) of the Jacobian ``∂z/∂x`` of
        the environment."""
        key = f"∂{name_key(num, with_sub=False)}/∂{name_key(var, with_sub=False)}"
        if key not in self.env or not num.sub or not var.sub:
            raise RuleError(f"no derivative {key} with entries in this instance")
        return self._entry(self.env[key], f"{num.sub} {var.sub}")

    def expect_kind(self, kind: str) -> None:
        if self.take().kind != kind:
            raise RuleError(f"expected {kind}")

    def _sum(self) -> Any:
        r"""``\sum_{r}``, ``\sum_{i r}`` or ``\sum_{r \in J_{i}}``: the body (one term) over
        the indices' ranges, which are the sizes of what they index in the body."""
        sub = self.take()
        if sub.kind != "sub":
            raise RuleError("a sum without its index")
        head, _, within = sub.text.partition(r"\in")
        names = head.split()
        if not names or any(not re.fullmatch(r"[A-Za-z]", v) or v in self.index for v in names) \
                or (within.strip() and len(names) != 1):
            raise RuleError(f"cannot read the sum's index {sub.text!r}")
        allowed = self._set(within.strip()) if within.strip() else None
        if allowed == []:
            raise RuleError("the sum runs over an empty set")
        first = tuple(allowed[:1] if allowed else [0] * len(names))
        start = self.i
        for name, value in zip(names, first, strict=True):
            self.index[name] = value
            self.extent.pop(name, None)
        total = self._sum_body()
        end = self.i
        missing = [v for v in names if v not in self.extent]
        if missing:
            raise RuleError(f"the sum's index {missing[0]} indexes nothing")
        ranges = [allowed] if allowed is not None else [range(self.extent[v]) for v in names]
        for values in itertools.product(*ranges):
            if tuple(values) == first:
                continue
            self.i = start
            self.index.update(zip(names, values, strict=True))
            total = total + self._sum_body()
        self.i = end
        for name in names:
            del self.index[name]
        return total

    def _sum_body(self) -> Any:
        value = self.factor()
        while (tok := self.peek()) is not None and not self._is_op(tok, _STOP | {"."}) \
                and tok.kind != "sum":
            if tok.kind == "odot":
                self.take()
                value = _entrywise(value, self.factor())
            else:
                value = times(value, self.factor())
        return value

    def _set(self, text: str) -> list[int]:
        """``J_{i}``: the allowed positions of row i (a boolean matrix ``J`` of the env)."""
        toks = tokens(text)
        if len(toks) != 1 or toks[0].kind != "name" or toks[0].text not in self.env:
            raise RuleError(f"cannot read the set {text!r}")
        mask = self.env[toks[0].text]
        if toks[0].sub:
            mask = mask[tuple(self._index_value(p) for p in toks[0].sub.split())]
        return [int(k) for k in torch.nonzero(mask).flatten().tolist()]


def times(a: Any, b: Any) -> Any:
    """Juxtaposition: a matrix product, or scaling when either side is a number."""
    if getattr(a, "ndim", 0) == 0 or getattr(b, "ndim", 0) == 0:
        return a * b
    if a.shape[-1] != b.shape[0]:
        raise RuleError(f"shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    return a @ b


def _entrywise(a: Any, b: Any) -> Any:
    if getattr(a, "shape", ()) != getattr(b, "shape", ()) and \
            getattr(a, "ndim", 0) and getattr(b, "ndim", 0):
        raise RuleError(f"⊙ of shapes {tuple(a.shape)} and {tuple(b.shape)}")
    return a * b


def evaluate(latex: str, env: Mapping[str, Any], index: Mapping[str, int] | None = None) -> Any:
    """The value of ``latex``, names taken from ``env``, bound indices from ``index``."""
    return evaluate_tokens(tokens(latex), env, index)


def evaluate_tokens(toks: list[Tok], env: Mapping[str, Any],
                    index: Mapping[str, int] | None = None) -> Any:
    parser = Parser(toks, env, index)
    value = parser.expr()
    rest = parser.peek()
    if rest is not None and not (parser._is_op(rest, (".",)) and parser.i == len(toks) - 1):
        raise RuleError(f"unexpected {rest.text or rest.kind!r}")
    return value


def split_top(text: str, mark: str) -> list[tuple[int, int]]:
    """Spans of ``text`` split at ``mark`` outside brackets (``,`` between rules, ``=``)."""
    spans, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch == mark and depth == 0 and not text[max(0, k - 1):k] == "\\":  # not \,
            spans.append((start, k))
            start = k + 1
    spans.append((start, len(text)))
    return spans

