"""Author-like edits of one formula, per class: where the formula survey plants its mutations.

Each class names a slip an author makes while typing a formula (issue 12, item 2):

- ``sign``: a ``+`` becomes ``-`` and a binary ``-``/``−`` becomes ``+``; a leading minus is
  dropped (``- \\ln P`` → ``\\ln P``);
- ``factor``: the operand after ``\\cdot``/``·``/``⋅``/``×`` (not a shape's ``\\times``) is
  dropped with its operator, else the second of two juxtaposed LaTeX names (``a_{i j} v_{j}`` →
  ``a_{i j}``); a formula with neither gets a factor ``2`` after its first relation;
- ``script``: a name's subscript and superscript swapped (``W_{Q}^{old}`` → ``W^{Q}_{old}``),
  else a two-index subscript reversed (``a_{i j}`` → ``a_{j i}``), else a subscript written as a
  superscript (``x_{i}`` → ``x^{i}``);
- ``exponent``: a numeric exponent counted up (``^{2}`` → ``^{3}``, ``²`` → ``³``,
  ``^{-1}`` → ``^{-2}``), else a symbolic one doubled (``e^{z_{i}}`` → ``e^{2 z_{i}}``);
  a transpose is no exponent;
- ``transpose``: a transpose moved to the neighbouring operand (``A^{T} B`` → ``A B^{T}``), or
  dropped when it has no neighbour;
- ``index``: one index letter of a subscript (``i j k l m n t r s h``) becomes another index of
  the formula (else the next letter of that list);
- ``sum-bounds``: a sum's or product's upper bound ``n`` becomes ``n - 1`` (a number counts
  up), else its lower bound counts up, else its index becomes another (``\\sum_{j}`` →
  ``\\sum_{i}``);
- ``shape``: the two sizes of ``R^{a \\times b}`` (``\\mathbb{R}``, ``ℝ``) or of ``a×b`` swapped;
  a one-size space ``R^{d}`` takes another size the note's shapes use;
- ``sqrt``: a square root dropped (``\\sqrt{d_{k}}`` → ``d_{k}``, ``√d_k`` → ``d_k``).

A formula gives each class at most one site, chosen among its candidates with a seeded
generator keyed by the note, the formula's offset and the class: the same sites on every run.
An edit that leaves the text unchanged is no site.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from verifiers.meaning.items import Item

__all__ = ["CLASSES", "edits_of", "formula_sites"]

CLASSES = ("sign", "factor", "script", "exponent", "transpose", "index", "sum-bounds", "shape",
           "sqrt")

#: (offset in the formula, old text, new text)
Edit = tuple[int, str, str]

_DECORATED = r"\\(?:bar|hat|tilde|vec|dot|mathbf|mathrm|boldsymbol|mathcal)\{[^{}]*\}"
_NAME = rf"(?:{_DECORATED}|\\[A-Za-z]+|[A-Za-zα-ωΑ-Ωℓ])"
_SCRIPT = r"(?:\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9α-ω])"
_ATOM = rf"{_NAME}(?:[_^]{_SCRIPT}){{0,3}}"
_TRANSPOSES = ("^{\\top}", "^\\top", "^{T}", "^T", "ᵀ", "^{⊤}", "^⊤")
_INDICES = "ijklmnthrs"
_COMMANDS_NO_OPERAND = {"cdot", "times", "left", "right", "quad", "qquad", "in", "to", "le",
                        "ge", "lt", "gt", "ne", "approx", "leq", "geq", "neq", "begin", "end",
                        "text", "mathrm", "frac", "dfrac", "sqrt", "sum", "prod", "partial",
                        "dots", "cdots", "ldots", "top", "mid", "odot", "propto", "equiv"}


def _sign(f: str) -> list[Edit]:
    out = []
    for m in re.finditer(r"[+\-−]", f):
        i = m.start()
        if f[i - 1:i] in ("_", "^", "{") and f[i + 1:i + 2] == "1" and f[i - 2:i] == "^{":
            continue  # ^{-1}: an inverse, the exponent class's
        before = f[:i].rstrip()
        if f.startswith("->", i) or (i and f[i - 1] in "<^"):
            continue  # an arrow, a one-sided limit's 0^+
        if i == 0 and re.match(r"- [A-Za-z_]+\s*[=:]", f):
            continue  # a list bullet
        unary = not before or before[-1] in "=({[,&≈<>" or before.endswith(("\\approx", "\\le",
                                                                             "\\ge", "\\to"))
        if unary:
            end = i + 1 + (1 if f[i + 1:i + 2] == " " else 0)
            out.append((i, f[i:end], ""))
        else:
            out.append((i, f[i], "-" if f[i] == "+" else "+"))
    return out


def _factor(f: str) -> list[Edit]:
    out = []
    for m in re.finditer(rf"\s*(?:\\cdot|·|⋅|×|\\times)\s*({_ATOM}|\([^()]*\))", f):
        if "times" in m.group() or "×" in m.group():
            head = f[:m.start()]
            if "R^" in head[-30:] or "ℝ" in head[-30:] or re.search(r"\d\s*$", head):
                continue  # a shape's or a number's ×
        out.append((m.start(), m.group(), ""))
    for m in re.finditer(rf"(?<![\\A-Za-z_^{{])({_ATOM})( +)({_ATOM})", f):
        first = m.group(1).lstrip("\\").split("_")[0].split("^")[0]
        second = m.group(3).lstrip("\\").split("_")[0].split("^")[0]
        if {first, second} & _COMMANDS_NO_OPERAND or first in ("ln", "log", "exp"):
            continue
        out.append((m.start(2), m.group(2) + m.group(3), ""))
    if not out:
        rel = re.search(r"(=|\\approx|≈)\s*(?=[A-Za-zα-ωΑ-Ω\\])", f)
        if rel:
            out.append((rel.end(), "", "2 "))
    return out


def _script(f: str) -> list[Edit]:
    both = [(m.start(1), m.group(1) + m.group(2), m.group(2).replace("^", "_", 1)
             + m.group(1).replace("_", "^", 1))
            for m in re.finditer(rf"(_{_SCRIPT})(\^{_SCRIPT})", f)
            if not any(t in m.group(2) for t in ("{T}", "top", "⊤")) and m.group(2) != "^T"
            and not re.search(r"(\\sum|\\prod|Σ|∑|∏|\\lim|\\max|\\min)$", f[:m.start()])]
    if both:
        return both
    # a two-index subscript reversed: the two letters with what is between them
    out = []
    for m in re.finditer(r"_\{([A-Za-z])(\s*,?\s*)([A-Za-z])\}", f):
        if m.group(1) != m.group(3):
            out.append((m.start(1), f[m.start(1):m.end(3)],
                        m.group(3) + m.group(2) + m.group(1)))
    if out:
        return out
    one = r"(?:\{[^{}]*\}|[A-Za-z0-9](?![A-Za-z0-9]))(?!\s*\^)"
    return [(m.start(), "_", "^") for m in re.finditer(rf"(?<=[A-Za-z}}])_(?={one})", f)]


def _exponent(f: str) -> list[Edit]:
    out = []
    for m in re.finditer(r"\^\{(-?\d+)\}|\^(\d)|([²³])", f):
        if m.group(3):
            out.append((m.start(), m.group(3), "³" if m.group(3) == "²" else "⁴"))
            continue
        num = m.group(1) if m.group(1) is not None else m.group(2)
        at = m.start(1) if m.group(1) is not None else m.start(2)
        new = str(int(num) - 1) if num.startswith("-") else str(int(num) + 1)
        out.append((at, num, new))
    if out:
        return out
    for m in re.finditer(r"\^\{([^{}]+)\}", f):
        if m.group(1).strip() in ("T", "\\top", "⊤") or m.group(1).startswith("(") \
                or re.search(r"(R|ℝ|\\mathbb\{R\}|\\sum_\{[^{}]*\}|\\prod_\{[^{}]*\})$",
                             f[:m.start()]):
            continue
        out.append((m.start(1), "", "2 "))
    return out


def _transpose(f: str) -> list[Edit]:
    out = []
    for t in _TRANSPOSES:
        for m in re.finditer(re.escape(t), f):
            after = re.match(rf"\s*({_ATOM})", f[m.end():])
            if after and not after.group(1).startswith(("\\cdot", "\\in", "\\times", "\\right")):
                b = m.end() + after.end(1)
                # A^{T} B → A B^{T}: the transpose leaves A and lands on B
                out.append((m.start(), f[m.start():b], f[m.end():b] + t))
            else:
                out.append((m.start(), t, ""))
    return sorted(set(out))


def _index(f: str) -> list[Edit]:
    spots = []
    for m in re.finditer(r"_\{([^{}]*)\}|_([A-Za-z])(?![A-Za-z])", f):
        if re.search(r"(?<![A-Za-z\\])[dW]$", f[:m.start()]):
            continue  # d_k, W_q: a size's or a matrix's name, not an index
        body_start = m.start(1) if m.group(1) is not None else m.start(2)
        body = m.group(1) if m.group(1) is not None else m.group(2)
        for k in re.finditer(r"(?<![A-Za-z\\])([a-z])(?![A-Za-z])", body):
            if k.group(1) in _INDICES:
                spots.append((body_start + k.start(1), k.group(1)))
    present = sorted({ch for _, ch in spots})
    out = []
    for at, ch in spots:
        others = [c for c in present if c != ch]
        new = others[0] if others else _INDICES[(_INDICES.index(ch) + 1) % len(_INDICES)]
        out.append((at, ch, new))
    return out


_BOUNDED = re.compile(r"(\\sum|\\prod|Σ|∑|∏)_\{([^{}]*)\}(?:\^\{([^{}]*)\}|\^([A-Za-z0-9]))?"
                      r"|(\\sum|\\prod|Σ|∑|∏)_([A-Za-z])")


def _sum_bounds(f: str) -> list[Edit]:
    out = []
    for m in _BOUNDED.finditer(f):
        upper_at = m.start(3) if m.group(3) is not None else m.start(4)
        upper = m.group(3) if m.group(3) is not None else m.group(4)
        lower = m.group(2) if m.group(2) is not None else m.group(6)
        lower_at = m.start(2) if m.group(2) is not None else m.start(6)
        if upper is not None and upper_at >= 0:
            new = str(int(upper) + 1) if upper.isdigit() else f"{upper} - 1"
            out.append((upper_at, upper, new))
            continue
        eq = re.match(r"(.*?=\s*)(\d+)\s*$", lower)
        if eq:
            out.append((lower_at + eq.start(2), eq.group(2), str(int(eq.group(2)) + 1)))
            continue
        var = re.match(r"\s*([a-z])", lower)
        if var:
            new = next(c for c in _INDICES if c != var.group(1))
            out.append((lower_at + var.start(1), var.group(1), new))
    return out


_SPACE = re.compile(r"(\\mathbb\{R\}|\\mathbf\{R\}|ℝ|(?<![A-Za-z\\])R)\^(\{[^{}]*\}|[A-Za-z0-9])")
_TIMES = re.compile(r"(\\times|×)")


def _shape(f: str, sizes: list[str]) -> list[Edit]:
    out = []
    for m in _SPACE.finditer(f):
        raw = m.group(2)
        body = raw[1:-1] if raw.startswith("{") else raw
        at = m.start(2) + (1 if raw.startswith("{") else 0)
        parts = _TIMES.split(body)
        if len(parts) == 3 and parts[0].strip() != parts[2].strip():
            a, op, b = parts
            new = f"{b.strip()} {op} {a.strip()}" if " " in body else f"{b}{op}{a}"
            out.append((at, body, new))
        elif len(parts) == 1:
            other = next((s for s in sizes if s != body.strip()), None)
            if other:
                out.append((at, body, other))
    if out:
        return out
    names = r"[A-Za-z][A-Za-z0-9_{}]*"
    for m in re.finditer(rf"(?<![\w.])({names}|\d+) ?(×|\\times) ?({names}|\d+)(?![\w.])", f):
        numbers = m.group(1).isdigit() and m.group(3).isdigit()
        boxed = f[:m.start()].rstrip().endswith("(") and f[m.end():].lstrip().startswith(")")
        if m.group(1) != m.group(3) and (boxed or not numbers):
            between = f[m.end(1):m.start(3)]
            out.append((m.start(), m.group(), m.group(3) + between + m.group(1)))
    return out


def _sqrt(f: str) -> list[Edit]:
    out = []
    for m in re.finditer(r"\\sqrt\{", f):
        depth, k = 1, m.end()
        while k < len(f) and depth:
            depth += {"{": 1, "}": -1}.get(f[k], 0)
            k += 1
        if depth:
            continue
        inner = f[m.end():k - 1]
        braced = f[m.start() - 1:m.start()] == "{" and f[k:k + 1] == "}"
        simple = re.search(r"[+\-−\s]", inner.strip()) is None
        out.append((m.start(), f[m.start():k], inner if braced or simple else f"({inner})"))
    for m in re.finditer(r"√", f):
        out.append((m.start(), "√", ""))
    return out


def _sizes(items: list[Item]) -> list[str]:
    """The one-size spaces a note prints (``R^{d}``, ``\\mathbb{R}^V``), in order of first use."""
    seen: dict[str, None] = {}
    for item in items:
        for m in _SPACE.finditer(item.text):
            body = m.group(2).strip("{}").strip()
            if len(_TIMES.split(body)) == 1:
                seen.setdefault(body, None)
    return list(seen)


_FINDERS: dict[str, Callable[[str], list[Edit]]] = {
    "sign": _sign, "factor": _factor, "script": _script, "exponent": _exponent,
    "transpose": _transpose, "index": _index, "sum-bounds": _sum_bounds, "sqrt": _sqrt,
}


def edits_of(formula: str, cls: str, sizes: list[str] | None = None) -> list[Edit]:
    """Every candidate edit of class ``cls`` in one formula's text (offsets in ``formula``)."""
    found = _shape(formula, sizes or []) if cls == "shape" else _FINDERS[cls](formula)
    return [e for e in found if e[1] != e[2]]


def formula_sites(note_name: str, items: list[Item], cls: str, seed: int
                  ) -> list[tuple[Item, int, str, str]]:
    """One edit per formula of class ``cls`` (seeded choice): (item, offset in the note, old,
    new). Formulas without a candidate give none."""
    sizes = _sizes(items) if cls == "shape" else []
    out = []
    for item in items:
        found = edits_of(item.text, cls, sizes)
        if found:
            at, old, new = random.Random(f"{seed}:{cls}:{note_name}:{item.start}").choice(found)
            out.append((item, item.start + at, old, new))
    return out
