"""The order of operations tinygpt really follows: run it while recording, then view.

The expected order of a procedure is never written by hand: tinygpt is run (a forward pass,
a training step, a decoding step, an attention, BPE training) inside
``tinygpt.steps.recording()``, and the recorded names are viewed at the claim's level of
detail: scopes named in ``expand`` are opened, operations in ``omit`` are dropped, and a run
that repeats (the layers, the decoding loop, BPE's rounds) is shown once followed by
``repeat``.
"""

from __future__ import annotations

from typing import Any

from verifiers.procedures.spec import TraceSpec

__all__ = ["compress", "expected", "recorded", "view"]

Event = tuple[str, tuple[str, ...]]  # (name, scopes it ran in)


def _config(options: dict[str, Any]) -> Any:
    from tinygpt import GPTConfig

    return GPTConfig(
        vocab_size=6, d_model=4, n_heads=options.get("heads", 1), d_k=2, d_v=2,
        n_layers=options.get("layers", 1), positions=options.get("positions", "none"),
        causal=options.get("causal", True), layer_norm=options.get("layer_norm", True),
        arrangement=options.get("arrangement", "pre"),
        final_norm=options.get("final_norm", True), ffn=options.get("ffn", True),
    )


def recorded(spec: TraceSpec) -> list[Event]:
    """Run tinygpt as ``spec`` says and return every recorded operation, in order."""
    import torch

    from tinygpt import TinyGPT, generate, multi_head_attention, sgd_step
    from tinygpt.bpe import train_bpe
    from tinygpt.steps import recording

    o = spec.options
    with recording() as events:
        if spec.run in ("forward", "training", "decoding"):
            model = TinyGPT(_config(o), seed=0)
        if spec.run == "forward":
            model.forward_trace([1, 2, 3])
        elif spec.run == "training":
            _, grads = model.loss_and_grads([1, 2, 3], [2, 3, 4])
            sgd_step(model.params(), grads, 0.1)
        elif spec.run == "decoding":
            generate(model, [1, 2], o.get("new_tokens", 1), strategy=o.get("strategy", "greedy"),
                     use_cache=o.get("causal", True),
                     generator=torch.Generator().manual_seed(0),
                     temperature=o.get("temperature", 1.0), top_k=o.get("top_k"),
                     top_p=o.get("top_p"))
        elif spec.run == "attention":
            g = torch.Generator().manual_seed(0)
            x = torch.randn(3, 4, dtype=torch.float64, generator=g)
            wq, wk, wv = (torch.randn(4, 2, dtype=torch.float64, generator=g) for _ in range(3))
            wo = torch.randn(2, 4, dtype=torch.float64, generator=g)
            multi_head_attention(x, [wq], [wk], [wv], wo, causal=o.get("causal", False),
                                 scale=o.get("scale", True))
        elif spec.run == "bpe":
            # the lesson's corpus shape; the order of operations does not depend on it
            train_bpe({"机器学习": 5, "深度学习": 3, "学习": 2, "机器人": 2, "深度": 1})
    return [(e.name, e.path) for e in events]


def view(events: list[Event], expand: tuple[str, ...] = (),
         omit: tuple[str, ...] = ()) -> list[str]:
    """The operations seen at the claim's detail, repeats folded (see the module doc)."""
    opened = set(expand)
    out = []
    for name, path in events:
        if any(s not in opened for s in path):
            continue  # inside a closed scope: the scope's own event stands for it
        if name in opened:
            continue  # an opened scope is seen through its operations
        scoped = f"{path[-1]}.{name}" if path else name
        if name in omit or scoped in omit:
            continue
        out.append(name)
    return compress(out)


def compress(ops: list[str]) -> list[str]:
    """A run repeated back to back is shown once, then ``repeat``; a partial last round (a
    loop that checks once more before stopping) belongs to the repeat."""
    out: list[str] = []
    i = 0
    while i < len(ops):
        for period in range(1, (len(ops) - i) // 2 + 1):
            cycle = ops[i:i + period]
            if ops[i + period:i + 2 * period] == cycle:
                j = i + period
                while ops[j:j + period] == cycle:
                    j += period
                k = 0
                while j + k < len(ops) and k < period - 1 and ops[j + k] == cycle[k]:
                    k += 1
                if j + k < len(ops) and k and ops[j + k] in cycle:
                    k = 0  # a prefix followed by more of the cycle is not a last round
                out.extend([*cycle, "repeat"])
                i = j + k
                break
        else:
            out.append(ops[i])
            i += 1
    return out


def expected(spec: TraceSpec) -> list[str]:
    """The operations of ``spec``'s run, at its detail: what the note's steps must say."""
    return view(recorded(spec), spec.expand, spec.omit)
