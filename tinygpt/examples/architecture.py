"""Worked examples of notes/architecture-and-training.txt run on tinygpt.

* ``aat_ch13`` -- the two-position, 24-parameter teaching model of chapter 13 (13.2-13.11) and
  every gradient that 13.6-13.10 and 15.4 print, plus the joint SGD step of 13.10 and the
  re-run of 13.11.
* ``aat_ch13_gradcheck`` -- the check 13.11/15.4 describe: the analytic gradients against
  float64 central differences with the note's ε, largest absolute difference.
* ``aat_5_5`` -- one query reading three keys and values (5.5): scaled scores, softmax, z.
* ``aat_15_8`` -- the two learned projections of 15.8: bilinear matching vs the plain dot product.

Every number comes in through the claim (the note's own printed matrices, learning rate, ε);
only the *positions* of tokens in E (A, B, C = rows 0, 1, 2 in the 13.1 table's order) are
structural and given by the claim as indices.

Chapter 13's model is ``TinyGPT`` with one layer, one head, d_model = 2, d_k = 1, d_v = 2, no
positions, no LayerNorm, no FFN, no output bias, untied ``U`` (13.1-13.2): its block is
exactly ``R = X + A V W_O`` with a causal softmax. The example runs that model through
``torch.func.functional_call`` with the note's tensors as its parameters, so every output stays
a differentiable function of the inputs (the engine's local mode takes Jacobians through it).
The intermediates the note names (scores, ratios, their gradients) are not parameters, so the
example also writes the forward out step by step with tinygpt's own functions (``causal_mask``,
``softmax``, ``attention``) and refuses to answer if the two forwards disagree.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from tinygpt import model as tg
from tinygpt.backward import small_model_grads
from tinygpt.examples import example

F64 = torch.float64
PARAMS = ("E", "W_Q", "W_K", "W_V", "W_O", "U")
# names of the ch. 13 parameters inside TinyGPT (one layer, one head)
TINYGPT_NAMES = {"E": "E", "W_Q": "blocks.0.W_Q.0", "W_K": "blocks.0.W_K.0",
                 "W_V": "blocks.0.W_V.0", "W_O": "blocks.0.W_O", "U": "U"}


def _config(E: Tensor, W_Q: Tensor, W_V: Tensor) -> tg.GPTConfig:
    """13.1: attention -> residual -> output -> loss; no FFN, no normalisation, no positions."""
    return tg.GPTConfig(
        vocab_size=E.shape[0], d_model=E.shape[1], n_heads=1, d_k=W_Q.shape[1],
        d_v=W_V.shape[1], n_layers=1, positions="none", causal=True, layer_norm=False,
        final_norm=False, ffn=False, out_bias=False, tie_weights=False,
    )


class _Trace(nn.Module):
    """Lets ``functional_call`` run ``TinyGPT.forward_trace`` (it only calls ``forward``)."""

    def __init__(self, gpt: tg.TinyGPT) -> None:
        super().__init__()
        self.gpt = gpt

    def forward(self, tokens: Tensor) -> dict:
        return self.gpt.forward_trace(tokens)


def _tinygpt_trace(params: dict[str, Tensor], ids: Tensor) -> dict:
    """TinyGPT's forward with the note's tensors as its parameters (differentiably)."""
    gpt = tg.TinyGPT(_config(params["E"], params["W_Q"], params["W_V"]))
    named = {f"gpt.{TINYGPT_NAMES[k]}": v for k, v in params.items()}
    return torch.func.functional_call(_Trace(gpt), named, (ids,))


def _leaf(t: Tensor) -> Tensor:
    """A tensor autograd can differentiate with respect to, still connected to the input
    when the engine's Jacobian is being taken through this example."""
    return t if t.requires_grad else t.detach().clone().requires_grad_(True)


def _forward(p: dict[str, Tensor], ids: Tensor, target: int) -> dict[str, Tensor]:
    """The chapter-13 forward with every intermediate the note names, cross-checked
    against TinyGPT's own forward on the same parameters."""
    X = p["E"][ids]  # 13.2: look up rows of E
    q, k, v = X @ p["W_Q"], X @ p["W_K"], X @ p["W_V"]  # 13.3
    d_k = q.shape[-1]
    S = q @ k.T / math.sqrt(d_k)  # 13.3: q_i k_j / sqrt(d_k)
    allowed = tg.causal_mask(len(ids), len(ids))
    A = tg.softmax(S.masked_fill(~allowed, float("-inf")))  # 13.4: position 1 reads only itself
    Z = A @ v  # z_i = sum_j a_ij v_j
    R = X + Z @ p["W_O"]  # h = x + z W_O (residual)
    h = R[-1]
    logits = h @ p["U"]  # 13.5
    log_p = torch.log_softmax(logits, dim=-1)
    loss = -log_p[target]

    # the reference model must compute the same thing
    trace = _tinygpt_trace(p, ids)
    Z_ref, A_ref = tg.attention(q, k, v, causal=True)
    layer = trace["layers"][0]
    checks = {
        "attention weights": (A, layer["weights"][0]), "attention(q, k, v)": (A, A_ref),
        "z": (Z, Z_ref), "h": (R, trace["h"]), "logits": (logits, trace["logits"][-1]),
        "loss": (loss, tg.cross_entropy(trace["logits"], torch.cat([ids[1:], ids.new_tensor(
            [target])]), loss_mask=torch.arange(len(ids)) == len(ids) - 1)),
    }
    for what, (mine, ref) in checks.items():
        if not torch.allclose(mine, ref, rtol=1e-13, atol=1e-13):
            raise ValueError(f"the step-by-step forward and TinyGPT disagree on {what}")
    return {"X": X, "q": q, "k": k, "v": v, "S": S, "A": A, "Z": Z, "h": h,
            "logits": logits, "p": log_p.exp(), "loss": loss}


def _grads(f: dict[str, Tensor], p: dict[str, Tensor]) -> dict[str, Tensor]:
    """Autograd gradients of the loss with respect to the parameters and to the named
    intermediates (ℓ, h, the ratio table A, the scores S, q); create_graph keeps them
    differentiable for the engine's Jacobian."""
    names = [*PARAMS, "logits", "h", "A", "S", "q"]
    wrt = [p[n] if n in p else f[n] for n in names]
    grads = torch.autograd.grad(f["loss"], wrt, create_graph=True)
    return dict(zip(names, grads, strict=True))


@example("aat_ch13")
def ch13(E: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor, U: Tensor,
         ids: Tensor, target: Tensor, lr: Tensor | None = None) -> dict[str, Tensor]:
    """13.2-13.11 and 15.4: forward, every gradient at the old parameters, one joint SGD
    step with learning rate ``lr`` (13.10: all gradients first, then all updates), and the
    forward again from the lookup on (13.11); without ``lr`` there is no step and no re-run.

    Outputs (positions 0-based: row 1 is the second position, 「出现」):
    ``X, q, k, v, S, A, Z, z2, h, logits, p, loss``; gradients ``g_logits, g_h, g_A, g_S,
    g_q`` and ``g_E, g_W_Q, g_W_K, g_W_V, g_W_O, g_U``; ``g_W_VO`` is ``g_W_V`` where it
    equals ``g_W_O`` to float64 precision and NaN where it does not (15.4 prints one matrix
    for both); ``new_*`` are the updated parameters; ``A_after, p_after, loss_after`` the
    re-run; ``n_params`` the number of parameter entries.
    """
    ids_l = ids.long()
    t = int(target)
    p = {n: _leaf(x) for n, x in zip(PARAMS, (E, W_Q, W_K, W_V, W_O, U), strict=True)}
    with torch.enable_grad():
        f = _forward(p, ids_l, t)
        g = _grads(f, p)
    # 13.10: every gradient was taken at the old parameters above; update them all together.
    # (tinygpt.sgd_step does the same but returns detached tensors, which would cut the
    # Jacobian the engine takes through this example in local mode.)
    if lr is not None:
        new = {n: p[n] - lr * g[n] for n in PARAMS}
        after = _forward(new, ids_l, t)
    same = torch.isclose(g["W_V"], g["W_O"], rtol=1e-12, atol=1e-15)
    out = {
        "X": f["X"], "q": f["q"][:, 0] if f["q"].shape[1] == 1 else f["q"],
        "k": f["k"][:, 0] if f["k"].shape[1] == 1 else f["k"], "v": f["v"], "S": f["S"],
        "A": f["A"], "Z": f["Z"], "z2": f["Z"][-1], "h": f["h"], "logits": f["logits"],
        "p": f["p"], "loss": f["loss"],
        "g_logits": g["logits"], "g_h": g["h"], "g_A": g["A"], "g_S": g["S"],
        "g_q": g["q"][:, 0] if g["q"].shape[1] == 1 else g["q"],
        "g_W_VO": torch.where(same, g["W_V"], torch.full_like(g["W_V"], float("nan"))),
        "n_params": torch.tensor(float(sum(x.numel() for x in p.values())), dtype=F64),
    }
    out.update({f"g_{n}": g[n] for n in PARAMS})
    if lr is not None:
        out.update({f"new_{n}": new[n] for n in PARAMS})
        out.update({"A_after": after["A"], "p_after": after["p"], "loss_after": after["loss"]})
    return out


@example("aat_ch13_gradcheck")
def ch13_gradcheck(E: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor, U: Tensor,
                   ids: Tensor, target: Tensor, eps: Tensor) -> dict[str, Tensor]:
    """13.11 / 15.4: "解析梯度与中心差分逐项核对": the analytic gradients (the backward
    formulas the note prints in 15.2-15.3, chained by ``tinygpt.backward.small_model_grads``)
    against ``[L(θ + ε e_r) − L(θ − ε e_r)] / (2ε)`` of TinyGPT's loss, entry by entry over all
    parameters, in float64 with the note's ε, as the note's program does.

    Outputs: ``cd_max_err`` (largest |analytic − central difference|), ``n_params`` (entries
    differenced), and ``autograd_max_err`` (largest |analytic − autograd|, which shows the
    printed formulas themselves are right to float64 rounding).
    A measurement, not a function of the inputs in the calculus sense: the engine never
    needs its Jacobian here because all inputs are the note's exact printed parameters.
    """
    ids_l = [int(i) for i in ids.long()]
    t = int(target)
    h = float(eps.detach())
    p = {n: x.detach().clone() for n, x in zip(PARAMS, (E, W_Q, W_K, W_V, W_O, U), strict=True)}
    ids_t = torch.tensor(ids_l)

    def loss(params: dict[str, Tensor]) -> float:
        logits = _tinygpt_trace(params, ids_t)["logits"]
        mask = torch.arange(len(ids_l)) == len(ids_l) - 1
        targets = torch.tensor([*ids_l[1:], t])
        return float(tg.cross_entropy(logits, targets, loss_mask=mask))

    analytic = small_model_grads(p["E"], ids_l, t, p["W_Q"], p["W_K"], p["W_V"], p["W_O"],
                                 p["U"])
    with torch.enable_grad():
        leaves = {n: x.clone().requires_grad_(True) for n, x in p.items()}
        logits = _tinygpt_trace(leaves, ids_t)["logits"]
        ag_loss = -torch.log_softmax(logits[-1], dim=-1)[t]
        autograd = dict(zip(PARAMS, torch.autograd.grad(ag_loss, list(leaves.values())),
                            strict=True))
    cd_err = ag_err = 0.0
    count = 0
    with torch.no_grad():
        for n in PARAMS:
            for r in range(p[n].numel()):
                plus = {m: x.clone() for m, x in p.items()}
                minus = {m: x.clone() for m, x in p.items()}
                plus[n].view(-1)[r] += h
                minus[n].view(-1)[r] -= h
                cd = (loss(plus) - loss(minus)) / (2 * h)
                a = float(analytic[n].reshape(-1)[r])
                cd_err = max(cd_err, abs(a - cd))
                ag_err = max(ag_err, abs(a - float(autograd[n].reshape(-1)[r])))
                count += 1
    return {"cd_max_err": torch.tensor(cd_err, dtype=F64),
            "autograd_max_err": torch.tensor(ag_err, dtype=F64),
            "n_params": torch.tensor(float(count), dtype=F64)}


@example("aat_5_5")
def attention_5_5(q: Tensor, K: Tensor, V: Tensor, d_k: Tensor) -> dict[str, Tensor]:
    """5.5: one query row reads three key/value rows by ``tinygpt.attention`` (no mask):
    s = q K^T / sqrt(d_k), a = softmax(s), z = a V. tinygpt scales by the width of q, so the
    note's d_k must be that width."""
    if int(d_k) != q.shape[-1]:
        raise ValueError(f"d_k = {int(d_k)} but q has {q.shape[-1]} coordinates")
    Z, A = tg.attention(q[None, :], K, V, causal=False)
    return {"s": (q[None, :] @ K.T / torch.sqrt(d_k))[0], "a": A[0], "z": Z[0]}


@example("aat_15_8")
def matching_15_8(x_a: Tensor, x_b: Tensor, W_Q: Tensor, W_K: Tensor) -> dict[str, Tensor]:
    """15.8: with q_i = x_i W_Q and k_j = x_j W_K, the score of i reading j is
    q_i k_j^T = x_i W_Q W_K^T x_j^T; compare with the plain dot product x_a · x_b.
    ``W_Q``/``W_K`` are d×d_k matrices (the note writes column vectors (1, 0)^T)."""
    X = torch.stack([x_a, x_b])
    Q, K = X @ W_Q, X @ W_K
    S = Q @ K.T  # unscaled, as 15.8 writes it
    B = W_Q @ W_K.T
    return {"a_reads_b": S[0, 1], "b_reads_a": S[1, 0], "plain": x_a @ x_b,
            "bilinear": X @ B @ X.T, "S": S, "B": B}
