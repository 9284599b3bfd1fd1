"""Unit words read as words: ``GiB`` or ``GB``, ``bits`` or ``bytes``, ``M`` or ``B`` parameters.

A size printed twice (``1646821376 字节 ≈ 1.65 GB，约 1.53 GiB``) is checked as arithmetic, but
the unit word after it is text: an author who writes ``1.53 GB`` for ``1.53 GiB`` leaves every
number right. A ``states:`` entry ``unit: EXPR`` (:mod:`verifiers.printed_data`) reads the word
instead: EXPR is the factor the printed value stands for (the quantity in the dimension's base
unit divided by the printed number), and the word must name the unit of its dimension whose
factor is nearest (on a log scale) to it. ``GiB`` and ``GB`` differ by 7%, ``KiB`` and ``KB``
by 2.4%, far more than the rounding of a printed size with three digits.

The table is data: (word, dimension, factor); the dimension's base unit is a byte, a count.
"""

from __future__ import annotations

import math

__all__ = ["FAR", "UNITS", "nearest", "readings"]

#: word -> ((dimension, factor), ...): ``B`` is a byte after a byte count, a billion after a count
UNITS: dict[str, tuple[tuple[str, float], ...]] = {
    "bytes": (("bytes", 1),), "byte": (("bytes", 1),), "字节": (("bytes", 1),),
    "bits": (("bytes", 1 / 8),), "bit": (("bytes", 1 / 8),), "比特": (("bytes", 1 / 8),),
    "KiB": (("bytes", 2 ** 10),), "MiB": (("bytes", 2 ** 20),), "GiB": (("bytes", 2 ** 30),),
    "TiB": (("bytes", 2 ** 40),),
    "KB": (("bytes", 1e3),), "kB": (("bytes", 1e3),), "MB": (("bytes", 1e6),),
    "GB": (("bytes", 1e9),), "TB": (("bytes", 1e12),),
    "Kbit": (("bytes", 1e3 / 8),), "Mbit": (("bytes", 1e6 / 8),), "Gbit": (("bytes", 1e9 / 8),),
    "K": (("count", 1e3),), "k": (("count", 1e3),), "thousand": (("count", 1e3),),
    "千": (("count", 1e3),), "万": (("count", 1e4),),
    "M": (("count", 1e6),), "million": (("count", 1e6),), "百万": (("count", 1e6),),
    "亿": (("count", 1e8),),
    "B": (("count", 1e9), ("bytes", 1)), "G": (("count", 1e9),), "billion": (("count", 1e9),),
    "T": (("count", 1e12),), "trillion": (("count", 1e12),),
}
#: a ratio further than this factor from every unit of the dimension names none of them
FAR = 1.5


def readings(word: str) -> tuple[tuple[str, float], ...]:
    """(dimension, factor) readings of a unit word (spaces ignored), () if it is none."""
    return UNITS.get("".join(word.split()), ())


def nearest(dimension: str, ratio: float) -> str | None:
    """The unit word of ``dimension`` whose factor is nearest to ``ratio`` (log scale), or
    None when every one is further than :data:`FAR` (the printed value fits no unit)."""
    if not (math.isfinite(ratio) and ratio > 0):
        return None
    best: tuple[float, str] | None = None
    seen: set[float] = set()
    for word, reads in UNITS.items():  # the first word of each factor names it
        for dim, factor in reads:
            if dim != dimension or factor in seen:
                continue
            seen.add(factor)
            gap = abs(math.log(ratio / factor))
            if best is None or gap < best[0]:
                best = (gap, word)
    if best is None or best[0] > math.log(FAR):
        return None
    return best[1]


def decide(ratio: float, word: str) -> tuple[str | None, str, str]:
    """(the word's unit or None, the unit the printed values give or "", why), as
    :func:`verifiers.printed_data._decide` returns for its other rules."""
    reads = readings(word)
    if not reads:
        return None, "", "not a unit word (bytes, KiB/KB … GiB/GB, bits, K/M/B …)"
    said = "".join(word.split())
    found = ""
    for dim, factor in reads:
        unit = nearest(dim, ratio)
        if unit is not None and any(f == factor for _, f in readings(unit)):
            return said, said, f"the printed values give {ratio:.6g} per unit"
        found = found or (unit or "")
    return said, found, f"the printed values give {ratio:.6g} per unit"
