"""tinygpt's per-content caches (RoPE angles, the hidden part of a causal mask) return what a
fresh computation returns, bit for bit, and never a stale entry for other inputs."""

from __future__ import annotations

import math

import pytest
import torch

import tinygpt.model as M


def _fresh_angles(positions: list[float], d: int, base: float) -> tuple[torch.Tensor, ...]:
    omega = base ** (-torch.arange(0, d, 2, dtype=M.DTYPE) / d)
    theta = torch.as_tensor(positions, dtype=M.DTYPE)[:, None] * omega
    return torch.cos(theta), torch.sin(theta)


@pytest.mark.parametrize("positions,d,base", [
    ([0, 1, 2], 4, 10000.0), ([0, 1, 2], 8, 10000.0), ([0, 1, 2], 4, 100.0),
    ([3, 4, 5], 4, 10000.0), ([0.5, 1.5], 4, 10000.0), ([-0.0, 1.0], 4, 10000.0),
])
def test_rope_angles_equal_a_fresh_computation(positions: list[float], d: int,
                                               base: float) -> None:
    M._ANGLES.clear()
    for _ in range(2):  # a miss, then a hit
        got = M._rope_angles(torch.as_tensor(positions, dtype=M.DTYPE), d, base)
        for a, b in zip(got, _fresh_angles(positions, d, base), strict=True):
            assert torch.equal(a, b) and torch.equal(torch.signbit(a), torch.signbit(b))


def test_rope_angles_are_keyed_by_every_input() -> None:
    """A cache keyed on too little (the length of the positions, d only) would hand the
    angles of [0, 1] to [2, 3], of base 10000 to base 100, or of +0.0 to -0.0 (sin(-0.0)
    is -0.0: the bits differ)."""
    M._ANGLES.clear()
    first = M._rope_angles(torch.tensor([0.0, 1.0], dtype=M.DTYPE), 4, 10000.0)
    moved = M._rope_angles(torch.tensor([2.0, 3.0], dtype=M.DTYPE), 4, 10000.0)
    other_base = M._rope_angles(torch.tensor([0.0, 1.0], dtype=M.DTYPE), 4, 100.0)
    negative_zero = M._rope_angles(torch.tensor([-0.0, 1.0], dtype=M.DTYPE), 4, 10000.0)
    assert not torch.equal(first[1], moved[1])
    assert not torch.equal(first[1], other_base[1])
    assert torch.signbit(negative_zero[1][0, 0]) and not torch.signbit(first[1][0, 0])
    assert len(M._ANGLES) == 4


def test_rope_through_the_cache_is_the_rotation() -> None:
    """rope(x, [m]) rotates each pair by m·base^(-2i/d), on a hit as on a miss."""
    x = torch.tensor([[1.0, 0.0, 0.0, 1.0]], dtype=M.DTYPE)
    for _ in range(2):
        out = M.rope(x, [2])
        w1 = 2 * 10000.0 ** (-2 / 4)
        assert out[0, 0].item() == pytest.approx(math.cos(2.0))
        assert out[0, 1].item() == pytest.approx(math.sin(2.0))
        assert out[0, 2].item() == pytest.approx(-math.sin(w1))
        assert out[0, 3].item() == pytest.approx(math.cos(w1))


def test_positions_with_a_gradient_are_not_cached() -> None:
    M._ANGLES.clear()
    positions = torch.tensor([0.0, 1.0], dtype=M.DTYPE, requires_grad=True)
    cos, _ = M._rope_angles(positions, 4, 10000.0)
    assert cos.requires_grad and not M._ANGLES


def test_hidden_follows_the_causal_mask_in_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cached ~mask is per shape and per causal_mask function: a mutant mask installed
    after the real one was cached is the one attention uses."""
    M._HIDDEN.clear()
    assert torch.equal(M._hidden(3, 3), ~M.causal_mask(3, 3))
    assert torch.equal(M._hidden(2, 4), ~M.causal_mask(2, 4))
    monkeypatch.setattr(M, "causal_mask", lambda n_q, n_k: torch.ones(n_q, n_k, dtype=torch.bool))
    assert not M._hidden(3, 3).any()
    q = k = v = torch.eye(3, dtype=M.DTYPE)
    _, weights = M.attention(q, k, v, causal=True)
    assert (weights[0, 1:] > 0).all()  # the mutant lets position 0 read the future
