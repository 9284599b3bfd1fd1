"""Printings of one formula agree: a definition the note prints more than once.

A definition printed at several places (``s_{i j} = \\frac{q_{i} \\cdot k_{j}}{\\sqrt{d_{k}}}``
in 2.4 and again in 5.2) is often used by no step near where it is printed, so a dropped
root or a flipped sign in one printing went unseen. A symbolic claim names each printing
it reads: ``printing: {S: scaled-score}`` says formula hole ``S`` is a printing of the
formula labelled ``scaled-score`` (labels are per note, free text).

Each printing is read by the LaTeX reader in its claim (:func:`printing_value`: ``unparsed``
when it cannot be read exactly as printed). After every claim is evaluated, the printings of
one label are compared (:func:`reconcile`, like :mod:`verifiers.copies` for numbers): two
agree when their left sides are the same expression and the difference of their right sides
is zero (SymPy, under the reader's real symbols). A printing that differs from what a strict
majority of the printings say is a ``discrepancy`` at that printing; without a strict
majority (two printings that differ) every printing is one, since nothing tells which was
edited. A label printed once is an ``error`` (nothing to compare). The message lists every
printing as ``line:col``, the differing ones marked ✗.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from verifiers.schema import Claim
from verifiers.verdicts import DISCREPANCY, ERROR, UNPARSED, VERIFIED, ValueVerdict, Verdict

__all__ = ["SUFFIX", "printing_value", "read_printing", "reconcile"]

SUFFIX = ".printing"  # a printing's value is named after its hole: S.printing
_READ = "read; compared with the other printings of "


def read_printing(text: str, functions: Iterable[str] = ()) -> tuple[Any, Any]:
    """(left side, right side) of a printed definition ``lhs = rhs``; ValueError otherwise."""
    from verifiers.latex import LatexError, parse_latex, split_chains

    try:
        chains = split_chains(text)
    except LatexError as err:
        raise ValueError(str(err)) from None
    if len(chains) != 1 or len(chains[0]) != 3 or chains[0][1] != "=":
        raise ValueError("a printing is one definition `left = right`")
    try:
        lhs, rhs = (parse_latex(side, functions=tuple(functions)) for side in chains[0][0::2])
    except LatexError as err:
        raise ValueError(str(err)) from None
    return lhs, rhs


def _same(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
    import sympy

    a = _renamed(a, b)
    try:
        return (sympy.simplify(a[0].doit() - b[0].doit()) == 0
                and sympy.simplify(a[1].doit() - b[1].doit()) == 0)
    except (TypeError, ValueError, AttributeError, RecursionError):
        return False


def _renamed(a: tuple[Any, Any], b: tuple[Any, Any]) -> tuple[Any, Any]:
    """``a`` with its one free index renamed to ``b``'s (``k_{i} = x_{i} W_{K}`` read as
    ``k_{j} = x_{j} W_{K}``): a row definition printed for position i and again for j is one
    formula. Only when both left sides are one name with a one-letter index, of the same base,
    and the new index letter is not used in ``a`` already (no capture); else ``a`` itself."""
    import sympy

    names = [getattr(side[0], "name", "") for side in (a, b)]
    parts = [n.rpartition("_") for n in names]
    if not all(p[1] and len(p[2]) == 1 and p[2].isalpha() for p in parts) \
            or parts[0][0] != parts[1][0] or parts[0][2] == parts[1][2]:
        return a
    old, new = parts[0][2], parts[1][2]
    symbols = a[0].free_symbols | a[1].free_symbols
    if any(s.name.endswith("_" + new) for s in symbols):
        return a
    rename = {s: sympy.Symbol(s.name[:-1] + new, **s.assumptions0)
              for s in symbols if s.name.endswith("_" + old)}
    return a[0].xreplace(rename), a[1].xreplace(rename)


def printing_value(claim: Claim, hole: str, printed: Any, note: Any) -> ValueVerdict:
    """The claim's own value for a printing: read (verified until compared), or unparsed."""
    label = claim.printing[hole]
    status, message = VERIFIED, f"{hole}: {_READ}{label!r}"
    try:
        read_printing(printed.text, claim.functions)
    except ValueError as err:
        status, message = UNPARSED, f"{hole}: printing of {label!r} cannot be read: {err}"
    return ValueVerdict(name=hole + SUFFIX, printed=printed.text, expected=label, status=status,
                        start=note.position(printed.start), end=note.position(printed.end),
                        message=message, suggestion=None)


def reconcile(verdicts: list[Verdict], claims: Iterable[Claim]) -> list[Verdict]:
    """Compare the printings of each label (per note); a new list, inputs untouched."""
    by_id = {c.id: c for c in claims}
    groups: dict[tuple[str, str], list[tuple[int, ValueVerdict]]] = {}
    for k, v in enumerate(verdicts):
        claim = by_id.get(v.id)
        if claim is None or not claim.printing:
            continue
        for x in v.values:
            hole = x.name[:-len(SUFFIX)] if x.name.endswith(SUFFIX) else None
            if hole in claim.printing and x.status == VERIFIED and x.message.startswith(
                    f"{hole}: {_READ}"):
                groups.setdefault((v.note, claim.printing[hole]), []).append((k, x))
    if not groups:
        return verdicts
    out = list(verdicts)
    copied: set[int] = set()

    def own(k: int, name: str) -> ValueVerdict:
        if k not in copied:
            out[k] = copy.deepcopy(out[k])
            copied.add(k)
        return next(x for x in out[k].values if x.name == name)

    for (_, label), printings in sorted(groups.items()):
        printings.sort(key=lambda p: (p[1].start, verdicts[p[0]].id))
        _compare(label, printings, by_id, verdicts, own)
    from verifiers.verdicts import settle

    for k in copied:
        settle(out[k])
    return out


def _compare(label: str, printings: list[tuple[int, ValueVerdict]], by_id: dict[str, Claim],
             verdicts: list[Verdict], own: Any) -> None:
    if len(printings) == 1:
        k, x = printings[0]
        y = own(k, x.name)
        y.status = ERROR
        y.message = (f"{x.name[:-len(SUFFIX)]}: the only printing of {label!r}: "
                     "nothing to compare it with (name its other printings)")
        return
    read = [read_printing(x.printed, by_id[verdicts[k].id].functions) for k, x in printings]
    n = len(printings)
    agree = [[_same(read[a], read[b]) if a != b else True for b in range(n)] for a in range(n)]
    support = [sum(row) for row in agree]
    best = max(support)
    if 2 * best > n:
        ref = support.index(best)
        differs = [not agree[ref][k] for k in range(n)]
    else:
        differs = [not all(agree[k]) for k in range(n)]
    if not any(differs):
        return
    listing = ", ".join(f"{x.start[0]}:{x.start[1]}" + (" ✗" if differs[i] else "")
                        for i, (_, x) in enumerate(printings))
    majority = 2 * best > n
    for i, (k, x) in enumerate(printings):
        y = own(k, x.name)
        hole = x.name[:-len(SUFFIX)]
        if not differs[i]:
            y.message = f"{hole}: agrees with the majority of the printings of {label!r}: {listing}"
            continue
        y.status = DISCREPANCY
        y.expected = "the formula its other printings state"
        why = ("this printing differs from what the majority of its printings state"
               if majority else "its printings disagree with no majority, so any of them may "
               "be the edited one")
        y.message = (f"{hole}: {' '.join(x.printed.split())} — this formula ({label!r}) is "
                     f"printed {n} times and {why}: {listing}")
