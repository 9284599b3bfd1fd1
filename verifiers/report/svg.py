"""Inline SVG pictures for the HTML report: heat maps and a line chart.

Pure string building, no plotting library: every coordinate is rounded to one
decimal and every label is escaped, so a picture is byte-identical across runs
and safe to inline whatever the note says.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["heatmap", "line_chart"]

CELL_W, CELL_H = 52, 26
LOW, HIGH = (255, 255, 255), (31, 95, 168)  # white -> blue
WRONG = "#c62828"


def _f(x: float) -> str:
    """A coordinate: one decimal, no ``-0.0``."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _shade(w: float) -> str:
    w = min(1.0, max(0.0, w))
    r, g, b = (round(lo + (hi - lo) * w) for lo, hi in zip(LOW, HIGH, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def _panel(x0: float, title: str, cells: Sequence[Sequence[tuple[float, str, bool]]]) -> list[str]:
    """One grid of cells ``(weight, label, wrong)`` starting at ``x0``."""
    out = [f'<text x="{_f(x0)}" y="14" class="t">{escape(title)}</text>']
    for i, row in enumerate(cells):
        y = 22 + i * CELL_H
        out.append(f'<text x="{_f(x0 - 4)}" y="{_f(y + 17)}" class="l" '
                   f'text-anchor="end">{i}</text>')
        for j, (w, label, wrong) in enumerate(row):
            x = x0 + j * CELL_W
            stroke = f' stroke="{WRONG}" stroke-width="2.5"' if wrong else ' stroke="#fff"'
            ink = "#fff" if w > 0.55 else "#111"
            out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{CELL_W}" height="{CELL_H}" '
                       f'fill="{_shade(w)}"{stroke}/>')
            out.append(f'<text x="{_f(x + CELL_W / 2)}" y="{_f(y + 17)}" fill="{ink}" '
                       f'text-anchor="middle">{escape(label)}</text>')
    return out


def heatmap(title: str, printed: Sequence[Sequence[tuple[float, str]]],
            expected: Sequence[Sequence[tuple[float, str]]], wrong: Sequence[Sequence[bool]]
            ) -> str:
    """The note's matrix beside the recomputed one; cells that disagree get a red frame.

    ``printed`` and ``expected`` hold ``(value, label)`` per cell; values are
    weights in [0, 1] (attention weights), drawn as shades of blue.
    """
    rows, cols = len(printed), len(printed[0])
    gap = 40
    width = 2 * cols * CELL_W + gap + 24
    height = 22 + rows * CELL_H + 8
    left = [[(w, lab, bad) for (w, lab), bad in zip(r, b, strict=True)]
            for r, b in zip(printed, wrong, strict=True)]
    right = [[(w, lab, bad) for (w, lab), bad in zip(r, b, strict=True)]
             for r, b in zip(expected, wrong, strict=True)]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pic" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(title)}</title>"]
    parts += _panel(16, "printed in the note", left)
    parts += _panel(16 + cols * CELL_W + gap, "recomputed", right)
    parts.append("</svg>")
    return "".join(parts)


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """Round tick values (1, 2, 2.5, 5 times a power of ten) covering [lo, hi]."""
    raw = (hi - lo or 1.0) / n
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    k = math.ceil(lo / step - 1e-9)
    ticks = []
    while k * step <= hi + 1e-9:
        ticks.append(round(k * step, 10))
        k += 1
    return ticks


def line_chart(title: str, curve: Sequence[tuple[float, float]],
               points: Sequence[tuple[float, float, str]], *, hline: float | None = None,
               hline_label: str = "", x_label: str = "", y_label: str = "") -> str:
    """A curve (thin line) with labelled points (dots) on it and an optional dashed level."""
    width, height = 560, 260
    ml, mr, mt, mb = 52, 16, 24, 40
    xs = [x for x, _ in curve] + [x for x, _, _ in points]
    ys = [y for _, y in curve] + [y for _, y, _ in points] + ([hline] if hline is not None else [])
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, min(ys)), max(ys) * 1.05
    x1 = x1 if x1 > x0 else x0 + 1
    y1 = y1 if y1 > y0 else y0 + 1

    def px(x: float) -> float:
        return ml + (x - x0) / (x1 - x0) * (width - ml - mr)

    def py(y: float) -> float:
        return height - mb - (y - y0) / (y1 - y0) * (height - mt - mb)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="pic" role="img" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
             f"<title>{escape(title)}</title>",
             f'<text x="{ml}" y="14" class="t">{escape(title)}</text>',
             f'<line x1="{ml}" y1="{_f(py(y0))}" x2="{width - mr}" y2="{_f(py(y0))}" '
             'stroke="#555"/>',
             f'<line x1="{ml}" y1="{mt}" x2="{ml}" y2="{height - mb}" stroke="#555"/>']
    for t in _ticks(x0, x1):
        parts.append(f'<text x="{_f(px(t))}" y="{height - mb + 14}" class="l" '
                     f'text-anchor="middle">{t:g}</text>')
    for t in _ticks(y0, y1):
        parts.append(f'<line x1="{ml}" y1="{_f(py(t))}" x2="{width - mr}" y2="{_f(py(t))}" '
                     'stroke="#e4e4e4"/>')
        parts.append(f'<text x="{ml - 4}" y="{_f(py(t) + 4)}" class="l" '
                     f'text-anchor="end">{t:g}</text>')
    if x_label:
        parts.append(f'<text x="{_f((ml + width - mr) / 2)}" y="{height - 6}" class="l" '
                     f'text-anchor="middle">{escape(x_label)}</text>')
    if y_label:
        parts.append(f'<text x="12" y="{_f((mt + height - mb) / 2)}" class="l" '
                     f'text-anchor="middle" transform="rotate(-90 12 '
                     f'{_f((mt + height - mb) / 2)})">{escape(y_label)}</text>')
    if hline is not None:
        parts.append(f'<line x1="{ml}" y1="{_f(py(hline))}" x2="{width - mr}" '
                     f'y2="{_f(py(hline))}" stroke="#888" stroke-dasharray="5 4"/>')
        parts.append(f'<text x="{ml + 6}" y="{_f(py(hline) + 14)}" class="l" '
                     f'text-anchor="start">{escape(hline_label)}</text>')
    path = " ".join(f"{_f(px(x))},{_f(py(y))}" for x, y in curve)
    parts.append(f'<polyline fill="none" stroke="#1f5fa8" stroke-width="1.5" points="{path}"/>')
    for x, y, label in points:
        parts.append(f'<circle cx="{_f(px(x))}" cy="{_f(py(y))}" r="4.5" fill="#e07b00" '
                     'stroke="#fff"/>')
        anchor = "end" if px(x) > width / 2 else "start"
        dx = -8 if anchor == "end" else 8
        parts.append(f'<text x="{_f(px(x) + dx)}" y="{_f(py(y) - 8)}" class="l" '
                     f'text-anchor="{anchor}">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)
