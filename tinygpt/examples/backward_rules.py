r"""architecture-and-training 15.3: the printed backward rules, read from the note, vs the code.

A code hole (``code: {from: "用上横线表示", to: "这些式子针对本节", as: rules}``) hands this
locator the block of 15.3 as the note prints it now. The bar's definition
``d L = \sum_{i r} {\bar{X}}_{i r} d X_{i r}`` (along a random dX: d/dt L(X + t dX), by autograd)
and every rule in it (``\bar{U} = h^{T} \bar{ℓ}``,
``{\bar{W}}_{O} = Z^{T} \bar{R}``, …, the entry-wise softmax rule ``{\bar{S}}_{i j} = a_{i j}
(… - \sum_{r \in J_{i}} …)``, ``\bar{X} = \bar{R} + …``) and the printed gradient at forbidden
scores ("被禁止位置梯度为0") is read by :mod:`verifiers.backward` and evaluated on a fixed
random instance, its upstream gradients taken from torch autograd. Each rule is compared with
autograd's gradient of its left side (is the printed rule right?) and with what
``tinygpt/backward.py`` computes for it (does the code implement the rule as printed?). An
edited rule fails at that rule; a rule the code computes but the note no longer prints fails
at the block's first line.
"""

from __future__ import annotations

import torch
from torch import Tensor

from tinygpt import backward as bw
from tinygpt.directional import directional
from tinygpt.examples import example
from verifiers.backward.judge import judge_block
from verifiers.backward.rules import read_rules
from verifiers.programs.codehole import Finding, locator

DTYPE = torch.float64
SEED = 1530
#: "被禁止位置梯度为0": the printed gradient at a masked score (every such entry)
ANCHORS = ((r"被禁止位置梯度为(?P<f>[-\d.]+)", "Sbar_forbidden"),)


def _instance() -> tuple[dict[str, object], dict[str, Tensor], dict[str, Tensor]]:
    """(names as the rules write them, autograd's value of each rule's key, backward.py's)."""
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
    env: dict[str, object] = {k: v.detach() for k, v in fw.items()}
    env.update(leaves)
    env.update({"ℓ": ell.detach(), "d_k": torch.tensor(float(d_k), dtype=DTYPE),
                "Rbar": R_bar, "ℓbar": ell_bar, "J": allowed})
    truth: dict[str, Tensor] = {}
    for k, g in zip([*inner, *grad], grads, strict=True):
        env[k + "bar"] = truth[k + "bar"] = g
    truth["Sbar_forbidden"] = truth["Sbar"][~allowed]
    # "d L = Σ X̄_ir dX_ir" (the definition of the bar): L's change along a random dX, by
    # autograd along the line X + t·dX (tinygpt.directional), with everything but X held
    dX = rand(n, d)
    truth["dL"] = directional(
        lambda x: (bw.attention_module_forward(x, W_Q, W_K, W_V, W_O, allowed)["R"]
                   * R_bar).sum(), X, dX)
    env["dX"] = dX
    code = {k + "bar": v for k, v in bw.attention_module_backward(
        X, W_Q, W_K, W_V, W_O, R_bar, allowed).items()}
    code.update({k + "bar": v for k, v in bw.output_layer_backward(h, U, ell_bar).items()})
    code["Sbar_forbidden"] = code["Sbar"][~allowed]
    return env, truth, code


@example("aat_15_3_rules_read")
def rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from the block (the locator judges each)."""
    _, truth, _ = _instance()
    return {"rules": torch.tensor(float(len(read_rules(rules, set(truth), anchors=ANCHORS))),
                                  dtype=DTYPE)}


@locator("aat_15_3_rules_read")
def rules_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each printed rule: as read, against autograd and against tinygpt/backward.py."""
    env, truth, code = _instance()
    return judge_block(block, env, truth, code, seed=SEED, anchors=ANCHORS,
                       required={*code, "dL"}, autograd_only={"dL"})
