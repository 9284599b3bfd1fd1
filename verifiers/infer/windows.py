"""Pattern family: a printed matrix that is a block of a matrix printed before it.

Convolution and pooling by hand print the input, then each window it slides over::

    输入 X（4 × 4）：[[3, 1, 2, 0], [1, 4, 1, 2], [0, 2, 5, 1], [2, 1, 0, 3]]
    Y[0, 1]：窗口 [[1, 2, 0], [4, 1, 2], [2, 5, 1]]

The window is checked entry by entry against the block of the earlier matrix it copies,
read through a definition claim (``u[0][1]``, …), so an edit of either is flagged. The
block is found from the numbers: the latest earlier matrix in which exactly one block
equals the window (a window of one repeated number, or smaller than 2 × 2, is no reading).
Kept only when verified, never pinned.
"""

from __future__ import annotations

from verifiers.holes import read_value
from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import VAL, Token

__all__ = ["window_candidates"]

Grid = tuple[tuple[object, ...], ...]


def _grid(tok: Token) -> Grid | None:
    """A printed matrix as rows of (value, half unit) keys, else None."""
    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a printed matrix
        return None
    if len(p.shape) != 2:
        return None
    h, w = p.shape
    keys = [(n.value, n.half_unit) for n in p.numbers]
    return tuple(tuple(keys[i * w:(i + 1) * w]) for i in range(h))


def _offsets(big: Grid, small: Grid) -> list[tuple[int, int]]:
    h, w = len(small), len(small[0])
    return [(r, c) for r in range(len(big) - h + 1) for c in range(len(big[0]) - w + 1)
            if all(big[r + i][c:c + w] == small[i] for i in range(h))]


def window_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    mats = [(t, g) for t in tokens if t.kind == VAL and t.shape == "matrix"
            and (g := _grid(t)) is not None]
    out = []
    for k, (tok, small) in enumerate(mats):
        h, w = len(small), len(small[0])
        if tok.start not in uncovered or h < 2 or w < 2 or len({x for r in small for x in r}) < 2:
            continue
        for src, big in reversed(mats[:k]):
            if (len(big), len(big[0])) == (h, w) or len(big) < h or len(big[0]) < w:
                continue
            found = _offsets(big, small)
            if len(found) != 1:
                continue
            r, c = found[0]
            local = f"u{src.start}"
            rows = ", ".join("[" + ", ".join(f"{local}[{r + i}][{c + j}]" for j in range(w)) + "]"
                             for i in range(h))
            out.append(Candidate("restate", "inferred: a block of a matrix printed before",
                                 {"r": tok}, [Check("r", f"[{rows}]", False)], {local: src}))
            break
    return out
