"""Read the notes' LaTeX formulas into SymPy with a grammar of our own.

Formulas arrive in pull requests, so they are *data*: nothing here calls
``eval``/``exec``, ``sympify``/``parse_expr`` on a string or
``sympy.parsing.latex`` (which can drop terms silently, SymPy issue 26366).
A small tokenizer and Pratt parser -- the house style of :mod:`verifiers.expr`
-- build the SymPy tree directly, and every failure is a :class:`LatexError`
with a message and, where known, the 1-based column in the source.

The tree is built with ``evaluate=False`` so that it says what the note says
(``\\frac{1}{16}(16 + 4 \\times 4)`` stays a product of a fraction and a sum, it
does not collapse to ``2``); callers that want the value run ``doit()`` or
:func:`canonical`. That is also what makes :func:`round_trip_ok` meaningful:
it prints the tree back and compares the numerals and symbol names of the
source with those of the printout, so a term lost by the parser shows up.

Notation (the notes' own; see ``tests/test_latex.py`` for real lines):

* numbers (``0.665``, integers); Unicode minus ``−``; ``+ - * / \\times \\cdot ·``;
  implicit multiplication (``2 x``, ``x y``, ``a (b + c)``, ``p_ip_j``).
* Matrices: a name in ``matrices=`` (``X``, ``W_Q``, ``Ubar``, as read) is
  ``Symbol(name, commutative=False)``, so ``X W_{Q}`` keeps its order (entries
  ``Q_{i r}``/``(W_U)_{kj}`` stay commutative ``real`` scalars). Transpose ->
  undefined ``transpose(M)``: ``M^{\\top}``, ``M^\\top``, ``M^{⊤}``,
  ``M^{\\mathsf{T}}`` on any base (``e_{i}^{\\top} e_{j}``, ``q^{\\top} k``: the
  caller decides what it means for a plain symbol); ``M^{T}``/``M^T`` only when the
  base is non-commutative (a declared matrix, ``(X W)^{T}``), else it stays the power
  ``K^{T}`` as before. A bare ``e^{\\top}`` is refused (``e`` is Euler's number
  unless declared). Hadamard ``a \\odot b``/``a ⊙ b`` -> undefined
  ``hadamard(a, b)``, at the precedence of ``*``, left-associative
  (``a ⊙ b c`` is ``hadamard(a, b) c``, as ``a / b c`` is ``(a / b) c``).
* A run of ASCII letters is a product of one-letter symbols, as in LaTeX
  (``2ndm`` is ``2 n d m``), unless it is a known word: a function name
  (``Var E Cov SD softmax mean diag LN Attention norm`` plus ``functions=``),
  a label (``new old``) or a multi-letter name in ``symbols=``.
* ``x_{1}`` -> ``Symbol('x_1')``, ``s_{i j}`` -> ``s_ij``, ``W_{Q}^{new}`` ->
  ``W_Q^new``; ``\\alpha`` and ``α`` are both ``alpha``; ``\\bar{x}``,
  ``\\hat{x}``, ``\\mathbf{y}`` -> ``xbar``, ``xhat``, ``ybold`` (SymPy prints
  these names back as the same LaTeX); the all-ones ``\\mathbf{1}``/``\\mathbf 1`` is
  the name ``1bold`` (declare it in ``matrices=`` to use it as a vector); the zero vector
  ``\\mathbf{0}`` is 0 in every entry, the number 0 (unless ``matrices=`` declares
  ``0bold``). Inside
  ``\\sum_{r}``/``\\prod_{r}`` a subscripted name whose subscript mentions the bound
  index is
  ``Indexed(IndexedBase('s'), r)``, so the sum really runs over it.
  ``(W_U)_{kj}`` and ``{W_{U}}_{k,j}`` are ``Indexed(W_U, k, j)``.
* ``\\frac``/``\\dfrac``/``\\tfrac`` (also ``\\frac12``), ``\\sqrt{x}``,
  ``\\sqrt[n]{x}``, ``^{...}``/``^2``; ``e^{x}`` is ``exp``, a bare ``e`` is
  Euler's number; ``\\ln``/``\\log`` (natural; ``\\log_{b}``), ``\\exp``,
  ``\\sin``, ``\\cos``, ``\\tan``, taking a parenthesised argument or the next
  single factor (``\\ln 2 x`` is ``ln(2) x``).
* ``\\sum_{i=1}^{n}``/``\\prod`` -> ``Sum``/``Product``; a sum with no bounds
  (``\\sum_{r}``) runs from 1 to :data:`SUM_UPPER`; ``\\sum_{i \\in I}`` (also
  ``J_{i}``) runs from 1 to undefined ``card(I)``, ``I`` a plain ``Symbol('I')``,
  and ``|I|`` of a name in ``sets=`` is that same ``card(I)``. The body is the
  product that follows (it stops at ``+``/``-``), as conventionally read. A
  subscript of expressions in a bound index (``p_{i, t_{i + 1}}``) is
  ``Indexed(p, i, Indexed(t, i + 1))``.
* ``δ_{j k}``/``\\delta_{jk}`` and ``1_{j = y}`` -> ``KroneckerDelta``;
  ``‖g‖``/``\\lVert g\\rVert`` -> undefined ``norm(g)``; ``|x|`` -> ``Abs``.
* ``\\frac{\\partial A}{\\partial x}``, ``\\frac{d L}{d w}``, ``\\frac{d}{dp} f``,
  ``\\partial A/\\partial x`` -> unevaluated ``Derivative``.
* ``Var (X)``, ``E [X]``, ``\\operatorname{Cov}(X, Y)``, ``\\mathrm{softmax}(s)``,
  ``\\mathrm{diag}(p)`` -> undefined functions (the symbolic checker interprets
  them); an entry of a call or product, ``\\mathrm{diag}(p)_{ij}``, ``(A^\\top)_{ij}``,
  is a LatexError.
* ``\\underset{..}{B}``/``\\overset``/``\\underbrace{B}_{..}``/``\\overbrace``
  keep ``B``; ``\\left``/``\\right``/``\\big``..., ``\\quad``, ``\\,``, ``\\ ``,
  ``\\;`` are dropped; ``\\{ \\}``, ``( [ {`` group; ``(a, b)`` is a ``Tuple``;
  a trailing sentence ``.``/``,`` is ignored; ``$``/``$$`` delimiters are stripped.

Anything else -- other environments, text, an unknown command -- is a LatexError:
a formula that does not parse is reported as ``unparsed``, never passed. An
ellipsis (``\\dots``, ``\\cdots``, ``\\ldots``, ``…``, ``...``) is one whose message
asks the claim author to restate the formula with a reason. Limits (LatexError):
source <= 5,000 chars, nesting <= 40 levels, at most 2,000 tree nodes, number
literals <= 40 digits, constant exponents <= 10,000 in magnitude (``2^{100000}``
would stall every later step).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from verifiers.deadline import can_bound, deadline
from verifiers.errors import ColumnError
from verifiers.formulas.ellipsis import DotsProduct, DotsSum, fold, terms_of

__all__ = [
    "ELLIPSIS",
    "FUNCTION_WORDS",
    "LatexError",
    "SUM_UPPER",
    "atoms_multiset",
    "canonical",
    "check_size",
    "parse_interval",
    "parse_latex",
    "parse_limit_point",
    "round_trip_ok",
    "split_chain",
    "split_chains",
    "to_latex_text",
]

MAX_SOURCE_CHARS = 5_000
MAX_NESTING = 40
MAX_NODES = 2_000
MAX_DIGITS = 40
MAX_EVAL_EXPONENT = 10_000  # canonical() leaves number^number beyond this unevaluated
#: A power whose exact value (numerator and denominator, or the coefficients of its
#: expansion) would have more digits than this is refused before anything computes it:
#: ``{(9999^{10000})}^{10000}`` has small exponents and 400 million digits.
MAX_RESULT_DIGITS = 10_000
#: An integer power of a non-numeric base (``(x + y)^{n}``, towers of them) beyond this
#: degree is refused: expanding it, or taking E[·] of it, grows without bound.
MAX_DEGREE = 100
#: Nodes of a tree after definitions are substituted (the reader's own limit is MAX_NODES).
MAX_TREE_NODES = 20_000
SIMPLIFY_SECONDS = 2.0

#: Upper bound of a sum written without one (``\sum_{r}``): one shared positive
#: integer, so that ``\sum_j p_j`` and the softmax denominator range over the same set.
SUM_UPPER = sympy.Symbol("N_sum", integer=True, positive=True)

#: ``[\begin{matrix} a & b \\ c & d \end{matrix}]`` in a matrix claim: matrix(((a, b), (c, d))).
MATRIX_LITERAL = sympy.Function("matrix", commutative=False)

#: Words read as function names when an argument group follows them.
FUNCTION_WORDS = frozenset(
    {"Var", "Cov", "E", "SD", "softmax", "mean", "diag", "LN", "Attention", "norm"}
)
_PLAIN_FUNCTION_NAMES = frozenset(
    {"sin", "cos", "tan", "exp", "ln", "log", "max", "min", "arg", "argmax", "lim", "tanh"})
LABEL_WORDS = frozenset({"new", "old"})  # W_{Q}^{new} is a name, not a power

GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega"
).split()
_GREEK_LOWER = dict(zip("αβγδεζηθικλμνξοπρστυφχψω", GREEK, strict=True))
_GREEK_LOWER["ς"] = "sigma"
_GREEK_LOWER["ϵ"] = "epsilon"
_GREEK_LOWER["ϕ"] = "phi"
_GREEK_LOWER["ℓ"] = "ell"
_GREEK_UPPER = dict(zip("ΓΔΘΛΞΠΣΥΦΨΩ",
                        "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split(),
                        strict=True))
UNICODE_LETTERS = {**_GREEK_LOWER, **_GREEK_UPPER}
GREEK_COMMANDS = frozenset(
    [g for g in GREEK if g not in ("omicron", "pi")]
    + list(_GREEK_UPPER.values())
    + ["varepsilon", "vartheta", "varphi", "varrho", "varsigma", "ell"]
)

_DROPPED = frozenset({
    "left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr", "biggl",
    "biggr", "quad", "qquad", "displaystyle", "textstyle", "limits", "nolimits", "middle",
})
_RELATION_CMDS = {
    "approx": "\\approx", "le": "\\le", "leq": "\\le", "ge": "\\ge", "geq": "\\ge",
    "lt": "<", "gt": ">", "ne": "\\ne", "neq": "\\ne", "to": "\\to", "equiv": "\\equiv",
    "leftarrow": "\\gets", "gets": "\\gets",  # θ ← θ - η g: an update (an assignment)
}
_RELATION_CHARS = {"=": "=", "<": "<", ">": ">", "≈": "\\approx", "≤": "\\le", "≥": "\\ge",
                   "≠": "\\ne", "→": "\\to", "←": "\\gets"}
_OP_CMDS = {"times": "*", "cdot": "*", "div": "/", "odot": "⊙", "lVert": "‖", "rVert": "‖",
            "|": "‖", "{": "(", "}": ")", "lbrace": "(", "rbrace": ")", "vert": "|",
            "lvert": "|", "rvert": "|"}
_OP_CHARS = {"−": "-", "×": "*", "·": "*", "⋅": "*", "∗": "*", "‖": "‖", "⊙": "⊙",
             "∣": "∣"}  # U+2223, the bar of a conditional p (a ∣ b)
_ELLIPSES = frozenset({"dots", "cdots", "ldots", "vdots", "ddots"})
_ELLIPSIS_CHARS = frozenset("…⋯⋮⋱")  # each read as a 'cmd' token, which is an error
_KNOWN_UNSUPPORTED = _ELLIPSES | frozenset({
    "in", "notin", "mathbb", "text", "mbox", "top", "mathsf", "max", "min", "prime", "forall",
    "exists", "begin", "end", "mid", "circ", "otimes", "oplus", "setminus", "cup", "cap",
    "subset", "int", "pm", "mp",
})
_OTHERWISE = frozenset({"otherwise", "else"})


def _cjk(ch: str) -> bool:
    """A CJK character (a word of the note used as a label, x_{苹果})."""
    return len(ch) == 1 and ("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
_CONDITIONS = {"=": sympy.Eq, "\\ne": sympy.Ne, "<": sympy.Lt, ">": sympy.Gt, "\\le": sympy.Le,
               "\\ge": sympy.Ge}
_FUNC_CMDS = {"ln": "log", "log": "log", "exp": "exp", "sin": "sin", "cos": "cos", "tan": "tan"}
_MODIFIERS = {"bar": "bar", "hat": "hat", "tilde": "tilde", "mathbf": "bold",
              "boldsymbol": "bold", "vec": "vec", "dot": "dot"}
_KNOWN_CMDS = (
    _DROPPED | set(_RELATION_CMDS) | set(_OP_CMDS) | _KNOWN_UNSUPPORTED | set(_FUNC_CMDS)
    | set(_MODIFIERS) | GREEK_COMMANDS
    | {"frac", "dfrac", "tfrac", "sqrt", "sum", "prod", "mathrm", "operatorname", "underset",
       "overset", "underbrace", "overbrace", "partial", "nabla", "pi", "infty", "delta", "lim"}
)
_SPACING = ",;:! "


ELLIPSIS = sympy.Function("ellipsis")  # the \dots of an argument list, t_{1}, \dots, t_{T}


class WhereSum(sympy.Sum):
    """``\\sum_{i : t_{i} = w} x_{i}``: the sum of the terms whose condition holds, a Sum of
    ``Piecewise((x_i, t_i = w), (0, True))`` that prints back with its condition."""


class LatexError(ColumnError):
    """A formula is malformed, uses notation outside the grammar, or hits a limit."""


# --------------------------------------------------------------------------- tokenizer


@dataclass(frozen=True)
class _Token:
    kind: str  # num name cmd op rel sep char end
    text: str
    col: int
    word: bool = False  # a name token that came from a multi-letter known word


def _strip_delimiters(source: str) -> tuple[str, int]:
    """Drop surrounding $ / $$; return the text and the column offset it starts at."""
    text = source.rstrip()
    lead = len(text) - len(text.lstrip())
    body = text[lead:]
    for mark in ("$$", "$"):
        if body.startswith(mark) and body.endswith(mark) and len(body) >= 2 * len(mark):
            return body[len(mark):-len(mark)], lead + len(mark)
    return text, 0


def _word_subscript(source: str, j: int) -> bool:
    """Is ``source[j:]`` a subscript that makes the word before it one name? A label
    ``_{…}`` of letters and digits that starts with a letter and holds a digit (``o1``,
    ``h1``) or is three letters or more (``total``); not an index such as ``_{bk}``."""
    if not source.startswith("_{", j):
        return False
    close = source.find("}", j + 2)
    label = source[j + 2 : close] if close > 0 else ""
    if not (label.isascii() and label.isalnum() and label[:1].isalpha()):
        return False
    return any(c.isdigit() for c in label) or len(label) >= 3


def _tokenize(source: str, words: Collection[str], offset: int = 0) -> list[_Token]:
    """Tokens with 1-based columns. Characters outside the grammar become 'char' tokens.

    They are rejected only where the parser reads them, so text the grammar skips
    (the label of ``\\underset{计算注意力权重}{...}``) may hold anything.
    """
    toks: list[_Token] = []
    i, n = 0, len(source)
    while i < n:
        ch = source[i]
        col = i + 1 + offset
        if ch.isspace() or ch in "~":
            i += 1
        elif "0" <= ch <= "9" or (ch == "." and i + 1 < n and "0" <= source[i + 1] <= "9"):
            j = i
            while j < n and "0" <= source[j] <= "9":
                j += 1
            if j < n - 1 and source[j] == "." and "0" <= source[j + 1] <= "9":
                j += 1
                while j < n and "0" <= source[j] <= "9":
                    j += 1
            text = source[i:j]
            if sum(c.isdigit() for c in text) > MAX_DIGITS:
                raise LatexError(f"number literal has more than {MAX_DIGITS} digits", col)
            toks.append(_Token("num", text, col))
            i = j
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < n and source[j].isascii() and source[j].isalpha():
                j += 1
            run = source[i:j]
            if len(run) > 1 and _word_subscript(source, j):
                # out_{o1}, net_{h1}, target_{o1}: a word with a label subscript is one name,
                # as the note writes it (not o·u·t_{o1}); a plain index stays a product (bX_{bk})
                toks.append(_Token("name", run, col, word=True))
                i = j
                continue
            if source[j : j + 1] == "_" and j + 1 < n and source[j + 1].isascii() \
                    and source[j + 1].isalpha():
                k = j + 1
                while k < n and source[k].isascii() and source[k].isalpha():
                    k += 1
                if f"{run}_{source[j + 1 : k]}" in words:  # a declared plain-text d_model
                    toks.append(_Token("name", source[i:k], col, word=True))
                    i = k
                    continue
            if run.lower() in _PLAIN_FUNCTION_NAMES and run not in words:
                # "sin(x)" without a backslash would silently read as s·i·n·(x)
                raise LatexError(f"'{run}' without a backslash: the note means \\{run}", col)
            if run in words:
                toks.append(_Token("name", run, col, word=True))
            else:
                toks.extend(_Token("name", c, col + k) for k, c in enumerate(run))
            i = j
        elif ch == "\\":
            i = _read_command(source, i, toks, offset)
        elif ch in UNICODE_LETTERS:
            toks.append(_Token("name", UNICODE_LETTERS[ch], col))
            i += 1
        elif ch in _RELATION_CHARS:
            toks.append(_Token("rel", _RELATION_CHARS[ch], col))
            i += 1
        elif ch in _OP_CHARS:
            toks.append(_Token("op", _OP_CHARS[ch], col))
            i += 1
        elif ch == "√":  # U+221A: the square root of the next atom (√d_k, √3, √(x + 1))
            toks.append(_Token("cmd", "√", col))
            i += 1
        elif ch == "⊤":  # U+22A4, the transpose mark written as a character
            toks.append(_Token("cmd", "top", col))
            i += 1
        elif ch in _ELLIPSIS_CHARS or source.startswith("...", i):
            text = "..." if ch == "." else ch
            toks.append(_Token("cmd", text, col))
            i += len(text)
        elif ch in "+-*/^_()[]{},.|&:'!":
            toks.append(_Token("op", ch, col))
            i += 1
        else:
            toks.append(_Token("char", ch, col))
            i += 1
    toks.append(_Token("end", "", n + 1 + offset))
    return toks


def _read_command(source: str, i: int, toks: list[_Token], offset: int) -> int:
    col = i + 1 + offset
    j = i + 1
    if j >= len(source):
        raise LatexError("a lone backslash at the end", col)
    if not (source[j].isascii() and source[j].isalpha()):
        sym = source[j]
        if sym == "\\":
            toks.append(_Token("sep", "\\\\", col))
        elif sym in _SPACING:
            pass
        elif sym in _OP_CMDS:
            toks.append(_Token("op", _OP_CMDS[sym], col))
        else:
            raise LatexError(f"unknown LaTeX command \\{sym}", col)
        return j + 1
    while j < len(source) and source[j].isascii() and source[j].isalpha():
        j += 1
    name = source[i + 1 : j]
    if name not in _KNOWN_CMDS:
        raise LatexError(f"unknown LaTeX command \\{name}", col)
    if name in _DROPPED:
        if name in ("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr",
                    "Bigl", "Bigr", "biggl", "biggr"):
            k = j
            while k < len(source) and source[k].isspace():
                k += 1
            if source[k : k + 1] == ".":  # \left. is an invisible delimiter
                return k + 1
        return j
    if name in _RELATION_CMDS:
        toks.append(_Token("rel", _RELATION_CMDS[name], col))
    elif name in _OP_CMDS:
        toks.append(_Token("op", _OP_CMDS[name], col))
    elif name in GREEK_COMMANDS:
        toks.append(_Token("name", name, col))
    else:
        toks.append(_Token("cmd", name, col))
    return j


# --------------------------------------------------------------------------- helpers


def _match_brace(toks: list[_Token], i: int) -> int:
    """Index of the '}' closing the '{' at i (the caller checked toks[i] is '{')."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind == "op" and t.text == "{":
            depth += 1
        elif t.kind == "op" and t.text == "}":
            depth -= 1
            if depth == 0:
                return j
    raise LatexError("unbalanced '{'", toks[i].col)


def _is_op(tok: _Token, text: str) -> bool:
    return tok.kind == "op" and tok.text == text


def _is_d(tok: _Token, nxt: _Token) -> bool:
    """A differential 'd': the bare letter d not followed by a subscript."""
    return tok.kind == "name" and tok.text == "d" and not tok.word and not _is_op(nxt, "_")


def _derivative_marks(toks: list[_Token], i: int) -> tuple[int, int] | None:
    """For ``\\frac`` at i: (numerator '{', denominator '{') if it is a derivative.

    A derivative is ``\\frac{\\partial ..}{\\partial x}`` or ``\\frac{d ..}{d x}`` with
    x a single name: so ``\\frac{d_{model}}{8}`` and ``\\frac{d}{8}`` stay fractions.
    """
    a = i + 1
    if not _is_op(toks[a], "{"):
        return None
    a_end = _match_brace(toks, a)
    b = a_end + 1
    if not _is_op(toks[b], "{"):
        return None
    b_end = _match_brace(toks, b)
    num0, den0 = toks[a + 1], toks[b + 1]
    partial = (num0.kind == "cmd" and num0.text == "partial"
               and den0.kind == "cmd" and den0.text == "partial")
    differential = _is_d(num0, toks[a + 2]) and _is_d(den0, toks[b + 2])
    if not (partial or differential) or b_end - b < 3:
        return None
    return a, b


# --------------------------------------------------------------------------- parser


class _Parser:
    """Pratt parser building SymPy with evaluate=False; depth counted, never left to Python."""

    def __init__(self, toks: list[_Token], symbols: Mapping[str, sympy.Symbol],
                 functions: Collection[str], matrices: Collection[str] = (),
                 sets: Collection[str] = ()) -> None:
        self.toks = toks
        self.pos = 0
        self.depth = 0
        self.nodes = 0
        self.symbols = symbols
        self.functions = functions
        self.declared: frozenset[str] = frozenset()  # the claim's own functions (parse_latex)
        self.matrices = matrices
        self.sets = sets
        self.bound: list[str] = []  # indices of the enclosing sums/products
        self.where: Any = None  # the condition of \sum_{i : …} being read
        self.in_norm = 0
        self.in_abs = 0
        self.sizes = _Sizes()  # memoised: each power costs only its new nodes

    # -- token helpers ------------------------------------------------------------

    def peek(self, k: int = 0) -> _Token:
        return self.toks[min(self.pos + k, len(self.toks) - 1)]

    def advance(self) -> _Token:
        tok = self.toks[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def at_op(self, text: str) -> bool:
        return _is_op(self.peek(), text)

    def expect_op(self, text: str) -> _Token:
        if not self.at_op(text):
            raise self.unexpected(self.peek(), f"expected {text!r}")
        return self.advance()

    def unexpected(self, tok: _Token, hint: str | None = None) -> LatexError:
        if tok.kind == "end":
            what = "unexpected end of formula"
        elif tok.kind == "char":
            shown = tok.text if tok.text.isascii() else f"{tok.text} (U+{ord(tok.text):04X})"
            what = f"unexpected character {shown}"
        elif tok.kind == "cmd":
            what = f"unexpected \\{tok.text}"
        elif tok.kind == "rel":
            what = f"unexpected relation {tok.text} (use split_chain for A = B = C)"
        elif tok.kind == "sep":
            what = "unexpected row separator \\\\ (use split_chain)"
        else:
            what = f"unexpected {tok.text!r}"
        return LatexError(what + (f" ({hint})" if hint else ""), tok.col)

    def node(self, value: Any) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise LatexError(f"formula has more than {MAX_NODES} nodes", self.peek().col)
        return value

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise LatexError(f"formula nested too deeply (more than {MAX_NESTING} levels)",
                             self.peek().col)

    def leave(self) -> None:
        self.depth -= 1

    def symbol(self, name: str) -> sympy.Symbol:
        sym = self.symbols.get(name)
        if sym is not None:
            return sym
        if name in self.matrices:
            return sympy.Symbol(name, commutative=False)
        if name in self.sets:
            return sympy.Symbol(name)
        return sympy.Symbol(name, real=True)

    def scalar_symbol(self, name: str) -> sympy.Symbol:
        """The base of an entry ``M_{ij}``/``(M)_{ij}``: entries are scalars even when
        ``M`` is a declared matrix (an IndexedBase inherits its label's assumptions)."""
        sym = self.symbols.get(name)
        return sym if sym is not None else sympy.Symbol(name, real=True)

    # -- grammar ------------------------------------------------------------------

    def parse(self) -> sympy.Basic:
        result = self.expr()
        if (self.at_op(".") or self.at_op(",")) and self.peek(1).kind == "end":
            self.advance()  # sentence punctuation after a display formula
        if self.peek().kind != "end":
            raise self.unexpected(self.peek())
        return result

    def expr(self) -> sympy.Basic:
        """sum := term (('+' | '-') term)*"""
        self.enter()
        terms = [self.term()]
        while self.at_op("+") or self.at_op("-"):
            op = self.advance()
            if op.text == "+" and self.at_ellipsis():
                terms = self.folded(terms, "sum")
                continue
            right = self.term()
            terms.append(right if op.text == "+" else self.negate(right, op))
        self.leave()
        if len(terms) == 1:
            return terms[0]
        return self.node(self.build(sympy.Add, *terms, col=self.peek().col))

    def term(self) -> sympy.Basic:
        """term := unary (('*' | '/') unary | implicit unary)*"""
        self.enter()
        factors: list[sympy.Basic] = [self.unary()]
        while True:
            tok = self.peek()
            if _is_op(tok, "*"):
                self.advance()
                factors.append(self.unary())
            elif _is_op(tok, "/"):
                self.advance()
                den = self.unary()
                left = self.product(factors, tok)
                factors = [self.divide(left, den, tok)]
            elif _is_op(tok, "⊙"):  # Hadamard: same precedence as '*', left-associative
                self.advance()
                right = self.unary()
                left = self.product(factors, tok)
                if isinstance(left, sympy.Tuple) or isinstance(right, sympy.Tuple):
                    raise LatexError("arithmetic on a tuple (a, b, ...)", tok.col)
                factors = [self.node(sympy.Function("hadamard")(left, right))]
            elif self.at_ellipsis():
                factors = self.folded(factors, "product")
            elif self.starts_operand(tok):
                factors.append(self.unary())
            else:
                break
        self.leave()
        return self.product(factors, self.peek())

    def at_ellipsis(self) -> bool:
        tok = self.peek()
        return tok.kind == "cmd" and tok.text in ("dots", "cdots", "ldots", "…", "⋯")

    def folded(self, items: list[sympy.Basic], kind: str) -> list[sympy.Basic]:
        """``a_{1} + a_{2} + \\dots + a_{n}`` (``p_{1} p_{2} \\dots p_{n}``): the shown items
        that follow one index, the ellipsis and the last item, folded into one Sum (Product)
        by :func:`verifiers.formulas.ellipsis.fold`; the items before the run stay as they are."""
        dots = self.advance()
        if kind == "sum":
            self.expect_op("+")
            last = self.term()
        else:
            if _is_op(self.peek(), "*"):
                self.advance()
            last = self.unary()
        for k in range(len(items), 0, -1):
            value = fold(items[-k:], last, kind)
            if value is not None:
                return [*items[:-k], self.node(value)]
        raise LatexError(f"ellipsis '\\{dots.text}' is read only between terms that follow "
                         "one index (a_{1} + a_{2} + \\dots + a_{n}): restate the formula "
                         "with a reason", dots.col)

    def product(self, factors: list[sympy.Basic], tok: _Token) -> sympy.Basic:
        if len(factors) == 1:
            return factors[0]
        return self.node(self.build(sympy.Mul, *factors, col=tok.col))

    def divide(self, num: sympy.Basic, den: sympy.Basic, tok: _Token) -> sympy.Basic:
        inv = self.node(self.build(sympy.Pow, den, sympy.Integer(-1), col=tok.col))
        if num == sympy.Integer(1) and isinstance(num, sympy.Integer):
            return inv  # SymPy prints Pow(b, -1) as \frac{1}{b}; Mul(1, ..) as "1 \cdot .."
        return self.node(self.build(sympy.Mul, num, inv, col=tok.col))

    def negate(self, value: sympy.Basic, tok: _Token) -> sympy.Basic:
        if isinstance(value, sympy.Number):
            return -value  # -0.7 stays one literal, printed as written
        return self.node(self.build(sympy.Mul, sympy.Integer(-1), value, col=tok.col))

    def build(self, fn: Callable[..., Any], *args: Any, col: int | None = None) -> Any:
        if any(isinstance(a, sympy.Tuple) for a in args):
            if fn not in (sympy.Add, sympy.Mul):
                raise LatexError("arithmetic on a tuple (a, b, ...)", col)
            # 0.665 (2, 0) + 0.245 (0, 2): a vector in a sum or product is vec(2, 0)
            args = tuple(sympy.Function("vec")(*a) if isinstance(a, sympy.Tuple) else a
                         for a in args)
        try:
            return fn(*args, evaluate=False)
        except (LatexError, TimeoutError):
            raise
        except Exception as exc:  # e.g. arithmetic on a Tuple
            raise LatexError(f"cannot combine these terms: {type(exc).__name__}: {exc}",
                             col) from exc

    def starts_operand(self, tok: _Token) -> bool:
        if tok.kind in ("num", "name"):
            return True
        if tok.kind == "cmd":
            return tok.text not in _KNOWN_UNSUPPORTED or tok.text in _ELLIPSES
        if tok.kind == "op":
            if tok.text in ("(", "[", "{"):
                return True
            if tok.text == "‖":
                return self.in_norm == 0
            if tok.text == "|":
                return self.in_abs == 0
        return False

    def unary(self) -> sympy.Basic:
        """unary := ('-' | '+') unary | power"""
        tok = self.peek()
        if _is_op(tok, "-") or _is_op(tok, "+"):
            self.advance()
            self.enter()
            operand = self.unary()
            self.leave()
            return operand if tok.text == "+" else self.negate(operand, tok)
        return self.power()

    def power(self) -> sympy.Basic:
        """power := atom ('^' exponent | '^' transpose-mark)?   (e^{..} is exp)"""
        tok = self.peek()
        if (tok.kind == "name" and tok.text == "e" and not tok.word and "e" not in self.symbols
                and "e" not in self.matrices and _is_op(self.peek(1), "^")
                and not (self.transpose_mark(2) or (0, False))[1]):
            self.advance()
            self.advance()
            return self.node(self.build(sympy.exp, self.script_arg(), col=tok.col))
        base = self.atom()
        while self.at_op("'"):  # (e^x)', u'v: a prime, read as prime(..); see symbolic.claims
            self.advance()
            base = self.node(sympy.Function("prime")(base))
        if self.at_op("^"):
            hat = self.advance()
            mark = self.transpose_mark(0)
            if mark is not None and (mark[1] or base.is_commutative is False
                                     or isinstance(base, sympy.Tuple)):  # (1, 0)^{T}
                if base == sympy.E:
                    raise LatexError("e^{\\top}: a bare e is Euler's number; declare the "
                                     "vector e in matrices=", hat.col)
                self.pos += mark[0]
                base = self.node(sympy.Function("transpose")(base))
            else:
                exponent = self.script_arg()
                self.check_exponent(exponent, hat)
                base = self.node(self.build(sympy.Pow, base, exponent, col=hat.col))
                try:  # the size of the value, before anything evaluates it
                    self.sizes.estimate(base)
                except LatexError as err:
                    raise LatexError(err.message, hat.col) from None
            if self.at_op("^"):
                raise LatexError("double superscript", self.peek().col)
        return base

    def transpose_mark(self, k: int) -> tuple[int, bool] | None:
        """At peek(k), after a '^': a transpose mark as (its token count, unambiguous?).

        ``\\top``, ``⊤`` and ``\\mathsf{T}`` always mean transpose; a plain ``T`` only
        on a matrix (a non-commutative base) or a tuple (``W_{Q} = (1, 0)^{T}``), else
        it stays the exponent ``T``.
        """
        t0 = self.peek(k)
        braced = _is_op(t0, "{")
        i = k + 1 if braced else k
        t = self.peek(i)
        if t.kind == "cmd" and t.text == "top":
            size, sure = 1, True
        elif t.kind == "name" and t.text == "T" and not t.word:
            size, sure = 1, False
        elif (t.kind == "cmd" and t.text == "mathsf" and _is_op(self.peek(i + 1), "{")
              and self.peek(i + 2).kind == "name" and self.peek(i + 2).text == "T"
              and not self.peek(i + 2).word and _is_op(self.peek(i + 3), "}")):
            size, sure = 4, True
        else:
            return None
        if braced:
            if not _is_op(self.peek(i + size), "}"):
                return None
            size += 2
        return size, sure

    def check_exponent(self, exponent: sympy.Basic, tok: _Token) -> None:
        """A constant exponent beyond MAX_EVAL_EXPONENT is refused: SymPy would try to
        evaluate 2^{100000} or 10^{10^{10}} exactly wherever the tree is touched."""
        if exponent.free_symbols or exponent.has(sympy.Function):
            return
        value = canonical(exponent)  # inner exponents were checked, so this is cheap
        if value.is_Number and abs(value) > MAX_EVAL_EXPONENT:
            raise LatexError(f"exponent beyond ±{MAX_EVAL_EXPONENT}", tok.col)

    def script_arg(self) -> sympy.Basic:
        """The argument of ^ or a one-token command argument: {expr}, one digit, one name."""
        tok = self.peek()
        if _is_op(tok, "{"):
            self.advance()
            inner = self.expr()
            self.expect_op("}")
            return inner
        if tok.kind == "num":
            return self.single_digit()
        if _is_op(tok, "("):  # plain text 10000^(2i/d_model): the whole group is the exponent
            self.advance()
            inner = self.expr()
            self.expect_op(")")
            return inner
        if tok.kind == "name":
            self.advance()
            return self.name_value(tok.text, tok)
        if tok.kind == "cmd" and tok.text in ("pi", "infty", "nabla"):
            return self.atom()
        raise self.unexpected(tok, "expected a group {...} or a single token")

    def single_digit(self) -> sympy.Basic:
        """LaTeX reads x^23 as x^2 3 and \\frac12 as 1/2: take one character of a number."""
        tok = self.advance()
        if len(tok.text) > 1:
            rest = _Token("num", tok.text[1:], tok.col + 1)
            self.pos -= 1
            self.toks[self.pos] = rest
        return self.number(tok.text[0], tok.col)

    def number(self, text: str, col: int) -> sympy.Basic:
        if "." in text:
            digits = sum(c.isdigit() for c in text.lstrip("0."))
            return self.node(sympy.Float(text, max(15, digits + 2)))
        return self.node(sympy.Integer(int(text)))

    # -- atoms ----------------------------------------------------------------------

    def atom(self) -> sympy.Basic:
        tok = self.peek()
        self.enter()
        try:
            if tok.kind == "num":
                if _is_op(self.peek(1), "_") and tok.text == "1":
                    return self.indicator()
                self.advance()
                return self.number(tok.text, tok.col)
            if tok.kind == "name":
                return self.name_atom()
            if tok.kind == "cmd":
                return self.command()
            if tok.kind == "op":
                if tok.text in ("(", "[", "{"):
                    return self.group()
                if tok.text == "‖" and self.in_norm == 0:
                    return self.delimited("‖", "norm")
                if tok.text == "|" and self.in_abs == 0:
                    return self.delimited("|", "abs")
            raise self.unexpected(tok)
        finally:
            self.leave()

    def group(self) -> sympy.Basic:
        open_tok = self.advance()
        close = {"(": ")", "[": "]", "{": "}"}[open_tok.text]
        items = [self.expr()]
        while self.at_op(","):
            self.advance()
            items.append(self.expr())
        self.expect_op(close)
        if len(items) > 1:
            if open_tok.text != "(":
                raise LatexError(f"a list in {open_tok.text!r}...{close!r}", open_tok.col)
            return self.node(sympy.Tuple(*items))
        value = items[0]
        if self.at_op("_"):  # (W_U)_{kj}: an entry of a named matrix
            return self.subscripted_value(value, open_tok)
        return value

    def subscripted_value(self, value: sympy.Basic, tok: _Token) -> sympy.Basic:
        self.advance()  # '_'
        text, items = self.subscript()
        if isinstance(value, sympy.Symbol) and "_" not in value.name:
            return self.finish_name(value.name, text, items, tok)
        if isinstance(value, sympy.Symbol) and items is not None:
            base = self.scalar_symbol(value.name)
            return self.node(sympy.Indexed(sympy.IndexedBase(base), *items))
        if items is not None and len(items) in (1, 2) and not isinstance(
                value, sympy.Symbol | sympy.Number | sympy.Tuple):
            # (X^\top G)_{kl}: an entry of a product, entry(X^T G, k, l) (see indices.py)
            return self.node(sympy.Function("entry")(value, *items))
        raise LatexError("a subscript on something that is not a name", tok.col)

    def delimited(self, mark: str, kind: str) -> sympy.Basic:
        tok = self.advance()
        if kind == "norm":
            self.in_norm += 1
        else:
            self.in_abs += 1
        inner = self.expr()
        if kind == "norm":
            self.in_norm -= 1
        else:
            self.in_abs -= 1
        self.expect_op(mark)
        if kind == "norm":
            return self.node(sympy.Function("norm")(inner))
        if isinstance(inner, sympy.Symbol) and inner.name in self.sets:
            return self.node(sympy.Function("card")(inner))  # |I| of a declared set
        return self.node(self.build(sympy.Abs, inner, col=tok.col))

    def indicator(self) -> sympy.Basic:
        """1_{j = y} -> KroneckerDelta(j, y)."""
        tok = self.advance()
        self.advance()  # '_'
        self.expect_op("{")
        left = self.simple_index()
        rel = self.peek()
        if not (rel.kind == "rel" and rel.text == "="):
            raise self.unexpected(rel, "expected '=' in an indicator 1_{j = y}")
        self.advance()
        right = self.simple_index()
        self.expect_op("}")
        return self.node(self.build(sympy.KroneckerDelta, left, right, col=tok.col))

    def simple_index(self) -> sympy.Basic:
        tok = self.advance()
        if tok.kind == "name":
            return self.symbol(tok.text)
        if tok.kind == "num" and "." not in tok.text:
            return sympy.Integer(int(tok.text))
        raise self.unexpected(tok, "expected an index (a letter or an integer)")

    # -- names --------------------------------------------------------------------------

    def name_atom(self) -> sympy.Basic:
        tok = self.advance()
        name = tok.text
        if name in self.functions and not self.at_op("_") and self.at_arguments():
            return self.call(name, tok)
        if name in self.functions and self.at_prime():  # σ^{'} (B): the derivative σ'
            return self.call(name + "'", tok)
        value = self.name_tail(name, tok)
        if (isinstance(value, sympy.Symbol) and "_" in value.name
                and value.name in self.functions and self.at_arguments()):
            return self.call(value.name, tok)  # F_{θ} (X), p_{θ} (t ∣ s): a named function
        if (name in self.declared and isinstance(value, sympy.Indexed)
                and _is_op(self.peek(), "(")):
            # a_{i j} (X) of a declared a: entry (i, j) of the value a (X) (weights of X)
            whole = self.call(name, tok)
            return self.node(sympy.Function("entry")(whole, *value.indices))
        return value

    def at_prime(self) -> bool:
        """``^{'}``/``^{\\prime}`` then arguments, after a function name: consumes the mark."""
        if not (self.at_op("^") and _is_op(self.peek(1), "{") and _is_op(self.peek(3), "}")):
            return False
        mark = self.peek(2)
        if not (_is_op(mark, "'") or (mark.kind == "cmd" and mark.text == "prime")):
            return False
        self.pos += 4
        if not self.at_arguments():
            raise self.unexpected(self.peek(), "expected the arguments of a derivative f^{'}")
        return True

    def name_tail(self, name: str, tok: _Token) -> sympy.Basic:
        """Subscripts and label superscripts after a name; then Symbol/Indexed/Kronecker."""
        label = self.label_superscript()  # SymPy prints W_Q^new as W^{new}_{Q}
        if not self.at_op("_"):
            return self.name_value(name + label, tok)
        self.advance()
        text, items = self.subscript()
        if name == "delta" and "delta" not in self.symbols:
            if items is None or len(items) != 2:
                raise LatexError("Kronecker delta needs two indices, e.g. \\delta_{ij}", tok.col)
            return self.node(self.build(sympy.KroneckerDelta, *items, col=tok.col))
        label = label or self.label_superscript()
        return self.finish_name(name, text, items, tok, label)

    def label_superscript(self) -> str:
        """``^{new}``/``^{old}`` after a name are part of it (W_Q^new), and so is a
        parenthesised layer or head index ``^{(1)}``, ``^{(h)}`` (X^(1), W_Q^(h)): the
        notes never write a power that way."""
        if (self.at_op("^") and _is_op(self.peek(1), "{") and self.peek(2).kind == "name"
                and self.peek(2).text in LABEL_WORDS and _is_op(self.peek(3), "}")):
            word = self.peek(2).text
            self.pos += 4
            return "^" + word
        if (self.at_op("^") and _is_op(self.peek(1), "{") and _is_op(self.peek(2), "(")
                and _is_index(self.peek(3)) and _is_op(self.peek(4), ")")
                and _is_op(self.peek(5), "}")):
            index = self.peek(3).text  # X^{(1)}, W_{Q}^{(h)}: a layer or head index
            self.pos += 6
            return f"^({index})"
        return ""

    def finish_name(self, base: str, text: str, items: list[sympy.Basic] | None,
                    tok: _Token, label: str = "") -> sympy.Basic:
        full = f"{base}_{text}{label}"
        if full in self.symbols:
            return self.symbols[full]
        bound = set(self.bound)
        if (items is not None and not label and bound
                and any(s.name in bound for x in items for s in x.free_symbols
                        if isinstance(s, sympy.Symbol))):
            return self.node(sympy.Indexed(sympy.IndexedBase(self.scalar_symbol(base)), *items))
        return self.node(self.symbol(full))

    def name_value(self, name: str, tok: _Token) -> sympy.Basic:
        if name in self.symbols:
            return self.symbols[name]
        if name == "e" and not tok.word and name not in self.matrices and name not in self.sets:
            return sympy.E
        return self.node(self.symbol(name))

    def subscript(self) -> tuple[str, list[sympy.Basic] | None]:
        """Read a subscript: its canonical text (for the name) and, when it is a list of
        single letters/integers (``ij``, ``i j``, ``i, w``), those as index items."""
        tok = self.peek()
        if tok.kind == "num":
            digit = self.single_digit()
            return str(digit), [digit]
        if tok.kind == "name":
            self.advance()
            return tok.text, [self.symbol(tok.text)]
        if not _is_op(tok, "{"):
            raise self.unexpected(tok, "expected a subscript")
        end = _match_brace(self.toks, self.pos)
        parts: list[str] = []
        items: list[sympy.Basic] | None = []
        i = self.pos + 1
        while i < end:
            t = self.toks[i]
            if t.kind == "char" and _cjk(t.text):  # x_{苹果}: a word as a label
                k = i
                while k + 1 < end and self.toks[k + 1].kind == "char" \
                        and _cjk(self.toks[k + 1].text):
                    k += 1
                word = "".join(x.text for x in self.toks[i:k + 1])
                parts.append(word)
                if items is not None:
                    items.append(self.symbol(word))
                i = k + 1
                continue
            if t.kind == "name":
                parts.append(t.text)
                if items is not None:
                    items.append(self.symbol(t.text))
            elif t.kind == "num":
                parts.append(t.text)
                if items is not None:
                    items.append(sympy.Integer(int(t.text)) if "." not in t.text else t.text)
                    if not isinstance(items[-1], sympy.Integer):
                        items = None
            elif t.kind == "op" and t.text in ",:+-_{}":
                parts.append(t.text)
                if t.text != ",":
                    items = None
            elif t.kind == "cmd" and (t.text in _ELLIPSES or t.text in _ELLIPSIS_CHARS
                                      or t.text == "..."):
                self.pos = i
                self.command()  # raises the ellipsis error
            else:
                raise LatexError(f"unsupported in a subscript: {t.text!r}", t.col)
            i += 1
        text = "".join(p for p in parts if p not in "{}")
        if not text:
            raise LatexError("empty subscript", tok.col)
        if items is not None and text.count(",") and text.count(",") != len(items) - 1:
            items = None
        inner = self.toks[self.pos + 1:end]
        if (len(inner) == 3 and inner[0].kind == "name" and inner[0].text in self.bound
                and _is_op(inner[1], ",") and _is_op(inner[2], ":")):
            # {\bar{X}}_{i, :} under \sum_{i}: row i, the entry of its one index
            self.pos = end + 1
            return text.replace("_", ""), [self.symbol(inner[0].text)]
        if items is None and any(t.kind == "name" and t.text in self.bound
                                 for t in self.toks[self.pos:end]):
            # p_{i, t_{i + 1}} under \sum_{i}: the entries are expressions of the index
            self.advance()
            items = [self.expr()]
            while self.at_op(","):
                self.advance()
                items.append(self.expr())
            self.expect_op("}")
        self.pos = end + 1
        return text.replace("_", ""), items

    # -- functions ----------------------------------------------------------------------

    def at_arguments(self) -> bool:
        tok = self.peek()
        if _is_op(tok, "(") or _is_op(tok, "["):
            return True
        return _is_op(tok, "{") and _is_op(self.peek(1), "(")  # E{\left(x\right)}

    def call(self, name: str, tok: _Token) -> sympy.Basic:
        braced = self.at_op("{")
        if braced:
            self.advance()
        open_tok = self.advance()
        close = ")" if open_tok.text == "(" else "]"
        args = [self.argument()]
        while self.at_op(","):
            self.advance()
            args.append(self.argument())
        given: list[sympy.Basic] = []
        if self.at_op("∣") and close == ")":  # p_{θ} (t_{2} ∣ t_{1}): a conditional
            self.advance()
            given = [self.argument()]
            while self.at_op(","):
                self.advance()
                given.append(self.argument())
        self.expect_op(close)
        if braced:
            self.expect_op("}")
        if given:  # given(p(a), b): the symbolic checker reads it as p(b, a) / p(b)
            return self.node(sympy.Function("given")(sympy.Function(name)(*args), *given))
        if name in _FUNC_CMDS and len(args) == 1:  # declared plain-text sin(x), exp(x)
            func = {"log": sympy.log, "exp": sympy.exp, "sin": sympy.sin, "cos": sympy.cos,
                    "tan": sympy.tan}[_FUNC_CMDS[name]]
            return self.node(self.build(func, args[0], col=tok.col))
        value = self.node(sympy.Function(name)(*args))
        if (name == "diag" or "_" in name or name in self.declared) and self.at_op("_"):
            # \mathrm{diag}(p)_{ij}, F_{θ} (X)_{5}, LN (x)_{r} of a declared LN: an entry
            # (a row) of the value (an undeclared LN (x)_{r} stays unread)
            return self.subscripted_value(value, tok)
        return value

    def argument(self) -> sympy.Basic:
        """One argument of a call: an expression, an event ``t_{n + 1} = j`` (P of it), or an
        ellipsis standing for the arguments between its neighbours (``t_{1}, \\dots, t_{T}``,
        ``Z^{(1)}, \\dots, Z^{(H)}``), kept as a marker that prints back as written."""
        if self.at_ellipsis():
            self.advance()
            return self.node(ELLIPSIS())
        word = self.word_argument()
        if word is not None:
            return word
        value = self.expr()
        rel = self.peek()
        if rel.kind == "rel" and rel.text == "=":
            self.advance()
            right = self.word_argument()
            right = self.expr() if right is None else right
            return self.node(sympy.Eq(value, right, evaluate=False))
        return value

    def word_argument(self) -> sympy.Basic | None:
        """A word of the note as an argument or the value of an event: ``P (黑便 ∣ 前文)``,
        ``P (t_{6} = 黑便 ∣ X)`` (a name; a word is never read inside arithmetic)."""
        k = self.pos
        while self.toks[k].kind == "char" and _cjk(self.toks[k].text):
            k += 1
        if k == self.pos or not (_is_op(self.toks[k], ",") or _is_op(self.toks[k], ")")
                                 or _is_op(self.toks[k], "∣")):
            return None
        word = "".join(t.text for t in self.toks[self.pos:k])
        self.pos = k
        return self.node(sympy.Symbol(word, real=True))

    def command(self) -> sympy.Basic:
        tok = self.advance()
        name = tok.text
        if name in ("frac", "dfrac", "tfrac"):
            return self.fraction(tok)
        if name == "sqrt":
            return self.square_root(tok)
        if name in _FUNC_CMDS:
            return self.elementary(_FUNC_CMDS[name], tok)
        if name in ("sum", "prod"):
            return self.big_operator(name, tok)
        if name == "lim":
            return self.limit(tok)
        if name == "√":
            return self.node(self.build(sympy.Pow, self.atom(), sympy.S.Half, col=tok.col))
        if name in ("mathrm", "operatorname"):
            word = self.word_group(tok)
            if self.at_arguments() and (name == "operatorname" or word in self.functions):
                return self.call(word, tok)
            return self.name_tail(word, tok)
        if name in _MODIFIERS:
            return self.modified_name(_MODIFIERS[name], tok)
        if name in ("underset", "overset"):
            self.skip_group()
            return self.required_group()
        if name in ("underbrace", "overbrace"):
            body = self.required_group()
            if self.at_op("_") or self.at_op("^"):
                self.advance()
                self.skip_group()
            return body
        if name == "begin" and self.env_name() == "cases":
            return self.cases(tok)
        if name == "begin" and self.matrices:
            return self.matrix_literal(tok)
        if name == "partial":
            return self.slash_derivative(tok)
        if name == "pi":
            return sympy.pi
        if name == "infty":
            return sympy.oo
        if name == "nabla":
            return self.name_tail("nabla", tok)
        if name == "delta":
            return self.name_tail("delta", tok)
        if name in _ELLIPSES or name in _ELLIPSIS_CHARS or name == "...":
            shown = f"\\{name}" if name in _ELLIPSES else name
            raise LatexError(f"ellipsis '{shown}' is not read: restate the formula with a reason",
                             tok.col)
        if name in ("top", "mathsf"):
            raise LatexError(f"\\{name} is read only as a transpose mark, M^{{\\top}}", tok.col)
        raise LatexError(f"unsupported LaTeX command \\{name}", tok.col)

    def env_name(self) -> str:
        """The name of the environment a ``\\begin`` opens, without reading it ("" if none)."""
        if not self.at_op("{"):
            return ""
        end = _match_brace(self.toks, self.pos)
        return "".join(t.text for t in self.toks[self.pos + 1:end])

    def cases(self, tok: _Token) -> sympy.Basic:
        """``\\begin{cases} v_1, & c_1 \\\\ v_2, & c_2 \\end{cases}``: a Piecewise, each row a
        value and its condition (a relation ``j \\leq i``, ``j > i``, or ``\\text{otherwise}``),
        in the printed order, so an edited value or condition changes what is checked."""
        self.word_group(tok)
        pieces: list[tuple[sympy.Basic, Any]] = []
        while True:
            value = self.expr()
            if self.at_op(","):
                self.advance()
            if not self.at_op("&"):
                raise self.unexpected(self.peek(), "a row of cases is 'value, & condition'")
            self.advance()
            pieces.append((value, self.condition()))
            if self.at_op(",") or self.at_op("."):
                self.advance()  # "j > i ." ends a sentence
            if self.peek().kind == "sep":
                self.advance()
            if self.peek().kind == "cmd" and self.peek().text == "end":
                break
            if self.peek().kind == "end":
                raise LatexError("\\begin{cases} without \\end{cases}", tok.col)
        end = self.advance()
        if self.word_group(end) != "cases":
            raise LatexError("\\begin{cases} closed by another environment", end.col)
        if any(cond is sympy.true for _, cond in pieces[:-1]):
            raise LatexError("'otherwise' must be the last row of cases", tok.col)
        return self.node(sympy.Piecewise(*pieces, evaluate=False))

    def condition(self) -> Any:
        """The condition of a row of cases: ``a REL b`` or ``\\text{otherwise}``."""
        tok = self.peek()
        if tok.kind == "cmd" and tok.text == "text":
            self.advance()
            word = self.word_group(tok)
            if word not in _OTHERWISE:
                raise LatexError(f"condition \\text{{{word}}} is not read (only "
                                 "\\text{otherwise})", tok.col)
            return sympy.true
        left = self.expr()
        rel = self.peek()
        if rel.kind != "rel" or rel.text not in _CONDITIONS:
            raise self.unexpected(rel, "a condition is a relation (j \\leq i, j > i) or "
                                       "\\text{otherwise}")
        self.advance()
        right = self.expr()
        return _CONDITIONS[rel.text](left, right, evaluate=False)

    def matrix_literal(self, tok: _Token) -> sympy.Basic:
        """``\\begin{matrix} a & b \\\\ c & d \\end{matrix}`` (also pmatrix, bmatrix), read
        only in a matrix claim (``matrices=``): an explicit matrix of its entries."""
        env = self.word_group(tok)
        if env not in ("matrix", "pmatrix", "bmatrix"):
            raise LatexError(f"environment {env!r} is not read", tok.col)
        rows: list[list[sympy.Basic]] = [[]]
        while True:
            rows[-1].append(self.expr())
            if self.at_op("&"):
                self.advance()
            elif self.peek().kind == "sep":
                self.advance()
                if self.peek().kind == "cmd" and self.peek().text == "end":
                    break
                rows.append([])
            else:
                break
        end = self.advance()
        if not (end.kind == "cmd" and end.text == "end"):
            raise self.unexpected(end, f"expected \\end{{{env}}}")
        if self.word_group(end) != env:
            raise LatexError(f"\\begin{{{env}}} closed by another environment", end.col)
        if len({len(r) for r in rows}) != 1:
            raise LatexError("the rows of a matrix have different lengths", tok.col)
        # an applied non-commutative function: a product keeps its place (M E is not E M)
        return self.node(MATRIX_LITERAL(sympy.Tuple(*(sympy.Tuple(*r) for r in rows))))

    def required_group(self) -> sympy.Basic:
        if not self.at_op("{"):
            return self.script_arg()
        self.advance()
        inner = self.expr()
        self.expect_op("}")
        return inner

    def skip_group(self) -> None:
        if self.at_op("{"):
            self.pos = _match_brace(self.toks, self.pos) + 1
        else:
            self.advance()

    def word_group(self, tok: _Token) -> str:
        """The letters of \\mathrm{..}/\\operatorname{..}: a name, never a product."""
        self.expect_op("{")
        end = _match_brace(self.toks, self.pos - 1)
        letters = []
        for t in self.toks[self.pos:end]:
            if t.kind != "name":
                raise LatexError(f"\\{tok.text}{{..}} must hold a name", t.col)
            letters.append(t.text)
        self.pos = end + 1
        if not letters:
            raise LatexError(f"empty \\{tok.text}{{}}", tok.col)
        return "".join(letters)

    def modified_name(self, suffix: str, tok: _Token) -> sympy.Basic:
        """\\bar{x} -> xbar, \\mathbf y -> ybold (SymPy prints them back the same way)."""
        if self.at_op("{"):
            self.advance()
            inner = self.advance()
            self.expect_op("}")
        else:
            inner = self.advance()
        if inner.kind == "num" and "." not in inner.text:
            base = inner.text
        elif inner.kind == "name":
            base = inner.text
        else:
            raise self.unexpected(inner, f"\\{tok.text} takes one letter")
        if base + suffix in self.functions and self.at_arguments():
            return self.call(base + suffix, tok)
        if base == "0" and suffix == "bold" and "0bold" not in self.matrices \
                and not self.at_op("_"):
            return sympy.Integer(0)  # the zero vector: 0 in every entry (unless declared)
        return self.name_tail(base + suffix, tok)

    def fraction(self, tok: _Token) -> sympy.Basic:
        marks = _derivative_marks(self.toks, self.pos - 1)
        if marks is not None:
            return self.derivative_fraction(tok, marks)
        num = self.required_group()
        den = self.required_group()
        return self.divide(num, den, tok)

    def derivative_fraction(self, tok: _Token, marks: tuple[int, int]) -> sympy.Basic:
        a, b = marks
        a_end = _match_brace(self.toks, a)
        self.pos = a + 2  # past '{' and \partial / d
        target = None if self.pos == a_end else self.expr()
        self.expect_op("}")
        self.pos = b + 2
        var = self.variable()
        self.expect_op("}")
        if target is None:  # \frac{d}{dp} f: the operator form
            target = self.unary()
        return self.node(self.build(sympy.Derivative, target, var, col=tok.col))

    def variable(self) -> sympy.Basic:
        tok = self.peek()
        value = self.atom()
        if not isinstance(value, sympy.Symbol | sympy.Indexed):
            raise LatexError("differentiation variable must be a name", tok.col)
        return value

    def slash_derivative(self, tok: _Token) -> sympy.Basic:
        """\\partial p_i/\\partial z_j."""
        target = self.variable()
        self.expect_op("/")
        nxt = self.advance()
        if not (nxt.kind == "cmd" and nxt.text == "partial"):
            raise self.unexpected(nxt, "expected \\partial after '/'")
        var = self.variable()
        return self.node(self.build(sympy.Derivative, target, var, col=tok.col))

    def square_root(self, tok: _Token) -> sympy.Basic:
        index = None
        if self.at_op("["):
            self.advance()
            index = self.expr()
            self.expect_op("]")
        body = self.required_group()
        exponent = sympy.S.Half if index is None else self.build(
            sympy.Pow, index, sympy.Integer(-1), col=tok.col)
        return self.node(self.build(sympy.Pow, body, exponent, col=tok.col))

    def elementary(self, fn: str, tok: _Token) -> sympy.Basic:
        base = None
        if fn == "log" and self.at_op("_"):
            self.advance()
            base = self.script_arg()
        power = None
        if self.at_op("^"):
            self.advance()
            power = self.script_arg()
        if self.at_op("("):
            self.advance()
            arg = self.expr()
            self.expect_op(")")
        elif self.at_op("{") and _is_op(self.peek(1), "("):  # SymPy's \log{\left(x \right)}
            self.advance()
            self.advance()
            arg = self.expr()
            self.expect_op(")")
            self.expect_op("}")
        else:
            if not self.starts_operand(self.peek()):
                raise self.unexpected(self.peek(), f"\\{tok.text} needs an argument")
            arg = self.unary()
        func = {"log": sympy.log, "exp": sympy.exp, "sin": sympy.sin, "cos": sympy.cos,
                "tan": sympy.tan}[fn]
        value = self.node(self.build(func, arg, col=tok.col))
        if base is not None:
            value = self.divide(value, self.build(sympy.log, base, col=tok.col), tok)
        if power is not None:
            value = self.node(self.build(sympy.Pow, value, power, col=tok.col))
        return value

    def big_operator(self, name: str, tok: _Token) -> sympy.Basic:
        """\\sum_{i=1}^{n} body / \\sum_{r} body; body = the product that follows."""
        if not self.at_op("_"):
            raise LatexError(f"\\{name} needs a subscript naming its index", tok.col)
        self.advance()
        index, lower, upper = self.sum_index()
        if upper is not None:
            if self.at_op("^"):
                raise LatexError(f"\\{name}_{{i \\in I}} takes no upper bound", tok.col)
        elif self.at_op("^"):
            self.advance()
            upper = self.script_arg()
        elif lower is None:
            lower, upper = sympy.Integer(1), SUM_UPPER
        else:
            raise LatexError(f"\\{name} with a lower bound needs an upper bound", tok.col)
        if lower is None:
            raise LatexError(f"\\{name} with an upper bound needs 'index = lower'", tok.col)
        self.bound.append(index.name)
        body = self.operator_body()
        self.bound.pop()
        cls = sympy.Sum if name == "sum" else sympy.Product
        if self.where is not None:  # \sum_{i : t_{i} = w}: the terms whose condition holds
            if name != "sum":
                raise LatexError("\\prod_{i : condition} is not read", tok.col)
            body = self.node(sympy.Piecewise((body, self.where), (0, True), evaluate=False))
            cls, self.where = WhereSum, None
        try:
            return self.node(cls(body, (index, lower, upper)))
        except TimeoutError:
            raise
        except Exception as exc:
            raise LatexError(f"cannot build \\{name}: {exc}", tok.col) from exc

    def limit(self, tok: _Token) -> sympy.Basic:
        """``\\lim_{x \\to a} body`` -> unevaluated ``Limit``; ``a^{+}``/``a^{-}`` one-sided,
        ``\\infty`` from below, else two-sided. The body is the product that follows."""
        if not (self.at_op("_") and _is_op(self.peek(1), "{")):
            raise LatexError("\\lim needs a subscript {x \\to a}", tok.col)
        self.advance()
        end = _match_brace(self.toks, self.pos)
        self.advance()
        var = self.variable()
        arrow = self.advance()
        if not (arrow.kind == "rel" and arrow.text == "\\to"):
            raise self.unexpected(arrow, "expected \\to in \\lim_{x \\to a}")
        point, direction = self.limit_point(end)
        self.pos = end + 1
        return self.node(sympy.Limit(self.operator_body(), var, point, direction))

    def operator_body(self) -> sympy.Basic:
        """What \\sum, \\prod and \\lim apply to: the (possibly negated) product that follows."""
        self.enter()
        if self.at_op("-"):
            minus = self.advance()
            body = self.negate(self.term(), minus)
        else:
            body = self.term()
        self.leave()
        return body

    def limit_point(self, end: int) -> tuple[sympy.Basic, str]:
        """The point of ``x \\to a`` in toks[pos:end]: ``a`` and '+', '-' or '+-'."""
        toks = self.toks
        cut, direction = end, "+-"
        for suffix in (("^", "+"), ("^", "-"), ("^", "{", "+", "}"), ("^", "{", "-", "}")):
            k = end - len(suffix)
            if k > self.pos and all(_is_op(toks[k + m], t) for m, t in enumerate(suffix)):
                cut, direction = k, "+" if "+" in suffix else "-"
                break
        sub = _Parser(toks[self.pos:cut] + [_Token("end", "", toks[cut].col)], self.symbols,
                      self.functions, self.matrices, self.sets)
        sub.depth, sub.nodes = self.depth, self.nodes
        point = sub.parse()
        self.nodes = sub.nodes
        if point.has(sympy.oo, -sympy.oo):
            if direction != "+-" or point not in (sympy.oo, -sympy.oo):
                raise LatexError("a limit at infinity is +\\infty or -\\infty", toks[cut].col)
            direction = "-" if point == sympy.oo else "+"
        return point, direction

    def sum_index(self) -> tuple[sympy.Symbol, sympy.Basic | None, sympy.Basic | None]:
        """(index, lower, upper) of ``_i``, ``_{i}``, ``_{i = a}`` or ``_{i \\in I}``."""
        tok = self.peek()
        if tok.kind == "name":
            self.advance()
            return self.symbol(tok.text), None, None
        self.expect_op("{")
        var_tok = self.advance()
        if var_tok.kind != "name":
            raise self.unexpected(var_tok, "expected the summation index")
        index = self.symbol(var_tok.text)
        lower = upper = None
        if self.peek().kind == "rel" and self.peek().text == "=":
            self.advance()
            lower = self.expr()
        elif self.peek().kind == "cmd" and self.peek().text == "in":
            self.advance()
            lower, upper = sympy.Integer(1), self.node(sympy.Function("card")(self.set_name()))
        elif self.at_op(":"):  # \sum_{i : t_{i} = w}: every i where the condition holds
            self.advance()
            self.bound.append(index.name)
            self.where = self.condition()
            self.bound.pop()
            lower, upper = sympy.Integer(1), SUM_UPPER
        if not self.at_op("}"):
            raise self.unexpected(self.peek(), "only \\sum_{i}, \\sum_{i=a}^{b}, "
                                  "\\sum_{i \\in I} or \\sum_{i : condition} are read")
        self.advance()
        return index, lower, upper

    def set_name(self) -> sympy.Basic:
        """The ``I`` of ``\\sum_{i \\in I}``: a name, maybe subscripted (``J_{i}``).

        A set is a plain ``Symbol(name)`` (no ``real``), the same as a name declared
        in ``sets=``, so ``|I|`` there and the range of the sum are one ``card(I)``.
        """
        tok = self.advance()
        if tok.kind != "name":
            raise self.unexpected(tok, "expected the name of a set after \\in")
        name = tok.text
        if self.at_op("_"):
            self.advance()
            text, items = self.subscript()
            bound = set(self.bound)
            if items is not None and any(s.name in bound for x in items
                                         for s in x.free_symbols if isinstance(s, sympy.Symbol)):
                return self.node(sympy.Indexed(sympy.IndexedBase(sympy.Symbol(name)), *items))
            name = f"{name}_{text}"
        sym = self.symbols.get(name)
        return sym if sym is not None else self.node(sympy.Symbol(name))


# --------------------------------------------------------------------------- public API


def _words(symbols: Mapping[str, Any], functions: Collection[str]) -> frozenset[str]:
    """Multi-letter names read whole: known words, ``functions`` and ``symbols``; a
    declared ``d_model`` (letters, '_', letters) is read whole where the note writes it
    so, in plain text (LaTeX would read ``d_{m} o d e l``)."""
    names = FUNCTION_WORDS | LABEL_WORDS | set(functions) | set(symbols)
    return frozenset(k for k in names if len(k) > 1 and k.isascii() and (
        k.isalpha() or (k.count("_") == 1 and all(part.isalpha() for part in k.split("_")))))


def parse_latex(source: str, symbols: Mapping[str, sympy.Symbol] | None = None, *,
                functions: Collection[str] = (), matrices: Collection[str] = (),
                sets: Collection[str] = ()) -> sympy.Expr:
    """Parse one formula (no relation at top level) into an unevaluated SymPy tree.

    ``symbols`` maps names (``'x_1'``, ``'alpha'``, ``'W_Q'``) to the Symbol to use,
    e.g. one declared positive; others are ``Symbol(name, real=True)``.
    ``functions`` adds names read as function applications before ``(``/``[``
    (``L`` in ``L (w)``) to :data:`FUNCTION_WORDS`. ``matrices`` names (as the reader
    names them: ``'X'``, ``'W_Q'``, ``'Ubar'``) are ``Symbol(name, commutative=False)``,
    so products keep their order and ``^{T}`` on them is a transpose. ``sets`` names
    are plain ``Symbol(name)`` and ``|I|`` of one is ``card(I)``. A name in ``symbols``
    keeps the Symbol given there. Only LatexError escapes.
    """
    if not isinstance(source, str):
        raise LatexError("formula must be a string")
    if len(source) > MAX_SOURCE_CHARS:
        raise LatexError(f"formula longer than {MAX_SOURCE_CHARS} characters")
    syms = dict(symbols or {})
    funcs = frozenset(FUNCTION_WORDS | set(functions))
    text, offset = _strip_delimiters(source)
    names = {**syms, **dict.fromkeys(matrices), **dict.fromkeys(sets)}
    toks = _tokenize(text, _words(names, funcs), offset)
    if toks[0].kind == "end":
        raise LatexError("empty formula", 1)
    try:
        parser = _Parser(toks, syms, funcs, frozenset(matrices), frozenset(sets))
        parser.declared = frozenset(functions)
        return parser.parse()
    except (LatexError, TimeoutError):  # a deadline around the reader is not our error
        raise
    except RecursionError as exc:
        raise LatexError("formula nested too deeply") from exc
    except Exception as exc:  # the contract: nothing but LatexError leaves parse_latex()
        raise LatexError(f"cannot read formula: {type(exc).__name__}: {exc}") from exc


# -- chains -------------------------------------------------------------------------------

_ENVIRONMENTS = ("aligned", "align", "align*", "split", "gathered", "gather", "gather*")
_REL_WORDS = sorted(_RELATION_CMDS, key=len, reverse=True)


def _strip_environment(text: str) -> str:
    body = text.strip()
    for env in _ENVIRONMENTS:
        begin, end = f"\\begin{{{env}}}", f"\\end{{{env}}}"
        if body.startswith(begin) and body.endswith(end):
            return body[len(begin) : -len(end)]
    return body


_ENV_DEPTH = {"begin": 1, "end": -1}


def _close_cases_brace(text: str) -> str:
    """The export writes ``= {\\begin{cases} … \\end{cases}`` with the ``{`` never closed:
    close it right after ``\\end{cases}`` (nothing moves, so every column still points
    into the note). Any other unbalanced text is left to fail as before."""
    opened = text.count("{") - text.count("\\{")
    closed = text.count("}") - text.count("\\}")
    end = text.rfind("\\end{cases}")
    if opened != closed + 1 or "{\\begin{cases}" not in text or end < 0:
        return text
    cut = end + len("\\end{cases}")
    return text[:cut] + "}" + text[cut:]


def split_chains(source: str) -> list[list[str]]:
    """All statements of a display: each as [side, relation, side, relation, side, ...].

    Rows of an aligned environment that start with a relation (``\\\\ = 4``)
    continue the previous statement; a row with its own left side, or a part after
    a top-level comma (``a = b, k \\neq j``), starts a new one. Relations are
    returned canonically: ``=``, ``\\approx``, ``\\le``, ``\\ge``, ``<``, ``>``,
    ``\\ne``, ``\\to``, ``\\equiv``.
    """
    if not isinstance(source, str):
        raise LatexError("formula must be a string")
    if len(source) > MAX_SOURCE_CHARS:
        raise LatexError(f"formula longer than {MAX_SOURCE_CHARS} characters")
    text = _close_cases_brace(_strip_environment(_strip_delimiters(source)[0]))
    chains: list[list[str]] = []
    for row, row_col in _split_top(text, "row"):
        for k, (stmt, col) in enumerate(_split_top(row, "comma")):
            pieces = _split_relations(stmt)
            first = pieces[0].strip()
            if not first and not (k == 0 and chains and len(pieces) > 1):
                raise LatexError("a relation with nothing on its left", row_col + col)
            chain = chains[-1] if not first else []
            if first:
                chains.append(chain)
                chain.append(first)
            for i in range(1, len(pieces), 2):
                side = pieces[i + 1].strip()
                if not side:
                    raise LatexError(f"nothing on the right of {pieces[i]}", row_col + col)
                chain.extend([pieces[i], side])
    if not chains:
        raise LatexError("empty formula", 1)
    return chains


def split_chain(source: str) -> list[str]:
    """One derivation ``A = B \\approx C`` as ``[A, '=', B, '\\approx', C]``.

    Sides are at even positions, the relation between each pair at odd ones. A
    display holding several statements is an error (use :func:`split_chains`):
    silently checking only the first would pass the others unread.
    """
    chains = split_chains(source)
    if len(chains) != 1:
        raise LatexError(f"{len(chains)} statements in one formula; use split_chains")
    return chains[0]


def parse_limit_point(source: str) -> tuple[str, str]:
    """The point of ``x \\to a`` as (the text of ``a``, direction): ``0^{+}`` -> ("0", "+"),
    ``0^-`` -> ("0", "-"), ``\\infty`` -> ("\\infty", "-"), ``-\\infty`` -> (.., "+"),
    anything else two-sided ("+-"). The caller reads the text with :func:`parse_latex`."""
    text = _strip_delimiters(source)[0].strip()
    bare = text.replace(" ", "")
    for suffix in ("^+", "^-", "^{+}", "^{-}"):
        if bare.endswith(suffix) and len(bare) > len(suffix):
            cut = len(text)
            for _ in range(len(suffix)):  # drop the suffix's characters and the spaces between
                cut = len(text[:cut].rstrip()) - 1
            return text[:cut].rstrip(), "+" if "+" in suffix else "-"
    if bare in ("\\infty", "+\\infty", "∞", "+∞"):
        return text, "-"
    if bare in ("-\\infty", "−\\infty", "-∞", "−∞"):
        return text, "+"
    return text, "+-"


def parse_interval(source: str) -> tuple[str, str, bool, bool]:
    """``[a, b]``, ``(a, b]``, ... as (text of a, text of b, a included, b included)."""
    text = _strip_delimiters(source)[0].strip()
    if text.endswith("."):
        text = text[:-1].rstrip()
    if len(text) < 5 or text[0] not in "[(" or text[-1] not in "])":
        raise LatexError(f"not an interval [a, b]: {source!r}")
    parts = _split_top(text[1:-1], "comma")
    if len(parts) != 2:
        raise LatexError(f"an interval has two ends: {source!r}")
    return parts[0][0], parts[1][0], text[0] == "[", text[-1] == "]"


def _split_top(text: str, what: str) -> list[tuple[str, int]]:
    r"""Split at top-level '\\' (rows, also dropping '&') or ',' (statements)."""
    parts: list[tuple[str, int]] = []
    depth, start, i = 0, 0, 0
    buf: list[str] = []
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            nxt = text[i + 1 : i + 2]
            if what == "row" and nxt == "\\" and depth == 0:
                parts.append(("".join(buf), start + 1))
                buf, start = [], i + 2
                i += 2
                continue
            j = i + 2
            while nxt.isalpha() and j < len(text) and text[j].isalpha():
                j += 1
            depth += _ENV_DEPTH.get(text[i + 1 : j], 0)  # rows of a cases/matrix stay inside
            buf.append(text[i:j])
            i = j
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                raise LatexError(f"unbalanced {ch!r}", i + 1)
        if what == "row" and ch == "&" and depth == 0:
            buf.append(" ")
        elif what == "comma" and ch == "," and depth == 0:
            parts.append(("".join(buf), start + 1))
            buf, start = [], i + 1
        else:
            buf.append(ch)
        i += 1
    if depth != 0:
        raise LatexError("unbalanced brackets", len(text))
    parts.append(("".join(buf), start + 1))
    out = []
    for part, col in parts:
        stripped = part.strip()
        if what == "comma" and stripped.endswith("."):
            stripped = stripped[:-1].rstrip()
        if stripped or what == "row":
            out.append((stripped, col))
    return [p for p in out if p[0]] or [("", 1)]


def _split_relations(text: str) -> list[str]:
    """[side, rel, side, ...] at bracket depth 0."""
    pieces: list[str] = []
    depth, i = 0, 0
    buf: list[str] = []
    while i < len(text):
        ch = text[i]
        rel = None
        if ch == "\\":
            j = i + 1
            while j < len(text) and text[j].isalpha():
                j += 1
            word = text[i + 1 : j]
            if j == i + 1:
                j = min(i + 2, len(text))
            depth += _ENV_DEPTH.get(word, 0)  # the conditions of a cases are not relations
            if depth == 0 and word in _RELATION_CMDS:
                rel = _RELATION_CMDS[word]
            elif depth == 0 and word == "in" and text[j:].lstrip()[:1] in ("[", "("):
                rel = "\\in"  # x \in [a, b]: membership of an interval (not of a set)
            if rel is None:
                buf.append(text[i:j])
                i = j
                continue
            width = j - i
        else:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            width = 1
            if depth == 0 and ch in _RELATION_CHARS:
                rel = _RELATION_CHARS[ch]
            elif depth == 0 and text.startswith(":=", i):
                rel, width = "=", 2  # y := …, a definition: read as the equation it makes
        if rel is not None:
            pieces.append("".join(buf))
            pieces.append(rel)
            buf = []
        else:
            buf.append(ch)
        i += width
    pieces.append("".join(buf))
    return pieces


# -- printing and the round trip ---------------------------------------------------------


class _Printer(LatexPrinter):
    """SymPy's printer, with forms our grammar reads back unambiguously."""

    def _print_Sum(self, expr: sympy.Sum) -> str:  # noqa: N802 (SymPy's naming)
        return self._big(expr, "\\sum")

    def _print_Product(self, expr: sympy.Product) -> str:  # noqa: N802
        return self._big(expr, "\\prod")

    def _print_WhereSum(self, expr: Any) -> str:  # noqa: N802
        (var, _, _), (body, cond) = expr.limits[0], expr.function.args[0]
        text = self._print(body)
        if isinstance(body, sympy.Add):
            text = f"\\left({text}\\right)"
        return f"\\sum_{{{self._print(var)} : {self._print(cond)}}} {text}"

    def _big(self, expr: Any, op: str) -> str:
        out = ""
        for var, lo, hi in reversed(expr.limits):  # SymPy lists the innermost first
            if lo == 1 and hi == SUM_UPPER:
                out += f"{op}_{{{self._print(var)}}} "
            elif lo == 1 and _is_card(hi):
                out += f"{op}_{{{self._print(var)} \\in {self._set_name(hi.args[0])}}} "
            else:
                out += f"{op}_{{{self._print(var)}={self._print(lo)}}}^{{{self._print(hi)}}} "
        body = expr.function
        text = self._print(body)
        if isinstance(body, sympy.Add):
            text = f"\\left({text}\\right)"
        return out + text

    def _set_name(self, value: Any) -> str:
        if isinstance(value, sympy.Indexed):  # J_{i}, as set_name() reads it
            indices = ",".join(self._print(x) for x in value.indices)
            return f"{self._print(value.base.label)}_{{{indices}}}"
        return self._print(value)

    def _print_Derivative(self, expr: sympy.Derivative) -> str:  # noqa: N802
        if len(expr.variable_count) != 1 or expr.variable_count[0][1] != 1:
            return super()._print_Derivative(expr)
        var = self._print(expr.variables[0])
        target = expr.expr
        if isinstance(target, sympy.Symbol | sympy.Indexed):
            return f"\\frac{{\\partial {self._print(target)}}}{{\\partial {var}}}"
        return f"\\frac{{\\partial}}{{\\partial {var}}} \\left({self._print(target)}\\right)"

    def _print_Function(self, expr: Any, exp: str | None = None) -> str:  # noqa: N802
        if isinstance(expr, sympy.core.function.AppliedUndef):
            args = ", ".join(self._print(a) for a in expr.args)
            name = expr.func.__name__
            if name == "ellipsis" and not expr.args:
                return "\\dots"
            if name == "matrix" and len(expr.args) == 1 and isinstance(expr.args[0], sympy.Tuple):
                rows = " \\\\ ".join(" & ".join(self._print(x) for x in row)
                                     for row in expr.args[0])
                return f"\\left[\\begin{{matrix}} {rows} \\end{{matrix}}\\right]"
            if name.endswith("'") and name[:-1] and "'" not in name[:-1]:
                # σ'(B), the derivative of a declared function, as the notes write it
                base = self._print(sympy.Symbol(name[:-1]))
                text = f"{base}^{{'}}\\left({args}\\right)"
                return text if exp is None else f"\\left({text}\\right)^{{{exp}}}"
            if name == "transpose" and len(expr.args) == 1:
                # always \top: a plain T on a commutative base would read back as a power
                arg = expr.args[0]
                text = (f"{{{args}}}^{{\\top}}" if isinstance(arg, sympy.Symbol)
                        else f"\\left({args}\\right)^{{\\top}}")
                return text if exp is None else f"\\left({text}\\right)^{{{exp}}}"
            if name == "hadamard" and len(expr.args) == 2:
                left, right = expr.args
                lt, rt = self._print(left), self._print(right)
                if isinstance(left, sympy.Add | sympy.Sum | sympy.Product):
                    lt = f"\\left({lt}\\right)"
                if not (isinstance(right, sympy.Symbol | sympy.Indexed | sympy.Function)
                        or (right.is_Number and not right.could_extract_minus_sign())):
                    rt = f"\\left({rt}\\right)"
                text = f"{lt} \\odot {rt}"
                return text if exp is None else f"\\left({text}\\right)^{{{exp}}}"
            if _is_card(expr):
                text = f"\\left|{args}\\right|"
                return text if exp is None else f"{text}^{{{exp}}}"
            if name == "norm" and len(expr.args) == 1:
                text = f"\\left\\lVert {args} \\right\\rVert"
            elif name == "vec" and expr.args:
                text = f"\\left({args}\\right)"
            elif name == "given" and len(expr.args) >= 2 and isinstance(
                    expr.args[0], sympy.core.function.AppliedUndef):
                call = expr.args[0]
                what = ", ".join(self._print(a) for a in call.args)
                where = ", ".join(self._print(a) for a in expr.args[1:])
                text = f"{_modified_call(call.func.__name__)}\\left({what} ∣ {where}\\right)"
            elif name == "entry" and len(expr.args) == 3 and _is_weights_call(expr.args[0]):
                call = expr.args[0]  # a_{i j} (X): an entry of a declared a, as written
                where = " ".join(self._print(a) for a in expr.args[1:])
                what = ", ".join(self._print(a) for a in call.args)
                text = f"{call.func.__name__}_{{{where}}} \\left({what}\\right)"
            elif name == "entry" and len(expr.args) in (2, 3):
                inner = self._print(expr.args[0])
                where = " ".join(self._print(a) for a in expr.args[1:])
                text = f"\\left({inner}\\right)_{{{where}}}"
            elif name == "prime" and len(expr.args) == 1:
                arg = expr.args[0]
                text = (f"{args}'" if isinstance(arg, sympy.Symbol)
                        else f"\\left({args}\\right)'")
            else:
                text = f"{_modified_call(name)}\\left({args}\\right)"
            return text if exp is None else f"\\left({text}\\right)^{{{exp}}}"
        return super()._print_Function(expr, exp)

    def _print_Mul(self, expr: sympy.Mul) -> str:  # noqa: N802
        """Factors in tree order, joined by \\cdot; ``a * b^-1`` as ``\\frac{a}{b}``.

        SymPy's own Mul printer reorders factors and evaluates while it splits
        numerator from denominator (``1/e^{-0.7773}`` became ``2.1755..``); this
        one prints only what the tree holds.
        """
        args = list(expr.args)
        if args and args[0] == sympy.Integer(-1) and len(args) > 1:
            return "- " + self._factor(self._mul_body(args[1:]), args[1:])
        return self._mul_body(args)

    def _factor(self, text: str, args: list[Any]) -> str:
        if len(args) == 1 and (isinstance(args[0], sympy.Add | sympy.Sum | sympy.Product)
                               or _is_hadamard(args[0])):
            return f"\\left({text}\\right)"
        return text

    def _mul_body(self, args: list[Any]) -> str:
        if len(args) == 2 and _is_reciprocal(args[1]):
            return f"\\frac{{{self._print(args[0])}}}{{{self._print(args[1].base)}}}"
        parts = []
        for k, arg in enumerate(args):
            text = self._print(arg)
            last = k == len(args) - 1
            if (isinstance(arg, sympy.Add) or (isinstance(arg, sympy.Sum | sympy.Product)
                                               and not last)
                    or (k > 0 and (arg.could_extract_minus_sign() or _is_reciprocal(arg)
                                   or _is_hadamard(arg)))):
                text = f"\\left({text}\\right)"
            parts.append(text)
        return " \\cdot ".join(parts)

    def _print_Pow(self, expr: sympy.Pow) -> str:  # noqa: N802
        base, exp = expr.args
        if exp == sympy.Integer(-1):
            return f"\\frac{{1}}{{{self._print(base)}}}"
        if _is_reciprocal(exp) and exp.base.is_Integer:
            return f"\\sqrt[{self._print(exp.base)}]{{{self._print(base)}}}"
        if exp.is_Number and exp.is_negative:  # SymPy would print 10^{-400} as a Mul
            return self._helper_print_standard_power(expr, "%s^{%s}")
        return super()._print_Pow(expr)

    def _print_Symbol(self, expr: sympy.Symbol, style: str = "plain") -> str:  # noqa: N802
        text = super()._print_Symbol(expr, style)
        if text.startswith("\\hbar"):  # SymPy reads the name hbar as Planck's constant
            return "\\bar{h}" + text[5:]
        return "\\nabla " + text[5:] if text.startswith("nabla") else text

    def _print_DotsSum(self, expr: DotsSum) -> str:  # noqa: N802
        shown, last = terms_of(expr)
        return " + ".join([*(self._print(t) for t in shown), "\\dots", self._print(last)])

    def _print_DotsProduct(self, expr: DotsProduct) -> str:  # noqa: N802
        shown, last = terms_of(expr)
        return " ".join([*(self.parenthesize(t, PRECEDENCE["Mul"]) for t in shown), "\\dots",
                         self.parenthesize(last, PRECEDENCE["Mul"])])

    def _print_Piecewise(self, expr: sympy.Piecewise) -> str:  # noqa: N802
        rows = []
        for value, cond in expr.args:
            shown = "\\text{otherwise}" if cond is sympy.true else self._print(cond)
            rows.append(f"{self._print(value)}, & {shown}")
        return "{\\begin{cases} " + " \\\\ ".join(rows) + " \\end{cases}}"

    def _print_Tuple(self, expr: sympy.Tuple) -> str:  # noqa: N802
        return "\\left(" + ", ".join(self._print(a) for a in expr.args) + "\\right)"


def _is_index(tok: _Token) -> bool:
    """One integer or one letter: the index of ``X^{(1)}``, ``Z^{(h)}``."""
    return (tok.kind == "num" and tok.text.isdigit()) or (
        tok.kind == "name" and len(tok.text) == 1 and tok.text.isalpha())


def _modified_call(name: str) -> str:
    """How a function is named in print: ``\\bar{L}`` for ``Lbar`` (as the note writes
    ``\\bar L(θ)``: the round trip then counts the same letter), ``F_{\\theta}`` for
    ``F_theta`` (``F_{1}`` for ``F_1``), else ``\\operatorname``."""
    head, sep, sub = name.partition("_")
    if sep and head and sub and head.isalpha() and (sub.isalpha() or sub.isdigit()):
        return f"{head}_{{\\{sub}}}" if sub in GREEK_COMMANDS else f"{head}_{{{sub}}}"
    for command, suffix in _MODIFIERS.items():
        base = name[: -len(suffix)]
        if name.endswith(suffix) and len(base) == 1 and base.isalpha() and command != "boldsymbol":
            return f"\\{command}{{{base}}}"
    return f"\\operatorname{{{name}}}"


def _is_weights_call(value: Any) -> bool:
    """``a (X)`` of a one-letter declared function (the reader's ``a_{i j} (X)``)."""
    return (isinstance(value, sympy.core.function.AppliedUndef)
            and len(value.func.__name__) == 1 and value.func.__name__.isalpha())


def _is_reciprocal(value: Any) -> bool:
    return isinstance(value, sympy.Pow) and value.args[1] == sympy.Integer(-1)


def _is_hadamard(value: Any) -> bool:
    return (isinstance(value, sympy.core.function.AppliedUndef)
            and value.func.__name__ == "hadamard")


def _is_card(value: Any) -> bool:
    return (isinstance(value, sympy.core.function.AppliedUndef)
            and value.func.__name__ == "card" and len(value.args) == 1)


def to_latex_text(expr: Any) -> str:
    """Print a parsed formula back as LaTeX that :func:`parse_latex` reads again."""
    return _Printer().doprint(expr)


def canonical(expr: Any) -> Any:
    """Rebuild bottom-up with evaluation on, so equal formulas become equal trees.

    ``number^number`` with an exponent beyond ``MAX_EVAL_EXPONENT`` stays
    unevaluated, so a hostile ``10^{10^{10}}`` cannot make this hang.
    """
    if isinstance(expr, sympy.Indexed):  # p_{i, t_{i + 1}}: the indices are expressions
        return sympy.Indexed(expr.base, *(canonical(a) for a in expr.indices))
    if not isinstance(expr, sympy.Basic) or expr.is_Atom or not expr.args:
        return expr
    if isinstance(expr, sympy.IndexedBase):
        return expr
    args = [canonical(a) for a in expr.args]
    if (isinstance(expr, sympy.Pow) and args[0].is_Number and args[1].is_Number
            and abs(args[1]) > MAX_EVAL_EXPONENT):
        return sympy.Pow(*args, evaluate=False)
    try:
        return expr.func(*args)
    except TimeoutError:
        raise
    except Exception:
        return expr.func(*args, evaluate=False)


# -- sizes: how big a value gets, known before it is computed ----------------------------

_LOG10_2 = 0.30103


def _int_digits(n: int) -> float:
    return max(1.0, abs(int(n)).bit_length() * _LOG10_2)


def _quantity(what: Any) -> str:
    return f"{what:,.0f}" if what < 1e15 else f"{what:.1e}"


class _Sizes:
    """Upper bounds, without evaluating anything, on what evaluating a tree produces:
    ``digits`` of the exact numbers (numerator and denominator together; coefficients
    once expanded) and the polynomial ``degree`` in its symbols.

    A power ``b^{n}`` has about digits(b)·|n| digits and degree degree(b)·|n|
    (recursively, so a tower multiplies); a sum or product adds digits, a product adds
    degrees. :meth:`estimate` raises LatexError where a power or a product goes beyond
    MAX_RESULT_DIGITS or MAX_DEGREE, or the tree beyond MAX_TREE_NODES nodes. ``env``
    gives the sizes of symbols about to be substituted by definitions.
    """

    def __init__(self, env: Mapping[Any, tuple[float, float]] | None = None) -> None:
        self.env = dict(env or {})
        self.memo: dict[Any, tuple[float, float]] = {}
        self.nodes = 0

    def estimate(self, expr: Any) -> tuple[float, float]:
        if not isinstance(expr, sympy.Basic):
            return 1.0, 0.0
        known = self.memo.get(expr)
        if known is not None:
            return known
        self.nodes += 1
        if self.nodes > MAX_TREE_NODES:
            raise LatexError(f"formula too large to compute: more than {MAX_TREE_NODES:,} "
                             "nodes once its definitions are substituted")
        size = self._size(expr)
        self.memo[expr] = size
        return size

    def _size(self, expr: Any) -> tuple[float, float]:
        if expr in self.env:
            return self.env[expr]
        if isinstance(expr, sympy.Integer):
            return _int_digits(expr.p), 0.0
        if isinstance(expr, sympy.Rational):
            return _int_digits(expr.p) + _int_digits(expr.q), 0.0
        if isinstance(expr, sympy.Float):  # made exact (0.665 is 133/200) for '=' steps
            if not expr.is_finite:
                return 1.0, 0.0
            exact = sympy.Rational(str(expr))  # a literal: at most 40 digits
            return _int_digits(exact.p) + _int_digits(exact.q), 0.0
        if isinstance(expr, sympy.Symbol):
            return 1.0, 1.0
        if expr.is_Atom or not expr.args:  # pi, E, oo, I, an undefined function's name
            return 1.0, 0.0
        if isinstance(expr, sympy.Pow):
            return self._power(expr)
        parts = [self.estimate(a) for a in expr.args]
        if isinstance(expr, sympy.Add):
            return sum(p[0] for p in parts), max(p[1] for p in parts)
        if isinstance(expr, sympy.Mul):
            return sum(p[0] for p in parts), sum(p[1] for p in parts)
        if isinstance(expr, (sympy.Sum, sympy.Product)):
            return self._big(expr, parts[0])
        digits = max(p[0] for p in parts)
        return digits, (1.0 if any(p[1] for p in parts) else 0.0)  # exp(x), E[X]: opaque

    def _big(self, expr: Any, body: tuple[float, float]) -> tuple[float, float]:
        count = 1.0
        for limit in expr.limits:
            lo, hi = (limit[1], limit[2]) if len(limit) == 3 else (None, None)
            if lo is not None and lo.is_Integer and hi.is_Integer:
                count *= max(1, int(hi) - int(lo) + 1)
        if isinstance(expr, sympy.Sum):
            return body[0] + _int_digits(int(count)), body[1]
        return self._check(body[0] * count, body[1] * count, "the product")

    def _power(self, expr: Any) -> tuple[float, float]:
        base, exp = expr.args
        b = self.estimate(base)
        e = self.estimate(exp)
        bound = self._magnitude(exp, e)
        if bound is None:  # a symbolic exponent (10000^{2i/d}): nothing is expanded
            return max(b[0], e[0]), max(b[1], 1.0 if exp.free_symbols else 0.0)
        magnitude, integer = bound
        digits = b[0] * max(magnitude, 1.0)
        degree = b[1] * magnitude if integer else b[1]  # x^{1/2} is not expanded
        return self._check(digits, degree, "the power")

    def _magnitude(self, exp: Any, size: tuple[float, float]) -> tuple[float, bool] | None:
        """(an upper bound on |exponent|, may it be an integer) when the exponent is a
        number once evaluated; None when it is symbolic."""
        if isinstance(exp, sympy.Rational | sympy.Float):
            return float(abs(exp)), bool(exp.is_Integer)
        if size[1] or any(s not in self.env for s in exp.free_symbols):
            return None
        if size[0] <= 30 and not exp.free_symbols:  # small: its value is cheap and exact
            value = canonical(exp)
            if isinstance(value, sympy.Rational | sympy.Float):
                return float(abs(value)), bool(value.is_Integer)
        return 10.0 ** min(size[0], 300.0), True  # a number of that many digits at most

    def _check(self, digits: float, degree: float, what: str) -> tuple[float, float]:
        if digits > MAX_RESULT_DIGITS:
            raise LatexError(f"value too large to compute: {what} would have about "
                             f"{_quantity(digits)} digits (limit {MAX_RESULT_DIGITS:,})")
        if degree > MAX_DEGREE:
            raise LatexError(f"value too large to compute: {what} has degree about "
                             f"{_quantity(degree)} (limit {MAX_DEGREE})")
        return digits, degree


def check_size(expr: Any, env: Mapping[Any, Any] | None = None) -> None:
    """Refuse (LatexError) a tree whose evaluation would produce a number beyond
    MAX_RESULT_DIGITS digits, a polynomial beyond MAX_DEGREE, or more than
    MAX_TREE_NODES nodes -- before anything computes it. ``env`` maps symbols to the
    trees that will be substituted for them (``define:``), so ``a^{1000}`` with
    ``a = 99^{99}`` is refused before ``subs`` evaluates it."""
    inner = _Sizes()
    sizes = {sym: inner.estimate(value) for sym, value in (env or {}).items()}
    _Sizes(sizes).estimate(expr)


def atoms_multiset(source: str, *, functions: Collection[str] = (),
                   matrices: Collection[str] = ()) -> Counter[str]:
    """The numerals (by value) and names a formula mentions, read from its tokens alone.

    Independent of the parser's tree on purpose: comparing this for the source
    and for the printed-back parse catches a term the parser silently lost.
    Function names, ``e`` before ``^`` (``\\exp`` prints as ``e^{..}``), the ``d``
    of ``\\frac{d L}{d w}``, the ``1`` of ``1_{j=y}``, the ``δ`` of ``δ_{jk}`` and
    the labels of ``\\underset``/``\\underbrace`` are notation, not atoms.
    """
    funcs = frozenset(FUNCTION_WORDS | set(functions))
    text, offset = _strip_delimiters(source)
    toks = _digit_split(_tokenize(text, _words({}, funcs), offset))
    skip: set[int] = set()
    counts: Counter[str] = Counter()
    for i, tok in enumerate(toks):
        if i in skip:
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else tok
        if tok.kind == "cmd":
            if tok.text in ("frac", "dfrac", "tfrac"):
                marks = _derivative_marks(toks, i)
                if marks is not None:
                    skip.update({marks[0] + 1, marks[1] + 1})
                elif _is_op(nxt, "{") and toks[i + 2].text == "1" and _is_op(toks[i + 3], "}"):
                    skip.add(i + 2)  # \frac{1}{b} c prints as \frac{c}{b}: notation
                elif nxt.kind == "num" and nxt.text == "1":
                    skip.add(i + 1)  # \frac12
            elif tok.text in ("underset", "overset", "begin", "end", "text") and _is_op(nxt, "{"):
                skip.update(range(i + 1, _match_brace(toks, i + 1) + 1))
            elif tok.text in ("underbrace", "overbrace") and _is_op(nxt, "{"):
                end = _match_brace(toks, i + 1)
                if _is_op(toks[end + 1], "_") or _is_op(toks[end + 1], "^"):
                    stop = (_match_brace(toks, end + 2) if _is_op(toks[end + 2], "{")
                            else end + 2)
                    skip.update(range(end + 1, stop + 1))
            elif tok.text in ("mathrm", "operatorname") and _is_op(nxt, "{"):
                end = _match_brace(toks, i + 1)
                word = "".join(t.text for t in toks[i + 2 : end])
                skip.update(range(i + 1, end + 1))
                if word not in funcs and not (tok.text == "operatorname"
                                              or _is_op(toks[end + 1], "(")):
                    counts[word] += 1
            elif tok.text in ("nabla", "pi", "infty"):
                counts[tok.text] += 1
            elif tok.text == "top":  # M^{\\top}, M^{T}, M^{\\mathsf{T}}: one T each
                counts["T"] += 1
            continue
        if tok.kind == "name":
            modified = any(t.kind == "cmd" and t.text in _MODIFIERS
                           for t in toks[max(0, i - 2) : i])  # \bar L(..) is not L(..)
            if tok.text in funcs and not modified and (
                    _is_op(nxt, "(") or _is_op(nxt, "[") or _is_op(nxt, "{") or tok.word):
                continue
            if (tok.text == "e" and not tok.word and _is_op(nxt, "^") and "e" not in matrices
                    and not _sure_transpose(toks, i + 2)):
                continue
            if tok.text == "delta" and _is_op(nxt, "_"):
                continue
            if tok.word and tok.text.isascii() and tok.text.isalpha():
                counts.update(tok.text)  # w_{n e w} and w_{new} name the same thing
            else:
                counts[tok.text] += 1
        elif tok.kind == "num":
            if tok.text == "1" and (_is_op(nxt, "_") or _is_op(nxt, "/")):
                continue  # 1_{j=y} is a delta; 1/V prints as \frac{1}{V}
            counts[_numeral(tok.text)] += 1
    return counts


def _sure_transpose(toks: list[_Token], i: int) -> bool:
    """Is toks[i] (after a '^') ``\\top``/``⊤``/``\\mathsf``, braced or not?"""
    if i < len(toks) and _is_op(toks[i], "{"):
        i += 1
    return i < len(toks) and toks[i].kind == "cmd" and toks[i].text in ("top", "mathsf")


def _digit_split(toks: list[_Token]) -> list[_Token]:
    """Split numbers the way LaTeX reads them: ``x^23`` is ``x^2 3``, ``\\frac12`` is 1/2."""
    out: list[_Token] = []
    for tok in toks:
        prev = out[-1] if out else None
        if tok.kind == "num" and "." not in tok.text and len(tok.text) > 1 and prev is not None:
            if prev.kind == "cmd" and prev.text in ("frac", "dfrac", "tfrac"):
                cut = [1, 2]
            elif (prev.kind == "op" and prev.text in "^_") or (
                    prev.kind == "cmd" and prev.text == "sqrt"):
                cut = [1]
            else:
                cut = []
            start = 0
            for c in cut:
                out.append(_Token("num", tok.text[start:c], tok.col + start))
                start = c
            if start < len(tok.text):
                out.append(_Token("num", tok.text[start:], tok.col + start))
            continue
        out.append(tok)
    return out


def _numeral(text: str) -> str:
    try:
        value = Decimal(text).normalize()
    except InvalidOperation:  # pragma: no cover - the tokenizer only emits digits
        return text
    return format(value, "f")


def _equal(a: Any, b: Any) -> bool:
    """Structural equality after canonical(); else simplify(a - b) == 0, time-boxed."""
    ca, cb = canonical(a), canonical(b)
    if ca == cb:
        return True
    try:
        return bool(_time_boxed(lambda: sympy.simplify(ca - cb) == 0, SIMPLIFY_SECONDS))
    except TimeoutError:
        raise
    except Exception:
        return False


def _time_boxed(fn: Callable[[], Any], seconds: float) -> Any:
    """Run fn under a deadline where possible (main thread, POSIX).

    Elsewhere simplify is not attempted at all: an unbounded call could hang the
    gate, and a False here only means "not shown equal", never a pass.
    """
    if not can_bound():
        return False
    try:
        with deadline(seconds):
            return fn()
    except TimeoutError:
        return False

def round_trip_ok(source: str, expr: Any, symbols: Mapping[str, sympy.Symbol] | None = None,
                  *, functions: Collection[str] = (), matrices: Collection[str] = (),
                  sets: Collection[str] = ()) -> bool:
    """Does ``expr`` say what ``source`` says?

    Two checks, both needed: the printout of ``expr`` parses back to an equal
    formula (the printer/parser pair agree), and the source and the printout
    mention the same numerals and names equally often -- the check that catches
    a term dropped between source and tree, which the first cannot see.
    """
    try:
        text = to_latex_text(expr)
        again = parse_latex(text, symbols, functions=functions, matrices=matrices, sets=sets)
        if not _equal(expr, again):
            return False
        return atoms_multiset(source, functions=functions, matrices=matrices) == atoms_multiset(
            text, functions=functions, matrices=matrices)
    except LatexError:
        return False

