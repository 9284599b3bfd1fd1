r"""Backward rules read from the note and evaluated numerically (no SymPy, no eval).

The note prints its backward rules as display lines of matrix products,

    {\bar{W}}_{O} = Z^{T} \bar{R}, \bar{Z} = \bar{R} W_{O}^{T}, \bar{A} = \bar{Z} V^{T}, …

and ``tinygpt/backward.py`` implements them. So that an edit of a printed rule is compared
with the code, a code hole hands the block of rules to a locator
(``tinygpt/examples/backward_rules.py``), which reads every rule with :func:`read_rules`
and evaluates its right side with :func:`evaluate` on a numeric instance. The grammar is the
small subset these rules use: names (``X``, ``W_{O}``, ``d_{k}``, ``ℓ``), bars (``\bar{X}``,
``{\bar{W}}_{O}``), ``^{T}``, products by juxtaposition (matrix product; a scalar scales),
``+``/``-``, ``/``, parentheses and ``\sqrt{…}``. A rule outside the subset (an entry-wise
``{\bar{S}}_{i j} = …`` with a sum) is reported as not read, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Rule", "RuleError", "evaluate", "read_rules"]


class RuleError(ValueError):
    """A rule outside the subset this reader evaluates."""


@dataclass(frozen=True)
class Rule:
    """One printed equation: its place in the block (1-based line, 0-based columns)."""

    line: int
    col: int
    end_col: int
    text: str
    lhs: str  # the reader's name of the left side (``W_Obar``)
    rhs: str  # the right side's LaTeX


_TOKEN = re.compile(
    r"\s*(?:(?P<bar>\{\\bar\{(?P<b1>[^{}]+)\}\}(?:_\{(?P<s1>[^{}]+)\})?|\\bar\{(?P<b2>[^{}]+)\})"
    r"|(?P<sqrt>\\sqrt\{)|(?P<T>\^\{T\})|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<name>[A-Za-zℓ](?:_\{(?P<sub>[^{}]+)\}|_(?P<sub1>\w))?)"
    r"|(?P<op>[-+/()}]))")


def _name(head: str, sub: str | None, bar: bool) -> str:
    base = head + (f"_{sub.replace(' ', '')}" if sub else "")
    return base + "bar" if bar else base


def _tokens(latex: str) -> list[tuple[str, str]]:
    out, pos, text = [], 0, latex.strip()
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise RuleError(f"cannot read {text[pos:pos + 12]!r}")
        pos = m.end()
        if m.group("bar"):
            if m.group("b1"):
                out.append(("name", _name(m.group("b1"), m.group("s1"), True)))
            else:
                out.append(("name", _name(m.group("b2"), None, True)))
        elif m.group("sqrt"):
            out.append(("sqrt", ""))
        elif m.group("T"):
            out.append(("T", ""))
        elif m.group("num"):
            out.append(("num", m.group("num")))
        elif m.group("name"):
            head = m.group("name")[0]
            out.append(("name", _name(head, m.group("sub") or m.group("sub1"), False)))
        else:
            out.append(("op", m.group("op")))
    return out


class _Parser:
    """expr := term (± term)*; term := factor (factor | / factor)*; factor := atom ^{T}?"""

    def __init__(self, tokens: list[tuple[str, str]], env: Mapping[str, Any]) -> None:
        self.toks, self.i, self.env = tokens, 0, env

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise RuleError("the formula ends too early")
        self.i += 1
        return tok

    def expr(self) -> Any:
        value = self.term()
        while (tok := self.peek()) is not None and tok in (("op", "+"), ("op", "-")):
            self.take()
            right = self.term()
            value = value + right if tok[1] == "+" else value - right
        return value

    def term(self) -> Any:
        value = self.factor()
        while (tok := self.peek()) is not None and tok not in (
                ("op", "+"), ("op", "-"), ("op", ")"), ("op", "}")):
            if tok == ("op", "/"):
                self.take()
                value = value / self.factor()
            else:
                value = _times(value, self.factor())
        return value

    def factor(self) -> Any:
        value = self.atom()
        while self.peek() == ("T", ""):
            self.take()
            value = value.T
        return value

    def atom(self) -> Any:
        kind, text = self.take()
        if kind == "name":
            if text not in self.env:
                raise RuleError(f"unknown name {text!r}")
            return self.env[text]
        if kind == "num":
            return float(text)
        if kind == "sqrt":
            value = self.expr()
            self._close("}")
            return value ** 0.5
        if (kind, text) == ("op", "("):
            value = self.expr()
            self._close(")")
            return value
        if (kind, text) == ("op", "-"):
            return -self.atom()
        raise RuleError(f"unexpected {text or kind!r}")

    def _close(self, mark: str) -> None:
        if self.take() != ("op", mark):
            raise RuleError(f"expected {mark!r}")


def _times(a: Any, b: Any) -> Any:
    """Juxtaposition: a matrix product, or scaling when either side is a number."""
    if getattr(a, "ndim", 0) == 0 or getattr(b, "ndim", 0) == 0:
        return a * b
    if a.shape[-1] != b.shape[0]:
        raise RuleError(f"shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    return a @ b


def evaluate(rhs: str, env: Mapping[str, Any]) -> Any:
    """The value of a right side, names taken from ``env`` (tensors or numbers)."""
    parser = _Parser(_tokens(rhs), env)
    value = parser.expr()
    if parser.peek() is not None:
        raise RuleError(f"unexpected {parser.peek()[1]!r}")
    return value


def _split(line: str) -> list[tuple[int, int]]:
    """Spans of the equations of a display line, split at top-level commas."""
    spans, depth, start = [], 0, 0
    for k, ch in enumerate(line):
        depth += ch in "({[" and 1 or 0
        depth -= ch in ")}]" and 1 or 0
        if ch == "," and depth == 0:
            spans.append((start, k))
            start = k + 1
    spans.append((start, len(line)))
    return spans


_RULE_LINE = re.compile(r"\\bar\{")
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def read_rules(block: str) -> list[Rule | tuple[int, int, int, str, str]]:
    """Every equation of the block's display lines whose left side is a barred name:
    a :class:`Rule`, or ``(line, col, end_col, text, why)`` for one this reader cannot read."""
    out: list[Rule | tuple[int, int, int, str, str]] = []
    for n, line in enumerate(block.splitlines(), start=1):
        if not _RULE_LINE.search(line) or _CJK.search(line) or "$" in line:
            continue
        for a, b in _split(line):
            piece = line[a:b]
            text = piece.strip().rstrip(".").strip()
            if "=" not in text:
                continue
            col = a + len(piece) - len(piece.lstrip())
            end = col + len(text)
            lhs, _, rhs = text.partition("=")
            try:
                toks = _tokens(lhs)
            except RuleError as err:
                out.append((n, col, end, text, str(err)))
                continue
            if len(toks) != 1 or toks[0][0] != "name" or not toks[0][1].endswith("bar"):
                out.append((n, col, end, text, "the left side is not one barred matrix"))
                continue
            try:
                _tokens(rhs)
            except RuleError as err:
                out.append((n, col, end, text, f"the right side: {err}"))
                continue
            out.append(Rule(n, col, end, text, toks[0][1], rhs.strip()))
    return out
