"""Pattern family: a value restated, rounded or in other units, right after it is printed.

``… = 2362368 个参数，约 236 万``, ``e^{1.1513} ≈ 3.162, about 3 choices``: the second
value is the first, rounded. The reading is a guess (``about 0.5 MB`` after a count in
bytes is another quantity), so the check is ambiguous: kept only when the engine
verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token

__all__ = ["repeat_candidates", "restate_candidates", "scalar_repeat_candidates"]

_ABOUT_RE = re.compile(r"(?:约为|约合|大约|约|approximately|roughly|about|around|≈|~|\\approx)"
                       r"[\s$]*$")
MAX_GAP = 16  # characters between the value and "about": a few words at most
MIN_REPEAT = 3  # numbers in an array printed again


def restate_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``<value> … 约 <value>`` within one line, the second checked against the first."""
    nums = [t for t in tokens if t.kind == NUM]
    out = []
    for prev, r in zip(nums, nums[1:], strict=False):
        if r.start not in uncovered:
            continue
        between = text[prev.end:r.start]
        m = _ABOUT_RE.search(between)
        if m is None or "\n" in between or m.start() > MAX_GAP:
            continue
        out.append(Candidate("restate", "inferred: a value restated, rounded",
                             {"v": prev, "r": r}, [Check("r", "v", False)]))
    return out


def _numbers(tok: Token) -> tuple[float, ...] | None:
    from verifiers.holes import read_value

    try:
        p = read_value(tok.text, tok.start)
    except Exception:  # noqa: BLE001 - not a printed array: nothing to compare
        return None
    return tuple(float(n.value) for n in p.numbers)


def repeat_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """A vector or matrix printed again (``So z = [0.755, 0.335]`` after computing it, a row of
    an earlier table restated): the copy is checked against its first print, read through a
    definition claim. Only arrays of at least :data:`MIN_REPEAT` numbers: a coincidence of
    that many digits is not a reading; kept only when verified."""
    first: dict[tuple[float, ...], Token] = {}
    out = []
    for tok in tokens:
        if tok.kind != VAL or tok.shape not in ("vector", "matrix"):
            continue
        key = _numbers(tok)
        if key is None or len(key) < MIN_REPEAT:
            continue
        if key not in first:
            first[key] = tok
            continue
        if tok.start in uncovered:
            local = f"u{first[key].start}"
            out.append(Candidate("restate", "inferred: an array printed again, as first printed",
                                 {"r": tok}, [Check("r", local, False)], {local: first[key]}))
    return out


MIN_SIGNIFICANT = 3  # digits of a scalar printed again (an integer's trailing zeros do not count)


def _significant(text: str) -> int:
    """Significant digits of a printed number's mantissa: ``0.98734`` 5, ``1.76`` 3,
    ``100000`` 1, ``2.605e-4`` 4."""
    m = re.search(r"\d[\d,]*(?:\.\d+)?", text)
    if m is None:
        return 0
    digits = m.group().replace(",", "")
    if "." in digits:
        return len(digits.replace(".", "").lstrip("0"))
    return len(digits.lstrip("0").rstrip("0"))


def scalar_repeat_candidates(text: str, tokens: list[Token], uncovered: set[int]
                             ) -> list[Candidate]:
    """A number printed again, at the same precision, later in the note (a table row that
    restates a result, ``goes from 0.272321 to …``, ``其中注意力 2362368 个``): each copy is
    checked against the printing that is a result (``= 0.98734``; else the first), read
    through a definition claim, so an edit of either
    printing is flagged (:mod:`verifiers.copies`). Only a number of at least
    :data:`MIN_SIGNIFICANT` significant digits and the same printed precision: a coincidence of
    that many digits is not a reading. Proposed after the families that compute a value, so
    a value some computation checks is not also a copy; kept only when verified. A number
    first printed inside a vector (and as no result of its own) is checked against that
    element."""
    from verifiers.numbers import parse_printed

    groups: dict[tuple[object, object], list[Token]] = {}
    for tok in tokens:
        if tok.kind != NUM or _significant(tok.text) < MIN_SIGNIFICANT:
            continue
        try:
            pn = parse_printed(tok.text)
        except ValueError:
            continue
        groups.setdefault((pn.value, pn.half_unit), []).append(tok)
    elements = _vector_elements(tokens)
    out = []
    for key, group in groups.items():
        elem = elements.get(key)
        if elem is not None and elem[0].start < group[0].start and not any(
                _RESULT_RE.search(text, max(0, t.start - 12), t.start) for t in group):
            out += _element_copies(text, group, elem, uncovered)
            continue
        if len(group) < 2:
            continue
        # the source: the first printing that is a result (``= 0.98734``), else the first
        source = next((t for t in group if _RESULT_RE.search(text, max(0, t.start - 12), t.start)),
                      group[0])
        line = text.count("\n", 0, source.start)
        for tok in group:
            if tok is source or tok.start not in uncovered or text.count(
                    "\n", 0, tok.start) == line:  # same line: operands of one computation
                continue
            local = f"u{source.start}"
            out.append(Candidate("restate", "inferred: a value printed again",
                                 {"r": tok}, [Check("r", local, False)], {local: source}))
    return out


_RESULT_RE = re.compile(r"(?:=|≈|\\approx)[\s$]*\Z")


def _vector_elements(tokens: list[Token]) -> dict[tuple[object, object], tuple[Token, int]]:
    """(value, half unit) -> the first printed vector holding it and its index: a result
    printed as a list (``p = [0.8638, 0.1169, 0.0193]``) that a later line restates alone."""
    from verifiers.holes import read_value

    out: dict[tuple[object, object], tuple[Token, int]] = {}
    for tok in tokens:
        if tok.kind != VAL or tok.shape != "vector":
            continue
        try:
            numbers = read_value(tok.text, tok.start).numbers
        except Exception:  # noqa: BLE001 - not a printed array: nothing to compare
            continue
        for i, n in enumerate(numbers):
            if _significant(n.text) >= MIN_SIGNIFICANT:
                out.setdefault((n.value, n.half_unit), (tok, i))
    return out


def _element_copies(text: str, group: list[Token], elem: tuple[Token, int],
                    uncovered: set[int]) -> list[Candidate]:
    """Each later scalar printing of a vector's element, checked against that element."""
    vec, i = elem
    line = text.count("\n", 0, vec.start)
    local = f"u{vec.start}"
    return [Candidate("restate", "inferred: an element of a printed list, printed again",
                      {"r": tok}, [Check("r", f"{local}[{i}]", False)], {local: vec})
            for tok in group if tok.start in uncovered and text.count("\n", 0, tok.start) != line]
