"""Where each printed number of a hole sits in the note, and its last digit moved by ±1.

Shared by the sensitivity survey (:mod:`verifiers.mutate`) and the last-digit survey
(``benchmarks/lastdigit.py``): an edit is located on one number of a hole, so it can be
compared with that number's honest routes (:mod:`verifiers.arithmetic.routes`).
"""

from __future__ import annotations

import re

from verifiers.holes import Printed

__all__ = ["bump", "last_digit", "number_at", "number_spans"]

_MANTISSA = re.compile(r"[+\-−]?\s*(?P<mant>[0-9][0-9,.]*)")


def number_spans(printed: Printed) -> list[tuple[int, int]]:
    """Each number's (start, end) offsets in the note, in the order of ``printed.numbers``."""
    spans, cursor = [], 0
    for pn in printed.numbers:
        at = printed.text.find(pn.text, cursor)
        if at < 0:  # a form the printed text writes otherwise: no located edit
            return []
        spans.append((printed.start + at, printed.start + at + len(pn.text)))
        cursor = at + len(pn.text)
    return spans


def number_at(printed: Printed, offset: int) -> int | None:
    """The index of the number of ``printed`` whose text holds note ``offset``."""
    return next((i for i, (a, b) in enumerate(number_spans(printed)) if a <= offset < b), None)


def last_digit(text: str) -> tuple[int, int] | None:
    """(start, end) in ``text`` of the mantissa's digits and separators (``386`` of
    ``386 万``, ``1.5`` of ``1.5 \\times 10^{3}``); None when there is none (``10^{-5}``)."""
    m = _MANTISSA.match(text)
    if m is None or text[m.end("mant"):].lstrip().startswith("^"):
        return None
    end = m.end("mant")
    while end > m.start("mant") and not text[end - 1].isdigit():
        end -= 1
    return m.start("mant"), end


def bump(text: str, delta: int) -> str | None:
    """``text`` with its last mantissa digit moved by ``delta`` (±1) units, carrying
    (2.19 → 2.20, 2.10 → 2.09); None when the digit count would change or it turns negative."""
    span = last_digit(text)
    if span is None:
        return None
    a, b = span
    mant = text[a:b]
    digits = "".join(c for c in mant if c.isdigit())
    value = int(digits) + delta
    if value < 0 or len(str(value)) > len(digits):
        return None
    new_digits = iter(str(value).zfill(len(digits)))
    new = "".join(next(new_digits) if c.isdigit() else c for c in mant)
    return text[:a] + new + text[b:]
