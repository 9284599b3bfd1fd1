"""Worked examples of the notes, as configurations of tinygpt.

Each example is a function registered under a name that model claims use
(``run: {example: NAME, inputs: {...}, outputs: [...]}``). It takes float64
tensors as keyword arguments (values the claim read out of the note) and
returns a dict of named results. Examples hold no numbers of their own: every
input comes from the note through the claim.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

Example = Callable[..., dict[str, torch.Tensor]]
EXAMPLES: dict[str, Example] = {}


def example(name: str) -> Callable[[Example], Example]:
    """Register a worked example under ``name``."""

    def register(fn: Example) -> Example:
        if name in EXAMPLES:
            raise ValueError(f"example {name!r} registered twice")
        EXAMPLES[name] = fn
        return fn

    return register


def load_all() -> dict[str, Example]:
    """Import every example module (they register themselves) and return the registry."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{module.name}")
    return EXAMPLES
