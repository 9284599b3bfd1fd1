"""tinygpt instances for formulas that claims used to quote as literal text (issue 12 item 2).

Why a module of its own: 9.2-9.4 of architecture-and-training print three definitions that
no step uses, so a claim quoted them character by character and an edit made it ``stale``.
Each is now a formula hole checked against tinygpt by :mod:`verifiers.formulas.code`:

* ``tinygpt-output-h5``: ``ℓ = h_{5} W_{out} + b`` (9.2), the logits of the fifth position;
* ``tinygpt-softmax-entries``: ``P_{j} = \\frac{e^{ℓ_{j}}}{\\sum_{k} e^{ℓ_{k}}}`` (9.3), every
  entry j of tinygpt.softmax of a logit row (``ℓ_{j}`` is entry j of ``ℓ``, the sum runs over
  the row's N entries);
* ``tinygpt-stack``: ``H = F_{θ} (X)`` (9.4), F_θ tinygpt's blocks and final norm applied to
  the input rows X; its value is tinygpt's hidden rows H;
* ``tinygpt-causal-prefix``: ``h_{i} = F_{θ} (x_{1}, \\dots, x_{i})`` (8.2), for every i: with
  the causal mask, tinygpt's hidden row i of the whole sequence is the last row of F_θ
  applied to the first i input rows only;
* ``tinygpt-onehot-lookup``: lesson 1's ``x = e_i^\\top E`` (row i of tinygpt's embedding
  table) and ``e_i^\\top`` alone (the one-hot column as a 1×V row);
* ``tinygpt-logit-entries``, ``tinygpt-logit-grad-entries``: 15.3's one-position
  ``ℓ_{j} = \\sum_{r} h_{r} U_{r j} + b_{j}`` and ``\\partial L / \\partial U_{r j} = h_{r}
  {\\bar{ℓ}}_{j}``, every entry;
* ``tinygpt-score-entry``: ``q_{i} \\cdot k_{j}`` (6.3), entry (i, j) of tinygpt's unscaled
  scores, q_i and k_j rows of Q and K.
"""

from __future__ import annotations

from typing import Any

import torch

from verifiers.formulas.tinygpt_refs import DTYPE, Instance, Reference

__all__ = ["QUOTE_REFERENCES"]

_PREFIX = [1, 3, 0, 2, 4]  # five tokens: position 5 is the last, as in 9.2's h_5


def _model(seed: int) -> tuple[Any, dict[str, Any]]:
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=6, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=2,
                              out_bias=True), seed=seed)
    with torch.no_grad():
        model.b.copy_(torch.randn(6, generator=torch.Generator().manual_seed(seed + 11),
                                  dtype=DTYPE))
        trace = model.forward_trace(_PREFIX)
    return model, trace


def _output_h5(seed: int) -> Instance:
    """``ℓ = h_{5} W_{out} + b``: tinygpt's logits of position 5 (the last of five)."""
    model, trace = _model(seed)
    return Instance({"h_5": trace["h"].detach()[4:5], "W_out": model.U.detach(),
                     "b": model.b.detach()[None, :]},
                    {"ell": trace["logits"].detach()[4:5]})


def _softmax_entries(seed: int) -> Instance:
    """``P_{j} = e^{ℓ_{j}} / \\sum_{k} e^{ℓ_{k}}`` for every j: tinygpt.softmax of a logit row."""
    from tinygpt.model import softmax

    _, trace = _model(seed)
    ell = trace["logits"].detach()[4]
    return Instance({"ell": ell, "N": int(ell.shape[0])}, {"P_j": softmax(ell[None, :])[0]},
                    entries=("j",))


def _stack(seed: int) -> Instance:
    """``H = F_{θ} (X)``: F_θ is tinygpt's blocks and final norm applied to the input rows."""
    from tinygpt.model import layer_norm

    model, trace = _model(seed)

    def f_theta(x: torch.Tensor) -> torch.Tensor:
        for block in model.blocks:
            x = block(x)
        return layer_norm(x, model.gamma_f, model.beta_f, model.config.eps).detach()

    with torch.no_grad():
        return Instance({"X": trace["x"].detach()}, {"H": trace["h"].detach()},
                        {"F_theta": f_theta})


def _causal_prefix(seed: int) -> Instance:
    """``h_{i} = F_{θ} (x_{1}, \\dots, x_{i})``: tinygpt's causal h_i is the last row of its
    stack applied to the prefix x_1 … x_i (every i of a five-token sequence)."""
    from tinygpt.model import layer_norm

    model, trace = _model(seed)

    def f_theta(*rows: torch.Tensor) -> torch.Tensor:
        x = torch.cat(rows, dim=0)
        for block in model.blocks:
            x = block(x)
        return layer_norm(x, model.gamma_f, model.beta_f, model.config.eps)[-1:].detach()

    with torch.no_grad():
        x, h = trace["x"].detach(), trace["h"].detach()
        rows = {f"x_{k + 1}": x[k:k + 1] for k in range(len(_PREFIX))}
        each = [({"i": k + 1, "x_i": x[k:k + 1]}, h[k:k + 1]) for k in range(len(_PREFIX))]
        return Instance(rows, {}, {"F_theta": f_theta}, each={"h_i": each})


def _score_entry(seed: int) -> Instance:
    """``q_{i} \\cdot k_{j}`` (a bare expression): entry (i, j) = (1, 2) of tinygpt's unscaled
    score matrix Q Kᵀ, q_i and k_j the rows i of Q and j of K."""
    from tinygpt.model import scaled_scores

    g = torch.Generator().manual_seed(seed)
    q, k = (torch.randn(3, 4, generator=g, dtype=DTYPE) for _ in range(2))
    s = scaled_scores(q, k, scale=False)[0, 1]
    return Instance({"q_i": q[0], "k_j": k[1]}, {"s_ij": s})


def _onehot(seed: int, what: str = "x") -> Instance:
    """lesson 1's one-hot lookup: ``e_i`` a one-hot column (V = 5, i = 2), ``e_i^\\top`` the
    1×V row, ``x = e_i^\\top E`` row i of tinygpt's embedding table E (V×d)."""
    from tinygpt.model import GPTConfig, TinyGPT

    model = TinyGPT(GPTConfig(vocab_size=5, d_model=3, n_heads=1, d_k=3, d_v=3, n_layers=1),
                    seed=seed)
    table = model.E.detach()
    column = torch.zeros(5, 1, dtype=DTYPE)
    column[1, 0] = 1.0
    expected = {"x": table[1:2]} if what == "x" else {"row": column.T}
    return Instance({"e_i": column, "E": table}, expected)


def _onehot_row(seed: int) -> Instance:
    return _onehot(seed, "row")


def _logit_entries(grad: bool) -> Any:
    """15.3's one position: ``ℓ_{j} = \\sum_{r} h_{r} U_{r j} + b_{j}`` (every j: tinygpt's
    logits of the last row) or ``\\partial L / \\partial U_{r j} = h_{r} {\\bar{ℓ}}_{j}`` (every r,
    j: autograd's gradient of tinygpt.cross_entropy of that row, ℓ̄ = ∂L/∂ℓ)."""
    def make(seed: int) -> Instance:
        from tinygpt.model import cross_entropy

        model, trace = _model(seed)
        h = trace["h"].detach()[4]
        u = model.U.detach().clone().requires_grad_(True)
        b = model.b.detach()
        ell = (h[None, :] @ u)[0] + b
        ell_leaf = ell.detach().clone().requires_grad_(True)
        cross_entropy(ell_leaf[None, :], torch.tensor([2])).backward()
        cross_entropy(ell[None, :], torch.tensor([2])).backward()
        env = {"h": h, "U": u.detach(), "b": b, "ellbar": ell_leaf.grad, "N": int(h.shape[0])}
        if grad:
            return Instance(env, {"Derivative(L, U_rj)": u.grad}, entries=("r", "j"))
        return Instance(env, {"ell_j": trace["logits"].detach()[4]}, entries=("j",))
    return make


def _output_grads(seed: int) -> Instance:
    """15.3's one position: ``\\bar{U} = h^{T} \\bar{ℓ}, \\bar{h} = \\bar{ℓ} U^{T}, \\bar{b} =
    \\bar{ℓ}``: autograd's gradients of tinygpt.cross_entropy of ``ℓ = h U + b`` (h one row)."""
    from tinygpt.model import cross_entropy

    model, trace = _model(seed)
    h = trace["h"].detach()[4:5].clone().requires_grad_(True)
    u = model.U.detach().clone().requires_grad_(True)
    b = model.b.detach()[None, :].clone().requires_grad_(True)
    ell = h @ u + b
    ell.retain_grad()
    cross_entropy(ell, torch.tensor([2])).backward()
    return Instance({"h": h.detach(), "U": u.detach(), "ellbar": ell.grad},
                    {"Ubar": u.grad, "hbar": h.grad, "bbar": b.grad})


QUOTE_REFERENCES: dict[str, Reference] = {
    "tinygpt-output-h5": Reference("tinygpt's logits h U + b of position 5",
                                   ("h_5", "W_out", "b"), (), _output_h5),
    "tinygpt-softmax-entries": Reference("tinygpt.softmax of a logit row, entry by entry", (),
                                         (), _softmax_entries),
    "tinygpt-stack": Reference("tinygpt's hidden rows H (blocks and final norm of X)", ("X",),
                               ("F_theta",), _stack),
    "tinygpt-score-entry": Reference("tinygpt's unscaled score (Q Kᵀ)_ij, rows q_i, k_j", (), (),
                                     _score_entry),
    "tinygpt-onehot-lookup": Reference("tinygpt's embedding row i (x = e_iᵀE)", ("e_i", "E"),
                                       (), _onehot),
    "tinygpt-onehot-row": Reference("the one-hot column e_i as a 1×V row", ("e_i", "E"), (),
                                    _onehot_row),
    "tinygpt-logit-entries": Reference("tinygpt's logits of one row, entry by entry", (), (),
                                       _logit_entries(False)),
    "tinygpt-logit-grad-entries": Reference("autograd's ∂L/∂U of tinygpt.cross_entropy, by entries",
                                            (), (), _logit_entries(True)),
    "tinygpt-output-grads": Reference("autograd's gradients of ℓ = h U + b (one row)",
                                      ("h", "U", "ellbar", "Ubar", "hbar", "bbar"), (),
                                      _output_grads),
    "tinygpt-causal-prefix": Reference("tinygpt's causal hidden rows (h_i from x_1 … x_i only)",
                                       (), ("F_theta",), _causal_prefix),
}
