"""The expression language of claims: tokenizer, Pratt parser, evaluator over mpmath.

Claim expressions arrive in pull requests, so they are *data*. They are never
handed to ``eval``/``exec``/``compile``/``ast``/sympy: this module reads them with
its own small grammar, and every failure -- malformed input, a shape mismatch, a
limit hit by a hostile claim -- is an :class:`ExprError` with a message and,
where known, the 1-based column in the source.

Grammar (precedence from loose to tight)::

    expr    := sum
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/' | '@') unary)*
    unary   := ('-' | '+') unary | power        (so -2^2 == -4)
    power   := postfix (('^' | '**') unary)?    (right-assoc; 2^-1 allowed)
    postfix := atom ('[' item (',' item)? ']')*
    item    := expr | expr? ':' expr?           (slice, 0-based, negatives allowed)
    atom    := number | name | name '(' args ')' | '(' expr ')' | '[' args ']'

Values: a scalar is an ``mpmath.mpf`` (mode "point") or an ``mpmath.iv.mpf``
(mode "interval"); a vector is a tuple of scalars; a matrix is a tuple of
equal-length tuples of scalars. Evaluation runs at 40 significant digits.

Choices callers and claim authors should know:

* Names in ``env`` win over the constants ``pi`` and ``e``. ``free_names``
  reports ``pi``/``e`` like any other name (a hole may be called ``e``);
  :data:`CONSTANTS` lists the names that need no binding.
* ``transpose`` of a vector is an error: ``@`` already treats a vector as a row
  or a column as needed; write ``[v]`` for a 1xn matrix, ``transpose([v])`` for nx1.
* ``concat`` joins matrices side by side (same row count), or vectors end to end.
* ``round`` rounds half away from zero (school rounding, as notes print numbers).
* Interval mode keeps enclosures sound where it can: ``floor``/``ceil``/``round``
  map the endpoints; ``max``/``min`` give ``[max lo, max hi]``; ``sort``/``rsort``
  give order statistics (k-th smallest lower ends, k-th smallest upper ends).
  Decisions that pick *positions* -- ``argmax``/``argmin``, which entries
  ``topk``/``topp`` keep -- use the midpoint order, ties to the lower index.
* An index, ``range`` bound or ``topk`` k must be an integer: in point mode within
  a relative 1e-30 of one, in interval mode an interval holding exactly one integer.
* ``topp`` keeps at least one entry, and compares cumulative sums with a relative
  slack of 1e-35 so that decimal inputs such as 0.5 + 0.4 >= 0.9 behave as written.
* Limits (all ExprError): source <= 10,000 chars; nesting <= 64 levels and tree
  height <= 128 (checked without recursion); literals <= 100 digits, exponent <= 1e4;
  ``x^y`` with |y| > 10,000 unless x is exactly 0 or +-1; ``exp`` |x| <= 1e6; trig
  |x| <= 1e15; any built vector/matrix <= 100,000 elements; <= 300,000 elementary
  operations per ``evaluate`` call; division by (an interval containing) zero;
  ln/log of (an interval reaching) <= 0.
"""

from __future__ import annotations

import difflib
import keyword
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
from mpmath import iv, mp

from verifiers.errors import ColumnError

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "BinOp",
    "Call",
    "Expr",
    "ExprError",
    "Index",
    "ListLit",
    "Name",
    "Neg",
    "Num",
    "Slice",
    "evaluate",
    "free_names",
    "parse",
    "to_text",
]

DPS = 40
MAX_SOURCE_CHARS = 10_000
MAX_NESTING = 64  # brackets, calls, unary signs and power chains inside one another
MAX_HEIGHT = 128  # tree height, so long operator chains cannot exhaust the Python stack
MAX_DIGITS = 100
MAX_LITERAL_EXPONENT = 10_000
MAX_POWER_EXPONENT = 10_000
MAX_EXP_ARG = 10**6
MAX_TRIG_ARG = 10**15  # argument reduction beyond this costs real time
MAX_ELEMENTS = 100_000
MAX_WORK = 300_000  # elementary operations per evaluate() call (~2 s worst case in interval mode)
MAX_INT = 10**12  # largest index / range bound accepted
TRANSCENDENTAL_COST = 10
CONSTANTS = frozenset({"pi", "e"})

# --------------------------------------------------------------------------- errors


class ExprError(ColumnError):
    """A claim expression is malformed, fails to evaluate or hits a limit."""


# --------------------------------------------------------------------------- AST
# ``col`` is kept for error messages but excluded from equality, so that
# parse(to_text(e)) == e holds although the text moves.


def _col() -> Any:
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Num:
    text: str  # the literal as written, e.g. "0.5", ".5", "2.5E3"
    col: int | None = _col()


@dataclass(frozen=True)
class Name:
    id: str
    col: int | None = _col()


@dataclass(frozen=True)
class Neg:
    operand: Expr
    col: int | None = _col()


@dataclass(frozen=True)
class BinOp:
    op: str  # one of + - * / ^ @  ("**" is read as "^")
    left: Expr
    right: Expr
    col: int | None = _col()


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    col: int | None = _col()


@dataclass(frozen=True)
class ListLit:
    items: tuple[Expr, ...]
    col: int | None = _col()


@dataclass(frozen=True)
class Slice:
    start: Expr | None
    stop: Expr | None
    col: int | None = _col()


@dataclass(frozen=True)
class Index:
    target: Expr
    items: tuple[Expr | Slice, ...]
    col: int | None = _col()


Expr = Num | Name | Neg | BinOp | Call | ListLit | Index
Node = Expr | Slice

# name -> (min args, max args or None for any number)
FUNCTIONS: dict[str, tuple[int, int | None]] = {
    **{name: (1, 1) for name in (
        "exp", "ln", "log2", "log10", "sqrt", "sin", "cos", "tan", "tanh", "abs", "floor",
        "ceil", "round", "sum", "prod", "mean", "var", "argmax", "argmin", "len", "softmax",
        "transpose", "sort", "rsort", "cumsum", "sigmoid", "relu",
    )},
    "erf": (1, 1),
    "count": (1, 1),
    "comb": (2, 2),
    "factorial": (1, 1),
    "log": (1, 2),
    "max": (1, None),
    "min": (1, None),
    "concat": (1, None),
    "range": (1, 2),
    "topk": (2, 2),
    "topp": (2, 2),
}

# --------------------------------------------------------------------------- tokenizer


@dataclass(frozen=True)
class _Token:
    kind: str  # "num", "name", "op", "end"
    text: str
    col: int


_OPERATORS = ("**", "+", "-", "*", "/", "^", "@", "(", ")", "[", "]", ",", ":")
_WHITESPACE = " \t\r\n"
_CHAR_HINTS = {
    ".": "attribute access is not part of the language",
    "'": "strings are not part of the language",
    '"': "strings are not part of the language",
    ";": "statements are not part of the language",
    "=": "assignment and keyword arguments are not part of the language",
    "\u2212": "use '-'",
    "\u00d7": "use '*'",
    "\u00b7": "use '*' or '@'",
}


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"  # not str.isdigit: that accepts '²' and other scripts


def _is_name_start(ch: str) -> bool:
    return ch == "_" or "a" <= ch <= "z" or "A" <= ch <= "Z" or _is_greek(ch)


def _is_name_char(ch: str) -> bool:
    return _is_name_start(ch) or _is_digit(ch)


def _is_greek(ch: str) -> bool:
    return "\u0391" <= ch <= "\u03c9" and ch.isalpha()


def _char_error(ch: str, col: int) -> ExprError:
    shown = repr(ch) if ch.isprintable() and ch.isascii() else f"{ch!r} (U+{ord(ch):04X})"
    hint = _CHAR_HINTS.get(ch)
    return ExprError(f"unexpected character {shown}" + (f": {hint}" if hint else ""), col)


def _tokenize(source: str) -> list[_Token]:
    """Split the source into tokens; reject anything outside the grammar's alphabet."""
    tokens: list[_Token] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch in _WHITESPACE:
            i += 1
        elif _is_digit(ch) or (ch == "." and _is_digit(source[i + 1 : i + 2] or "x")):
            i = _read_number(source, i, tokens)
        elif _is_name_start(ch):
            i = _read_name(source, i, tokens)
        else:
            op = next((o for o in _OPERATORS if source.startswith(o, i)), None)
            if op is None:
                raise _char_error(ch, i + 1)
            tokens.append(_Token("op", op, i + 1))
            i += len(op)
    tokens.append(_Token("end", "", len(source) + 1))
    return tokens


def _skip_digits(source: str, i: int) -> int:
    while i < len(source) and _is_digit(source[i]):
        i += 1
    return i


def _read_number(source: str, start: int, tokens: list[_Token]) -> int:
    """Read ``3``, ``0.5``, ``.5``, ``1e-5``, ``2.5E3``; enforce the size limits."""
    i = _skip_digits(source, start)
    if source[i : i + 1] == ".":
        i = _skip_digits(source, i + 1)
    exponent = 0
    if source[i : i + 1] in ("e", "E"):
        j = i + 1 + (source[i + 1 : i + 2] in ("+", "-"))
        end = _skip_digits(source, j)
        if end == j:
            raise ExprError(f"malformed number {source[start:j + 1]!r}", start + 1)
        exponent = int(source[i + 1 : end]) if end - j <= MAX_DIGITS else MAX_LITERAL_EXPONENT + 1
        i = end
    text = source[start:i]
    if i < len(source) and (source[i] == "." or _is_name_char(source[i])):
        raise ExprError(f"malformed number {source[start:i + 1]!r}", start + 1)
    if sum(map(_is_digit, text)) > MAX_DIGITS:
        raise ExprError(f"number literal has more than {MAX_DIGITS} digits", start + 1)
    if abs(exponent) > MAX_LITERAL_EXPONENT:
        raise ExprError(f"number literal exponent beyond ±{MAX_LITERAL_EXPONENT}", start + 1)
    tokens.append(_Token("num", text, start + 1))
    return i


def _read_name(source: str, start: int, tokens: list[_Token]) -> int:
    i = start
    while i < len(source) and _is_name_char(source[i]):
        i += 1
    text = source[start:i]
    if text.startswith("__"):
        raise ExprError(f"unexpected name {text!r}: names starting with '__' are not allowed",
                        start + 1)
    if keyword.iskeyword(text):
        raise ExprError(f"unexpected {text!r}: Python keywords are not part of the language",
                        start + 1)
    tokens.append(_Token("name", text, start + 1))
    return i


# --------------------------------------------------------------------------- parser

_INFIX_BP = {  # operator -> (left binding power, right binding power)
    "+": (10, 11), "-": (10, 11),
    "*": (20, 21), "/": (20, 21), "@": (20, 21),
    "^": (41, 40), "**": (41, 40),  # right-associative, tighter than unary minus
}
_PREFIX_BP = 30


def _unexpected(tok: _Token, hint: str | None = None) -> ExprError:
    if tok.kind == "end":
        what = "unexpected end of expression"
    elif tok.kind == "op":
        what = f"unexpected {tok.text!r}"
    else:
        what = f"unexpected {'number' if tok.kind == 'num' else 'name'} {tok.text!r}"
    return ExprError(what + (f" ({hint})" if hint else ""), tok.col)


def _unknown_function(name: str, col: int, user: Mapping[str, Any] | None = None) -> ExprError:
    close = difflib.get_close_matches(name, [*FUNCTIONS, *(user or ())], n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ExprError(f"unknown function {name!r}{hint}", col)


def _check_arity(name: str, count: int, col: int | None) -> None:
    low, high = FUNCTIONS[name]
    if count >= low and (high is None or count <= high):
        return
    if high is None:
        wanted = f"at least {low}"
    elif low == high:
        wanted = str(low)
    else:
        wanted = f"{low} or {high}"
    plural = "" if wanted.endswith(" 1") or wanted == "1" else "s"
    raise ExprError(f"{name}() takes {wanted} argument{plural}, got {count}", col)


class _Parser:
    """Pratt parser; nesting depth is counted explicitly, never left to Python's stack."""

    def __init__(self, source: str, functions: Mapping[str, UserFunction] | None = None) -> None:
        self.tokens = _tokenize(source)
        self.pos = 0
        self.depth = -1
        self.user = functions or {}

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def advance(self) -> _Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def at(self, text: str) -> bool:
        tok = self.peek()
        return tok.kind == "op" and tok.text == text

    def parse(self) -> Expr:
        tree = self.expr(0)
        if self.peek().kind != "end":
            raise _unexpected(self.peek())
        return tree

    def expr(self, min_bp: int) -> Expr:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ExprError(f"expression nested too deeply (more than {MAX_NESTING} levels)",
                            self.peek().col)
        left = self.prefix()
        while self.peek().kind == "op":
            tok = self.peek()
            if tok.text == "[":
                left = self.index(left)
                continue
            bp = _INFIX_BP.get(tok.text)
            if bp is None or bp[0] < min_bp:
                break
            self.advance()
            right = self.expr(bp[1])
            left = BinOp("^" if tok.text == "**" else tok.text, left, right, tok.col)
        self.depth -= 1
        return left

    def prefix(self) -> Expr:
        tok = self.advance()
        if tok.kind == "num":
            return Num(tok.text, tok.col)
        if tok.kind == "name":
            return self.call(tok) if self.at("(") else Name(tok.text, tok.col)
        if tok.kind == "op" and tok.text == "-":
            return Neg(self.expr(_PREFIX_BP), tok.col)
        if tok.kind == "op" and tok.text == "+":
            return self.expr(_PREFIX_BP)  # unary plus changes nothing; no node
        if tok.kind == "op" and tok.text == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        if tok.kind == "op" and tok.text == "[":
            return ListLit(tuple(self.sequence("]")), tok.col)
        raise _unexpected(tok)

    def expect(self, text: str) -> _Token:
        if not self.at(text):
            raise _unexpected(self.peek(), f"expected {text!r}")
        return self.advance()

    def sequence(self, close: str) -> list[Expr]:
        """Comma-separated expressions up to ``close`` (the opener is consumed)."""
        items: list[Expr] = []
        if self.at(close):
            self.advance()
            return items
        while True:
            items.append(self.expr(0))
            tok = self.advance()
            if tok.kind == "op" and tok.text == close:
                return items
            if not (tok.kind == "op" and tok.text == ","):
                raise _unexpected(tok, f"expected ',' or {close!r}")

    def call(self, name: _Token) -> Call:
        user = self.user.get(name.text)
        if user is None and name.text not in FUNCTIONS:
            raise _unknown_function(name.text, name.col, self.user)
        self.advance()  # "("
        args = self.sequence(")")
        if user is not None:
            user.check_arity(len(args), name.col)
        else:
            _check_arity(name.text, len(args), name.col)
        return Call(name.text, tuple(args), name.col)

    def index(self, target: Expr) -> Index:
        opener = self.advance()  # "["
        items = [self.index_item()]
        while self.at(","):
            self.advance()
            items.append(self.index_item())
        self.expect("]")
        if len(items) > 2:
            raise ExprError(f"at most 2 indices are allowed, got {len(items)}", opener.col)
        return Index(target, tuple(items), opener.col)

    def index_item(self) -> Expr | Slice:
        start = None if self.at(":") else self.expr(0)
        if not self.at(":"):
            assert start is not None
            return start
        colon = self.advance()
        stop = None if (self.at(",") or self.at("]")) else self.expr(0)
        return Slice(start, stop, colon.col)


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, Call):
        return node.args
    if isinstance(node, ListLit):
        return node.items
    if isinstance(node, Index):
        return (node.target, *node.items)
    if isinstance(node, Slice):
        return tuple(part for part in (node.start, node.stop) if part is not None)
    return ()


def _check_height(root: Node) -> None:
    """Bound the tree height without recursion (a 5000-term sum is a 5000-deep tree)."""
    height: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node))
            continue
        h = 1 + max((height[id(c)] for c in _children(node)), default=0)
        if h > MAX_HEIGHT:
            raise ExprError(f"expression too complex (more than {MAX_HEIGHT} operations "
                            "chained or nested)", node.col)
        height[id(node)] = h


def parse(source: str, functions: Mapping[str, UserFunction] | None = None) -> Expr:
    """Parse claim source text into an AST; raises ExprError with a column on failure.

    ``functions`` are the claim's user functions (:func:`define_function`) that calls
    may name besides the built-ins; their arity is checked here.
    """
    if not isinstance(source, str):
        raise ExprError(f"an expression must be text, got {type(source).__name__}")
    if len(source) > MAX_SOURCE_CHARS:
        raise ExprError(f"expression longer than {MAX_SOURCE_CHARS} characters")
    if not source.strip():
        raise ExprError("empty expression", 1)
    try:
        tree = _Parser(source, functions).parse()
    except RecursionError as exc:  # defensive: depth is bounded well below the limit
        raise ExprError("expression nested too deeply") from exc
    _check_height(tree)
    return tree


def free_names(expr: Expr) -> set[str]:
    """Every name the expression reads, constants ``pi``/``e`` included (env may shadow them)."""
    names: set[str] = set()
    stack: list[Node] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Name):
            names.add(node.id)
        stack.extend(_children(node))
    return names


def called_functions(expr: Expr) -> list[Call]:
    """Every call in the expression, in no particular order."""
    calls: list[Call] = []
    stack: list[Node] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, Call):
            calls.append(node)
        stack.extend(_children(node))
    return calls


# --------------------------------------------------------------------------- user functions

MAX_USER_FUNCTIONS = 32
MAX_PARAMS = 8
MAX_CALL_DEPTH = 8  # user functions calling user functions, at run time


@dataclass(frozen=True)
class UserFunction:
    """``name(params): body`` from a claim file's ``functions:``; the body is our AST.

    The body may call only built-ins and functions defined before it (no recursion),
    and read only its parameters, ``pi``/``e`` and the file's ``constants:`` (checked
    by the caller, which knows the constants).
    """

    name: str
    params: tuple[str, ...]
    body: Expr

    def check_arity(self, count: int, col: int | None) -> None:
        if count != len(self.params):
            n = len(self.params)
            raise ExprError(f"{self.name}({', '.join(self.params)}) takes {n} argument"
                            f"{'' if n == 1 else 's'}, got {count}", col)


def parse_signature(text: str) -> tuple[str, tuple[str, ...]]:
    """``sig(x)`` -> ("sig", ("x",)); a bare name ``σ`` takes one parameter ``x``."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("a function is written 'name(params)'", 1)
    tokens = _tokenize(text)
    if tokens[0].kind != "name":
        raise _unexpected(tokens[0], "a function is written 'name(params)'")
    name = tokens[0]
    if name.text in FUNCTIONS or name.text in CONSTANTS:
        raise ExprError(f"{name.text!r} is a built-in name and cannot be redefined", name.col)
    if tokens[1].kind == "end":
        return name.text, ("x",)
    if not (tokens[1].kind == "op" and tokens[1].text == "("):
        raise _unexpected(tokens[1], "expected '(' after the function's name")
    params: list[str] = []
    i = 2
    while True:
        tok = tokens[i]
        if tok.kind == "op" and tok.text == ")" and not params:
            raise ExprError(f"{name.text}() needs at least one parameter", tok.col)
        if tok.kind != "name":
            raise _unexpected(tok, "expected a parameter name")
        if tok.text in params:
            raise ExprError(f"parameter {tok.text!r} is named twice", tok.col)
        if tok.text in CONSTANTS:
            raise ExprError(f"parameter {tok.text!r} would hide the constant", tok.col)
        params.append(tok.text)
        sep = tokens[i + 1]
        i += 2
        if sep.kind == "op" and sep.text == ")":
            break
        if not (sep.kind == "op" and sep.text == ","):
            raise _unexpected(sep, "expected ',' or ')'")
    if tokens[i].kind != "end":
        raise _unexpected(tokens[i], "nothing may follow the parameter list")
    if len(params) > MAX_PARAMS:
        raise ExprError(f"more than {MAX_PARAMS} parameters", name.col)
    return name.text, tuple(params)


def define_function(signature: str, body: str, earlier: Mapping[str, UserFunction],
                    later: Sequence[str] = ()) -> UserFunction:
    """Parse one definition. ``earlier``: the functions defined before it (callable);
    ``later``: the names of itself and those after it (a call to one is recursion, refused).

    Errors carry ``part`` = "signature" or "body" so the caller can locate them.
    """
    try:
        name, params = parse_signature(signature)
    except ExprError as err:
        err.part = "signature"  # type: ignore[attr-defined]
        raise
    if name in earlier:
        err = ExprError(f"function {name!r} is defined twice", 1)
        err.part = "signature"  # type: ignore[attr-defined]
        raise err
    if len(earlier) >= MAX_USER_FUNCTIONS:
        err = ExprError(f"more than {MAX_USER_FUNCTIONS} functions", 1)
        err.part = "signature"  # type: ignore[attr-defined]
        raise err
    forward = {n: _Any(n) for n in later if n not in earlier}
    try:
        tree = parse(body, {**forward, **earlier})  # type: ignore[dict-item]
    except ExprError as err:
        err.part = "body"  # type: ignore[attr-defined]
        raise
    for call in sorted(called_functions(tree), key=lambda c: c.col or 0):
        if call.func in forward:
            what = "itself" if call.func == name else f"{call.func!r}, defined after it"
            err = ExprError(f"{name}: recursion is not allowed: the body calls {what} "
                            "(a body may call built-ins and functions defined before it)",
                            call.col)
            err.part = "body"  # type: ignore[attr-defined]
            raise err
    return UserFunction(name, params, tree)


class _Any:
    """A placeholder for a function defined later: any arity parses (then is refused)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def check_arity(self, count: int, col: int | None) -> None:
        return None


# --------------------------------------------------------------------------- printing

_BIN_PREC = {"+": 10, "-": 10, "*": 20, "/": 20, "@": 20, "^": 40}
_NEG_PREC = 30
_ATOM_PREC = 50


def _prec(node: Expr) -> int:
    if isinstance(node, BinOp):
        return _BIN_PREC[node.op]
    return _NEG_PREC if isinstance(node, Neg) else _ATOM_PREC


def _wrapped(node: Expr, parens: bool) -> str:
    text = to_text(node)
    return f"({text})" if parens else text


def to_text(expr: Expr) -> str:
    """Canonical text with minimal parentheses; ``parse(to_text(e)) == e``."""
    if isinstance(expr, Num):
        return expr.text
    if isinstance(expr, Name):
        return expr.id
    if isinstance(expr, Neg):
        return "-" + _wrapped(expr.operand, _prec(expr.operand) < _NEG_PREC)
    if isinstance(expr, BinOp):
        p = _BIN_PREC[expr.op]
        if expr.op == "^":  # right-assoc: (a^b)^c and (-a)^b need parentheses
            left = _wrapped(expr.left, _prec(expr.left) <= p)
            right = _wrapped(expr.right, _prec(expr.right) < _NEG_PREC)
        else:
            left = _wrapped(expr.left, _prec(expr.left) < p)
            right = _wrapped(expr.right, _prec(expr.right) <= p)
        return f"{left} {expr.op} {right}"
    if isinstance(expr, Call):
        return f"{expr.func}({', '.join(map(to_text, expr.args))})"
    if isinstance(expr, ListLit):
        return f"[{', '.join(map(to_text, expr.items))}]"
    if isinstance(expr, Index):
        target = _wrapped(expr.target, _prec(expr.target) < _ATOM_PREC)
        return f"{target}[{', '.join(map(_item_text, expr.items))}]"
    raise ExprError(f"not an expression node: {type(expr).__name__}")


def _item_text(item: Expr | Slice) -> str:
    if isinstance(item, Slice):
        start = "" if item.start is None else to_text(item.start)
        stop = "" if item.stop is None else to_text(item.stop)
        return f"{start}:{stop}"
    return to_text(item)


# --------------------------------------------------------------------------- values

Scalar = Any  # mpmath.mpf or mpmath.iv.mpf
Value = Any  # Scalar | tuple[Scalar, ...] | tuple[tuple[Scalar, ...], ...]


def _shape(value: Value) -> tuple[int, ...]:
    if not isinstance(value, tuple):
        return ()
    if value and isinstance(value[0], tuple):
        return (len(value), len(value[0]))
    return (len(value),)


def _shape_text(shape: tuple[int, ...]) -> str:
    if not shape:
        return "scalar"
    if len(shape) == 1:
        return f"vector[{shape[0]}]"
    return f"matrix[{shape[0]}x{shape[1]}]"


def _describe(value: Value) -> str:
    return _shape_text(_shape(value))


def _size(value: Value) -> int:
    shape = _shape(value)
    return 1 if not shape else shape[0] * (shape[1] if len(shape) == 2 else 1)


def _map(value: Value, fn: Callable[[Scalar], Scalar]) -> Value:
    if not isinstance(value, tuple):
        return fn(value)
    return tuple(_map(v, fn) for v in value)


def _flat(value: Value) -> list[Scalar]:
    if len(_shape(value)) == 2:
        return [x for row in value for x in row]
    return list(value)


class _PointOps:
    """Scalars are mpf; order is the value's own."""

    name = "point"
    ctx = mp

    def literal(self, text: str) -> Scalar:
        return mp.mpf(text)

    def scalar(self, raw: Any) -> Scalar:
        if isinstance(raw, mpmath.mpf):
            return raw
        if isinstance(raw, Fraction):
            return mp.mpf(raw.numerator) / raw.denominator
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return mp.mpf(raw)
        if isinstance(raw, iv.mpf):
            raise ExprError("an interval value where point mode expects a number")
        raise ExprError(f"unsupported value type {type(raw).__name__}")

    def bounds(self, x: Scalar) -> tuple[mpmath.mpf, mpmath.mpf]:
        return x, x

    def key(self, x: Scalar) -> mpmath.mpf:
        return x

    def monotone(self, x: Scalar, fn: Callable[[mpmath.mpf], mpmath.mpf]) -> Scalar:
        return fn(x)

    def from_bounds(self, lo: mpmath.mpf, hi: mpmath.mpf) -> Scalar:
        return lo

    def constant(self, name: str) -> Scalar:
        return +mp.pi if name == "pi" else +mp.e

    def total(self, xs: Sequence[Scalar]) -> Scalar:
        return mp.fsum(xs)

    def dot(self, xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar:
        return mp.fdot(zip(xs, ys, strict=True))

    def tanh(self, x: Scalar) -> Scalar:
        if abs(x) > 1000:  # |tanh| is 1 to far beyond 40 digits; mp.tanh would be slow
            return mp.mpf(mp.sign(x))
        return mp.tanh(x)

    def show(self, x: Scalar) -> str:
        return mp.nstr(x, 12)


class _IntervalOps:
    """Scalars are iv.mpf; positional decisions use the midpoint."""

    name = "interval"
    ctx = iv

    def literal(self, text: str) -> Scalar:
        return iv.mpf(text)

    def scalar(self, raw: Any) -> Scalar:
        if isinstance(raw, iv.mpf):
            return raw
        if isinstance(raw, Fraction):  # the quotient of two exact ends, rounded outward
            return iv.mpf(raw.numerator) / iv.mpf(raw.denominator)
        if isinstance(raw, (int, float, mpmath.mpf)) and not isinstance(raw, bool):
            return iv.mpf(raw)
        raise ExprError(f"unsupported value type {type(raw).__name__}")

    def bounds(self, x: Scalar) -> tuple[mpmath.mpf, mpmath.mpf]:
        lo, hi = x._mpi_  # raw ends, exact: no rounding to the current mp precision
        return mp.make_mpf(lo), mp.make_mpf(hi)

    def key(self, x: Scalar) -> mpmath.mpf:
        lo, hi = self.bounds(x)
        return (lo + hi) / 2

    def monotone(self, x: Scalar, fn: Callable[[mpmath.mpf], mpmath.mpf]) -> Scalar:
        lo, hi = self.bounds(x)
        return self.from_bounds(fn(lo), fn(hi))

    def from_bounds(self, lo: mpmath.mpf, hi: mpmath.mpf) -> Scalar:
        return iv.mpf([lo, hi])

    def constant(self, name: str) -> Scalar:
        return +iv.pi if name == "pi" else +iv.e

    def total(self, xs: Sequence[Scalar]) -> Scalar:
        acc = iv.mpf(0)
        for x in xs:
            acc = acc + x
        return acc

    def dot(self, xs: Sequence[Scalar], ys: Sequence[Scalar]) -> Scalar:
        return self.total([x * y for x, y in zip(xs, ys, strict=True)])

    def tanh(self, x: Scalar) -> Scalar:
        """tanh is increasing: enclose each end with 1 - 2/(exp(2v)+1), exact in v."""
        lo, hi = self.bounds(x)

        def enclose(v: mpmath.mpf) -> Scalar:
            v = min(max(v, mp.mpf(-1000)), mp.mpf(1000))
            return 1 - 2 / (iv.exp(2 * iv.mpf(v)) + 1)

        low = mp.mpf(-1) if lo < -1000 else self.bounds(enclose(lo))[0]
        high = mp.mpf(1) if hi > 1000 else self.bounds(enclose(hi))[1]
        return self.from_bounds(low, high)

    def show(self, x: Scalar) -> str:
        lo, hi = self.bounds(x)
        return f"[{mp.nstr(lo, 12)}, {mp.nstr(hi, 12)}]"


_OPS = {"point": _PointOps(), "interval": _IntervalOps()}


def _round_half_away(v: mpmath.mpf) -> mpmath.mpf:
    """School rounding; exact because v - floor(v) is representable."""
    a = abs(v)
    f = mp.floor(a, prec=0)
    r = f + 1 if a - f >= mp.mpf(0.5) else f
    return -r if v < 0 else r


@contextmanager
def _precision() -> Iterator[None]:
    """40 digits for both contexts, whatever global state others left behind."""
    saved = iv.prec
    try:
        with mp.workdps(DPS):
            iv.dps = DPS
            yield
    finally:
        iv.prec = saved


# --------------------------------------------------------------------------- evaluator


class _Evaluator:
    def __init__(self, env: Mapping[str, Any], ops: _PointOps | _IntervalOps,
                 functions: Mapping[str, UserFunction] | None = None,
                 max_work: int | None = None) -> None:
        self.env = env
        self.ops = ops
        self.work = 0
        self.max_work = MAX_WORK if max_work is None else max_work  # read now: tests patch it
        self.names: dict[str, Value] = {}
        self.functions = functions or {}
        self.call_depth = 0

    # -- bookkeeping -------------------------------------------------------------

    def spend(self, units: int) -> None:
        self.work += units
        if self.work > self.max_work:
            raise ExprError(f"expression too expensive to evaluate (more than "
                            f"{self.max_work:,} elementary operations)")

    @staticmethod
    def check_size(count: int) -> None:
        if count > MAX_ELEMENTS:
            raise ExprError(f"result too large: {count:,} elements (limit {MAX_ELEMENTS:,})")

    def value_of(self, node: Expr) -> Value:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            raise ExprError(f"not an expression node: {type(node).__name__}")
        try:
            return handler(self, node)
        except ExprError as err:
            if err.col is None:
                err.col = node.col
            raise

    # -- nodes -------------------------------------------------------------------

    def num(self, node: Num) -> Value:
        self.spend(1)
        return self.ops.literal(node.text)

    def name(self, node: Name) -> Value:
        if node.id not in self.names:
            self.names[node.id] = self.lookup(node.id)
        return self.names[node.id]

    def lookup(self, name: str) -> Value:
        try:
            raw = self.env[name]  # a lazy Mapping may compute here; `in` would compute twice
        except KeyError:
            if name in CONSTANTS:
                return self.ops.constant(name)
            close = difflib.get_close_matches(name, [*self.env, *CONSTANTS], n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ExprError(f"unknown name {name!r}{hint}") from None
        try:
            return self.convert(raw)
        except ExprError as err:
            raise ExprError(f"value of {name!r}: {err.message}") from None

    def convert(self, raw: Any) -> Value:
        if not isinstance(raw, (tuple, list)):
            return self.finite(self.ops.scalar(raw))
        if raw and all(isinstance(row, (tuple, list)) for row in raw):
            rows = tuple(tuple(self.finite(self.ops.scalar(x)) for x in row) for row in raw)
            if len({len(row) for row in rows}) > 1:
                raise ExprError("matrix rows of different lengths")
            self.spend(_size(rows))
            return rows
        self.spend(len(raw))
        return tuple(self.finite(self.ops.scalar(x)) for x in raw)

    def finite(self, x: Scalar) -> Scalar:
        lo, hi = self.ops.bounds(x)
        if not (mp.isfinite(lo) and mp.isfinite(hi)):
            raise ExprError(f"value is not finite: {self.ops.show(x)}")
        return x

    def neg(self, node: Neg) -> Value:
        value = self.value_of(node.operand)
        self.spend(_size(value))
        return _map(value, lambda x: -x)

    def binop(self, node: BinOp) -> Value:
        left, right = self.value_of(node.left), self.value_of(node.right)
        if node.op == "@":
            return self.matmul(left, right)
        method = _SCALAR_BINOPS.get(node.op)
        if method is None:
            raise ExprError(f"unknown operator {node.op!r}")
        return self.elementwise(left, right, lambda x, y: method(self, x, y), node.op)

    def elementwise(self, a: Value, b: Value, fn: Callable[[Scalar, Scalar], Scalar],
                    op: str) -> Value:
        sa, sb = _shape(a), _shape(b)
        if sa and sb and sa != sb:
            raise ExprError(f"shape mismatch for {op!r}: {_shape_text(sa)} and "
                            f"{_shape_text(sb)}")
        self.spend(max(_size(a), _size(b)))
        if not sa:
            return _map(b, lambda y: fn(a, y))
        if not sb:
            return _map(a, lambda x: fn(x, b))
        if len(sa) == 1:
            return tuple(fn(x, y) for x, y in zip(a, b, strict=True))
        return tuple(tuple(fn(x, y) for x, y in zip(ra, rb, strict=True))
                     for ra, rb in zip(a, b, strict=True))

    def matmul(self, a: Value, b: Value) -> Value:
        sa, sb = _shape(a), _shape(b)
        if not sa or not sb:
            raise ExprError(f"'@' needs vectors or matrices, got {_shape_text(sa)} @ "
                            f"{_shape_text(sb)} (use '*' with a scalar)")
        inner_a = sa[-1]
        if inner_a != sb[0]:
            raise ExprError(f"shape mismatch for '@': {_shape_text(sa)} @ {_shape_text(sb)}")
        rows = [a] if len(sa) == 1 else list(a)
        cols = [b] if len(sb) == 1 else [tuple(r[j] for r in b) for j in range(sb[1])]
        self.check_size(len(rows) * len(cols))
        self.spend(len(rows) * len(cols) * max(inner_a, 1))
        out = tuple(tuple(self.ops.dot(r, c) for c in cols) for r in rows)
        if len(sa) == 1 and len(sb) == 1:
            return out[0][0]
        if len(sa) == 1:
            return out[0]
        if len(sb) == 1:
            return tuple(row[0] for row in out)
        return out

    def list_lit(self, node: ListLit) -> Value:
        items = [self.value_of(item) for item in node.items]
        shapes = {_shape(v) for v in items}
        if not items or shapes == {()}:
            self.check_size(len(items))
            return tuple(items)
        if len(shapes) == 1 and len(next(iter(shapes))) == 1:
            self.check_size(len(items) * len(items[0]))
            return tuple(items)
        found = ", ".join(sorted({_shape_text(s) for s in shapes}))
        raise ExprError("list items must be all scalars or all vectors of one length "
                        f"(a matrix), got {found}")

    def call(self, node: Call) -> Value:
        user = self.functions.get(node.func)
        if user is not None:
            return self.user_call(user, node)
        if node.func not in FUNCTIONS:
            raise _unknown_function(node.func, node.col)
        _check_arity(node.func, len(node.args), node.col)
        args = [self.value_of(arg) for arg in node.args]
        return _IMPLS[node.func](self, *args)

    def user_call(self, fn: UserFunction, node: Call) -> Value:
        """A user function: the body with its parameters bound; other names (the file's
        constants) still read the caller's environment. Errors point at the call."""
        fn.check_arity(len(node.args), node.col)
        args = [self.value_of(arg) for arg in node.args]
        self.spend(1)
        if self.call_depth >= MAX_CALL_DEPTH:
            raise ExprError(f"user functions nested more than {MAX_CALL_DEPTH} deep", node.col)
        saved = self.names
        self.names = {k: v for k, v in saved.items() if k not in fn.params}
        self.names.update(zip(fn.params, args, strict=True))
        self.call_depth += 1
        try:
            return self.value_of(fn.body)
        except ExprError as err:
            raise ExprError(f"in {fn.name}(): {err.message}", node.col) from None
        finally:
            self.call_depth -= 1
            self.names = saved

    # -- indexing -----------------------------------------------------------------

    def index(self, node: Index) -> Value:
        target = self.value_of(node.target)
        shape = _shape(target)
        if len(node.items) > len(shape):
            raise ExprError(f"{len(node.items)} indices for a {_shape_text(shape)}")
        picked = [self.pick(item, n) for item, n in zip(node.items, shape, strict=False)]
        self.spend(1)
        rows = picked[0]
        if len(picked) == 1:
            return target[rows] if isinstance(rows, int) else tuple(target[rows])
        cols = picked[1]
        if isinstance(rows, int):
            row = target[rows]
            return row[cols] if isinstance(cols, int) else tuple(row[cols])
        if isinstance(cols, int):
            return tuple(row[cols] for row in target[rows])
        return tuple(tuple(row[cols]) for row in target[rows])

    def pick(self, item: Expr | Slice, n: int) -> int | slice:
        """An index normalised into 0..n-1, or a slice within 0..n; else an error."""
        if not isinstance(item, Slice):
            i = self.integer(self.value_of(item), "an index", item.col)
            j = i + n if i < 0 else i
            if not 0 <= j < n:
                raise ExprError(f"index {i} out of range for length {n}", item.col)
            return j
        bound = "a slice bound"
        start = (0 if item.start is None
                 else self.integer(self.value_of(item.start), bound, item.col))
        stop = n if item.stop is None else self.integer(self.value_of(item.stop), bound, item.col)
        lo = start + n if start < 0 else start
        hi = stop + n if stop < 0 else stop
        if not 0 <= lo <= hi <= n:
            raise ExprError(f"slice {start}:{stop} out of range for length {n}", item.col)
        return slice(lo, hi)

    def integer(self, value: Value, what: str, col: int | None = None) -> int:
        """An exact integer from a scalar that should hold one (see module notes)."""
        if _shape(value):
            raise ExprError(f"{what} must be a scalar, got {_describe(value)}", col)
        lo, hi = self.ops.bounds(value)
        if max(abs(lo), abs(hi)) > MAX_INT:
            raise ExprError(f"{what} is too large: {self.ops.show(value)}", col)
        if lo == hi:
            k = int(mp.nint(lo))
            if abs(lo - k) <= mp.mpf("1e-30") * max(1, abs(k)):
                return k
        else:
            k = int(mp.ceil(lo, prec=0))
            if k <= hi and k + 1 > hi:
                return k
        raise ExprError(f"{what} must be an integer, got {self.ops.show(value)}", col)

    # -- scalar arithmetic --------------------------------------------------------

    def add(self, a: Scalar, b: Scalar) -> Scalar:
        return a + b

    def sub(self, a: Scalar, b: Scalar) -> Scalar:
        return a - b

    def mul(self, a: Scalar, b: Scalar) -> Scalar:
        return a * b

    def div(self, a: Scalar, b: Scalar) -> Scalar:
        lo, hi = self.ops.bounds(b)
        if lo <= 0 <= hi:
            raise ExprError("division by zero" if lo == hi
                            else f"division by an interval containing zero: {self.ops.show(b)}")
        return a / b

    def power(self, a: Scalar, b: Scalar) -> Scalar:
        alo, ahi = self.ops.bounds(a)
        blo, bhi = self.ops.bounds(b)
        if alo == ahi and abs(alo) in (0, 1):
            return self.unit_power(a, alo, b)
        if max(abs(blo), abs(bhi)) > MAX_POWER_EXPONENT:
            raise ExprError(f"exponent too large (|exponent| > {MAX_POWER_EXPONENT})")
        n = self.exact_int(b)
        if n is not None:
            if n < 0 and alo <= 0 <= ahi:
                raise ExprError("division by zero (0 to a negative power)")
            return a**n
        if alo < 0:
            raise ExprError(f"negative base {self.ops.show(a)} with a non-integer exponent")
        if alo == 0:  # [0, hi]^[c, d] with c > 0 is [0, max(hi^c, hi^d)]
            if blo <= 0:
                raise ExprError("0 to a non-positive, non-integer power")
            top = self.ops.scalar(ahi) ** b
            return self.ops.from_bounds(mp.mpf(0), self.ops.bounds(top)[1])
        return a**b

    def unit_power(self, a: Scalar, base: mpmath.mpf, b: Scalar) -> Scalar:
        """0, 1 and -1 to any power: no size limit, no huge integers built."""
        blo, bhi = self.ops.bounds(b)
        if base == 1:
            return a
        if base == 0:
            if blo > 0:
                return a
            if blo == bhi == 0:
                return self.ops.scalar(1)
            if bhi < 0:
                raise ExprError("division by zero (0 to a negative power)")
            raise ExprError("0 to a power that may be zero or negative")
        if blo != bhi:
            raise ExprError("-1 to an inexact power")
        if abs(blo) >= mp.mpf(2) ** 200:  # every such float is an even integer
            return self.ops.scalar(1)
        n = self.exact_int(b)
        if n is None:
            raise ExprError("negative base -1 with a non-integer exponent")
        return self.ops.scalar(-1 if n % 2 else 1)

    def exact_int(self, b: Scalar) -> int | None:
        lo, hi = self.ops.bounds(b)
        if lo != hi or abs(lo) > mp.mpf(2) ** 200 or mp.floor(lo, prec=0) != lo:
            return None
        return int(lo)

    # -- unary math ---------------------------------------------------------------

    def unary(self, x: Value, fn: Callable[[Scalar], Scalar], cost: int = 1) -> Value:
        self.spend(_size(x) * cost)
        return _map(x, fn)

    def limited(self, x: Scalar, limit: int, what: str) -> Scalar:
        lo, hi = self.ops.bounds(x)
        if max(abs(lo), abs(hi)) > limit:
            raise ExprError(f"{what} argument too large (|x| > {limit:g})")
        return x

    def positive(self, x: Scalar, what: str) -> Scalar:
        lo, hi = self.ops.bounds(x)
        if lo <= 0:
            raise ExprError(f"{what} of a non-positive number: {self.ops.show(x)}" if lo == hi
                            else f"{what} of an interval reaching zero or below: "
                            f"{self.ops.show(x)}")
        return x

    def ln(self, x: Scalar) -> Scalar:
        return self.ops.ctx.ln(self.positive(x, "ln"))

    def trig(self, fn: str, x: Scalar) -> Scalar:
        result = getattr(self.ops.ctx, fn)(self.limited(x, MAX_TRIG_ARG, fn))
        lo, hi = self.ops.bounds(result)
        if not (mp.isfinite(lo) and mp.isfinite(hi)):
            raise ExprError(f"{fn} of {self.ops.show(x)} is unbounded (a pole)")
        return result

    def sqrt(self, x: Scalar) -> Scalar:
        lo, _ = self.ops.bounds(x)
        if lo < 0:
            raise ExprError(f"sqrt of a negative number: {self.ops.show(x)}")
        return self.ops.ctx.sqrt(x)

    def log(self, x: Value, base: Value | None = None) -> Value:
        if base is None:
            return self.unary(x, self.ln, TRANSCENDENTAL_COST)
        return self.elementwise(self.log(x), self.unary(base, self.log_base, TRANSCENDENTAL_COST),
                                self.div, "log")

    def log_base(self, b: Scalar) -> Scalar:
        lo, hi = self.ops.bounds(b)
        if lo <= 1 <= hi:
            raise ExprError(f"log base {self.ops.show(b)} is, or may be, 1")
        return self.ops.ctx.ln(self.positive(b, "log base"))

    # -- reductions and vector functions ------------------------------------------

    def elements(self, value: Value, fn: str, allow_empty: bool = False) -> list[Scalar]:
        if not _shape(value):
            raise ExprError(f"{fn}() needs a vector or matrix, got a scalar")
        items = _flat(value)
        if not items and not allow_empty:
            raise ExprError(f"{fn}() of an empty vector")
        self.spend(len(items))
        return items

    def vector(self, value: Value, fn: str, allow_empty: bool = False) -> list[Scalar]:
        if len(_shape(value)) != 1:
            raise ExprError(f"{fn}() needs a vector, got {_describe(value)}")
        return self.elements(value, fn, allow_empty)

    def extreme(self, args: Sequence[Value], fn: str, pick: Callable[..., Any]) -> Scalar:
        if len(args) == 1 and _shape(args[0]):
            items = self.elements(args[0], fn)
        elif all(not _shape(a) for a in args):
            items = list(args)
        else:
            raise ExprError(f"{fn}() takes one vector/matrix or several scalars, got "
                            + ", ".join(_describe(a) for a in args))
        ends = [self.ops.bounds(x) for x in items]
        return self.ops.from_bounds(pick(lo for lo, _ in ends), pick(hi for _, hi in ends))

    def arg_extreme(self, value: Value, fn: str, sign: int) -> Scalar:
        keys = [sign * self.ops.key(x) for x in self.vector(value, fn)]
        best = max(keys)
        return self.ops.scalar(keys.index(best))

    def sorted_values(self, value: Value, fn: str, descending: bool) -> Value:
        items = self.vector(value, fn, allow_empty=True)
        self.spend(len(items) * max(1, len(items).bit_length()))
        ends = [self.ops.bounds(x) for x in items]
        los = sorted((lo for lo, _ in ends), reverse=descending)
        his = sorted((hi for _, hi in ends), reverse=descending)
        if self.ops.name == "point":
            return tuple(los)
        return tuple(self.ops.from_bounds(lo, hi) for lo, hi in zip(los, his, strict=True))

    def shares(self, values: Sequence[Scalar]) -> list[Scalar]:
        """values / sum(values); in interval mode 1/(1 + others/v) avoids using v twice."""
        if self.ops.name == "point":
            total = self.ops.total(values)
            return [self.div(v, total) for v in values]
        prefix = [iv.mpf(0)]
        for v in values:
            prefix.append(prefix[-1] + v)
        suffix = [iv.mpf(0)]
        for v in reversed(values):
            suffix.append(suffix[-1] + v)
        suffix.reverse()
        out = []
        for i, v in enumerate(values):
            others = prefix[i] + suffix[i + 1]
            lo, hi = self.ops.bounds(v)
            if lo > 0 or hi < 0:
                out.append(self.div(iv.mpf(1), 1 + others / v))
            else:
                out.append(self.div(v, v + others))
        return out

    def softmax_row(self, row: Sequence[Scalar]) -> tuple[Scalar, ...]:
        if not row:
            raise ExprError("softmax() of an empty vector")
        shift = max(self.ops.key(x) for x in row)
        return tuple(self.shares([self.shifted_exp(x, shift) for x in row]))

    def shifted_exp(self, x: Scalar, shift: mpmath.mpf) -> Scalar:
        """exp(x - shift) where x - shift <= 0 at the midpoint; tiny tails bounded, not computed."""
        d = x - shift
        lo, hi = self.ops.bounds(d)
        if hi > MAX_EXP_ARG:
            raise ExprError(f"softmax() input interval too wide: {self.ops.show(x)}")
        floor = mp.mpf(-MAX_EXP_ARG)
        if self.ops.name == "point":
            return mp.mpf(0) if d < floor else mp.exp(d)
        clipped = iv.exp(iv.mpf([max(lo, floor), max(hi, floor)]))
        top = self.ops.bounds(clipped)[1]
        return self.ops.from_bounds(mp.mpf(0), top) if lo < floor else clipped

    def keep(self, p: Sequence[Scalar], kept: Sequence[int]) -> Value:
        """Zero all but ``kept``, renormalise the kept entries to sum 1."""
        values = self.shares([p[i] for i in kept])
        out = [self.ops.scalar(0)] * len(p)
        for i, v in zip(kept, values, strict=True):
            out[i] = v
        return tuple(out)

    def descending_order(self, p: Sequence[Scalar]) -> list[int]:
        self.spend(len(p) * max(1, len(p).bit_length()))
        keys = [self.ops.key(x) for x in p]
        return sorted(range(len(p)), key=lambda i: (-keys[i], i))


# -- function implementations (args already evaluated; arity checked) -------------------


def _fn_concat(ev: _Evaluator, *args: Value) -> Value:
    shapes = [_shape(a) for a in args]
    if all(len(s) == 1 for s in shapes):
        ev.check_size(sum(s[0] for s in shapes))
        ev.spend(sum(s[0] for s in shapes))
        return tuple(x for a in args for x in a)
    if all(len(s) == 2 for s in shapes):
        if len({s[0] for s in shapes}) > 1:
            raise ExprError("concat() needs matrices with the same number of rows, got "
                            + ", ".join(map(_shape_text, shapes)))
        ev.check_size(shapes[0][0] * sum(s[1] for s in shapes))
        ev.spend(shapes[0][0] * sum(s[1] for s in shapes))
        return tuple(tuple(x for a in args for x in a[i]) for i in range(shapes[0][0]))
    raise ExprError("concat() needs all matrices (side by side) or all vectors, got "
                    + ", ".join(map(_shape_text, shapes)))


def _fn_transpose(ev: _Evaluator, m: Value) -> Value:
    shape = _shape(m)
    if len(shape) == 1:
        raise ExprError("transpose() of a vector is ambiguous: '@' uses a vector as row or "
                        "column as needed; write [v] for a 1xn matrix or transpose([v]) for nx1")
    if len(shape) != 2:
        raise ExprError(f"transpose() needs a matrix, got {_shape_text(shape)}")
    ev.spend(_size(m))
    return tuple(tuple(row[j] for row in m) for j in range(shape[1]))


def _fn_softmax(ev: _Evaluator, x: Value) -> Value:
    shape = _shape(x)
    if not shape:
        raise ExprError("softmax() needs a vector or matrix, got a scalar")
    ev.spend(_size(x) * (TRANSCENDENTAL_COST + 2))
    if len(shape) == 1:
        return ev.softmax_row(x)
    return tuple(ev.softmax_row(row) for row in x)


def _fn_cumsum(ev: _Evaluator, v: Value) -> Value:
    out: list[Scalar] = []
    acc = ev.ops.scalar(0)
    for x in ev.vector(v, "cumsum", allow_empty=True):
        acc = acc + x
        out.append(acc)
    return tuple(out)


def _fn_range(ev: _Evaluator, a: Value, b: Value | None = None) -> Value:
    first = ev.integer(a, "range() bound")
    start, stop = (0, first) if b is None else (first, ev.integer(b, "range() bound"))
    count = max(0, stop - start)
    ev.check_size(count)
    ev.spend(count)
    return tuple(ev.ops.scalar(i) for i in range(start, stop))


MAX_FACTORIAL = 1000


def _fn_factorial(ev: _Evaluator, n: Value) -> Value:
    count = ev.integer(n, "factorial() n")
    if not 0 <= count <= MAX_FACTORIAL:
        raise ExprError(f"factorial() needs 0 <= n <= {MAX_FACTORIAL}, got {count}")
    return ev.ops.scalar(math.factorial(count))


def _fn_comb(ev: _Evaluator, n: Value, k: Value) -> Value:
    """Binomial coefficient C(n, k), exact for integers (the ±1 table counts)."""
    total, chosen = ev.integer(n, "comb() n"), ev.integer(k, "comb() k")
    if not 0 <= total <= MAX_FACTORIAL or chosen < 0:
        raise ExprError(f"comb() needs 0 <= n <= {MAX_FACTORIAL} and k >= 0")
    return ev.ops.scalar(math.comb(total, chosen))


def _fn_topk(ev: _Evaluator, p: Value, k: Value) -> Value:
    items = ev.vector(p, "topk")
    count = ev.integer(k, "topk() k")
    if count < 1:
        raise ExprError(f"topk() k must be at least 1, got {count}")
    return ev.keep(items, sorted(ev.descending_order(items)[:count]))


def _fn_topp(ev: _Evaluator, p: Value, mass: Value) -> Value:
    items = ev.vector(p, "topp")
    if _shape(mass):
        raise ExprError(f"topp() P must be a scalar, got {_describe(mass)}")
    target = ev.ops.key(mass)
    target -= mp.mpf("1e-35") * max(1, abs(target))
    kept: list[int] = []
    acc = mp.mpf(0)
    for i in ev.descending_order(items):
        kept.append(i)
        acc += ev.ops.key(items[i])
        if acc >= target:
            break
    return ev.keep(items, sorted(kept))


def _fn_len(ev: _Evaluator, v: Value) -> Value:
    if not _shape(v):
        raise ExprError("len() needs a vector or matrix, got a scalar")
    return ev.ops.scalar(len(v))


def _fn_count(ev: _Evaluator, v: Value) -> Value:
    """How many entries are not exactly zero (e.g. the tokens top-k or top-p keeps)."""
    items = ev.elements(v, "count", allow_empty=True)
    return ev.ops.scalar(sum(1 for x in items if ev.ops.bounds(x) != (0, 0)))


def _fn_mean(ev: _Evaluator, v: Value) -> Scalar:
    items = ev.elements(v, "mean")
    return ev.ops.total(items) / len(items)


def _fn_var(ev: _Evaluator, v: Value) -> Scalar:
    items = ev.elements(v, "var")
    m = ev.ops.total(items) / len(items)
    return ev.ops.total([(x - m) ** 2 for x in items]) / len(items)


def _fn_prod(ev: _Evaluator, v: Value) -> Scalar:
    acc = ev.ops.scalar(1)
    for x in ev.elements(v, "prod", allow_empty=True):
        acc = acc * x
    return acc


def _elementwise_fn(method: Callable[[_Evaluator, Scalar], Scalar],
                    cost: int = TRANSCENDENTAL_COST) -> Callable[[_Evaluator, Value], Value]:
    def impl(ev: _Evaluator, x: Value) -> Value:
        return ev.unary(x, lambda v: method(ev, v), cost)
    return impl


def _sigmoid(ev: _Evaluator, x: Scalar) -> Scalar:
    """1 / (1 + exp(-x)), increasing: in interval mode each end is enclosed on its own."""
    ev.limited(x, MAX_EXP_ARG, "sigmoid")
    if ev.ops.name == "point":
        return 1 / (1 + mp.exp(-x))
    lo, hi = ev.ops.bounds(x)
    low = ev.ops.bounds(1 / (1 + iv.exp(-iv.mpf(lo))))[0]
    high = ev.ops.bounds(1 / (1 + iv.exp(-iv.mpf(hi))))[1]
    return ev.ops.from_bounds(low, high)


_IMPLS: dict[str, Callable[..., Value]] = {
    "exp": _elementwise_fn(lambda ev, x: ev.ops.ctx.exp(ev.limited(x, MAX_EXP_ARG, "exp"))),
    "ln": _elementwise_fn(_Evaluator.ln),
    "log": _Evaluator.log,
    "log2": _elementwise_fn(lambda ev, x: ev.ln(x) / ev.ops.ctx.ln(ev.ops.scalar(2))),
    "log10": _elementwise_fn(lambda ev, x: ev.ops.ctx.log10(ev.positive(x, "log10"))),
    "sqrt": _elementwise_fn(_Evaluator.sqrt),
    "sin": _elementwise_fn(lambda ev, x: ev.trig("sin", x)),
    "cos": _elementwise_fn(lambda ev, x: ev.trig("cos", x)),
    "tan": _elementwise_fn(lambda ev, x: ev.trig("tan", x)),
    "tanh": _elementwise_fn(lambda ev, x: ev.ops.tanh(x)),
    "sigmoid": _elementwise_fn(lambda ev, x: _sigmoid(ev, x)),
    "relu": _elementwise_fn(lambda ev, x: ev.ops.monotone(x, lambda v: max(v, mp.mpf(0))), 1),
    # erf is increasing, so its values at the two ends enclose an interval's image.
    "erf": _elementwise_fn(lambda ev, x: ev.ops.monotone(x, mp.erf)),
    "comb": _fn_comb,
    "count": _fn_count,
    "factorial": _fn_factorial,
    "abs": _elementwise_fn(lambda ev, x: abs(x), 1),
    "floor": _elementwise_fn(lambda ev, x: ev.ops.monotone(x, lambda v: mp.floor(v, prec=0)), 1),
    "ceil": _elementwise_fn(lambda ev, x: ev.ops.monotone(x, lambda v: mp.ceil(v, prec=0)), 1),
    "round": _elementwise_fn(lambda ev, x: ev.ops.monotone(x, _round_half_away), 1),
    "sum": lambda ev, v: ev.ops.total(ev.elements(v, "sum", allow_empty=True)),
    "prod": _fn_prod,
    "mean": _fn_mean,
    "var": _fn_var,
    "max": lambda ev, *args: ev.extreme(args, "max", max),
    "min": lambda ev, *args: ev.extreme(args, "min", min),
    "argmax": lambda ev, v: ev.arg_extreme(v, "argmax", 1),
    "argmin": lambda ev, v: ev.arg_extreme(v, "argmin", -1),
    "len": _fn_len,
    "softmax": _fn_softmax,
    "transpose": _fn_transpose,
    "concat": _fn_concat,
    "sort": lambda ev, v: ev.sorted_values(v, "sort", descending=False),
    "rsort": lambda ev, v: ev.sorted_values(v, "rsort", descending=True),
    "cumsum": _fn_cumsum,
    "range": _fn_range,
    "topk": _fn_topk,
    "topp": _fn_topp,
}
assert set(_IMPLS) == set(FUNCTIONS)

_SCALAR_BINOPS = {
    "+": _Evaluator.add,
    "-": _Evaluator.sub,
    "*": _Evaluator.mul,
    "/": _Evaluator.div,
    "^": _Evaluator.power,
}

_HANDLERS: dict[type, Callable[[_Evaluator, Any], Value]] = {
    Num: _Evaluator.num,
    Name: _Evaluator.name,
    Neg: _Evaluator.neg,
    BinOp: _Evaluator.binop,
    Call: _Evaluator.call,
    ListLit: _Evaluator.list_lit,
    Index: _Evaluator.index,
}


def evaluate(expr: Expr, env: Mapping[str, Any], mode: str = "point",
             functions: Mapping[str, UserFunction] | None = None) -> Value:
    """Evaluate at 40 digits in "point" (mpf) or "interval" (iv.mpf) mode.

    Only ExprError escapes: a hostile or broken claim must fail the claim, not the gate.
    """
    ops = _OPS.get(mode) if isinstance(mode, str) else None
    if ops is None:
        raise ExprError(f"unknown evaluation mode {mode!r} (use 'point' or 'interval')")
    return _guarded(lambda: _Evaluator(env, ops, functions).value_of(expr))


MAX_ITERATE_STEPS = 100_000
MAX_ITERATE_WORK = 3_000_000  # elementary operations of one iterate, all steps together


def iterate_cost(step: Mapping[str, Expr], times: int,
                 functions: Mapping[str, UserFunction] | None = None) -> int:
    """A static estimate of an iterate's work: ``times`` x the step's nodes, a call of a
    user function counting its body's nodes (bodies call only earlier functions)."""
    functions = functions or {}
    sizes: dict[str, int] = {}

    def size(tree: Expr) -> int:
        nodes = 0
        stack: list[Node] = [tree]
        while stack:
            node = stack.pop()
            nodes += 1
            if isinstance(node, Call) and node.func in functions:
                if node.func not in sizes:
                    sizes[node.func] = 0  # no recursion: a defect cannot loop here
                    sizes[node.func] = size(functions[node.func].body)
                nodes += sizes[node.func]
            stack.extend(_children(node))
        return nodes

    return times * sum(size(tree) for tree in step.values())


def iterate(state: Mapping[str, Expr], step: Mapping[str, Expr], times: int,
            env: Mapping[str, Any], mode: str = "point",
            functions: Mapping[str, UserFunction] | None = None) -> dict[str, Value]:
    """Apply ``step`` ``times`` times to the state that ``state`` starts from.

    Every step expression reads the *previous* state (a simultaneous update), the
    environment and the user functions. At most :data:`MAX_ITERATE_STEPS` steps and
    :data:`MAX_ITERATE_WORK` elementary operations for all steps together.
    """
    ops = _OPS.get(mode) if isinstance(mode, str) else None
    if ops is None:
        raise ExprError(f"unknown evaluation mode {mode!r} (use 'point' or 'interval')")
    if not 0 <= times <= MAX_ITERATE_STEPS:
        raise ExprError(f"iterate: times must be 0 to {MAX_ITERATE_STEPS:,}, got {times:,}")
    if iterate_cost(step, times, functions) > MAX_ITERATE_WORK:
        raise ExprError(f"iterate: {times:,} steps of this size exceed the work bound "
                        f"({MAX_ITERATE_WORK:,} operations)")

    def run() -> dict[str, Value]:
        ev = _Evaluator(env, ops, functions, MAX_ITERATE_WORK)
        current = {name: ev.value_of(tree) for name, tree in state.items()}
        for _ in range(times):
            ev.names = dict(current)
            current = {name: ev.value_of(tree) for name, tree in step.items()}
            for name, value in current.items():
                for x in (_flat(value) if _shape(value) else [value]):
                    try:
                        ev.finite(x)
                    except ExprError as err:
                        raise ExprError(f"iterate: {name}: {err.message}") from None
        return current

    return _guarded(run)


def _guarded(compute: Callable[[], Any]) -> Any:
    try:
        with _precision():
            return compute()
    except ExprError:
        raise
    except RecursionError as exc:
        raise ExprError("expression nested too deeply to evaluate") from exc
    except Exception as exc:  # the contract: nothing but ExprError leaves evaluate()
        raise ExprError(f"evaluation failed: {type(exc).__name__}: {exc}") from exc
