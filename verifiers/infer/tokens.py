"""Tokens of a note's text, as far as inference needs them.

Inference reads only what a line *shows*: numbers (the note's own literals, so
coverage and inference agree on what a number is), printed vectors and
matrices (one value, one hole), operators, relations and the grammar's
functions. Everything else -- words, CJK text, ``$`` delimiters, names such as
``q`` or ``W_q`` -- is ``OTHER`` and breaks an expression: inference never
guesses what a word means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.coverage.literals import RULES
from verifiers.holes import VALUE_PATTERN, read_value
from verifiers.notes import Literal, Note

__all__ = ["Token", "tokenize", "allowed_literals", "printed_value"]

NUM, VAL, OP, LP, RP, REL, FUNC, FRAC, OTHER, LB, RB, COMMA, NAME, CONST = (
    "num", "val", "op", "lp", "rp", "rel", "func", "frac", "other", "lb", "rb", "comma", "name",
    "const")
_PI_RE = re.compile(r"\\pi(?![A-Za-z])|π")


@dataclass(frozen=True)
class Token:
    """One token: ``kind``, normalised ``text`` (``*`` for ``×``), span in the note."""

    kind: str
    text: str
    start: int
    end: int
    shape: str = "scalar"  # VAL: "vector" or "matrix"


_VALUE_RE = re.compile(VALUE_PATTERN)
_SKIP_RE = re.compile(r"(?:[ \t\u3000\u00a0&]|\\[,;:! ]|\\left|\\right|\\quad|\\qquad)+")
_REL_RE = re.compile(r"=|＝|≈|\\approx")
# full-width operators (＋ － ＊ ／ ＝) of a plain-text Chinese note read as their ASCII forms;
# full-width brackets stay prose (`α = 0.8（假设独立）`: a remark, not a product)
_OPS = [("\\times", "*"), ("\\cdot", "*"), ("×", "*"), ("·", "*"), ("⋅", "*"), ("**", "^"),
        ("*", "*"), ("÷", "/"), ("/", "/"), ("+", "+"), ("-", "-"), ("−", "-"), ("^", "^"),
        ("＋", "+"), ("－", "-"), ("＊", "*"), ("／", "/")]
#: LaTeX's other math delimiters, read as ``$``: ``\(2 \times 24 = 48\)``, ``\[ … \]``
_MATH_DELIMS = ("\\(", "\\)", "\\[", "\\]")
_FUNC_RE = re.compile(
    r"(?:\\operatorname\{|\\mathrm\{|\\)?"
    r"(softmax|sigmoid|exp|ln|log|sqrt|sin|cos|tanh|sum|mean|max|min)\}?(?![A-Za-z])")
# ``\sigma(x)`` applied to a bracket is the logistic sigmoid in ML notes (a bare
# ``\sigma`` or ``\sigma^2`` is a standard deviation: not a function).
_SIGMA_RE = re.compile(r"\\sigma(?=\s*(?:\\left)?\()|σ(?=\()")
_FRAC_RE = re.compile(r"\\[dt]?frac(?![A-Za-z])")
# A one-letter name with an optional subscript (``x``, ``W_{Q}``, ``x_{i}``, ``W_q``, ``x₁``): what
# a note defines with ``x = (2, 1)`` and computes with later (``k1`` too). Words are prose.
_NAME_RE = re.compile(
    r"[A-Za-z][0-9]?(?:_\{[A-Za-z0-9 ,]{1,12}\}|_[A-Za-z0-9]+|[₀-₉ᵢⱼₖₜ]+)?(?![A-Za-z0-9_{])")
# A Greek letter is a name too (``α = 0.8``, ``$\theta_i$``, ``\omega_{i}``), read after
# ``\sigma(`` (the sigmoid) and the functions; ``\pi`` / ``π`` is the constant.
_GREEK_RE = re.compile(
    r"(?:\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|kappa|lambda|mu|nu|"
    r"xi|rho|sigma|tau|phi|varphi|chi|psi|omega|Delta|Theta|Lambda|Sigma|Phi|Omega)"
    r"|[α-ωΑ-Ω])(?:_\{[A-Za-z0-9 ,]{1,12}\}|_[A-Za-z0-9]+|[₀-₉ᵢⱼₖₜ]+)?(?![A-Za-z0-9_{])")
_URL_RE = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")


def allowed_literals(note: Note) -> dict[int, Literal]:
    """The note's literals that can be claims (coverage's exclusion rules applied), by start."""
    return {lit.start: lit for lit in note.literals
            if not any(rule(note, lit) for rule in RULES.values())}


def url_spans(text: str) -> list[tuple[int, int]]:
    """Spans of URLs: their digits are never numbers to infer."""
    return [(m.start(), m.end()) for m in _URL_RE.finditer(text)]


def tokenize(note: Note, start: int, end: int, literals: dict[int, Literal],
             urls: list[tuple[int, int]]) -> list[Token]:
    """Tokens of ``note.text[start:end]`` (whitespace and LaTeX spacing dropped)."""
    text = note.text
    out: list[Token] = []
    i = start
    while i < end:
        url = next(((a, b) for a, b in urls if a <= i < b), None)
        if url is not None:
            out.append(Token(OTHER, text[url[0]:url[1]], url[0], url[1]))
            i = url[1]
            continue
        m = _SKIP_RE.match(text, i, end)
        if m:
            i = m.end()
            continue
        sup = _SUP_RE.match(text, i, end)
        if sup is not None and out and out[-1].kind in (NUM, VAL, RP, CONST, FUNC):
            out += _superscript(sup, out[-1])
            i = sup.end()
            continue
        tok = _one(text, i, end, literals)
        out.append(tok)
        i = tok.end
    return out


# ``1024 x 1024 x 4`` in plain text: a lone x between two numbers, spaces around it
_PLAIN_TIMES_RE = re.compile(r"[xX](?=[ \t]+[0-9(])")

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_SUP_RE = re.compile(r"⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+")


def _superscript(m: re.Match[str], before: Token) -> list[Token]:
    """``10⁹``, ``0.8⁵``, ``2¹⁶``, ``e²``: a Unicode superscript is a power. Its digits are no
    literal of the note (coverage does not count them), so the exponent is a constant of the
    expression, never a hole; after ``e`` (read as ``exp``) it is the function's argument."""
    digits = m.group().translate(_SUPERSCRIPTS)
    const = Token(CONST, f"({digits})" if digits.startswith("-") else digits,
                  m.start(), m.end())
    if before.kind == FUNC:
        return [const] if before.text == "exp" and before.end == m.start() else \
            [Token(OTHER, m.group(), m.start(), m.end())]
    return [Token(OP, "^", m.start(), m.start()), const]


def _one(text: str, i: int, end: int, literals: dict[int, Literal]) -> Token:
    ch = text[i]
    if text.startswith(_MATH_DELIMS, i):
        return Token(OTHER, "$", i, i + 2)
    if ch in "[(\\" :
        m = _VALUE_RE.match(text, i, end)
        if m and m.group().startswith(("[", "(", "\\begin")):
            raw = m.group()
            shape = "matrix" if raw.startswith(("[[", "\\begin")) or re.match(r"\[\s*\[", raw) \
                else "vector"
            return Token(VAL, raw, i, m.end(), shape)
    lit = literals.get(i)
    if lit is not None and lit.end <= end:
        return Token(NUM, lit.text, lit.start, lit.end)
    if ch.isdigit():  # digits that are not a literal (part of a name, excluded): never a number
        j = i
        while j < end and (text[j].isdigit() or text[j] == "."):
            j += 1
        return Token(OTHER, text[i:j], i, j)
    m = _FRAC_RE.match(text, i, end)
    if m:
        return Token(FRAC, "frac", i, m.end())
    if ch in "[]," and not text.startswith(("[[", "[]"), i):
        return Token({"[": LB, "]": RB, ",": COMMA}[ch], ch, i, i + 1)
    if text.startswith("\\\\", i):
        return Token(OTHER, text[i:i + 2], i, i + 2)
    m = _REL_RE.match(text, i, end)
    if m:
        return Token(REL, "≈" if m.group() not in "=＝" else "=", i, m.end())
    if text.startswith("√", i):
        return Token(FUNC, "sqrt", i, i + 1)
    if ch == "e" and not (i and text[i - 1].isalpha()) and re.match(r"e\s*\^", text[i:end]):
        return Token(FUNC, "exp", i, text.index("^", i) + 1)
    if ch == "e" and not (i and text[i - 1].isalpha()) and _SUP_RE.match(text, i + 1, end):
        return Token(FUNC, "exp", i, i + 1)  # `e²`: the superscript that follows is its power
    m = _PI_RE.match(text, i, end)
    if m:
        return Token(CONST, "pi", i, m.end())  # the grammar's constant pi
    before = text[i - 1] if i else " "
    if _PLAIN_TIMES_RE.match(text, i, end) and before in " \t" \
            and text[:i].rstrip(" \t")[-1:] in tuple("0123456789)"):
        return Token(OP, "*", i, i + 1)  # plain text's `1024 x 1024`: a times sign, no name
    m = _NAME_RE.match(text, i, end)
    if m and (not (before.isascii() and (before.isalnum() or before in "\\_"))
              or (before.isdigit() and _in_math(text, i))):  # `$4n$`: 4 times n
        return Token(NAME, re.sub(r"[{} ]", "", m.group()), i, m.end())
    m = _SIGMA_RE.match(text, i, end)
    if m:
        return Token(FUNC, "sigma", i, m.end())
    m = _FUNC_RE.match(text, i, end)
    if m and not (before.isalpha() and before.isascii()):
        return Token(FUNC, m.group(1), i, m.end())
    m = _GREEK_RE.match(text, i, end)
    if m and not before.isalpha():
        return Token(NAME, re.sub(r"[{} ]", "", m.group()), i, m.end())
    for raw, norm in _OPS:
        if text.startswith(raw, i):
            return Token(OP, norm, i, i + len(raw))
    if ch in "({":
        return Token(LP, "(", i, i + 1)
    if ch in ")}":
        return Token(RP, ")", i, i + 1)
    if ch == "\\":
        m = re.compile(r"\\[A-Za-z]+").match(text, i, end)
        if m:
            return Token(OTHER, m.group(), i, m.end())
    return Token(OTHER, ch, i, i + 1)


def _in_math(text: str, i: int) -> bool:
    """Is ``i`` inside ``$…$`` or ``$$…$$`` opened on its own line?"""
    prefix = text[text.rfind("\n", 0, i) + 1:i]
    return (prefix.count("$$") + prefix.replace("$$", "").count("$")) % 2 == 1


def printed_value(tok: Token) -> tuple[float, float] | None:
    """A number token's value and half its last printed unit, or None when it is not one
    plain number: a loose sieve for candidates, the engine decides exactness."""
    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a plain number
        return None
    if len(p.numbers) != 1:
        return None
    n = p.numbers[0]
    try:
        return float(n.value), float(n.half_unit)
    except OverflowError:  # beyond a float (``10^{400}``): no sieve can compare it
        return None
