r"""architecture-and-training 15.3: the printed backward rules, read from the note, vs the code.

A code hole (``code: {from: "对输出", to: "\bar{X} = \bar{R}", as: rules}``) hands this locator
the block of 15.3 as the note prints it now. Every matrix rule in it (``\bar{U} = h^{T} \bar{ℓ}``,
``{\bar{W}}_{O} = Z^{T} \bar{R}``, …, ``\bar{X} = \bar{R} + …``) is read by
:mod:`verifiers.backward_rules` and evaluated on a fixed random instance, its upstream
gradients taken from torch autograd. Each rule is then compared with autograd's gradient of
its left side (is the printed rule right?) and with what ``tinygpt/backward.py`` computes
for it (does the code implement the rule as printed?). An edited rule fails at that rule;
a rule the code computes but the note no longer prints fails at the block's first line.
The entry-wise softmax rule ``{\bar{S}}_{i j} = …`` (a sum over J_i) is outside the reader's
subset: aat-15-3-softmax-rows checks it.
"""

from __future__ import annotations

import torch
from torch import Tensor

from tinygpt import backward as bw
from tinygpt.examples import example
from verifiers.backward_rules import Rule, RuleError, evaluate, read_rules
from verifiers.programs.codehole import Finding, locator

DTYPE = torch.float64
SEED = 1530
TOL = 1e-9  # relative: float64 products of a few small matrices agree to ~1e-15


def _instance() -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """(names as the rules write them -> values, code output name -> backward.py value)."""
    gen = torch.Generator().manual_seed(SEED)

    def rand(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=gen, dtype=DTYPE)

    n, d, d_k, d_v, vocab = 3, 4, 2, 3, 5
    X, W_Q, W_K, W_V, W_O, R_bar = rand(n, d), rand(d, d_k), rand(d, d_k), rand(d, d_v), \
        rand(d_v, d), rand(n, d)
    h, U, b, ell_bar = rand(1, d), rand(d, vocab), rand(vocab), rand(1, vocab)
    allowed = bw.causal_allowed(n)
    leaves = {"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V, "W_O": W_O, "h": h, "U": U, "b": b}
    grad = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    fw = bw.attention_module_forward(grad["X"], grad["W_Q"], grad["W_K"], grad["W_V"],
                                     grad["W_O"], allowed)
    ell = grad["h"] @ grad["U"] + grad["b"]
    loss = (fw["R"] * R_bar).sum() + (ell * ell_bar).sum()
    inner = ["Q", "K", "V", "S", "A", "Z"]
    grads = torch.autograd.grad(loss, [fw[k] for k in inner] + list(grad.values()))
    env: dict[str, Tensor] = {k: v.detach() for k, v in fw.items()}
    env.update(leaves)
    env.update({"ℓ": ell.detach(), "d_k": torch.tensor(float(d_k), dtype=DTYPE),
                "Rbar": R_bar, "ℓbar": ell_bar})
    for k, g in zip([*inner, *grad], grads, strict=True):
        env[_bar(k)] = g
    code = {_bar(k): v for k, v in bw.attention_module_backward(
        X, W_Q, W_K, W_V, W_O, R_bar, allowed).items()}
    code.update({_bar(k): v for k, v in bw.output_layer_backward(h, U, ell_bar).items()})
    return env, code


def _bar(name: str) -> str:
    """The reader's name of a gradient: ``W_O`` -> ``W_Obar`` (verifiers.backward_rules)."""
    return name + "bar"


def _close(a: Tensor, b: Tensor) -> tuple[bool, float]:
    if a.numel() != b.numel():
        return False, float("inf")
    a, b = a.reshape(-1), b.reshape(-1)
    diff = (a - b).abs().max().item()
    return diff <= TOL * max(1.0, b.abs().max().item()), diff


@example("aat_15_3_rules_read")
def rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from the block (the locator judges each)."""
    return {"rules": torch.tensor(float(sum(isinstance(r, Rule) for r in read_rules(rules))),
                                  dtype=DTYPE)}


@locator("aat_15_3_rules_read")
def rules_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each printed rule: as read, against autograd and against tinygpt/backward.py."""
    env, code = _instance()
    out: list[Finding] = []
    seen: set[str] = set()
    for rule in read_rules(block):
        if not isinstance(rule, Rule):
            continue  # outside the subset (the entry-wise softmax rule): checked elsewhere
        name = f"rule {rule.text}"

        def at(status: str, expected: str, message: str, _r: Rule = rule, _n: str = name) -> None:
            out.append(Finding(_r.line, _r.col, _r.end_col, status, _n, _r.text, expected,
                               message))

        seen.add(rule.lhs)
        truth = env.get(rule.lhs)
        if truth is None or rule.lhs not in code:
            at("error", "", f"{rule.lhs}: no gradient of that name in this instance")
            continue
        try:
            read = evaluate(rule.rhs, env)
        except RuleError as err:
            at("unparsed", "", f"the rule as printed cannot be evaluated: {err}")
            continue
        right, diff = _close(read, truth)
        if not right:
            at("discrepancy", "autograd", f"the rule as printed gives another gradient than "
               f"autograd (max |difference| {diff:.3g}) on the fixed instance (seed {SEED})")
            continue
        same, diff = _close(code[rule.lhs], read)
        if not same:
            at("discrepancy", "the rule as printed", "tinygpt/backward.py computes another "
               f"value than the rule as printed (max |difference| {diff:.3g})")
            continue
        at("verified", rule.text, "as printed = tinygpt/backward.py = autograd "
           f"(seed {SEED}, max |difference| {diff:.1g})")
    first = block.splitlines()[0] if block else ""
    for missing in sorted(set(code) - seen - {"Sbar"}):  # Sbar: the entry-wise rule
        out.append(Finding(1, 0, len(first), "error", f"rule {missing}", "", "",
                           f"tinygpt/backward.py computes {missing} but the block prints no "
                           "rule for it"))
    return out
