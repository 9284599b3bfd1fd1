"""What the meaning detectors find: one formula, statement or procedure of a note, with its span."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Item"]


@dataclass(frozen=True)
class Item:
    """A found formula, law-stating sentence or procedure; ``start``/``end`` index ``Note.text``."""

    kind: str  # "formula", "statement" or "procedure"
    text: str
    start: int
    end: int
