"""Judge each printed rule against autograd and against ``tinygpt/backward.py``.

A locator (``tinygpt/examples/backward_*.py``) builds one instance: ``env`` (every name the
rules use, upstream gradients from autograd), ``truth`` (autograd's value of each quantity a
rule gives) and ``code`` (what ``tinygpt/backward.py`` computes for it). Each rule, as read
from the note now, is evaluated and compared with both, so an edit of the printed rule fails
at that rule, and so does a change of the code that departs from the rule.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import torch
from torch import Tensor

from verifiers.backward.grammar import RuleError, evaluate
from verifiers.backward.rules import Rule, read_rules
from verifiers.programs.codehole import Finding

__all__ = ["TOL", "close", "judge_block"]

TOL = 1e-9  # relative: float64 products of a few small matrices agree to ~1e-15


def close(read: Any, truth: Tensor) -> tuple[bool, float]:
    """Equal within TOL (a number read against a tensor stands for all its entries)."""
    read = torch.as_tensor(read, dtype=truth.dtype)
    if read.numel() == 1 and truth.numel() != 1:
        read = read.reshape(()).expand(truth.shape)
    if read.numel() != truth.numel():
        return False, float("inf")
    a, b = read.reshape(-1), truth.reshape(-1)
    if b.numel() == 0:
        return True, 0.0
    diff = (a - b).abs().max().item()
    return diff <= TOL * max(1.0, b.abs().max().item()), diff


def _value(rule: Rule, side: str, env: Mapping[str, Any], truth: Tensor) -> Tensor:
    """A side's value: the whole formula, or, for an entry-wise rule, every entry."""
    if not rule.indices:
        value = evaluate(side, env)
        return torch.as_tensor(env[rule.then](value) if rule.then else value, dtype=truth.dtype)
    shape = tuple(truth.shape)
    row = len(shape) == 2 and shape[0] == 1 and len(rule.indices) == 1
    sizes = shape[1:] if row else shape
    if len(sizes) != len(rule.indices):
        raise RuleError(f"{len(rule.indices)} indices for a value of shape {shape}")
    out = torch.zeros(sizes, dtype=truth.dtype)
    for at in itertools.product(*(range(n) for n in sizes)):
        out[at] = float(evaluate(side, env, dict(zip(rule.indices, at, strict=True))))
    return out.reshape(shape)


def judge_block(block: str, env: Mapping[str, Any], truth: Mapping[str, Tensor],
                code: Mapping[str, Tensor], *, seed: int, aliases: Mapping[str, str] | None = None,
                anchors: Sequence[tuple[str, ...]] = (), autograd_only: Collection[str] = (),
                required: Collection[str] = ()) -> list[Finding]:
    """Findings for every rule of ``block`` and for every required rule it does not print."""
    out: list[Finding] = []
    seen: set[str] = set()
    for rule in read_rules(block, set(truth), aliases=aliases, anchors=anchors):
        seen.add(rule.key)
        out.append(_judge(rule, env, truth, code, seed, rule.key in autograd_only))
    first = block.splitlines()[0] if block else ""
    for missing in sorted(set(required) - seen):
        out.append(Finding(1, 0, len(first), "error", f"rule {missing}", "", "",
                           f"tinygpt/backward.py computes {missing} but the block prints no "
                           "rule for it (or none this reader can find)"))
    return out


def _judge(rule: Rule, env: Mapping[str, Any], truth: Mapping[str, Tensor],
           code: Mapping[str, Tensor], seed: int, autograd_only: bool) -> Finding:
    def at(status: str, expected: str, message: str) -> Finding:
        name = f"rule {rule.text}" if rule.sides != (rule.text,) else \
            f"rule {rule.key} = {rule.text}"  # an anchored formula: name its quantity
        return Finding(rule.line, rule.col, rule.end_col, status, name,
                       rule.text, expected, message)

    want = truth[rule.key]
    if rule.key not in code and not autograd_only:
        return at("error", "", f"{rule.key}: tinygpt/backward.py computes no such gradient")
    if not rule.sides:
        return at("error", "", "the rule has no side to evaluate")
    read: Tensor | None = None
    for side in rule.sides:
        try:
            value = _value(rule, side, env, want)
        except (RuleError, IndexError) as err:
            return at("unparsed", "", f"the rule as printed cannot be evaluated ({side}): {err}")
        right, diff = close(value, want)
        if value.numel() not in (1, want.numel()):
            return at("discrepancy", "autograd", f"{side} as printed has shape "
                      f"{tuple(value.shape)}, autograd's {rule.key} {tuple(want.shape)}")
        if not right:
            return at("discrepancy", "autograd", f"{side} as printed gives another value than "
                      f"the reference (autograd; max |difference| {diff:.3g}) on the fixed "
                      f"instance (seed {seed})")
        read = value if read is None else read
    if autograd_only:
        return at("verified", rule.text, f"as printed = the reference (seed {seed}: autograd, or "
                  "the instance's forward for a definition); tinygpt/backward.py has no "
                  "separate value for it")
    same, diff = close(read, code[rule.key])
    if not same:
        return at("discrepancy", "the rule as printed", "tinygpt/backward.py computes another "
                  f"value than the rule as printed (max |difference| {diff:.3g})")
    return at("verified", rule.text, "as printed = tinygpt/backward.py = autograd "
              f"(seed {seed}, max |difference| {diff:.1g})")
