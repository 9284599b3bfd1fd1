"""A claim inference proposes: holes on printed values and checks over them.

Plain data shared by the pattern families (which propose), the quote builder
(which makes the quote unique) and the evaluator (which keeps only what the
engine verifies, or pins what it cannot).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from verifiers.infer.tokens import Token

__all__ = ["Candidate", "Check"]


@dataclass(frozen=True)
class Check:
    """``hole = expression``; ``unambiguous`` when a wrong value may be pinned, not dropped.

    Unambiguous means: an explicit ``=`` (not ``≈``) between an operation and a lone
    result, both on one line, the result not followed by a word (``12 个参数``).
    """

    hole: str
    expr: str
    unambiguous: bool


@dataclass
class Candidate:
    family: str  # "chain", "aggregate", "percent"
    says: str
    holes: dict[str, Token] = field(default_factory=dict)  # name -> the printed value
    checks: list[Check] = field(default_factory=list)
    uses: dict[str, Token] = field(default_factory=dict)  # local name -> a defined value
    extra: list[str] = field(default_factory=list)  # YAML lines before check: (kind, code, run)
    formulas: dict[str, tuple[int, int]] = field(default_factory=dict)  # ⟪F⟫ -> span (computes)
    words: dict[str, tuple[int, int]] = field(default_factory=dict)  # ⟦w⟧ -> span (states)
    group: str = ""  # candidates of one group are alternatives: the first kept wins

    def used_names(self) -> dict[str, Token]:
        """Defined values (``x = (2, 1)`` earlier in the section) a check (or a ``computes:``
        line of ``extra``) reads."""
        return {n: t for n, t in self.uses.items()
                if any(_mentions(c.expr, n) for c in self.checks)
                or any(_mentions(line, n) for line in self.extra)}

    def used(self) -> dict[str, Token]:
        """Holes a check reads or checks (others are not written into the quote)."""
        if self.formulas or self.words:  # computes: / states: read every hole it has
            return dict(self.holes)
        names = {c.hole for c in self.checks}
        for c in self.checks:
            names.update(n.split("[")[0] for n in self.holes
                         if _mentions(c.expr, n.split("[")[0]))
        return {n: t for n, t in self.holes.items() if n.split("[")[0] in names}

    def parts(self, hole: str) -> list[Token]:
        """The tokens of hole ``hole``: itself, or its parts (``g[0,1]``, table cells)."""
        if hole in self.holes:
            return [self.holes[hole]]
        return [t for n, t in self.holes.items() if n.split("[")[0] == hole]


def _mentions(expr: str, name: str) -> bool:
    import re

    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", expr) is not None
