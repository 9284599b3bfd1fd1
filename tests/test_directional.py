"""tinygpt.directional: d/dt f(x + t·dx) at 0, the derivative the 15.3/15.5 examples use
for "d L = Σ X̄ dX" and LayerNorm's dμ, dv, ds (instead of torch.func.jvp)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tinygpt.directional import directional

F64 = torch.float64
ROOT = Path(__file__).resolve().parent.parent


def test_matches_the_analytic_derivative_and_catches_a_wrong_one() -> None:
    x = torch.tensor([0.3, -1.2, 2.0], dtype=F64)
    dx = torch.tensor([1.0, 0.5, -2.0], dtype=F64)
    got = directional(lambda t: (t ** 3).sum(), x, dx)
    assert float(got) == pytest.approx(float((3 * x ** 2 * dx).sum()), rel=1e-14)
    # a planted error: the derivative along another direction is not this one
    assert float(got) != pytest.approx(float((3 * x ** 2 * dx.flip(0)).sum()), rel=1e-6)


def test_several_outputs_keep_their_shapes_and_agree_with_torch_func() -> None:
    gen = torch.Generator().manual_seed(5)
    x, dx = (torch.randn(4, generator=gen, dtype=F64) for _ in range(2))

    def stats(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        m = t.mean()
        return m, ((t - m) ** 2).mean(), torch.softmax(t, 0)

    got = directional(stats, x, dx)
    _, want = torch.func.jvp(stats, (x,), (dx,))
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w, rtol=1e-12, atol=1e-14)
    unused = directional(lambda t: torch.ones(2, dtype=F64), x, dx)
    assert torch.equal(unused, torch.zeros(2, dtype=F64))


def test_no_dynamo_import_through_a_transpose() -> None:
    """What it is for: torch.func.jvp through ``K.T`` imports torch._dynamo (1.3 CPU s). Run
    in a fresh interpreter: another test of this process may have imported it already."""
    probe = ("import sys, torch\n"
             "from tinygpt.directional import directional\n"
             "x = torch.ones(3, 2, dtype=torch.float64)\n"
             "directional(lambda t: (t @ t.T).sum(), x, torch.ones(3, 2, dtype=torch.float64))\n"
             "print('torch._dynamo' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"
