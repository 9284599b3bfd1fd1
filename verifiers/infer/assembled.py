"""Pattern family: a vector or matrix assembled from values computed one by one before it.

Worked examples compute entries one at a time and then print them together::

    Q[0, 0] = … = 1.255
    Q[0, 1] = … = 1.615
    Q[0, 2] = … = 1.975
    位置0 (猫): Q_猫 = [1.255, 1.615, 1.975]

Each element of the array is read through the latest earlier lone value printed with the
same digits, in the same section (a definition claim, as for names). Only elements of at
least three significant digits count (``0.7616``, ``1.255``): a small integer printed again
is a coincidence, not a reading. At least :data:`MIN_ELEMENTS` elements; kept only when
verified, never pinned.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token

__all__ = ["assembled_candidates"]

MIN_ELEMENTS = 3
_NUMBER_RE = re.compile(r"[-−+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _key(text: str) -> str | None:
    """The digits of a printed number with its sign, when it has at least three
    significant digits (else None)."""
    text = text.strip().replace("−", "-")
    if not re.fullmatch(r"[-+]?\d+(?:\.\d+)?", text):
        return None
    digits = re.sub(r"^[-+]?0*\.?0*", "", text).replace(".", "")
    return text if len(digits) >= 3 else None


def _rows(raw: str) -> list[list[str]] | None:
    """The elements of a printed vector (one row) or matrix (rows), as printed."""
    body = raw.strip()
    if body.startswith("\\begin"):
        return None
    inner = re.findall(r"\[([^\[\]]*)\]", body) if body.startswith(("[[", "[ [")) \
        or re.match(r"\[\s*\[", body) else [body.strip("[]()")]
    rows = [[x.group() for x in _NUMBER_RE.finditer(r)] for r in inner]
    if not rows or any(len(r) != len(rows[0]) or not r for r in rows):
        return None
    return rows


def assembled_candidates(text: str, tokens: list[Token], uncovered: set[int],
                         section_of: Callable[[int], int]) -> list[Candidate]:
    out = []
    for k, tok in enumerate(tokens):
        if tok.kind != VAL or tok.start not in uncovered:
            continue
        rows = _rows(tok.text)
        if rows is None or sum(len(r) for r in rows) < MIN_ELEMENTS:
            continue
        keys = [[_key(x) for x in r] for r in rows]
        if any(x is None for r in keys for x in r):
            continue
        section = section_of(tok.start)
        earlier: dict[str, Token] = {}
        for t in tokens[:k]:
            if t.kind == NUM and section_of(t.start) == section:
                key = _key(t.text)
                if key is not None:
                    earlier[key] = t  # the latest wins
        if not all(x in earlier for r in keys for x in r):
            continue
        uses = {f"u{earlier[x].start}": earlier[x] for r in keys for x in r}  # type: ignore[index]
        if len(uses) < MIN_ELEMENTS:
            continue
        parts = ["[" + ", ".join(f"u{earlier[x].start}" for x in r) + "]"  # type: ignore[index]
                 for r in keys]
        expr = parts[0] if len(parts) == 1 and not tok.text.lstrip().startswith("[[") \
            else "[" + ", ".join(parts) + "]"
        out.append(Candidate("assembled", "inferred: an array of values computed before it",
                             {"r": tok}, [Check("r", expr, False)], uses))
    return out
