r"""Find the printed rules of a block: display lines and inline ``$…$`` formulas.

A rule is an equation whose first side names a gradient (``\bar{V}``, ``{\bar{S}}_{i j}``,
``\frac{\partial L}{\partial ℓ_{j}}``, ``\partial L/\partial z``), a name the locator says
stands for one (``g`` for ∂L/∂z), or a quantity the locator checks (a definition ``s = …``, a
differential ``d v = …``). The other sides are the formulas to evaluate. Where the note names
the quantity in words ("它等于 $gW_U^\top$"), the locator gives an anchor: a pattern whose
group ``f`` is the formula, the key it is compared with, and optionally the name of a function
of the environment that does what the words say with it ("把 $GW_U^\top$ 的第 $b$ 行加到第
$i_b$ 行上": add row b to row i_b). Equations with any other first
side (forward definitions, Jacobians) are not rules here.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from verifiers.backward.grammar import RuleError, Tok, name_key, split_top, tokens

__all__ = ["Rule", "lhs_key", "read_rules"]

_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_INLINE = re.compile(r"\$([^$]+)\$")


@dataclass(frozen=True)
class Rule:
    """One printed rule: where it is (1-based line, 0-based columns of the block) and what."""

    line: int
    col: int
    end_col: int
    text: str
    key: str  # the quantity it gives (``Vbar``, ``Sbar``, ``dv``)
    indices: tuple[str, ...]  # free indices of an entry-wise rule (``i``, ``j``)
    sides: tuple[str, ...]  # the LaTeX of each side to evaluate
    then: str | None = None  # what the words around it do with it (a function of the env)


def _pieces(line: str) -> list[tuple[int, str]]:
    """(column, text) of each equation candidate of a line: its inline formulas, or, for a
    display line, its comma-separated parts."""
    if "$" in line:
        spans = [(m.start(1), m.group(1)) for m in _INLINE.finditer(line)]
    elif _CJK.search(line):
        return []
    else:
        spans = [(0, line)]
    out = []
    for col, text in spans:
        for a, b in split_top(text, ","):
            piece = text[a:b]
            stripped = piece.strip().rstrip(".").rstrip()
            if stripped:
                out.append((col + a + len(piece) - len(piece.lstrip()), stripped))
    return out


def lhs_key(side: str, known: Collection[str], aliases: Mapping[str, str]
            ) -> tuple[str, tuple[str, ...]] | None:
    """The key and free indices a first side names, or None when it names no rule."""
    try:
        toks = tokens(side)
    except RuleError:
        return None
    grad = _gradient_name(toks)
    if grad is not None:
        key = name_key(grad)
        if key in known:
            return key, ()
        base = name_key(grad, with_sub=False)
        if grad.sub is None or base not in known:
            return None  # the gradient of something this block's instance does not have
        idx = grad.sub.split() if " " in grad.sub else list(grad.sub)
        return base, tuple(idx)
    if len(toks) == 1 and toks[0].kind == "name":
        key = name_key(toks[0])
        if key in aliases:
            return aliases[key], ()
        if key in known:
            return key, ()
    if [t.kind for t in toks] == ["name", "name"] and toks[0].text == "d" and not toks[0].sub:
        key = "d" + name_key(toks[1])
        if key in known:
            return key, ()
    return None


def _gradient_name(toks: Sequence[Tok]) -> Tok | None:
    """The barred name of ``\\bar{X}``, ``\\partial L/\\partial X``, ``\\frac{\\partial L}{…}``."""
    if len(toks) == 1 and toks[0].kind == "name" and toks[0].bar:
        return toks[0]
    kinds = [(t.kind, t.text) for t in toks]
    slash = [("partial", ""), ("name", "L"), ("op", "/"), ("partial", "")]
    frac = [("frac", ""), ("partial", ""), ("name", "L"), ("op", "}"), ("op", "{"),
            ("partial", "")]
    for head, tail in ((slash, 0), (frac, 1)):
        n = len(head)
        if kinds[:n] == head and len(toks) == n + 1 + tail and toks[n].kind == "name" \
                and not toks[2].sub and (not tail or kinds[-1] == ("op", "}")):
            var = toks[n]
            return Tok("name", var.text, var.sub, True, var.hat)
    return None


def read_rules(block: str, known: Collection[str], *, aliases: Mapping[str, str] | None = None,
               anchors: Sequence[tuple[str, ...]] = ()) -> list[Rule]:
    """Every rule of ``block`` (see the module docstring), in reading order."""
    aliases = aliases or {}
    out: list[Rule] = []
    lines = block.splitlines()
    for n, line in enumerate(lines, start=1):
        for col, text in _pieces(line):
            sides = [text[a:b] for a, b in split_top(text, "=")]
            if len(sides) < 2:
                continue
            head = lhs_key(sides[0], known, aliases)
            if head is None:
                continue
            rest = tuple(s.strip() for s in sides[1:]
                         if lhs_key(s, known, aliases) != head)
            if not rest:
                continue  # notation: \bar{Z} = \partial L / \partial Z names, states nothing
            out.append(Rule(n, col, col + len(text), text, head[0], head[1], rest))
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for pattern, key, *then in anchors:
        for m in re.finditer(pattern, block):
            n = max(k for k, s in enumerate(starts) if s <= m.start("f")) + 1
            col = m.start("f") - starts[n - 1]
            text = m.group("f").strip()
            out.append(Rule(n, col, col + len(m.group("f")), text, key, (), (text,),
                            then[0] if then else None))
    out.sort(key=lambda r: (r.line, r.col))
    return out
