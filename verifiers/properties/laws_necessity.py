"""Laws of necessity sentences (specs: :mod:`.specs_necessity`; laws7, issue 12 item 3).

- ``kv-may-differ`` — ``tinygpt.attention`` with values V unlike the keys K (another width
  d_v, other entries): the weights A = softmax(Q Kᵀ / √d_k) have rows summing to 1 and the
  output is A V, n x d_v. The note says K and V need not coincide (不必要求 … 完全一致); a
  sentence that says they must (必须) is searched as the opposite and fails on the first
  pair that works apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import torch
from hypothesis import strategies as st

from tinygpt.model import attention
from verifiers.properties.base import Law, fail, law
from verifiers.properties.strategies import F64, matrices, show


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor
           ) -> tuple[torch.Tensor, torch.Tensor]:
    """tinygpt.attention without a mask: (Z, A)."""
    with torch.no_grad():
        return attention(q, k, v)


@law("kv-may-differ")
def _kv_may_differ(p: Mapping[str, Any]) -> Law:
    @st.composite
    def draw(d: st.DrawFn) -> Any:
        n, m = d(st.integers(1, p["max_len"])), d(st.integers(1, p["max_len"]))
        dk = d(st.integers(1, 3))
        dv = d(st.integers(1, 3).filter(lambda w: w != dk))
        return (d(matrices(n, dk, 3.0)), d(matrices(m, dk, 3.0)), d(matrices(m, dv, 3.0)))

    def check(example: Any, f: Callable[..., tuple[torch.Tensor, torch.Tensor]]) -> None:
        q, k, v = (torch.tensor(x, dtype=F64) for x in example)
        z, a = f(q, k, v)
        want = a @ v
        if tuple(z.shape) != tuple(want.shape) or not torch.allclose(z, want, atol=1e-12) \
                or not torch.allclose(a.sum(dim=-1), torch.ones(a.shape[0], dtype=F64)):
            fail(f"Q = {show(q)}, K = {show(k)}, V = {show(v)} (d_k {k.shape[1]}, d_v "
                 f"{v.shape[1]}): attention gives Z = {show(z)}, not A V = {show(want)}")
    return Law(draw(), check, {"tinygpt.attention": attend})
