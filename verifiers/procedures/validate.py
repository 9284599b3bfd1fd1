"""Load-time problems of a procedure claim (light: the schema calls it for every claim)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifiers.yamlload import Node

if TYPE_CHECKING:
    from verifiers.schema import Claim

__all__ = ["procedure_problems"]

_FORBIDS = ("uses", "where", "check", "widen", "known", "run", "code", "iterate", "property",
            "params")


def procedure_problems(claim: Claim, node: Node) -> list[tuple[int, int, str]]:
    """(line, col, message) for each problem; sets ``claim.trace`` when it is valid."""
    value = node.value.get("trace")
    if claim.kind != "procedure":
        if value is not None:
            return [(value.line, value.col, "'trace' needs kind: procedure")]
        return []
    from verifiers.procedures.spec import parse_trace

    out: list[tuple[int, int, str]] = []
    for key in _FORBIDS:
        if key in node.value:
            line, col = node.keys[key]
            out.append((line, col, f"{key!r} does not apply to a procedure claim"))
    place = (claim.text_line or claim.line, 1)
    from verifiers.procedures.params import class_of

    steps = [h for h in claim.holes if h.word and not h.name.startswith("_")
             and class_of(h.name) is None]
    if any(not h.word for h in claim.holes):
        out.append((*place, "a procedure claim reads only word holes ⟦s1⟧ (and ⟦_1⟧ to "
                            "skip the rest of a line, ⟦order⟧ … for a step's parameter)"))
    if len(steps) < 2:
        out.append((*place, "a procedure claim reads at least two steps ⟦s1⟧ ⟦s2⟧"))
    first = next(iter(claim.holes), None)
    if first is not None and claim.text.lstrip().startswith(("⟦", "⟨", "⟪")):
        out.append((*place, "a quote cannot start with a hole: quote the text before it"))
    if first is not None and first.word and first.name.startswith("_"):
        out.append((*place, "a skip hole ⟦_…⟧ follows an operation word of its step"))
    if value is None:
        out.append((node.line, node.col, "missing key 'trace' (which tinygpt run the steps "
                                         "follow)"))
        return out
    spec, problems = parse_trace(value.plain())
    out += [(value.line, value.col, p) for p in problems]
    if spec is not None and not problems:
        claim.trace = value.plain()
    return out
