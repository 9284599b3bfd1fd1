"""The syntax a claim's text shares with every stage that reads it: hole names and
patterns (``⟨n[i,j]⟩``, ``⟪F⟫``, ``⟦w⟧``), :class:`HoleRef`, and the did-you-mean hint.

Below :mod:`verifiers.schema`, so the checkers whose rules the loader calls (property
slots, procedures) read holes without importing the loader back.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

NAME = r"[A-Za-z_\u0370-\u03ff][A-Za-z0-9_\u0370-\u03ff]*"
HOLE_RE = re.compile(
    r"⟨\s*(" + NAME + r")\s*(?:\[\s*(\d+)\s*(?:,\s*(\d+)\s*)?\])?\s*⟩"
    r"|⟪\s*(" + NAME + r")\s*⟫"  # a formula hole (symbolic claims): LaTeX up to the next text
    r"|⟦\s*(" + NAME + r")\s*⟧"  # a word hole (property claims): verifiers/words.py
)


@dataclass(frozen=True)
class HoleRef:
    """One ``⟨name[i,j]⟩`` in a claim's text; ``index`` is () for the whole value.

    ``formula`` marks a ``⟪name⟫`` hole, which binds LaTeX text, not a number; ``word`` a
    ``⟦name⟧`` hole, which binds a word of the law vocabulary (verifiers/words.py).
    """

    name: str
    index: tuple[int, ...]
    formula: bool = False
    word: bool = False

    @classmethod
    def from_match(cls, m: re.Match[str]) -> HoleRef:
        if m.group(4):
            return cls(m.group(4), (), True)
        if m.group(5):
            return cls(m.group(5), (), word=True)
        return cls(m.group(1), tuple(int(g) for g in m.groups()[1:3] if g is not None))

    @property
    def key(self) -> str:
        if not self.index:
            return self.name
        return f"{self.name}[{','.join(str(i) for i in self.index)}]"


def did_you_mean(word: str, options: tuple[str, ...] | list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def claim_checks(claim: object) -> bool:
    """Does the claim compare something with a computation (never ``kind: given``)? One rule
    for both coverages (:mod:`verifiers.coverage`) and for the readers of a token
    (:mod:`verifiers.readers`): a run alone checks nothing. Here, below the loader, so the
    engine's stage can use it too."""
    if getattr(claim, "domain", None) or getattr(claim, "convention", None):
        return True  # printed values checked against their domain or declared convention
    if getattr(claim, "kind", None) == "given":
        return False
    return bool(getattr(claim, "check", None)) or bool(getattr(claim, "states", None)) \
        or getattr(claim, "kind", None) in ("symbolic", "property", "procedure") \
        or bool(getattr(claim, "computes", None)) \
        or (getattr(claim, "code", None) is not None and getattr(claim, "run", None) is not None)
