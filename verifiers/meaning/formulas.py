"""Formulas in a note: LaTeX spans and display lines, and plain-text math.

The detector, precisely (each line is read on its own, left to right):

Candidates
    1. *Delimited math*: ``$$…$$`` and ``$…$`` on one line (dollars are paired left to
       right, ``$$`` with ``$$``, ``$`` with ``$``; an unpaired one is text), and a
       ``$$`` block: a line that is only ``$$`` up to the next such line.
    2. *Plain runs*, in the rest of each line: maximal runs of math characters -- ASCII
       letters, digits, spaces and ``+-*/=<>^_.,;:'!|()[]{}\\&%~@``, Greek letters, the
       math symbols below, sub/superscript characters, arrows, and CJK characters right
       after ``_`` or ``_{`` (a name: ``X_猫``, ``x_{苹果}``). A tab (a table cell), ``#``
       (a comment), quotes and other CJK text end a run. This takes in whole LaTeX
       display lines the export keeps as
       source (``s_{i j} = \\frac{q_{i} \\cdot k_{j}}{\\sqrt{d_{k}}}``) and plain math in
       prose (``n·d·m``, ``∝ √d_k``, ``O(n²)``, ``softmax(QK^T/√d_k)V``). A run is
       trimmed of spaces, ``,.;:`` and arrows at its ends, and cut at a bracket that is
       opened and never closed (or closed and never opened).
    3. *LaTeX display lines*: a line without ``$`` that holds a LaTeX command (``\\name``)
       and whose non-space characters are mostly (over half) not CJK is one candidate as a
       whole, Chinese words in it included (``P (黑便) & = \\frac{e^{2}}{…}``).

A candidate is a formula when it has a **math token** and is **not plain arithmetic**:

* math tokens: a relation between two operands (``= ≈ ≠ ≤ ≥ < > ∝ ≡ ∈ ≪ ≫``, ``<=``,
  ``>=``); ``· × ⋅ ⊙ ⊗`` between two operands (not the label ``×N``); an operator
  symbol (``‖ ᵀ ² ³``); a structural symbol (below); a
  superscript ``^`` after an operand; ``+ − *`` between operands; ASCII ``-`` between
  operands when a space is on one side or the left operand is one character (``x-1``,
  ``0.10-0.42``, but not ``GPT-2``, ``Self-Attention``); ``/`` when a side is a number,
  a bracket, a space or a name with ``_``/``^`` (``d_model/2``, but not the list
  ``Q/K/V``); a LaTeX math command (:data:`LATEX_TOKENS`); a function applied
  (:data:`FUNCTIONS` followed by ``(`` or ``[``, one space allowed);
* plain arithmetic: no identifier (a Latin or Greek letter outside LaTeX command names,
  or a ``_`` name) and no structural symbol (``√ Σ ∑ ∏ ∂ ∇ ∫ ∞``, ``\\frac``, ``\\sqrt``,
  ``\\sum``, ... or a function applied): ``5+3+2=10``, ``= 0.05 + 0.48``, ``(4 × 3)`` are
  left to the numeric coverage, which sees every number in them.

So a lone name is not a formula (``$V$``, ``$E_{i,:}$``), and neither is Chinese prose
with a number (``共 13 个``) or a heading (``3.2 计算 Q 矩阵``).
"""

from __future__ import annotations

import re

from verifiers.meaning.items import Item

__all__ = ["FUNCTIONS", "LATEX_TOKENS", "find_formulas", "is_formula"]

RELATIONS = set("=≈≠≤≥<>∝≡∈≪≫")
BINARY_SYMBOLS = set("·×⋅⊙⊗")  # between two operands: "n·d", not the label "×N"
OPERATOR_SYMBOLS = set("‖ᵀ²³")
STRUCTURAL_SYMBOLS = set("√Σ∑∏∂∇∫∞")
STRUCTURAL_COMMANDS = {"frac", "dfrac", "tfrac", "sqrt", "sum", "prod", "int", "partial",
                       "nabla", "infty", "lim", "log", "ln", "exp", "binom", "max", "min",
                       "sin", "cos", "tanh", "operatorname", "mathrm"}
LATEX_TOKENS = STRUCTURAL_COMMANDS | {
    "cdot", "times", "odot", "otimes", "div", "pm", "top", "approx", "ne", "neq", "le",
    "leq", "ge", "geq", "lt", "gt", "propto", "equiv", "in", "notin", "sim", "ll", "gg",
    "to", "rightarrow", "mapsto", "mid", "lVert", "rVert", "begin",
}
FUNCTIONS = {"softmax", "exp", "log", "ln", "sin", "cos", "tanh", "sqrt", "max", "min",
             "argmax", "argmin", "O", "Var", "Cov", "E", "P", "ReLU", "GELU", "LayerNorm",
             "FFN", "Attention", "MultiHead", "Concat", "PE", "sigmoid", "CE", "KL", "Loss",
             "diag", "mean"}
_GREEK_COMMANDS = {"alpha", "beta", "gamma", "delta", "epsilon", "eta", "theta", "lambda",
                   "mu", "pi", "sigma", "tau", "phi", "omega", "Delta", "Sigma"}

_CJK = r"\u3400-\u9fff\uf900-\ufaff"
_MATH_CHARS = (r"A-Za-z0-9 +\-*/=<>^_.,;:'!|()\[\]{}\\&%~@α-ωΑ-Ω"
               r"≈≠≤≥∝≡∈≪≫·×⋅⊙⊗‖ᵀ²³√Σ∑∏∂∇∫∞−→⟶⁰¹⁴-⁹₀-₉ⁿᵢⱼₖₐ-ₜ…ℓ∣ℝ∀∃⊤′")
# a run of math characters; CJK only right after "_" (a name such as X_猫)
_RUN = re.compile(rf"(?:[{_MATH_CHARS}]|(?:(?<=_)|(?<=_\{{))[{_CJK}]+)+")
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_FUNCTION = re.compile(r"(?<![A-Za-z_\\])([A-Za-z]+) ?[(\[](?=[A-Za-z0-9α-ωΑ-Ω\\_(√−-])")
_IDENTIFIER = re.compile(r"[A-Za-zα-ωΑ-Ω]|_")
_OPERAND_END = set(")]}_'!%²³ᵀ⁰¹⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉ⁿᵢⱼₖ")  # and letters, digits
_OPERAND_START = set("([{\\√Σ∑∂∇−-+|‖.")  # and letters, digits
_TRIM = " \t,.;:，"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_ARROWS = ("→", "⟶", "->")


def _neighbours(s: str, i: int, width: int = 1) -> tuple[str, str]:
    """The nearest non-space characters before ``s[i]`` and after ``s[i:i+width]`` (each
    scan crosses only the spaces next to this operator, so a candidate costs linear time)."""
    j = i - 1
    while j >= 0 and s[j].isspace():
        j -= 1
    k = i + width
    while k < len(s) and s[k].isspace():
        k += 1
    return (s[j] if j >= 0 else ""), (s[k] if k < len(s) else "")


def _between_operands(s: str, i: int, width: int = 1) -> bool:
    before, after = _neighbours(s, i, width)
    return bool(before and after and (before.isalnum() or before in _OPERAND_END)
                and (after.isalnum() or after in _OPERAND_START))


def _minus(s: str, i: int) -> bool:
    if not _between_operands(s, i):
        return False
    if s[i - 1:i] == " " or s[i + 1:i + 2] == " ":
        return True
    # no spaces: a minus when the left operand is one character (x-1, 0.10-0.42, d_k-1)
    return i < 2 or not s[i - 2].isalpha() or s[i - 1].isdigit()


_WORD_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_^{}")


def _division(s: str, i: int) -> bool:
    if not _between_operands(s, i):
        return False
    before, after = s[i - 1:i], s[i + 1:i + 2]
    if " " in (before, after) or any(c.isdigit() or c in "()[]{}\\√_^" for c in before + after):
        return True
    # the words on either side (each word touches at most two slashes: linear overall)
    j = i - 1
    while j >= 0 and s[j] in _WORD_CHARS:
        j -= 1
    k = i + 1
    while k < len(s) and s[k] in _WORD_CHARS:
        k += 1
    return any(c.isdigit() or c in "_^" for c in s[j + 1:k])


def _tokens(s: str) -> tuple[bool, bool]:
    """(has a math token, has a structural symbol) for one candidate."""
    token = False
    for m in _COMMAND.finditer(s):
        if m[1] in STRUCTURAL_COMMANDS:
            return True, True
        token = token or m[1] in LATEX_TOKENS
    for m in _FUNCTION.finditer(s):
        if m[1] in FUNCTIONS:
            return True, True
    for i, ch in enumerate(s):
        if ch in STRUCTURAL_SYMBOLS:
            return True, True
        if token:
            continue
        if ch in OPERATOR_SYMBOLS:
            token = True
        elif ch in BINARY_SYMBOLS:
            token = _between_operands(s, i)
        elif ch in RELATIONS:
            width = 2 if s[i + 1:i + 2] == "=" and ch in "<>" else 1
            if ch == ">" and s[i - 1:i] in ("-", "="):
                continue  # an arrow
            token = _between_operands(s, i, width)
        elif ch in "+−*^":
            token = _between_operands(s, i)
        elif ch == "-":
            token = _minus(s, i)
        elif ch == "/":
            token = _division(s, i)
    return token, False


def _has_identifier(s: str) -> bool:
    if any(m[1] in _GREEK_COMMANDS for m in _COMMAND.finditer(s)):
        return True
    return _IDENTIFIER.search(_COMMAND.sub(" ", s)) is not None


def is_formula(candidate: str) -> bool:
    """The rule of the module docstring, on one candidate's text."""
    token, structural = _tokens(candidate)
    return token and (structural or _has_identifier(candidate))


def _strip_ends(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end:
        if text[start] in _TRIM:
            start += 1
        elif text[end - 1] in _TRIM:
            end -= 1
        elif lead := next((a for a in _ARROWS if text.startswith(a, start, end)), None):
            start += len(lead)
        elif tail := next((a for a in _ARROWS if text.endswith(a, start, end)), None):
            end -= len(tail)
        else:
            break
    return start, end


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Trim spaces, ``,.;:`` and arrows at the ends of ``text[start:end]``; cut before the
    first ``(`` never closed (``W_q (Query`` of ``W_q (Query 投影)``) and after the last
    ``)`` never opened; then the ends again, and a ``]`` or ``}`` ending it that was never
    opened. (``[`` and ``{`` may close on a later line: a matrix row ``Q = [[1.255, …``,
    a ``{\\begin{cases}``.)"""
    start, end = _strip_ends(text, start, end)
    depth, first_open, cut_start = 0, -1, start
    for i in range(start, end):
        if text[i] == "(":
            if depth == 0:
                first_open = i
            depth += 1
        elif text[i] == ")":
            if depth:
                depth -= 1
            else:
                cut_start = i + 1  # closed, never opened: what precedes belongs elsewhere
    cut_end = first_open if depth and first_open >= cut_start else end
    if (cut_start, cut_end) != (start, end):
        start, end = _strip_ends(text, cut_start, cut_end)
    piece = text[start:end]
    for opener, closer in ("[]", "{}"):  # a lone closer at the end: "d_model/2 = 2]"
        if piece.endswith(closer) and piece.count(closer) > piece.count(opener):
            return _strip_ends(text, start, end - 1)
    return start, end


def _dollar_spans(line: str) -> list[tuple[int, int]]:
    """``$…$`` and ``$$…$$`` pairs of one line, dollars paired left to right."""
    spans: list[tuple[int, int]] = []
    open_at: int | None = None
    open_width = 0
    i = 0
    while i < len(line):
        if line[i] != "$" or (i and line[i - 1] == "\\"):
            i += 1
            continue
        width = 2 if line.startswith("$$", i) else 1
        if open_at is None:
            open_at, open_width = i, width
        elif width >= open_width:
            spans.append((open_at, i + open_width))
            open_at = None
            i += open_width
            continue
        i += width
    return spans


def _display_line(line: str) -> bool:
    if "$" in line or not _COMMAND.search(line):
        return False
    visible = sum(1 for ch in line if not ch.isspace())
    return len(_CJK_CHAR.findall(line)) * 2 < visible


def find_formulas(text: str) -> list[Item]:
    """Every formula of a note's text (see the module docstring), in order."""
    items: list[Item] = []

    def add(start: int, end: int, strip: bool) -> None:
        if strip:
            start, end = _trim(text, start, end)
        if end > start and is_formula(text[start:end]):
            items.append(Item("formula", text[start:end], start, end))

    pos = 0
    block: int | None = None  # start of an open $$ block
    for line in text.split("\n"):
        line_start, pos = pos, pos + len(line) + 1
        if line.strip() == "$$":
            if block is None:
                block = line_start
            else:
                add(block, line_start + len(line), strip=False)
                block = None
            continue
        if block is not None:
            continue
        if _display_line(line):
            add(line_start, line_start + len(line), strip=True)
            continue
        cursor = 0
        for a, b in [*_dollar_spans(line), (len(line), len(line))]:
            for m in _RUN.finditer(line, cursor, a):
                add(line_start + m.start(), line_start + m.end(), strip=True)
            if b > a:
                add(line_start + a, line_start + b, strip=False)
            cursor = b
    return items
