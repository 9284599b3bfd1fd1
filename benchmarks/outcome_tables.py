"""The two tables the mutation surveys print, written once.

``share_table``: per class, how many edits and how each ended, with the share that got a
real verdict at the line (the count-word and law-word surveys). ``sites_table``: per class,
the sites in the notes, the mutations run and each outcome's count and share (the mutant
and formula surveys)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping


def share_table(by_class: Mapping[str, Counter], kinds: Iterable[str], width: int) -> str:
    """One row per class (sorted) and a total: edits, each kind's count, share real."""
    kinds = tuple(kinds)
    rows = [f"{'class':<{width}}{'edits':>6}" + "".join(f"{k:>11}" for k in kinds)
            + f"{'real %':>9}"]
    total: Counter = Counter()
    for cls in sorted(by_class):
        c = by_class[cls]
        total.update(c)
        n = sum(c.values())
        rows.append(f"{cls:<{width}}{n:>6}" + "".join(f"{c[k]:>11}" for k in kinds)
                    + f"{100 * c['real'] / n:>8.0f}%")
    n = sum(total.values())
    rows.append(f"{'total':<{width}}{n:>6}" + "".join(f"{total[k]:>11}" for k in kinds)
                + f"{100 * total['real'] / max(n, 1):>8.0f}%")
    return "\n".join(rows)


def sites_table(rows: Mapping[str, Counter], order: Iterable[str], label: str,
                label_width: int, cell_width: int, cut: int | None = None) -> str:
    """One row per class (in the given order): sites, run, each outcome's count and share;
    ``cut`` shortens the outcome names in the header."""
    order = tuple(order)
    lines = [f"{label:<{label_width}} {'sites':>6} {'run':>4}  "
             + "  ".join(f"{o[:cut]:>{cell_width}}" for o in order)]
    for name, counts in rows.items():
        n = sum(counts[o] for o in order)
        cells = "  ".join(
            f"{counts[o]:>4} ({100 * counts[o] / n if n else 0:5.1f}%)".rjust(cell_width)
            for o in order)
        lines.append(f"{name:<{label_width}} {counts.get('total', n):>6} {n:>4}  {cells}")
    return "\n".join(lines)
