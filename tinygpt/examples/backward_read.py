r"""15.2, 15.5 and lesson1 §7: the printed backward rules, read from the note, vs the code.

Like ``backward_rules.py`` (15.3), each locator gets a block as the note prints it now (a code
hole), reads its rules with :mod:`verifiers.backward` and evaluates each on one fixed random
instance, upstream gradients from torch autograd, against autograd and
``tinygpt/backward.py``:

* ``aat_15_2_rules_read``: ``\frac{\partial L}{\partial ℓ_{j}} = p_{j} - 1_{j = y}`` (every j).
* ``aat_15_5_ffn_rules_read``: the FFN's forward definitions and W̄₂, C̄, B̄, W̄₁, X̄.
* ``aat_15_5_layer_norm_rules_read``: the definitions of s, x̂, u, the rule for x̄, the
  differentials dμ, dv, ds (along a random direction dx) and γ̄/β̄ (named in words).
* ``l1_7_rules_read``: the lookup x = e_iᵀE (§2's, restated in (c)), g = ∂L/∂z = p − y,
  the row of Ē ("它等于 $gW_U^\top$"), the other rows' 0, xᵀg, the mean loss (1/B) Σ_b L_b,
  the batch's XᵀG, and its Ē: row b of GW_Uᵀ added to row i_b (the display equations of §7
  are lost in the note).

* ``l1_0_chain_rule_read``: §0's chain rule ∂L/∂x_j = Σ_i ∂L/∂z_i ∂z_i/∂x_j, on a random smooth
  composite (numeric evidence on one generic instance, not a proof).

Quantities the note names only in words are located by an anchor (the words around the
formula); the formula itself is always read.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from tinygpt import backward as bw
from tinygpt.directional import directional
from tinygpt.examples import example
from verifiers.backward.judge import judge_block
from verifiers.backward.rules import read_rules
from verifiers.programs.codehole import Finding, locator

DTYPE = torch.float64
Instance = tuple[dict[str, object], dict[str, Tensor], dict[str, Tensor]]


def _rand(gen: torch.Generator, *shape: int) -> Tensor:
    return torch.randn(*shape, generator=gen, dtype=DTYPE)


def _count(rules: str, truth: dict[str, Tensor], **kw: object) -> dict[str, Tensor]:
    return {"rules": torch.tensor(float(len(read_rules(rules, set(truth), **kw))), dtype=DTYPE)}


# ------------------------------------------------------------------------------ 15.2

SEED_15_2 = 1520


def _softmax_ce() -> Instance:
    """One row of N = 5 logits, target y = 2; L = −ln p_y."""
    gen = torch.Generator().manual_seed(SEED_15_2)
    ell = _rand(gen, 5).requires_grad_(True)
    y = 2
    loss = F.cross_entropy(ell.unsqueeze(0), torch.tensor([y]))
    (grad,) = torch.autograd.grad(loss, [ell])
    env: dict[str, object] = {"ℓ": ell.detach(), "p": torch.softmax(ell.detach(), -1), "y": y}
    return env, {"ℓbar": grad}, {"ℓbar": bw.softmax_cross_entropy_grad(ell.detach(), y)}


@example("aat_15_2_rules_read")
def softmax_ce_rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from 15.2's block (the locator judges each)."""
    return _count(rules, _softmax_ce()[1])


@locator("aat_15_2_rules_read")
def softmax_ce_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """∂L/∂ℓ_j as printed, for every j, against autograd and softmax_cross_entropy_grad."""
    env, truth, code = _softmax_ce()
    return judge_block(block, env, truth, code, seed=SEED_15_2, required=set(code))


# ------------------------------------------------------------------------------ 15.5 FFN

SEED_FFN = 1550


def _derivative(fn: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """σ' of an entry-wise σ, by autograd (independent of tinygpt's hand derivative)."""
    def prime(t: Tensor) -> Tensor:
        x = t.detach().clone().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(x).sum(), [x])
        return g
    return prime


def _ffn() -> Instance:
    """X: 3×4, hidden 5, exact GELU; L = Σ Y ⊙ Ȳ."""
    gen = torch.Generator().manual_seed(SEED_FFN)
    n, d, hid = 3, 4, 5
    leaves = {"X": _rand(gen, n, d), "W_1": _rand(gen, d, hid), "b_1": _rand(gen, hid),
              "W_2": _rand(gen, hid, d), "b_2": _rand(gen, d)}
    Y_bar = _rand(gen, n, d)
    grad = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    B = grad["X"] @ grad["W_1"] + grad["b_1"]
    C = F.gelu(B)
    Y = C @ grad["W_2"] + grad["b_2"]
    gs = torch.autograd.grad((Y * Y_bar).sum(), [C, B, grad["W_2"], grad["W_1"], grad["X"]])
    env: dict[str, object] = dict(leaves)
    env.update({"B": B.detach(), "C": C.detach(), "Y": Y.detach(), "Ybar": Y_bar,
                "σ": F.gelu, "σ'": _derivative(F.gelu)})
    truth = dict(zip(["Cbar", "Bbar", "W_2bar", "W_1bar", "Xbar"], gs, strict=True))
    env.update(truth)
    truth.update({"B": B.detach(), "C": C.detach(), "Y": Y.detach()})
    out = bw.ffn_backward(leaves["X"], leaves["W_1"], leaves["b_1"], leaves["W_2"],
                          leaves["b_2"], Y_bar, "gelu")
    code = {"W_2bar": out["W2"], "Cbar": out["C"], "Bbar": out["B"], "W_1bar": out["W1"],
            "Xbar": out["X"]}
    return env, truth, code


@example("aat_15_5_ffn_rules_read")
def ffn_rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from 15.5's FFN block (the locator judges each)."""
    return _count(rules, _ffn()[1])


@locator("aat_15_5_ffn_rules_read")
def ffn_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """The FFN's definitions (against the forward) and its five backward rules."""
    env, truth, code = _ffn()
    return judge_block(block, env, truth, code, seed=SEED_FFN, required=set(code),
                       autograd_only={"B", "C", "Y"})


# ------------------------------------------------------------------------------ 15.5 LayerNorm

SEED_LN = 1551
LN_ANCHORS = ((r"γ/β梯度分别为 \$(?P<f>[^$]+)\$", "γbar"),
              (r"γ/β梯度分别为 \$[^$]+\$ 与(?P<f>[A-Za-z])(?![A-Za-z])", "βbar"))


def _layer_norm() -> Instance:
    """One position, d = 4, ε = 0.5 (large, so a dropped ε shows); L = Σ LN(x) ⊙ g."""
    gen = torch.Generator().manual_seed(SEED_LN)
    d, eps = 4, 0.5
    x, gamma, beta, g, dx = (_rand(gen, d) for _ in range(5))
    leaves = {"x": x, "γ": gamma, "β": beta}
    grad = {k: v.clone().requires_grad_(True) for k, v in leaves.items()}
    y = F.layer_norm(grad["x"], (d,), grad["γ"], grad["β"], eps)
    gx, gg, gb = torch.autograd.grad((y * g).sum(), list(grad.values()))
    mu, v = x.mean(), ((x - x.mean()) ** 2).mean()
    s = torch.sqrt(v + eps)

    def stats(t: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        m = t.mean()
        w = ((t - m) ** 2).mean()
        return m, w, torch.sqrt(w + eps)

    dmu, dv, ds = directional(stats, x, dx)
    env: dict[str, object] = {"x": x, "γ": gamma, "β": beta, "g": g, "ε": torch.tensor(eps),
                              "μ": mu, "v": v, "s": s, "xhat": (x - mu) / s, "u": g * gamma,
                              "dx": dx, "dμ": dmu, "dv": dv, "ds": ds}
    truth = {"xbar": gx, "γbar": gg, "βbar": gb, "s": s, "xhat": (x - mu) / s, "u": g * gamma,
             "dμ": dmu, "dv": dv, "ds": ds}
    out = bw.layer_norm_backward(x.unsqueeze(0), gamma, eps, g.unsqueeze(0))
    code = {"xbar": out["x"][0], "γbar": out["gamma"], "βbar": out["beta"]}
    return env, truth, code


@example("aat_15_5_layer_norm_rules_read")
def layer_norm_rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from 15.5's LayerNorm block (the locator judges each)."""
    return _count(rules, _layer_norm()[1], anchors=LN_ANCHORS)


@locator("aat_15_5_layer_norm_rules_read")
def layer_norm_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """s, x̂, u, x̄, dμ, dv, ds and γ̄/β̄ as printed, against autograd (and the code's x̄, γ̄, β̄)."""
    env, truth, code = _layer_norm()
    return judge_block(block, env, truth, code, seed=SEED_LN, anchors=LN_ANCHORS,
                       required=set(truth), autograd_only={"s", "xhat", "u", "dμ", "dv", "ds"})


# ------------------------------------------------------------------------------ lesson1 §7

SEED_L1 = 1700
L1_ANCHORS = ((r"它等于 \$(?P<f>[^$]+)\$", "Ebar_i"),
              (r"其余各行梯度为 ?(?P<f>[-\d.]+)", "Ebar_other"),
              (r"各样本 \$(?P<f>[^$]+)\$ 之和", "W_Ubar"),
              (r"\$(?P<f>[^$]+)\$ 确实是各样本", "W_Ubar_batch"),
              (r"把 \$(?P<f>[^$]+)\$ 的第 \$b\$ 行加到第 \$i_b\$ 行上", "Ebar_batch",
               "add_rows"))


def _bigram() -> Instance:
    """V = 5, d = 3; one pair (i, y) = (1, 3); a batch cur = (1, 4, 1, 0), nxt = (3, 3, 2, 1)
    (token 1 twice); mean loss over the batch."""
    gen = torch.Generator().manual_seed(SEED_L1)
    V, d = 5, 3
    E, W_U = _rand(gen, V, d), _rand(gen, d, V)
    i, y = 1, 3
    cur, nxt = torch.tensor([1, 4, 1, 0]), torch.tensor([3, 3, 2, 1])
    Eg, Ug = E.clone().requires_grad_(True), W_U.clone().requires_grad_(True)
    x = Eg[i].unsqueeze(0)
    z = x @ Ug
    loss = F.cross_entropy(z, torch.tensor([y]))
    gz, gE, gU = torch.autograd.grad(loss, [z, Eg, Ug])
    Eb, Ub = E.clone().requires_grad_(True), W_U.clone().requires_grad_(True)
    Z = Eb[cur] @ Ub
    losses = F.cross_entropy(Z, nxt, reduction="none")
    gZ, gUb, gEb = torch.autograd.grad(losses.mean(), [Z, Ub, Eb])
    env: dict[str, object] = {
        "E": E, "W_U": W_U, "x": E[i].unsqueeze(0), "z": z.detach(), "g": gz,
        "p": torch.softmax(z.detach(), -1), "y": F.one_hot(torch.tensor([y]), V).to(DTYPE),
        "X": E[cur], "G": gZ, "zbar": gz, "L": losses.detach(), "B": float(len(cur)),
        "add_rows": lambda rows: torch.zeros_like(E).index_add_(0, cur, rows),
        "e_i": F.one_hot(torch.tensor(i), V).to(DTYPE).reshape(V, 1)}
    others = torch.arange(V) != i
    truth = {"zbar": gz, "Ebar_i": gE[i], "Ebar_other": gE[others], "W_Ubar": gU,
             "W_Ubar_batch": gUb, "Ebar_batch": gEb, "Lbar": losses.detach().mean(),
             "x": E[i].unsqueeze(0)}
    one = bw.bigram_grads(E, W_U, None, i, y)
    batch = bw.bigram_grads_batch(E, W_U, None, cur, nxt)
    code = {"zbar": one["z"], "Ebar_i": one["E"][i], "Ebar_other": one["E"][others],
            "W_Ubar": one["U"], "W_Ubar_batch": batch["U"], "Ebar_batch": batch["E"]}
    return env, truth, code


@example("l1_7_rules_read")
def bigram_rules_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from §7's block (the locator judges each) and ``g_rows``, the
    rows of autograd's ∂L/∂z for a 1×V row z."""
    _, truth, _ = _bigram()
    return {**_count(rules, truth, aliases={"g": "zbar"}, anchors=L1_ANCHORS),
            "g_rows": torch.tensor(float(truth["zbar"].shape[0]), dtype=DTYPE)}


@locator("l1_7_rules_read")
def bigram_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """g, the rows of Ē, xᵀg, L̄, XᵀG and the batch's Ē as printed, against autograd and
    bigram_grads / bigram_grads_batch."""
    env, truth, code = _bigram()
    return judge_block(block, env, truth, code, seed=SEED_L1, aliases={"g": "zbar"},
                       anchors=L1_ANCHORS, required=set(truth), autograd_only={"Lbar", "x"})


@example("l1_7_program_minus_one")
def program_minus_one(text: str) -> dict[str, Tensor]:
    """The 1 the program's ``G[np.arange(B), nxt] -= 1`` subtracts: p_{b,y_b} − B ∂L̄/∂Z_{b,y_b}
    by autograd on the batch of ``l1_7_rules_read`` (worst over b, so one bad row shows)."""
    env, _, _ = _bigram()
    G, X, W_U = env["G"], env["X"], env["W_U"]
    P = torch.softmax(X @ W_U, dim=-1)
    nxt = G.argmin(dim=-1)  # the target is the one entry where G = (p − 1)/B is negative
    rows = torch.arange(G.shape[0])
    sub = P[rows, nxt] - env["B"] * G[rows, nxt]
    return {"minus_one": sub[(sub - 1).abs().argmax()]}


# ------------------------------------------------------------------------------ lesson1 §0

SEED_CHAIN = 1000


def _chain() -> Instance:
    """「若 L 依赖 z_1..z_m，而每个 z_i 又依赖 x_j」 as a generic smooth instance: x ∈ R³,
    z = tanh(x W + c) ∈ R⁴, L = Σ sin(a ⊙ z) + (z · b)², all coefficients random."""
    gen = torch.Generator().manual_seed(SEED_CHAIN)
    n, m = 3, 4
    x, W, c, a, b = _rand(gen, n), _rand(gen, n, m), _rand(gen, m), _rand(gen, m), _rand(gen, m)

    def z_of(t: Tensor) -> Tensor:
        return torch.tanh(t @ W + c)

    def loss(z: Tensor) -> Tensor:
        return torch.sin(a * z).sum() + (z @ b) ** 2

    xg = x.clone().requires_grad_(True)
    z = z_of(xg)
    gx, gz = torch.autograd.grad(loss(z), [xg, z])
    env: dict[str, object] = {"x": x, "z": z.detach(), "zbar": gz,
                              "∂z/∂x": torch.autograd.functional.jacobian(z_of, x)}
    return env, {"xbar": gx}, {}


@example("l1_0_chain_rule_read")
def chain_rule_read(text: str, rules: str) -> dict[str, Tensor]:
    """The number of rules read from §0's chain-rule block (the locator judges each)."""
    return _count(rules, _chain()[1])


@locator("l1_0_chain_rule_read")
def chain_rule_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """∂L/∂x_j as printed, for every j, against autograd on the generic instance."""
    env, truth, code = _chain()
    return judge_block(block, env, truth, code, seed=SEED_CHAIN, required={"xbar"},
                       autograd_only={"xbar"})
