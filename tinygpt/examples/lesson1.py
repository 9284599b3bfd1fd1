"""Worked examples of lesson 1 (notes/lesson1-text-to-distribution.txt), §1 and §7.

* ``l1_bpe`` — §1's BPE example run as an algorithm (:func:`tinygpt.bpe.train_bpe`).
* ``l1_bigram_program`` — §7's printed NumPy program, run as printed in the jail
  (:func:`verifiers.programs.run_program`), and the same training reproduced with
  :func:`tinygpt.bigram.fit_bigram` (torch autograd).
* ``l1_bigram_panel`` — the prose claims of §7's "试试这几件事" about that model
  (counting bound, the frequencies after 「吃」, d = 1, large learning rates).

Every number comes from the note through the claim: counts, hyper-parameters and
learning rates as numeric inputs; the strings (the BPE words, the program, the
corpus of the program, the characters a sentence names) from the note text the
claim quotes (``run: {text: true}``). A sentence whose *words* disagree with the
algorithm (a merge order naming another unit, a character list that is not the
corpus's) makes the example fail with a message naming both: no hole can carry a
word, so this is reported as a claim error rather than a discrepancy.

Runs are deterministic and cached per (example, text, inputs): the engine calls an
example once per mode (global and local), and the training runs dominate the time.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable

import numpy as np
import torch

from tinygpt.examples import example

F64 = torch.float64
_CACHE: dict[tuple, dict[str, torch.Tensor]] = {}
_NUM = r"[-+−]?\d+(?:\.\d+)?"


def _cached(name: str, text: str, inputs: dict[str, torch.Tensor],
            compute: Callable[[], dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """Compute once per distinct call; calls with tensors that need grad are never cached."""
    if any(t.requires_grad for t in inputs.values()):
        return compute()
    key = (name, text, tuple(sorted((k, tuple(t.reshape(-1).tolist()))
                                    for k, t in inputs.items())))
    if key not in _CACHE:
        _CACHE[key] = compute()
    return _CACHE[key]


def _int(t: torch.Tensor, what: str) -> int:
    v = float(t)
    if v != round(v):
        raise ValueError(f"{what} must be an integer, got {v}")
    return int(round(v))


def _vec(xs) -> torch.Tensor:
    return torch.tensor([float(x) for x in xs], dtype=F64)


def _one_thread(fn: Callable[[], dict[str, torch.Tensor]]) -> dict[str, torch.Tensor]:
    """Tiny tensors: one intra-op thread is ~8x faster than several on a busy machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return fn()
    finally:
        torch.set_num_threads(before)


# ------------------------------------------------------------------------------ §1 BPE


def _between(text: str, start: str, end: str, what: str) -> str:
    m = re.search(re.escape(start) + r"(.*?)" + re.escape(end), text, re.S)
    if m is None:
        raise ValueError(f"cannot find {what} ({start}…{end}) in the quoted text")
    return m.group(1)


@example("l1_bpe")
def bpe(cnt: torch.Tensor, text: str) -> dict[str, torch.Tensor]:
    """lesson1 §1: BPE on the toy corpus, merge by merge, as the note describes it.

    The words are read from the quoted sentence "出现次数为：机器学习 5 次，…" (the
    counts are the ``cnt`` input, from the same sentence's holes); the characters of
    the starting vocabulary, the round-1 pairs the note lists (「学习」…), the unit it
    says is merged first and the merge order are read from the text and compared
    with :func:`tinygpt.bpe.train_bpe`'s trace. Outputs, per the note's sentences:
    ``nwords, v0, wl`` (characters per word), ``tok0``; round 1: ``pc`` (count of each
    listed pair), ``contrib`` (per pair, the occurrences of each word containing it,
    in corpus order, zero-padded), ``v1, m1, tok1, drop`` (tokens saved per
    occurrence); all rounds: ``m`` (each merge's count), ``rounds``, ``tok_end``,
    ``vocab_end``.
    """
    from tinygpt.bpe import train_bpe

    def compute() -> dict[str, torch.Tensor]:
        listing = _between(text, "出现次数为：", "。", "the corpus")
        words = re.findall(rf"([^\s，,：:]+?)\s*{_NUM}\s*次", listing)
        counts = [_int(c, "a word count") for c in cnt.reshape(-1)]
        if len(words) != len(counts):
            raise ValueError(f"{len(words)} words {words} but {len(counts)} counts")
        corpus = list(zip(words, counts, strict=True))
        trace = train_bpe(corpus)

        chars = _between(text, "个字：", "。", "the starting characters").split("、")
        if list(trace.initial_vocab) != chars:
            raise ValueError(f"the note's starting characters are {'、'.join(chars)}; the corpus "
                             f"uses {'、'.join(trace.initial_vocab)}")

        round1 = _between(text, "轮统计相邻字对：", "最多的是", "the round-1 pairs")
        named = re.findall(r"「(\S+?)」", round1)
        pairs: dict[str, int] = {}
        contrib_rows: list[list[int]] = []
        for w in named:
            if len(w) != 2:
                raise ValueError(f"「{w}」 is not a pair of characters")
            row = [n for word, n in corpus if any(word[i:i + 2] == w for i in range(len(word) - 1))]
            contrib_rows.append(row)
            pairs[w] = sum(n * sum(word[i:i + 2] == w for i in range(len(word) - 1))
                           for word, n in corpus)
        width = max((len(r) for r in contrib_rows), default=0)
        contrib = [r + [0] * (width - len(r)) for r in contrib_rows]

        first = re.search(r"最多的是「(\S+?)」", text)
        m0 = trace.merges[0]
        if first is None or first.group(1) != m0.unit:
            said = first.group(1) if first else "?"
            raise ValueError(f"the note merges 「{said}」 first; BPE merges 「{m0.unit}」 "
                             f"(count {m0.count})")

        order = re.findall(r"([^\s→：:]+?)（\s*" + _NUM + r"\s*）",
                           _between(text, "合并顺序依次是：", "。", "the merge order"))
        algo = [mg.unit for mg in trace.merges]
        if order != algo:
            k = next((i for i, (a, b) in enumerate(zip(order, algo, strict=False)) if a != b),
                     min(len(order), len(algo)))
            raise ValueError(f"the note's merge order is {' → '.join(order)}; BPE merges "
                             f"{' → '.join(algo)} (first difference at merge {k + 1})")
        if any(len(units) != 1 for units, _ in trace.words):
            raise ValueError("after the last merge some word is still several tokens")

        return {
            "nwords": torch.tensor(float(len(words)), dtype=F64),
            "v0": torch.tensor(float(len(trace.initial_vocab)), dtype=F64),
            "wl": _vec(len(w) for w in words),
            "tok0": torch.tensor(float(trace.initial_tokens), dtype=F64),
            "pc": _vec(pairs[w] for w in named),
            "contrib": torch.tensor(contrib, dtype=F64),
            "v1": torch.tensor(float(m0.vocab_size), dtype=F64),
            "m1": torch.tensor(float(m0.count), dtype=F64),
            "tok1": torch.tensor(float(m0.tokens), dtype=F64),
            "drop": torch.tensor((trace.initial_tokens - m0.tokens) / m0.count, dtype=F64),
            "m": _vec(mg.count for mg in trace.merges),
            "rounds": torch.tensor(float(len(trace.merges)), dtype=F64),
            "tok_end": torch.tensor(float(trace.final_tokens), dtype=F64),
            "vocab_end": torch.tensor(float(trace.final_vocab_size), dtype=F64),
        }

    return _cached("l1_bpe", text, {"cnt": cnt}, compute)


# ------------------------------------------------------------------------------ §7 bigram


def _program(text: str) -> str:
    from verifiers.programs import extract_program

    return extract_program(text, "import numpy as np")


def _corpus_from_quote(text: str) -> str:
    m = re.search(r'^\s*text\s*=\s*("[^"\n]*")', text, re.M)
    if m is None:
        raise ValueError("the quoted text has no line `text = \"…\"` (the program's corpus)")
    return ast.literal_eval(m.group(1))


_PROBE = ("\nimport json as _json\nprint('\\x00notecheck' + _json.dumps({'V': V, 'd': d, 'B': B, "
          "'text': text, 'E': E.tolist(), 'WU': WU.tolist()}))\n")


def _run_printed(program: str, what: str) -> tuple[list[int], list[float], dict]:
    """Run a program in the jail; its ``step loss`` lines and what the probe line reads.

    The probe, appended after the program, prints the program's own ``V, d, B``, its
    corpus ``text`` and its final ``E``, ``W_U`` as JSON. The program's output is
    untrusted: messages quote only a short, escaped tail of it.
    """
    import json

    from verifiers.programs import quote_output, run_program

    result = run_program(program + _PROBE, timeout=60)
    if result.timed_out:
        raise ValueError(f"{what} did not finish within 60 s")
    if result.returncode != 0:
        raise ValueError(f"{what} failed (exit {result.returncode}): "
                         f"{quote_output(result.stderr)}")
    if result.truncated:
        raise ValueError(f"{what} printed more than the gate keeps (1 MiB, 64 kB a line)")
    steps: list[int] = []
    losses: list[float] = []
    probe: dict = {}
    for line in result.stdout.splitlines():
        if line.startswith("\x00notecheck"):
            probe = json.loads(line[len("\x00notecheck"):])
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"{what} printed an unexpected line: {quote_output(line, 1, 200)}")
        try:
            step, loss = int(parts[0]), float(parts[1])
        except ValueError:  # int()'s message would quote the untrusted text whole
            raise ValueError(f"{what} printed an unexpected line: "
                             f"{quote_output(line, 1, 200)}") from None
        steps.append(step)
        losses.append(loss)
    return steps, losses, probe


def _variant(program: str, text: str) -> str:
    """The program with the note's wrong alternative: "写成 dE[cur] += dX 时" replaces np.add.at."""
    m = re.search(r"写成\s*(.+?)\s*时", text)
    if m is None:
        raise ValueError("the quoted text names no alternative (写成 … 时)")
    lines = program.splitlines()
    hits = [i for i, line in enumerate(lines) if "np.add.at(" in line]
    if len(hits) != 1:
        raise ValueError("the program must call np.add.at exactly once")
    i = hits[0]
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    lines[i] = indent + m.group(1)
    return "\n".join(lines) + "\n"


def _init(V: int, d: int, seed: int, e_mu: float, e_std: float, u_mu: float, u_std: float
          ) -> dict[str, np.ndarray]:
    """The program's initialisation: one default_rng(seed) stream, E first, then W_U."""
    rng = np.random.default_rng(seed)
    E = rng.normal(e_mu, e_std, (V, d))
    WU = rng.normal(u_mu, u_std, (d, V))
    return {"E": E, "WU": WU}


def _add_at_gaps(ids: list[int], init: dict[str, np.ndarray]) -> tuple[float, float]:
    """Largest |dE − autograd dE| at parameters ``init``, for the two ways of scattering.

    ``dE`` from :func:`tinygpt.backward.bigram_grads_batch` (the note's batch formulas,
    accumulating repeated indices like ``np.add.at``) and from NumPy's ``dE[cur] += dX``
    (one contribution per repeated index), against torch autograd of the mean loss.
    Raises if the first is not the gradient, or if the second is when ids repeat.
    """
    from tinygpt.backward import bigram_grads_batch

    cur, nxt = ids[:-1], ids[1:]
    E = torch.tensor(init["E"], dtype=F64, requires_grad=True)
    WU = torch.tensor(init["WU"], dtype=F64)
    loss = torch.nn.functional.cross_entropy(E[torch.tensor(cur)] @ WU, torch.tensor(nxt))
    (auto,) = torch.autograd.grad(loss, E)
    formulas = bigram_grads_batch(E.detach(), WU, None, cur, nxt)
    naive = np.zeros_like(init["E"])
    naive[np.array(cur)] += formulas["X"].numpy()
    gap_add_at = float((formulas["E"] - auto).abs().max())
    gap_naive = float(np.abs(naive - auto.numpy()).max())
    if gap_add_at > 1e-12 * max(1.0, float(auto.abs().max())):
        raise ValueError(f"the note's batch gradient of E differs from autograd by "
                         f"{gap_add_at:.3g}")
    if len(set(cur)) < len(cur) and gap_naive == 0.0:
        raise ValueError("dE[cur] += dX gives the true gradient although ids repeat")
    return gap_add_at, gap_naive


@example("l1_bigram_program")
def bigram_program(text: str) -> dict[str, torch.Tensor]:
    """lesson1 §7: the printed NumPy program, run as printed in the jail.

    The program is extracted from the quoted text (from ``import numpy as np`` to
    the last line that still compiles) and run in a child interpreter
    (:func:`verifiers.programs.run_program`). Outputs: ``printed_steps`` and
    ``printed_losses`` (what it prints), ``V, d, B`` (its own variables, printed by a
    probe line appended after the program), ``lines`` (non-blank program lines),
    ``wrong_losses`` (the same program with the alternative the quoted sentence warns
    against, "写成 dE[cur] += dX 时", in place of the ``np.add.at`` line), and the
    gradient gaps of :func:`_add_at_gaps` at the program's final parameters.

    The sentence about ``np.add.at`` prints no number, so it is enforced here: if the
    alternative prints the same losses, or the note's batch gradient of E is not the
    autograd gradient, or ``+=`` is when ids repeat, the example fails (claim error).
    """
    from tinygpt.bigram import encode_first_occurrence

    def compute() -> dict[str, torch.Tensor]:
        program = _program(text)
        p_steps, p_losses, probe = _run_printed(program, "the note's program")
        if not probe:
            raise ValueError("the program's probe line printed nothing")
        w_steps, w_losses, _ = _run_printed(_variant(program, text), "the dE[cur] += dX variant")
        if w_steps == p_steps and w_losses == p_losses:
            raise ValueError("the note says the program is wrong with its alternative to "
                             "np.add.at, but both print the same losses")
        _, ids = encode_first_occurrence(probe["text"])
        gap_add_at, gap_naive = _add_at_gaps(
            ids, {"E": np.array(probe["E"]), "WU": np.array(probe["WU"])})
        return {
            "printed_steps": _vec(p_steps), "printed_losses": _vec(p_losses),
            "V": torch.tensor(float(probe["V"]), dtype=F64),
            "d": torch.tensor(float(probe["d"]), dtype=F64),
            "B": torch.tensor(float(probe["B"]), dtype=F64),
            "wrong_losses": _vec(w_losses),
            "grad_gap_add_at": torch.tensor(gap_add_at, dtype=F64),
            "grad_gap_naive": torch.tensor(gap_naive, dtype=F64),
            "lines": torch.tensor(float(sum(1 for ln in program.splitlines() if ln.strip())),
                                  dtype=F64),
        }

    return _cached("l1_bigram_program", text, {}, lambda: _one_thread(compute))


@example("l1_bigram_tinygpt")
def bigram_tinygpt(text: str, d: torch.Tensor, seed: torch.Tensor, e_mu: torch.Tensor,
                   e_std: torch.Tensor, u_mu: torch.Tensor, u_std: torch.Tensor,
                   lr: torch.Tensor, steps: torch.Tensor, every: torch.Tensor
                   ) -> dict[str, torch.Tensor]:
    """lesson1 §7: the program's training reproduced in tinygpt (autograd, float64).

    Corpus: the quoted ``text = "…"`` line; hyper-parameters: the numeric inputs (the
    program's literals as the note prints them), with the program's initialisation
    procedure (:func:`_init`). Outputs ``tg_steps``/``tg_losses``: the loss before
    update k for every k the program's ``step % every == 0`` prints
    (:func:`tinygpt.bigram.fit_bigram`); ``tg_V``, ``tg_B`` from the corpus.
    """
    from tinygpt.bigram import encode_first_occurrence, fit_bigram

    inputs = {"d": d, "seed": seed, "e_mu": e_mu, "e_std": e_std, "u_mu": u_mu,
              "u_std": u_std, "lr": lr, "steps": steps, "every": every}

    def compute() -> dict[str, torch.Tensor]:
        vocab, ids = encode_first_occurrence(_corpus_from_quote(text))
        V = len(vocab)
        dd, n = _int(d, "d"), _int(steps, "steps")
        init = _init(V, dd, _int(seed, "seed"), float(e_mu), float(e_std), float(u_mu),
                     float(u_std))
        run = fit_bigram(ids, V, dd, float(lr), n, init)
        k_every = _int(every, "every")
        shown = [k for k in range(n) if k % k_every == 0]
        return {
            "tg_steps": _vec(shown), "tg_losses": _vec(run.losses[k] for k in shown),
            "tg_V": torch.tensor(float(V), dtype=F64),
            "tg_B": torch.tensor(float(len(ids) - 1), dtype=F64),
        }

    return _cached("l1_bigram_tinygpt", text, inputs, lambda: _one_thread(compute))


@example("l1_bigram_panel")
def bigram_panel(text: str, d: torch.Tensor, seed: torch.Tensor, e_mu: torch.Tensor,
                 e_std: torch.Tensor, u_mu: torch.Tensor, u_std: torch.Tensor,
                 lr: torch.Tensor, steps: torch.Tensor, d1: torch.Tensor, lr1: torch.Tensor,
                 steps1: torch.Tensor, lo: torch.Tensor, lr_big: torch.Tensor
                 ) -> dict[str, torch.Tensor]:
    """lesson1 §7 "试试这几件事": the four statements about the bigram trainer.

    The corpus is the program's ``text = "…"`` (the quote runs from the bullets to
    that line); the baseline training is the program's (``d, seed, e_*, u_*, lr,
    steps`` from its printed literals). The characters of bullet 2 (「吃」, 「苹」,
    「米」) are read from the quoted sentence.

    * ``V`` (vocabulary size), ``bound`` — :func:`tinygpt.bigram.counting_bound`: the
      average loss of the conditional frequencies, the best any bigram model can do;
    * ``follow`` — how often each named character follows 「吃」 in the corpus;
      ``p_after`` — the trained model's probabilities of them after 「吃」 (the
      program's training, :func:`tinygpt.bigram.fit_bigram`);
    * ``d = d1`` with ``lr1`` for ``steps1`` steps, same initialisation procedure:
      ``rank`` of the trained logit matrix E W_U, ``final1`` (last loss), and
      ``steps_above`` = ``steps1`` if the loss is still ≥ ``lo`` after ``steps1``
      updates, else the first update count after which it is below ``lo``;
    * ``diverged`` — per learning rate in ``lr_big``, that learning rate if the
      program's training (its ``steps``) with it produces a non-finite loss, else 0.
    """
    from tinygpt.bigram import counting_bound, encode_first_occurrence, fit_bigram

    inputs = {"d": d, "seed": seed, "e_mu": e_mu, "e_std": e_std, "u_mu": u_mu,
              "u_std": u_std, "lr": lr, "steps": steps, "d1": d1, "lr1": lr1,
              "steps1": steps1, "lo": lo, "lr_big": lr_big}

    def compute() -> dict[str, torch.Tensor]:
        corpus = _corpus_from_quote(text)
        vocab, ids = encode_first_occurrence(corpus)
        V = len(vocab)
        seed_i = _int(seed, "seed")
        mus = (float(e_mu), float(e_std), float(u_mu), float(u_std))

        def init(dim: int) -> dict[str, np.ndarray]:
            return _init(V, dim, seed_i, *mus)

        m = re.search(r"「(\S)」后面是((?:「\S」\s*" + _NUM + r"\s*次\s*、?\s*)+)", text)
        if m is None:
            raise ValueError("cannot find 「X」后面是「Y」N 次… in the quoted text")
        cur_c = m.group(1)
        named = re.findall(r"「(\S)」", m.group(2))
        pairs = list(zip(corpus, corpus[1:], strict=False))
        follow = [sum(1 for a, b in pairs if a == cur_c and b == y) for y in named]
        others = {b for a, b in pairs if a == cur_c} - set(named)
        if others:
            raise ValueError(f"「{cur_c}」 is also followed by {'、'.join(sorted(others))}")

        n = _int(steps, "steps")
        base = fit_bigram(ids, V, _int(d, "d"), float(lr), n, init(_int(d, "d")))
        z = base.E[vocab.index(cur_c)] @ base.WU
        p = np.exp(z - z.max())
        p /= p.sum()

        dd1, n1 = _int(d1, "d1"), _int(steps1, "steps1")
        small = fit_bigram(ids, V, dd1, float(lr1), n1 + 1, init(dd1))
        # losses[k] is the loss after k updates; after n1 updates: losses[n1]
        below = [k for k in range(n1 + 1) if small.losses[k] < float(lo)]
        steps_above = below[0] if below else n1
        rank = np.linalg.matrix_rank(small.E @ small.WU)

        diverged = []
        for rate in lr_big.reshape(-1).tolist():
            losses = fit_bigram(ids, V, _int(d, "d"), rate, n, init(_int(d, "d"))).losses
            diverged.append(rate if not all(math.isfinite(x) for x in losses) else 0.0)

        return {
            "V": torch.tensor(float(V), dtype=F64),
            "bound": torch.tensor(counting_bound(ids), dtype=F64),
            "follow": _vec(follow),
            "p_after": _vec(p[vocab.index(y)] for y in named),
            "rank": torch.tensor(float(rank), dtype=F64),
            "final1": torch.tensor(small.losses[n1], dtype=F64),
            "steps_above": torch.tensor(float(steps_above), dtype=F64),
            "diverged": _vec(diverged),
        }

    return _cached("l1_bigram_panel", text, inputs, lambda: _one_thread(compute))
