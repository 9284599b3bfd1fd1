"""Pattern family: an array of expressions equal to a printed array, element by element.

Matrix products by hand print each entry's sum of products, then the result::

    AB = [[1×5 + 2×7, 1×6 + 2×8], [3×5 + 4×7, 3×6 + 4×8]] = [[19, 22], [43, 50]]
    $$\\begin{bmatrix} 2 \\cdot 3 - 1 \\\\ 3 \\cdot 0.5 \\end{bmatrix}
      = \\begin{bmatrix} 5 \\\\ 1.5 \\end{bmatrix}$$

The printed array is one hole; the check is the array of the entries' expressions, of the
same shape (:mod:`.chains` reads a flat ``[a + b, c] = [x, y]``, never a matrix). Every
entry must read whole and one must compute something. Stated by the note, but an entry of
several products is easily misread (``2 \\cdot 3`` next to a name), so the check is
ambiguous: kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.parse import parse_segment
from verifiers.infer.tokens import NUM, OTHER, VAL, Token, tokenize
from verifiers.notes import Literal, Note

__all__ = ["array_candidates"]

Span = tuple[int, int]
_ENV_RE = re.compile(r"\\begin\{([bpvBV]?matrix)\}(.*?)\\end\{\1\}", re.DOTALL)
_REL_AFTER_RE = re.compile(r"(?:\s|\\[,;:! ]|\\quad)*(=|≈|\\approx)(?:\s|\\[,;:! ]|\\quad)*")


def _latex_arrays(text: str) -> list[tuple[Span, list[list[Span]]]]:
    """``\\begin{bmatrix} … \\end{bmatrix}``: its span and cells (rows split at ``\\\\``, cells at
    ``&``)."""
    out = []
    for m in _ENV_RE.finditer(text):
        rows, pos = [], m.start(2)
        for raw_row in re.split(r"\\\\", m.group(2)):
            cells, cpos = [], pos
            for cell in raw_row.split("&"):
                cells.append((cpos, cpos + len(cell)))
                cpos += len(cell) + 1
            rows.append(cells)
            pos += len(raw_row) + 2
        if rows and not text[rows[-1][0][0]:rows[-1][-1][1]].strip():
            rows.pop()  # a trailing `\\` before `\end`
        out.append(((m.start(), m.end()), rows))
    return out


def _plain_arrays(text: str) -> list[tuple[Span, list[list[Span]]]]:
    """``[[a, b], [c, d]]`` written out: its span and cells (commas outside parentheses)."""
    out = []
    for m in re.finditer(r"\[\s*\[", text):
        depth, paren, rows = 0, 0, []
        cells: list[Span] = []
        start = None
        for i in range(m.start(), min(len(text), m.start() + 2000)):
            ch = text[i]
            if ch == "\n":
                break
            if ch == "[":
                depth += 1
                if depth == 2:
                    cells, start = [], i + 1
            elif ch == "]":
                if depth == 2 and start is not None:
                    cells.append((start, i))
                    rows.append(cells)
                depth -= 1
                if depth == 0:
                    out.append(((m.start(), i + 1), rows))
                    break
            elif ch in "(（":
                paren += 1
            elif ch in ")）":
                paren -= 1
            elif ch == "," and depth == 2 and paren == 0 and start is not None:
                cells.append((start, i))
                start = i + 1
    return out


def _printed(text: str, at: int) -> bool:
    """Is ``text`` a printed array of numbers (nothing computed in it)?"""
    try:
        read_value(text, at)
    except Exception:  # noqa: BLE001 - entries that are expressions
        return False
    return True


def array_candidates(note: Note, tokens: list[Token], uncovered: set[int],
                     literals: dict[int, Literal], urls: list[Span]) -> list[Candidate]:
    """``<array of expressions> = <printed array>``; a LaTeX matrix of expressions is one
    unreadable value token, so its inside is tokenized here."""
    text = note.text
    by_start = {t.start: t for t in tokens if t.kind == VAL}
    out = []
    for span, rows in _latex_arrays(text) + _plain_arrays(text):
        if not rows or _printed(text[span[0]:span[1]], span[0]):
            continue  # a printed array of numbers: nothing computed
        rel = _REL_AFTER_RE.match(text, span[1])
        result = by_start.get(rel.end()) if rel else None
        if result is None or result.start not in uncovered:
            continue
        try:
            shape = read_value(result.text, result.start).shape
        except Exception:  # noqa: BLE001 - not a printed array: nothing to compare
            continue
        if len(shape) != 2 or shape != (len(rows), len(rows[0])) \
                or any(len(r) != shape[1] for r in rows):
            continue
        inside = [t for t in tokenize(note, rows[0][0][0], rows[-1][-1][1], literals, urls)
                  if not (t.kind == OTHER and t.text in ("$", "\\\\"))]
        if any(t.start not in uncovered and t.kind == NUM and t.start in
               {u.start for u in tokens} for t in inside):
            continue  # a value another family reads already
        names = {t.start: f"v{k}" for k, t in enumerate(
            [t for t in inside if t.kind == NUM], start=1)}
        entries = [[parse_segment([t for t in inside if a <= t.start < b], names)
                    for a, b in row] for row in rows]
        if any(e is None or e.shape != "scalar" for row in entries for e in row) \
                or not any(e.ops for row in entries for e in row if e is not None):
            continue
        expr = "[" + ", ".join("[" + ", ".join(e.text for e in row if e is not None) + "]"
                               for row in entries) + "]"
        holes = {names[t.start]: t for t in inside if t.kind == NUM}
        holes["r"] = result
        out.append(Candidate("array", "inferred: an array of expressions, entry by entry",
                             holes, [Check("r", expr, False)]))
    return out
