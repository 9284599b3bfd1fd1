"""Directional derivatives ``d/dt f(x + t·dx)`` at ``t = 0``, without ``torch.func``.

Why not ``torch.func.jvp``: through a transposed matrix its dual tensors reach a
Python decomposition wrapped by ``torch._disable_dynamo``, whose first call imports
``torch._dynamo`` (about 1.3 CPU seconds, as much as a third of torch's own import) for
two tiny examples. Here ``t`` is one scalar leaf and each output's derivative with respect
to it is taken by ordinary autograd: the same derivative along ``dx``, computed along the
line rather than read from a gradient the examples compare it with.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

__all__ = ["directional"]


def directional(fn: Callable[[Tensor], Tensor | tuple[Tensor, ...]], x: Tensor,
                dx: Tensor) -> Tensor | tuple[Tensor, ...]:
    """The derivative of each output of ``fn`` at ``x`` along ``dx`` (outputs' shapes kept)."""
    t = torch.zeros((), dtype=x.dtype, requires_grad=True)
    out = fn(x + t * dx)
    outputs = out if isinstance(out, tuple) else (out,)
    slopes = []
    for y in outputs:
        flat = y.reshape(-1)
        entries = [torch.autograd.grad(flat[k], t, retain_graph=True, allow_unused=True)[0]
                   for k in range(flat.numel())] if y.requires_grad else []
        slopes.append(torch.stack([torch.zeros((), dtype=x.dtype) if e is None else e
                                   for e in entries]).reshape(y.shape) if entries
                      else torch.zeros_like(y))
    return tuple(slopes) if isinstance(out, tuple) else slopes[0]
