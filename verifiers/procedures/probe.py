"""What tinygpt's code does for a step's parameter: observed by running it, never written.

A parameter word of a note's step (``出现最多的那一对``, ``从高到低``, ``首次达到 P``) is
checked against tinygpt's behaviour on a small input chosen so that each value of the class
gives a different result: BPE on a corpus whose pair counts all differ, top-k with k = 1,
top-p on a distribution whose running sum hits P exactly, a softmax of a non-square matrix.
Each probe returns the value observed and one sentence saying how it was observed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

__all__ = ["PROBES", "observe"]

Observation = tuple[str, str]  # (value of the class, how it was observed)


def _bpe_select() -> Observation:
    from tinygpt.bpe import train_bpe

    corpus = {"ab": 3, "cd": 1}  # pair counts: ab 3, cd 1
    pair = train_bpe(corpus, max_merges=1).merges[0].pair
    value = {("a", "b"): "most", ("c", "d"): "least"}.get(tuple(pair), "neither")
    return value, (f"tinygpt's train_bpe on {{ab: 3, cd: 1}} merges {''.join(pair)} first "
                   f"(pair counts 3 and 1)")


def _kept(fn: Callable, probs: list[float], arg: float) -> list[int]:
    import torch

    out = fn(torch.tensor(probs, dtype=torch.float64), arg)
    return [i for i, v in enumerate(out.tolist()) if v > 0]


def _top_k_select() -> Observation:
    from tinygpt import top_k_filter

    kept = _kept(top_k_filter, [0.1, 0.6, 0.3], 1)
    value = "most" if kept == [1] else "least" if kept == [0] else "neither"
    return value, f"tinygpt's top_k_filter([0.1, 0.6, 0.3], k = 1) keeps entry {kept}"


def _order(name: str) -> Callable[[], Observation]:
    def probe() -> Observation:
        import tinygpt

        fn = getattr(tinygpt, name)
        arg = 1 if name == "top_k_filter" else 0.5
        kept = _kept(fn, [0.1, 0.6, 0.3], arg)
        value = "descending" if kept == [1] else "ascending" if kept == [0] else "neither"
        return value, (f"tinygpt's {name}([0.1, 0.6, 0.3], {arg}) keeps entry {kept}: it "
                       f"walks the sorted probabilities from "
                       f"{'the largest' if value == 'descending' else 'the smallest'}")
    return probe


def _top_p_compare() -> Observation:
    from tinygpt import top_p_filter

    kept = _kept(top_p_filter, [0.5, 0.25, 0.25], 0.75)  # running sums 0.5, 0.75, 1.0
    value = {2: "reach", 3: "exceed", 1: "below"}.get(len(kept), "neither")
    return value, (f"tinygpt's top_p_filter([0.5, 0.25, 0.25], p = 0.75) keeps {len(kept)} "
                   f"tokens: it stops at the first running sum ≥ p (0.75 itself)"
                   if value == "reach" else
                   f"tinygpt's top_p_filter([0.5, 0.25, 0.25], p = 0.75) keeps {len(kept)} tokens")


def _softmax_axis() -> Observation:
    import torch

    from tinygpt import softmax

    out = softmax(torch.arange(6, dtype=torch.float64).reshape(2, 3))
    rows = torch.allclose(out.sum(dim=1), torch.ones(2, dtype=torch.float64))
    cols = torch.allclose(out.sum(dim=0), torch.ones(3, dtype=torch.float64))
    value = "rows" if rows and not cols else "columns" if cols and not rows else "neither"
    return value, (f"tinygpt's softmax of a 2×3 matrix gives {value} that sum to 1")


#: (operation, parameter class) -> probe
PROBES: dict[tuple[str, str], Callable[[], Observation]] = {
    ("merge", "select"): _bpe_select,
    ("top_k", "select"): _top_k_select,
    ("sort", "order"): _order("top_k_filter"),
    ("top_k", "order"): _order("top_k_filter"),
    ("cumulative", "order"): _order("top_p_filter"),
    ("top_p", "order"): _order("top_p_filter"),
    ("cut", "compare"): _top_p_compare,
    ("stop", "compare"): _top_p_compare,
    ("top_p", "compare"): _top_p_compare,
    ("softmax", "axis"): _softmax_axis,
}


@functools.cache
def observe(op: str, cls: str) -> Observation | None:
    """tinygpt's value of ``cls`` for operation ``op``; None when no probe covers the pair."""
    probe = PROBES.get((op, cls))
    return probe() if probe is not None else None
