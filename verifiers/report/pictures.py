"""Pictures for the HTML report, found in the run's verdicts.

* **attention heat maps** -- every matrix a claim reads whose printed rows are
  weights (entries in [0, 1], rows summing to 1), e.g. the note's attention
  matrix ``A``: the note's matrix beside the recomputed one, wrong cells framed;
* **the bigram loss curve** -- lesson 1's training program (a model claim that
  reads the program's literals ``seed, lr, steps, …`` and its printed losses
  ``s0 l0 … s1 l1``) re-trained by ``tinygpt.bigram.fit_bigram`` (a few hundred
  steps of a 15×8 model: well under a second), with the note's printed points
  on the curve and the counting bound as a dashed line.

Each picture is placed in the note text after the line where its data ends.
Everything here is best effort: data that does not fit gives no picture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifiers.report.svg import heatmap, line_chart
from verifiers.verdicts import RunResult, Verdict

__all__ = ["Picture", "pictures"]

_NUM = re.compile(r"[-+−]?\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?")
_ROW = re.compile(r"\[([^\[\]]*)\]")
_INDEX = re.compile(r"^(\w+)\[(\d+)\]$")
MAX_HEATMAPS = 6


@dataclass(frozen=True)
class Picture:
    """An inline SVG with a caption, to be shown after ``line`` of ``note``."""

    note: str
    line: int
    svg: str
    title: str
    caption: str
    claim: str  # the claim the picture illustrates


def _numbers(text: str) -> list[tuple[float, str]]:
    return [(float(t.replace("−", "-")), t) for t in _NUM.findall(text)]


def _rows(text: str) -> list[list[tuple[float, str]]]:
    """A printed or expected vector/matrix as rows of (value, token)."""
    if "\\" in text or "%" in text:
        return []
    inner = _ROW.findall(text)
    return [_numbers(r) for r in inner] if inner else []


def _decimals(token: str) -> int:
    return len(token.split(".")[1]) if "." in token else 0


def _weight_matrices(v: Verdict) -> list[tuple[str, list, list, int]]:
    """(name, printed rows, expected rows, last line) for each weight matrix of a claim."""
    groups: dict[str, list] = {}
    for x in v.values:
        m = _INDEX.match(x.name)
        if m:
            p, e = _rows(x.printed), _rows(x.expected)
            if len(p) == 1 and len(e) == 1:
                groups.setdefault(m[1], []).append((int(m[2]), p[0], e[0], x.end[0]))
        elif "[" not in x.name:
            p, e = _rows(x.printed), _rows(x.expected)
            if len(p) > 1 and len(p) == len(e):
                groups[x.name] = [(i, p[i], e[i], x.end[0]) for i in range(len(p))]
    found = []
    for name, parts in groups.items():
        parts.sort(key=lambda t: t[0])
        if [t[0] for t in parts] != list(range(len(parts))) or len(parts) < 2:
            continue
        printed = [t[1] for t in parts]
        expected = [t[2] for t in parts]
        cols = len(printed[0])
        if cols < 2 or any(len(r) != cols for r in printed + expected):
            continue
        if not all(0 <= w <= 1 for r in printed + expected for w, _ in r):
            continue
        if all("." not in t for r in printed for _, t in r):  # 0/1 selectors, not weights
            continue
        if any(abs(sum(w for w, _ in r) - 1) > 1e-6 for r in expected):
            continue
        if any(abs(sum(w for w, _ in r) - 1) > 0.02 for r in printed):
            continue
        found.append((name, printed, expected, max(t[3] for t in parts)))
    return found


def _heatmaps(result: RunResult) -> list[Picture]:
    out: list[Picture] = []
    seen: set[tuple[str, int]] = set()
    for v in result.verdicts:
        if not v.note or v.kind == "symbolic":
            continue
        for name, printed, expected, last in _weight_matrices(v):
            if (v.note, last) in seen or len(out) >= MAX_HEATMAPS:
                continue
            seen.add((v.note, last))
            wrong, shown = [], []
            for prow, erow in zip(printed, expected, strict=True):
                wrong.append([abs(p - e) > 0.5 * 10 ** -_decimals(t) + 1e-12
                              for (p, t), (e, _) in zip(prow, erow, strict=True)])
                shown.append([(e, f"{e:.{_decimals(t)}f}")
                              for (_, t), (e, _) in zip(prow, erow, strict=True)])
            bad = sum(map(sum, wrong))
            title = f"{name}: the note's weights and the recomputed ones ({v.id})"
            caption = (f"{name} as printed (left) and recomputed from exact inputs (right); "
                       f"{bad} of {len(printed) * len(printed[0])} cells differ (red frame)."
                       if bad else f"{name} as printed (left) and recomputed (right): "
                       "every cell agrees.")
            out.append(Picture(v.note, last, heatmap(title, printed, shown, wrong),
                               f"heat map of {name} (claim {v.id})", caption, v.id))
    return out


_LOSS_INPUTS = ("seed", "e_mu", "e_std", "u_mu", "u_std", "lr", "steps", "d_code", "every",
                "s0", "l0", "s1", "l1")


def _bigram_curve(result: RunResult) -> list[Picture]:
    """The lesson 1 training program's loss curve, re-trained with tinygpt."""
    for v in result.verdicts:
        vals = {x.name: x for x in v.values}
        if v.kind != "model" or not all(k in vals for k in _LOSS_INPUTS) or v.span is None:
            continue
        note = result.notes.get(v.note)
        if note is None:
            continue
        try:
            quote = note.text[note.offset(*v.span[0]):note.offset(*v.span[1])]
            m = re.search(r'^\s*text\s*=\s*"([^"\n]*)"', quote, re.M)
            if m is None:
                continue
            num = {k: float(vals[k].printed.replace("−", "-")) for k in _LOSS_INPUTS}
            steps, losses, bound = _train(m[1], num)
        except (ValueError, ImportError, RuntimeError):
            continue
        every = max(1, int(num["every"]))
        curve = [(float(k), loss) for k, loss in enumerate(losses)]
        points = [(num["s0"], num["l0"], f"note: {vals['s0'].printed} {vals['l0'].printed}"),
                  (num["s1"], num["l1"], f"note: {vals['s1'].printed} {vals['l1'].printed}")]
        title = "bigram training loss, re-trained by tinygpt (autograd, float64)"
        svg = line_chart(title, curve, points, hline=bound,
                         hline_label=f"counting bound {bound:.4f}", x_label="step",
                         y_label="loss")
        shown = ", ".join(f"{k} {losses[k]:.4f}" for k in range(0, steps, every))
        caption = (f"tinygpt's loss at every step of the note's program ({steps} steps, the "
                   f"note's seed, lr and initialisation); orange: the losses the note prints. "
                   f"tinygpt at the printed steps: {shown}.")
        return [Picture(v.note, v.span[1][0], svg, f"bigram loss curve (claim {v.id})", caption,
                        v.id)]
    return []


def _train(corpus: str, num: dict[str, float]) -> tuple[int, list[float], float]:
    import numpy as np
    import torch

    from tinygpt.bigram import counting_bound, encode_first_occurrence, fit_bigram

    vocab, ids = encode_first_occurrence(corpus)
    V, d, steps = len(vocab), int(num["d_code"]), int(num["steps"])
    if not 0 < steps <= 5000 or not 0 < d <= 64:
        raise ValueError("too large for a picture")
    rng = np.random.default_rng(int(num["seed"]))  # the program's draws: E first, then W_U
    init = {"E": rng.normal(num["e_mu"], num["e_std"], (V, d)),
            "WU": rng.normal(num["u_mu"], num["u_std"], (d, V))}
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors; one thread is faster and reproducible
    try:
        run = fit_bigram(ids, V, d, num["lr"], steps, init)
    finally:
        torch.set_num_threads(before)
    return steps, run.losses, counting_bound(ids)


def pictures(result: RunResult) -> list[Picture]:
    """Every picture the run's data supports, in (note, line) order."""
    found = _heatmaps(result) + _bigram_curve(result)
    return sorted(found, key=lambda p: (p.note, p.line, p.claim))
