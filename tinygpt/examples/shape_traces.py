"""Printed shape traces, judged entry by entry (code holes): concat/stack and matrix products.

* ``shape_trace`` — a block of the note (``code: {from: …, to: …, as: trace}``) that names
  matrices with their shapes (``Z₁ (Head₁ 输出，3×2)``, ``A (3×4)``, ``W: (4, 2)``) and prints
  what an operation on them gives:

  - ``Z = concat(Z₁, Z₂) → 形状 (3, 2+2) = (3, 4)`` with its axis (``dim=1`` / ``axis=1``,
    on that line or the next two; ``stack`` inserts a new axis; ``hstack``/``vstack`` need
    none). Every printed result shape (on the line, and a later ``Z (3 × 4)`` of the
    result's name) is recomputed from the inputs' shapes along the printed axis. When they
    all agree with each other but another axis gives them, the **axis** is the edited entry
    (a discrepancy at ``dim=…``); otherwise each printed shape that differs is.
  - ``A (3×4) @ B (4×2) → (3×2)`` (``@``, ``·``, ``matmul``): the inner sizes agree and the
    result is (rows of A, columns of B); a wrong result is a discrepancy at the result.

Nothing here knows a note: the shapes, names and axis are read from the block as printed.
A block with no such trace is an ``error`` (a claim that judges nothing never passes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from tinygpt.examples import example
from verifiers.programs.codehole import Finding, locator

__all__ = ["shape_trace", "shape_trace_findings"]

_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_NAME = r"[A-Za-z][A-Za-z_]*[₀-₉0-9]*(?:_\{?\w+\}?)?"
_INT_EXPR = r"\d+(?:\s*[+×*]\s*\d+)*"
# a shape in parentheses: (3×2), (3 × 4), (3, 2+2), (Head₁ 输出，3×2)
_SHAPE = re.compile(r"\((?:[^()\d]*?[，,]\s*)?(?P<body>" + _INT_EXPR + r"(?:\s*[×x,，]\s*"
                    + _INT_EXPR + r")+)\s*\)")
_NAMED = re.compile(r"(?P<name>" + _NAME + r")\s*(?:[:：]\s*)?(?=\()")
_OP = re.compile(r"(?:(?P<lhs>" + _NAME + r")\s*=\s*)?(?P<op>concat|cat|stack|hstack|vstack)"
                 r"\s*\((?P<args>[^()]*)\)")
_AXIS = re.compile(r"(?:dim|axis)\s*=\s*(?P<d>-?\d+)")
_MATMUL = re.compile(r"@|·|\bmatmul\b")


@dataclass(frozen=True)
class Shape:
    """A shape printed at (line, col, end) of the block."""

    line: int
    col: int
    end: int
    text: str
    dims: tuple[int, ...]


def _eval_int(expr: str) -> int:
    """An integer sum/product of literals (``2+2``, ``3×4``): no other operator is read."""
    total = 0
    for term in expr.split("+"):
        prod = 1
        for f in re.split(r"[×*]", term):
            prod *= int(f.strip())
        total += prod
    return total


def _dims(body: str) -> tuple[int, ...]:
    parts = re.split(r"\s*[,，]\s*", body) if re.search(r"[,，]", body) else \
        re.split(r"\s*[×x]\s*", body)
    return tuple(_eval_int(p) for p in parts)


def _shapes(line: str, number: int) -> list[Shape]:
    return [Shape(number, m.start(), m.end(), m.group(), _dims(m.group("body")))
            for m in _SHAPE.finditer(line)]


def _key(name: str) -> str:
    return name.translate(_SUB).replace("{", "").replace("}", "").replace("_", "")


def _named_shapes(lines: list[str]) -> dict[str, list[Shape]]:
    """Each name's printed shapes (first printing first): ``Z₁ (…3×2)``."""
    out: dict[str, list[Shape]] = {}
    for i, line in enumerate(lines, start=1):
        for m in _NAMED.finditer(line):
            s = _SHAPE.match(line, m.end())
            if s is not None:
                out.setdefault(_key(m.group("name")), []).append(
                    Shape(i, s.start(), s.end(), s.group(), _dims(s.group("body"))))
    return out


def _concat(op: str, shapes: list[tuple[int, ...]], axis: int) -> tuple[int, ...] | None:
    """The result shape, or None when the inputs do not fit along ``axis``."""
    first = shapes[0]
    if op == "stack":
        if any(s != first for s in shapes) or not -len(first) - 1 <= axis <= len(first):
            return None
        axis %= len(first) + 1
        return first[:axis] + (len(shapes),) + first[axis:]
    if any(len(s) != len(first) for s in shapes) or not -len(first) <= axis < len(first):
        return None
    axis %= len(first)
    if any(s[:axis] + s[axis + 1:] != first[:axis] + first[axis + 1:] for s in shapes):
        return None
    return first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1:]


def _fmt(dims: tuple[int, ...] | None) -> str:
    if dims is None:
        return "no shape (the inputs do not fit along it)"
    return "(" + ", ".join(map(str, dims)) + ")"


def _concat_findings(lines: list[str], i: int, m: re.Match[str],
                     named: dict[str, list[Shape]]) -> list[Finding]:
    op = "stack" if m.group("op") == "stack" else "concat"
    args = [a.strip() for a in m.group("args").split(",") if a.strip()]
    if any("..." in a or "…" in a for a in args) or len(args) < 2:
        return []  # a generic concat(head₁, …, headₕ): no sizes to recompute
    ins = [next((s for s in named.get(_key(a), []) if s.line <= i), None) for a in args]
    line = lines[i - 1]
    if any(s is None for s in ins):
        missing = [a for a, s in zip(args, ins, strict=False) if s is None]
        return [Finding(i, m.start("args"), m.end("args"), "error", "trace", m.group("args"), "",
                        f"{op}: no printed shape for {', '.join(missing)} before this line")]
    shapes = [s.dims for s in ins if s is not None]
    results = [s for s in _shapes(line, i) if s.col >= m.end()]
    lhs = m.group("lhs")
    if lhs:
        results += [s for s in named.get(_key(lhs), []) if s.line > i]
    axis_at = None
    for k in range(i, min(i + 3, len(lines) + 1)):
        a = _AXIS.search(lines[k - 1], m.end() if k == i else 0)
        if a is not None:
            axis_at = (k, a)
            break
    fixed = {"hstack": 1 if len(shapes[0]) > 1 else 0, "vstack": 0}.get(m.group("op"))
    out: list[Finding] = []
    ndim = len(shapes[0]) + (op == "stack")
    options = {d: _concat(op, shapes, d) for d in range(ndim)}
    ins_text = ", ".join(_fmt(s) for s in shapes)
    if axis_at is None and fixed is None:
        axis = None
    else:
        d = fixed if axis_at is None else int(axis_at[1].group("d"))
        axis = d % ndim if -ndim <= d < ndim else d  # an axis out of range gives no shape
    want = options.get(axis) if axis is not None else None
    agree = bool(results) and all(r.dims == results[0].dims for r in results)
    other = [d for d, v in options.items() if v is not None and agree and v == results[0].dims]
    if axis_at is not None:
        k, a = axis_at
        printed = a.group()
        if want is not None and (not results or any(r.dims == want for r in results)):
            out.append(Finding(k, a.start(), a.end(), "verified", "axis", printed, printed,
                               f"{op} of {ins_text} along {printed} is {_fmt(want)}"))
        elif other or want is None:
            alt = f"; the printed {_fmt(results[0].dims)} is along dim={other[0]}" if other else ""
            out.append(Finding(k, a.start(), a.end(), "discrepancy", "axis", printed,
                               f"dim={other[0]}" if other else "",
                               f"{op} of {ins_text} along {printed} gives {_fmt(want)}{alt}"))
            return out  # the axis is the edited entry: the shapes agree with another axis
        else:
            out.append(Finding(k, a.start(), a.end(), "verified", "axis", printed, printed,
                               f"{op} of {ins_text} along {printed} is {_fmt(want)}"))
    for r in results:
        ok = r.dims == want if want is not None else r.dims in options.values()
        exp = _fmt(want) if want is not None else "a shape along some axis"
        out.append(Finding(r.line, r.col, r.end, "verified" if ok else "discrepancy",
                           "shape", r.text, r.text if ok else exp,
                           f"{op} of {ins_text}" + (f" along dim={axis}" if axis is not None
                                                     else "") + f" is {exp}"))
    if not results:
        out.append(Finding(i, m.start(), m.end(), "error", "trace", m.group(), "",
                           f"{op}: no printed result shape after it"))
    return out


def _standalone(lines: list[str], i: int) -> Shape | None:
    """The nearest shape above line ``i`` that stands alone on its line (``X_input (3×4)``):
    the left operand of a diagram's ``· W (4×3) ──→ Q (3×3)`` rows."""
    for k in range(i - 1, 0, -1):
        shapes = _shapes(lines[k - 1], k)
        if len(shapes) == 1 and not _MATMUL.search(lines[k - 1]) and \
                not re.search(r"→|->", lines[k - 1]):
            return shapes[0]
    return None


def _diagram_findings(lines: list[str], i: int) -> list[Finding]:
    """``· B (k×n) ──→ C (m×n)`` under a standalone ``A (m×k)``."""
    line = lines[i - 1]
    shapes = _shapes(line, i)
    if len(shapes) != 2 or not _MATMUL.search(line[:shapes[0].col]) or \
            _shapes(line[:shapes[0].col], i) or not re.search(r"→|->", line[shapes[0].end:
                                                                          shapes[1].col]):
        return []
    a = _standalone(lines, i)
    b, c = shapes
    if a is None or len(a.dims) != 2 or len(b.dims) != 2:
        return []
    if a.dims[1] != b.dims[0]:
        return [Finding(i, b.col, b.end, "discrepancy", "inner sizes", b.text, "",
                        f"{a.text} (line {a.line}) · {b.text}: the inner sizes {a.dims[1]} and "
                        f"{b.dims[0]} differ")]
    want = (a.dims[0], b.dims[1])
    ok = c.dims == want
    return [Finding(i, c.col, c.end, "verified" if ok else "discrepancy", "product shape",
                    c.text, c.text if ok else _fmt(want),
                    f"{a.text} (line {a.line}) · {b.text} is {_fmt(want)}")]


_T = r"(?:\^\{?T\}?|ᵀ|\.T)?"
_NAMED_PRODUCT = re.compile(r"(?<![\w])(?P<a>" + _NAME + r")(?P<at>" + _T + r")\s*(?:·|@)\s*(?P<b>"
                            + _NAME + r")(?P<bt>" + _T + r")\s*(?=\()")


def _named_product_findings(lines: list[str], i: int, named: dict[str, list[Shape]]
                            ) -> list[Finding]:
    """``Q · K^T (3×3)``: the product of two names whose shapes the block printed above."""
    line = lines[i - 1]
    out: list[Finding] = []
    for m in _NAMED_PRODUCT.finditer(line):
        c = _SHAPE.match(line, m.end())
        if c is None:
            continue

        def shape_of(name: str, t: str) -> tuple[int, ...] | None:
            seen = [s for s in named.get(_key(name), []) if s.line < i and len(s.dims) == 2]
            if not seen:
                return None
            dims = seen[-1].dims
            return dims[::-1] if t else dims

        a, b = shape_of(m.group("a"), m.group("at")), shape_of(m.group("b"), m.group("bt"))
        if a is None or b is None:
            continue
        printed = _dims(c.group("body"))
        what = f"{m.group('a')}{m.group('at')} {_fmt(a)} · {m.group('b')}{m.group('bt')} {_fmt(b)}"
        if a[1] != b[0]:
            out.append(Finding(i, m.start(), m.end(), "discrepancy", "inner sizes", m.group(), "",
                               f"{what}: the inner sizes {a[1]} and {b[0]} differ"))
            continue
        want = (a[0], b[1])
        ok = printed == want
        out.append(Finding(i, c.start(), c.end(), "verified" if ok else "discrepancy",
                           "product shape", c.group(), c.group() if ok else _fmt(want),
                           f"{what} is {_fmt(want)}"))
    return out


def _matmul_findings(line: str, i: int) -> list[Finding]:
    """``A (m×k) @ B (k×n) → (m×n)`` on one line."""
    shapes = _shapes(line, i)
    out: list[Finding] = []
    for a, b, c in zip(shapes, shapes[1:], shapes[2:], strict=False):
        between, after = line[a.end:b.col], line[b.end:c.col]
        if not _MATMUL.search(between) or not re.search(r"→|->|=", after) or \
                len(a.dims) != 2 or len(b.dims) != 2:
            continue
        if a.dims[1] != b.dims[0]:
            out.append(Finding(i, a.col, b.end, "discrepancy", "inner sizes", line[a.col:b.end],
                               "", f"{a.text} @ {b.text}: the inner sizes {a.dims[1]} and "
                               f"{b.dims[0]} differ"))
            continue
        want = (a.dims[0], b.dims[1])
        ok = c.dims == want
        out.append(Finding(i, c.col, c.end, "verified" if ok else "discrepancy", "product shape",
                           c.text, c.text if ok else _fmt(want),
                           f"{a.text} @ {b.text} is {_fmt(want)}"))
    return out


@locator("shape_trace")
def shape_trace_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Every concat/stack and matrix-product shape of the block, recomputed."""
    lines = block.splitlines()
    named = _named_shapes(lines)
    out: list[Finding] = []
    for i, line in enumerate(lines, start=1):
        for m in _OP.finditer(line):
            out += _concat_findings(lines, i, m, named)
        out += _matmul_findings(line, i) or _diagram_findings(lines, i) or \
            _named_product_findings(lines, i, named)
    if not out:
        out.append(Finding(1, 0, len(lines[0]) if lines else 0, "error", "trace", "", "",
                           "no concat/stack or A (m×k) @ B (k×n) → (m×n) shape trace in the block"))
    return out


@example("shape_trace")
def shape_trace(text: str, trace: str) -> dict[str, torch.Tensor]:
    """The number of shapes the block's trace prints (the locator judges each)."""
    n = sum(len(_SHAPE.findall(line)) for line in trace.splitlines())
    return {"shapes": torch.tensor(float(n), dtype=torch.float64)}
