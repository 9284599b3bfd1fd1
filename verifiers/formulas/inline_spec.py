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

SPEC_KEYS = ("value", "names", "functions", "matrices", "shapes", "rounded", "through")


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
    # ``through: S4``: one formula printed around value holes, ``⟪S⟫⟨k⟩⟪S2⟫⟨base⟩…⟪S4⟫``, read
    # from this hole's start to S4's end; the holes after this one up to S4 are its pieces
    through: str = ""
    piece_of: str = ""  # a piece of the formula that hole reads (checked there, not alone)


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
            through = fields.get("through")
            if through is not None:
                item.through = _piece_range(hole, through, formulas)
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
    for hole, item in list(out.items()):
        if item.through:
            for piece in formulas[formulas.index(hole) + 1:formulas.index(item.through) + 1]:
                if piece in out:
                    problem(item.line, 1, f"computes: {piece}: a piece of {hole}'s formula "
                            f"(through: {item.through}) has no entry of its own")
                out[piece] = Computes(item.value, line=item.line, piece_of=hole)
    return out


def _piece_range(hole: str, through: Any, formulas: list[str]) -> str:
    """``through:``'s formula hole, which must come after ``hole`` in the text."""
    name = through.value
    if not isinstance(name, str) or name not in formulas \
            or formulas.index(name) <= formulas.index(hole):
        raise ValueError("'through' names a formula hole after this one in the text")
    return name


def _expression(node: Any, read_expr: Callable[[Any], Any]) -> tuple[Any, int]:
    if isinstance(node.value, (bool, dict, list)) or node.value is None:
        raise ValueError("expected an expression")
    return read_expr(node), node.line


def bind(claim: Any, evaluate: Callable[[tuple[Any, int]], Any]) -> dict[str, Any]:
    """The values every ``computes:`` spec needs, evaluated in the claim's scope (the
    engine's exact values); an expression that fails raises as any check would."""
    out: dict[str, Any] = {}
    for hole, spec in claim.computes.items():
        if spec.piece_of:
            continue
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
