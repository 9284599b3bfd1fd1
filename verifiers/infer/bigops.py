"""Pattern family: a Σ / ∏ formula read on the entries the note prints for it.

A note defines a quantity as a sum (or product, or mean) over indexed entries, prints the
entries one by one, and states the result::

    The total loss is $L = \\sum_{i=1}^{3} \\ell_i$ with $\\ell_1 = 0.5$, $\\ell_2 = 1.25$ ...
    so $L = 2.5$.

    损失 L = Σ_i ℓ_i，其中 ℓ_1 = 0.5，ℓ_2 = 1.25，ℓ_3 = 0.75，所以 L = 2.5。

Without a claim the formula is text nothing reads: ``\\sum`` edited to ``\\prod``, a dropped
``\\frac{1}{n}`` or a squared term goes unnoticed. Here the right side is a formula hole ``⟪F⟫``
read with ``computes:`` (:mod:`verifiers.formulas.inline`, which expands a sum over
whole-number bounds and binds entry ``x[k]`` to ``x_k``; a plain ``Σ_i`` is read as
``\\sum_{i}``, running over the entries printed): each printed entry ``x_k = …`` is bound through
a definition claim, other names (``n``, ``μ``) to the latest value the note defines for them,
and the result is the printed value of the defined name (later on its line, or within
:data:`MAX_LINES` lines), to half a unit of its last digit. A reading, so kept only when the
engine verifies it, never pinned; an edit of the formula, an entry or the result is then a
``discrepancy``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import sympy

from verifiers.formulas.inline_plain import plain_text
from verifiers.infer.candidate import Candidate
from verifiers.infer.instances import _result
from verifiers.infer.named import _computes, _scalar_definitions
from verifiers.infer.tokens import NUM, Token
from verifiers.latex import LatexError, parse_latex

__all__ = ["bigop_candidates"]

MAX_LINES = 8  # lines from the formula to the printed result
MAX_ENTRIES = 64  # entries a formula's sum may bind
_BIG = re.compile(r"\\sum(?![A-Za-z])|\\prod(?![A-Za-z])|[Σ∑∏](?=_)")
# the defined name just before `=`: L, \bar{x}, \mu, S_n, L_{aux}, H(p), μ
_NAME = re.compile(r"(?:\\[A-Za-z]+(?:\{[^{}$]{1,12}\})?|[A-Za-zα-ωΑ-Ωℓ]"
                   r"(?:_\{[^{}$]{1,12}\}|_[A-Za-z0-9]{1,6})?)(?:\([^()$]{1,12}\))?\s*:?=\s*$")
# an entry the note prints: `x_1 = 2`, `\ell_{2} = 1.25`, `ℓ_3 = 0.75`, `p₁ = 0.2`
_ENTRY = re.compile(r"(?<![A-Za-z0-9\\])(\\[A-Za-z]+|[A-Za-zα-ωΑ-Ωℓ])"
                    r"(?:_\{(\d{1,3})\}|_(\d{1,3})(?![0-9])|([₀-₉]{1,3}))\s*=\s*\$?\s*")
_SUBDIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def _rhs_end(text: str, start: int) -> int:
    """Where the right side that starts at ``start`` ends: a relation, ``$``, a CJK or
    sentence punctuation mark, or a word, at brace depth 0 (``_{i=1}`` is inside)."""
    depth = 0
    k = start
    while k < len(text):
        ch = text[k]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return k
        elif depth == 0:
            if ch in "=≈$\n，。；;、" or text.startswith(("\\approx", "\\quad", "\\qquad", "\\\\"),
                                                      k):
                return k
            if ch in ",." and (k + 1 == len(text) or text[k + 1] in " \t\n"):
                return k
            if re.match(r"\s(?:with|where|for|and|so|over|is)\s", text[k:k + 8]):
                return k
            if "\u4e00" <= ch <= "\u9fff":
                return k
        k += 1
    return k


def _entries(text: str, nums: dict[int, Token]) -> dict[str, list[tuple[int, int, str, Token]]]:
    """Printed entries by the label their base reads as: label -> (offset, index, key, value)."""
    out: dict[str, list[tuple[int, int, str, Token]]] = {}
    for m in _ENTRY.finditer(text):
        value = nums.get(m.end())
        if value is None:
            continue
        index = m.group(2) or m.group(3) or (m.group(4) or "").translate(_SUBDIGITS)
        try:
            base = parse_latex(m.group(1), {})
        except LatexError:
            continue
        if not isinstance(base, sympy.Symbol):
            continue
        key = f"{m.group(1)}_{{{index}}}"
        out.setdefault(str(base), []).append((m.start(), int(index), key, value))
    return out


def bigop_candidates(text: str, tokens: list[Token], uncovered: set[int],
                     section_of: Callable[[int], int]) -> list[Candidate]:
    """One ``computes:`` candidate per Σ/∏ formula whose entries and result the note prints."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    entries = _entries(text, nums)
    defs = _scalar_definitions(text, tokens, section_of)
    out: list[Candidate] = []
    seen: set[int] = set()
    for big in _BIG.finditer(text):
        line_start = text.rfind("\n", 0, big.start()) + 1
        eq = max(text.rfind("=", line_start, big.start()), text.rfind("≈", line_start,
                                                                      big.start()))
        if eq < 0 or eq in seen or text[eq] != "=":
            continue
        name = _NAME.search(text, line_start, eq + 1)
        if name is None:
            continue
        start = eq + 1
        while start < len(text) and text[start] in " \t":
            start += 1
        end = _rhs_end(text, start)
        while end > start and text[end - 1] in " \t":
            end -= 1
        if not start <= big.start() < end:
            continue
        seen.add(eq)
        cand = _candidate(text, nums, entries, defs, (start, end), name.group(0), uncovered)
        if cand is not None:
            out.append(cand)
    return out


def _candidate(text: str, nums: dict[int, Token],
               entries: dict[str, list[tuple[int, int, str, Token]]],
               defs: list[tuple[str, int, Token]], span: tuple[int, int], defined: str,
               uncovered: set[int]) -> Candidate | None:
    try:
        expr = parse_latex(plain_text(text[span[0]:span[1]]), {})
    except LatexError:
        return None
    bases = {str(a.base.label) for a in expr.atoms(sympy.Indexed)}
    if not bases or not expr.has(sympy.Sum, sympy.Product):
        return None
    result = _result(text, nums, span[1]) or _named_result(text, nums, span[1], defined)
    if result is None or result.start not in uncovered:
        return None
    bound: dict[str, Token | None] = {}
    for base in sorted(bases):
        printed = {}
        for at, index, key, value in entries.get(base, []):
            if at < result.start:
                printed[index] = (key, value)  # the latest printing of each entry
        if not printed or len(printed) > MAX_ENTRIES:
            return None
        bound.update({key: value for key, value in printed.values()})
    indices = {str(v) for s in expr.atoms(sympy.Sum, sympy.Product) for v in s.variables}
    for sym in sorted(expr.free_symbols - set().union(*(a.free_symbols for a in expr.atoms(
            sympy.Indexed))), key=str):
        label = str(sym)
        if label in indices or label == "N_sum":
            continue
        found = next(((n, t) for n, at, t in reversed(defs) if at < result.start
                      and _reads_as(n, label)), None)
        if found is None:
            return None
        bound[found[0]] = found[1]
    return _computes(text, span, result, bound, "inferred: the Σ/∏ formula, on the entries "
                     "the note prints, gives the printed result")


def _reads_as(printed: str, label: str) -> bool:
    try:
        return str(parse_latex(printed, {})) == label
    except LatexError:
        return False


def _named_result(text: str, nums: dict[int, Token], after: int, defined: str) -> Token | None:
    """The printed value of ``defined`` within :data:`MAX_LINES` lines: ``所以 L = 2.5``."""
    head = re.sub(r"\s*:?=\s*$", "", defined)
    limit = after
    for _ in range(MAX_LINES):
        nxt = text.find("\n", limit + 1)
        limit = len(text) if nxt < 0 else nxt
    pat = re.compile(rf"(?<![A-Za-z0-9_\\]){re.escape(head)}(?![A-Za-z0-9_{{(])")
    for m in pat.finditer(text, after, limit):
        got = _result(text, nums, m.end())
        if got is not None:
            return got
    return None
