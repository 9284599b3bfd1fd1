"""The bigram language model of lesson 1 §7, in torch float64.

The note prints a NumPy program with hand-derived gradients (``p − y``,
``X^T G``, ``np.add.at`` for E). This module trains the same model with torch
*autograd*, so agreement to ~1e-10 checks two things at once: that the note's
program computes what the text says, and that its hand-written backward pass
is the true gradient.

Model, per training pair (current id ``i``, next id ``y``), row-vector convention:
``x = E[i]`` (1×d), ``z = x W_U (+ b)`` (1×V), ``L = −log softmax(z)_y``; a batch
averages L; plain SGD ``θ ← θ − lr·∂L̄/∂θ``. The note's program has no bias; ``b``
is optional and used only if ``init`` contains it.

Randomness. The note's program draws its initial parameters from
``np.random.default_rng(seed)`` (E first, then W_U) and trains full-batch (every
step uses all ``len(tokens) − 1`` pairs, in order), so it has no batch randomness.
To reproduce its trajectory exactly we do not re-seed torch: the caller generates
the initial arrays with NumPy in the program's order (:func:`numpy_init`) and
passes them in, and, for a mini-batch variant, passes the per-step index arrays
(``batches``) drawn from NumPy in whatever order that program draws them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

__all__ = [
    "BigramRun",
    "bigram_logits",
    "counting_bound",
    "encode_first_occurrence",
    "fit_bigram",
    "numpy_init",
    "train_bigram",
]


def encode_first_occurrence(text: str) -> tuple[list[str], list[int]]:
    """Vocabulary in order of first occurrence and the text's ids.

    The note's program numbers characters this way
    (``sorted(set(text), key=text.index)``); ids depend on it, and so does the
    meaning of every row of E and column of W_U.
    """
    vocab = list(dict.fromkeys(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    return vocab, [stoi[c] for c in text]


def numpy_init(
    V: int, d: int, seed: int = 0, e_std: float = 1.0, u_std: float = 0.1
) -> dict[str, np.ndarray]:
    """Initial ``E`` [V,d] and ``WU`` [d,V] drawn as the note's program draws them.

    Same generator (``default_rng(seed)``), same distributions, same order (E
    before W_U): the order matters because both come from one stream.
    """
    rng = np.random.default_rng(seed)
    E = rng.normal(0.0, e_std, (V, d))
    WU = rng.normal(0.0, u_std, (d, V))
    return {"E": E, "WU": WU}


@dataclass(frozen=True)
class BigramRun:
    """Loss before each update (``losses[k]`` is step k's loss) and final parameters."""

    losses: list[float]
    E: np.ndarray
    WU: np.ndarray
    b: np.ndarray | None


def bigram_logits(E: torch.Tensor, WU: torch.Tensor, ids: torch.Tensor | Sequence[int],
                  b: torch.Tensor | None = None) -> torch.Tensor:
    """z = E[i] W_U (+ b) for every current id i (lesson1 §5): the rows training scores."""
    z = E[torch.as_tensor(ids, dtype=torch.long)] @ WU
    return z if b is None else z + b


def fit_bigram(
    tokens: Sequence[int],
    V: int,
    d: int,
    lr: float,
    steps: int,
    init: Mapping[str, np.ndarray],
    batches: Iterable[Sequence[int] | np.ndarray] | None = None,
) -> BigramRun:
    """Train the bigram model for ``steps`` SGD updates; see :func:`train_bigram`."""
    ids = torch.as_tensor(np.asarray(tokens, dtype=np.int64))
    if ids.ndim != 1 or len(ids) < 2:
        raise ValueError("need a 1-D token sequence with at least two tokens")
    if int(ids.min()) < 0 or int(ids.max()) >= V:
        raise ValueError(f"token ids must lie in [0, {V})")
    cur, nxt = ids[:-1], ids[1:]
    E = torch.tensor(np.asarray(init["E"], dtype=np.float64), requires_grad=True)
    WU = torch.tensor(np.asarray(init["WU"], dtype=np.float64), requires_grad=True)
    if tuple(E.shape) != (V, d) or tuple(WU.shape) != (d, V):
        raise ValueError(f"init shapes must be E {(V, d)}, WU {(d, V)}")
    params = [E, WU]
    b: torch.Tensor | None = None
    if "b" in init:
        b = torch.tensor(np.asarray(init["b"], dtype=np.float64), requires_grad=True)
        if tuple(b.shape) != (V,):
            raise ValueError(f"init b must have shape {(V,)}")
        params.append(b)
    schedule = iter(batches) if batches is not None else None
    losses: list[float] = []
    for step in range(steps):
        if schedule is None:
            i, y = cur, nxt  # full batch, in corpus order, as the note's program
        else:
            try:
                idx = torch.as_tensor(np.asarray(next(schedule), dtype=np.int64))
            except StopIteration:
                raise ValueError(f"batch schedule ended before step {step}") from None
            i, y = cur[idx], nxt[idx]
        z = bigram_logits(E, WU, i, b)
        loss = F.cross_entropy(z, y)  # mean over the batch of −log softmax(z)_y
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        losses.append(loss.item())
    return BigramRun(
        losses=losses,
        E=E.detach().numpy().copy(),
        WU=WU.detach().numpy().copy(),
        b=None if b is None else b.detach().numpy().copy(),
    )


def train_bigram(
    tokens: Sequence[int],
    V: int,
    d: int,
    lr: float,
    steps: int,
    init: Mapping[str, np.ndarray],
    batches: Iterable[Sequence[int] | np.ndarray] | None = None,
) -> list[float]:
    """Losses of ``steps`` SGD updates of the bigram model, float64, deterministic.

    ``tokens`` is the id sequence; training pairs are ``(tokens[k], tokens[k+1])``.
    ``init`` holds NumPy arrays ``E`` [V,d], ``WU`` [d,V] and optionally ``b`` [V].
    ``batches`` yields, per step, indices into the pair list; ``None`` means the
    full batch every step (the note's program). ``losses[k]`` is the loss computed
    at step k *before* that step's update — what the note's program prints for
    ``step`` k — so the note's ``range(501)`` is ``steps=501``.
    """
    return fit_bigram(tokens, V, d, lr, steps, init, batches).losses


def counting_bound(tokens: Sequence[int]) -> float:
    """Lowest average loss any bigram model can reach on ``tokens``.

    The maximum-likelihood bigram distribution is the conditional frequency
    ``count(i, y) / count(i)``; its average cross-entropy over the training pairs is
    the "计数法下界" the note draws as a dotted line.
    """
    pairs: dict[tuple[int, int], int] = {}
    firsts: dict[int, int] = {}
    for i, y in zip(tokens[:-1], tokens[1:], strict=True):
        pairs[(i, y)] = pairs.get((i, y), 0) + 1
        firsts[i] = firsts.get(i, 0) + 1
    n = len(tokens) - 1
    return -sum(c * math.log(c / firsts[i]) for (i, _), c in pairs.items()) / n
