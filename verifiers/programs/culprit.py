"""Which code line caused a departure that a traced run shows further on.

Why: a printed program whose training step departs from the reference at ``X = E[cur]``
may be right there and wrong where ``cur`` was built; an update that moves a parameter
*against* its gradient passes the line-by-line check even when its step size is not the
program's learning rate. These rules read the traced values (:func:`traced_run`'s events)
and the reference's corpus ids, name-free, and name the line whose value is wrong:

* **id vectors** — in the set-up, an integer vector whose entries are ids (0 ≤ v < V) must be
  the corpus's ids, the current ids ``ids[:-1]`` or the next ids ``ids[1:]``
  (whatever its length: ids built over the vocabulary are 0…V−1, not the corpus);
* **training pairs** — a line that binds both the current and the next ids binds them in
  that order (current, next), as the reference's pairs are;
* **one step size** — every parameter moves by the same multiple of its gradient; a
  parameter whose step is not the set-up's step size (a float the set-up binds) while
  another's is, is wrong at the line that updates it.

The first two only speak when the training step departs somewhere (``departed``): a program
that binds its pairs the other way round and uses them consistently computes the reference.
Nothing here runs the note's text: the values come from the jail's trace.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Culprit", "pair_order", "setup_ids", "step_sizes"]

_TOL = 1e-9


@dataclass(frozen=True)
class Culprit:
    """A program line (1-based, in the program) and why its value is wrong."""

    line: int
    message: str


def _corpus(ids: list[int]) -> dict[str, np.ndarray]:
    arr = np.array(ids, dtype=np.int64)
    return {"the ids": arr, "the current ids ids[:-1]": arr[:-1], "the next ids ids[1:]": arr[1:]}


def _role(v: Any, corpus: dict[str, np.ndarray]) -> str | None:
    return next((k for k, c in corpus.items()
                 if v.shape == c.shape and np.array_equal(v, c)), None)


def _id_vector(v: Any, vocab_size: int) -> bool:
    return (isinstance(v, np.ndarray) and v.dtype.kind == "i" and v.ndim == 1 and v.size > 0
            and int(v.min()) >= 0 and int(v.max()) < vocab_size)


def setup_ids(events: list[tuple[int, str, int, Any]], ids: list[int],
              vocab_size: int) -> Culprit | None:
    """The first set-up line that binds an id vector that is none of the corpus's."""
    corpus = _corpus(ids)
    for line, name, it, v in events:
        if it < 0 and _id_vector(v, vocab_size) and _role(v, corpus) is None:
            return Culprit(line, (
                f"`{name}` after this line is a vector of ids (0…{vocab_size - 1}) of length "
                f"{v.size} that is none of the corpus's id vectors (its {len(ids)} ids, the "
                f"{len(ids) - 1} current ids ids[:-1] or next ids ids[1:]; "
                "tinygpt.bigram.encode_first_occurrence), so the training pairs it feeds are "
                "not the corpus's bigrams"))
    return None


def pair_order(source: str, events: list[tuple[int, str, int, Any]],
               ids: list[int]) -> Culprit | None:
    """A set-up statement that binds the next ids before the current ids."""
    corpus = _corpus(ids)
    cur, nxt = "the current ids ids[:-1]", "the next ids ids[1:]"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    order: dict[int, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Tuple):
            order[node.lineno] = [e.id for e in node.targets[0].elts if isinstance(e, ast.Name)]
    roles: dict[int, dict[str, str]] = {}
    for line, name, it, v in events:
        if it < 0 and line in order and isinstance(v, np.ndarray):
            role = _role(v, corpus)
            if role is not None:
                roles.setdefault(line, {})[name] = role
    for line, names in sorted(order.items()):
        got = [roles.get(line, {}).get(n) for n in names]
        if cur in got and nxt in got and got.index(nxt) < got.index(cur):
            a, b = names[got.index(nxt)], names[got.index(cur)]
            return Culprit(line, (
                f"this line binds `{a}` to the next ids ids[1:] and `{b}` to the current ids "
                f"ids[:-1]: the training pairs come out as (next, current), so the step reads "
                "the following character's row of E and predicts the preceding one, where the "
                "reference's pairs are (current, next)"))
    return None


def _moved(new: np.ndarray, old: np.ndarray, grad: np.ndarray) -> float | None:
    """c if ``new == old − c·grad`` to round-off."""
    if new.shape != old.shape or not np.any(grad):
        return None
    c = float(np.sum((old - new) * grad) / np.sum(grad * grad))
    scale = max(1.0, float(np.abs(old).max(initial=0.0)))
    return c if bool(np.all(np.abs(new - (old - c * grad)) <= _TOL * scale)) else None


def step_sizes(events: list[tuple[int, str, int, Any]], refs: list[dict[str, np.ndarray]],
               params: dict[str, str]) -> Culprit | None:
    """A parameter update whose step size is not the one every other parameter takes.

    ``params`` maps a reference parameter (``"E"``) to its gradient's key (``"∂L/∂E"``).
    """
    settings = [v for _, _, it, v in events
                if it < 0 and isinstance(v, float) and math.isfinite(v) and v > 0]
    seen: dict[str, tuple[int, str, float]] = {}
    for line, name, it, v in events:
        if not (0 <= it < len(refs)) or not isinstance(v, np.ndarray) or v.dtype.kind != "f":
            continue
        for param, grad in params.items():
            ref = refs[it]
            c = _moved(np.asarray(v, dtype=float), ref[param], ref[grad]) \
                if v.shape == ref[param].shape else None
            if c is not None and c > 0:
                seen.setdefault(param, (line, name, c))
    if len(seen) < 2:
        return None
    sizes = {p: c for p, (_, _, c) in seen.items()}
    lr = [s for s in settings if any(math.isclose(c, s, rel_tol=1e-9) for c in sizes.values())]
    if not lr or len({round(c, 12) for c in sizes.values()}) == 1:
        return None
    size = lr[0]
    off = [(p, seen[p]) for p in sorted(seen) if not math.isclose(sizes[p], size, rel_tol=1e-9)]
    if not off:
        return None
    p, (line, name, c) = min(off, key=lambda x: x[1][0])
    return Culprit(line, (
        f"`{name}` after this line moves {p} by {c:.6g}·∂L/∂{p}, where the other parameters "
        f"move by the set-up's step size {size:g}·∂L/∂(parameter): gradient descent takes one "
        f"step size for every parameter (the ratio is {c / size:.6g})"))
