"""The ``computes:`` entry of a claim, as loaded (:mod:`verifiers.formulas.inline` checks it).

Loading only: plain data and the entry's shape, no SymPy and no LaTeX reader, so that loading
claims and arithmetic runs stay light. A key of ``names`` is the note's LaTeX; whether the
reader reads it is found when the claim is checked (``unparsed`` there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SPEC_KEYS", "Computes", "bind", "parse"]

SPEC_KEYS = ("value", "names", "functions", "matrices", "shapes", "rounded")


@dataclass
class Computes:
    """One formula hole of a non-symbolic claim and what its sides must equal."""

    value: tuple[Any, int]  # (expression tree, YAML line)
    names: dict[str, tuple[Any, int]] = field(default_factory=dict)  # note LaTeX -> expression
    functions: tuple[str, ...] = ()
    line: int = 0
    matrices: tuple[str, ...] = ()  # names read as matrices: products keep their order
    shapes: bool = False  # names are bound to shapes [rows, cols], the value is a shape
    rounded: str = ""  # a value hole printed rounded: a side may differ by its half unit


def parse(node: Any, formulas: list[str], read_expr: Callable[[Any], Any],
          problem: Callable[[int, int, str], None]) -> dict[str, Computes]:
    """``computes:`` of a claim: ``{F: expr}`` or ``{F: {value, names, functions}}``."""
    out: dict[str, Computes] = {}
    if node is None:
        return out
    if not isinstance(node.value, dict):
        problem(node.line, node.col, "'computes' must be a mapping: formula hole -> value")
        return out
    for hole, spec in node.value.items():
        line, col = node.keys[hole]
        if hole not in formulas:
            problem(line, col, f"computes: {hole}: not a formula hole ⟪{hole}⟫ of the text")
            continue
        fields = spec.value if isinstance(spec.value, dict) else {"value": spec}
        unknown = sorted(set(fields) - set(SPEC_KEYS))
        if unknown or "value" not in fields:
            problem(spec.line, spec.col, f"computes: {hole}: give 'value' (and optionally "
                    f"'names', 'functions'); unknown: {', '.join(unknown) or 'none'}")
            continue
        try:
            item = Computes(_expression(fields["value"], read_expr), line=line)
            names = fields.get("names")
            if names is not None:
                if not isinstance(names.value, dict):
                    raise ValueError("'names' maps the note's symbols (LaTeX) to expressions")
                for key, value in names.value.items():
                    item.names[key] = _expression(value, read_expr)
            item.functions = _name_list(fields, "functions")
            item.matrices = _name_list(fields, "matrices")
            shapes = fields.get("shapes")
            if shapes is not None:
                if not isinstance(shapes.value, bool) or not item.matrices:
                    raise ValueError("'shapes' is true or false, with 'matrices'")
                item.shapes = shapes.value
            rounded = fields.get("rounded")
            if rounded is not None:
                if not isinstance(rounded.value, str) or item.matrices:
                    raise ValueError("'rounded' names one value hole (not with 'matrices')")
                item.rounded = rounded.value
        except ValueError as err:  # ExprError is a ValueError too
            problem(spec.line, spec.col, f"computes: {hole}: {getattr(err, 'message', err)}")
            continue
        out[hole] = item
    return out


def _expression(node: Any, read_expr: Callable[[Any], Any]) -> tuple[Any, int]:
    if isinstance(node.value, (bool, dict, list)) or node.value is None:
        raise ValueError("expected an expression")
    return read_expr(node), node.line


def bind(claim: Any, evaluate: Callable[[tuple[Any, int]], Any]) -> dict[str, Any]:
    """The values every ``computes:`` spec needs, evaluated in the claim's scope (the
    engine's exact values); an expression that fails raises as any check would."""
    out: dict[str, Any] = {}
    for hole, spec in claim.computes.items():
        out[hole] = (evaluate(spec.value), {k: evaluate(v) for k, v in spec.names.items()})
    return out


def _name_list(fields: dict, key: str) -> tuple[str, ...]:
    """``functions:`` / ``matrices:``: a list of names (none given: empty)."""
    node = fields.get(key)
    if node is None:
        return ()
    if not isinstance(node.value, list) or not all(isinstance(f.value, str) for f in node.value):
        raise ValueError(f"'{key}' is a list of names")
    return tuple(f.value for f in node.value)
