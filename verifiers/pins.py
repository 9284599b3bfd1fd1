"""Pinned known discrepancies (``known:``): when a pin holds, shared by the engine and the
symbolic claims (so neither has to import the other)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifiers.verdicts import DISCREPANCY, ERROR, FIXED, KNOWN, VERIFIED

if TYPE_CHECKING:
    from verifiers.schema import Pin

__all__ = ["apply_pin", "same_text"]


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def apply_pin(pin: Pin, printed: str, suggestion: str | None, status: str, why: str
              ) -> tuple[str, str]:
    """A pin holds while the note prints ``pin.printed`` and the truth is ``pin.expected``.

    Anchoring both sides means an edit of the value *or of any input that
    feeds it* re-opens the verdict.
    """
    if pin.expected is None:
        return ERROR, f"the pin needs expected: {suggestion!r} (what the note should print)"
    if not same_text(pin.printed, printed):
        if status == VERIFIED:
            return FIXED, f"pinned {pin.printed!r} changed and now verifies: remove the pin"
        return status, why + f" (the pin for {pin.printed!r} no longer applies)"
    if status == VERIFIED:
        return FIXED, "pinned as known but it verifies: remove the pin"
    if not same_text(pin.expected, suggestion or ""):
        return DISCREPANCY, (f"{why}; the pin expected {pin.expected!r}, but the inputs "
                             "now give another value (was an input edited?)")
    return KNOWN, f"known: {pin.why}"
