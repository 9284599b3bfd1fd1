"""Printed orders read as orders: every sequence of a block checked against tinygpt.

A code hole (``code: {from: …, to: …}``, run ``printed_order``) hands this locator a block of
the note as it is now. Every sequence in it (:mod:`verifiers.procedures.sequences`) is read:

* **quantities** (``W_Q → Q → A → Z → h → ℓ → P → L``): when at least three items are
  symbols of ``quantities.yaml``, each arrow is a data dependency of tinygpt's computation
  (autograd on a recorded forward pass and loss: is Y computed from X?). A chain runs forward
  (each item computed from the one before) or backward (``L → p → Z``, a gradient's path);
  the direction most arrows take is the chain's, and an arrow against it is a discrepancy
  at its item.
* **operations** (``Temperature → Softmax → TopK/TopP → 采样``, a box diagram, ``先…再…``):
  each item's longest word of the operation vocabulary (``vocabulary.yaml``) is its
  operation; the operations must occur in this order in one of tinygpt's recorded runs
  (forward, training, decoding, BPE; pre- and post-LN), seen at the coarsest level that
  shows them all (a scope is opened only when an operation occurs nowhere outside it). An
  item out of that order is a discrepancy, naming what tinygpt does first.
* **step references** (``重复步骤 1~6``, ``回到第 2 步``, ``repeat steps 1-6``) in a block of
  numbered steps: the range must be the steps whose operations tinygpt's decoding loop
  re-runs for the next token (recorded over two tokens), so ``5~6`` is a discrepancy at
  the number.

Items the vocabularies do not know are not read (a sequence needs two read items). No
expected order is written anywhere: it is recorded from tinygpt's code.
"""

from __future__ import annotations

import functools
import itertools
import re
from pathlib import Path
from typing import Any

from verifiers.procedures import read
from verifiers.procedures.paths import gradient_paths
from verifiers.procedures.relations import listed_orders, negated, relation_pairs
from verifiers.procedures.sequences import Item, Sequence, sequences, symbol
from verifiers.programs.codehole import Finding
from verifiers.yamlload import load

__all__ = ["all_sequences", "order_findings", "quantity_of", "readable"]

QUANTITIES = Path(__file__).resolve().parent / "quantities.yaml"
_LOOP = {"repeat", "stop"}
_SUBSCRIPT = re.compile(r"_(?:\d+|[ijtn]|\{\d+\})$|[₀-₉]+$")


@functools.cache
def _symbols() -> dict[str, str]:
    root = load(QUANTITIES.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    if not isinstance(data, dict) or not isinstance(data.get("quantities"), dict):
        raise ValueError(f"{QUANTITIES.name}: expected a mapping 'quantities'")
    out: dict[str, str] = {}
    for name, words in data["quantities"].items():
        for word in words:
            key = symbol(str(word))
            if out.setdefault(key, str(name)) != str(name):
                raise ValueError(f"{QUANTITIES.name}: {word!r} names two quantities")
    return out


def quantity_of(text: str) -> str | None:
    """The quantity an item names (``h_{5}`` -> h), or None."""
    key = re.sub(r"\s*[（(][^）)]*[）)]$", "", symbol(text))
    table = _symbols()
    return table.get(key) or table.get(_SUBSCRIPT.sub("", key))


def _scan(text: str) -> str | None:
    """The longest vocabulary word in ``text``, spaces ignored; a Latin word only where it
    stands alone (the ``A`` of ``Transformer`` is no word); on ties a word that is no
    quantity's name (累加 over 概率 in 累加概率), then the rightmost (按概率采样 samples)."""
    chars = [(c.casefold(), k) for k, c in enumerate(text) if not c.isspace()]
    folded = "".join(c for c, _ in chars)
    best: tuple[tuple[int, bool, int], str] | None = None  # ((length, no quantity, at), word)
    for key in read.known_keys():
        k = folded.find(key)
        while k >= 0:
            a, b = chars[k][1], chars[k + len(key) - 1][1] + 1
            alone = not (key[0].isascii() and key[0].isalnum() and a and text[a - 1].isascii()
                         and text[a - 1].isalnum()) and \
                not (key[-1].isascii() and key[-1].isalnum() and b < len(text)
                     and text[b].isascii() and text[b].isalnum())
            rank = (len(key), _symbols().get(key) is None, k)
            if alone and (best is None or rank > best[0]):
                best = (rank, key)
            k = folded.find(key, k + 1)
    return best[1] if best else None


def _op(text: str) -> str | None:
    """The operation of an item: its longest vocabulary word, or None."""
    key = _scan(text)
    if key is None:
        return None
    ops = [o for o in (read.ops_of(key) or ()) if o not in _LOOP]
    return ops[0] if ops else None


@functools.cache
def _alternatives() -> dict[str, tuple[str, ...]]:
    """Word -> the other operations it may name (``alternatives:`` in vocabulary.yaml:
    归一化 is a softmax's last step or a LayerNorm)."""
    root = load(read.VOCABULARY.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    table = (data or {}).get("alternatives") or {}
    return {"".join(str(w).split()).casefold(): tuple(map(str, ops)) for w, ops in table.items()}


def _read_ops(seq: Sequence) -> list[tuple[str, Item]]:
    out: list[tuple[str, Item]] = []
    for item in seq.items:
        op = _op(item.text)
        if op is not None and not (out and out[-1][0] == op):
            out.append((op, item))
    return out


@functools.cache
def _step_lists() -> tuple[frozenset[str], frozenset[str]]:
    """(required, repeatable) operations from vocabulary.yaml."""
    root = load(read.VOCABULARY.read_text(encoding="utf-8"))
    data = (root.plain() if root is not None else None) or {}
    known = read.operations()
    lists = []
    for name in ("required", "repeatable"):
        ops = frozenset(map(str, data.get(name) or ()))
        if ops - known:
            raise ValueError(f"{read.VOCABULARY.name}: {name}: unknown {sorted(ops - known)}")
        lists.append(ops)
    return lists[0], lists[1]


def _duplicate(seq: Sequence) -> Item | None:
    """The second of two adjacent items that print the same word for one operation that
    tinygpt does not do twice in a row (``Softmax → Softmax``), or None."""
    repeatable = _step_lists()[1]
    last: tuple[str | None, str | None] = (None, None)
    for item in seq.items:
        key, op = _scan(item.text), _op(item.text)
        if op is not None and (key, op) == last and op not in repeatable:
            return item
        last = (key, op)
    return None


def _readings(read_ops: list[tuple[str, Item]]) -> list[list[tuple[str, Item]]]:
    """Every reading of the items, the plain one first: an ambiguous word (``alternatives``)
    may name another operation (at most 64 readings)."""
    options = []
    for op, item in read_ops:
        key = _scan(item.text) or ""
        options.append((op, *[o for o in _alternatives().get(key, ()) if o != op]))
    out = []
    for choice in itertools.islice(itertools.product(*options), 64):
        ops: list[tuple[str, Item]] = []
        for op, (_, item) in zip(choice, read_ops, strict=True):
            if not (ops and ops[-1][0] == op):
                ops.append((op, item))
        out.append(ops)
    return out


def _read_quantities(seq: Sequence) -> list[tuple[str, Item]]:
    return [(q, it) for it in seq.items if (q := quantity_of(it.text)) is not None]


def all_sequences(block: str) -> list[Sequence]:
    """The block's printed sequences, the ordered pairs its sentences state and the lists
    after an order cue (:mod:`verifiers.procedures.relations`), in order of their first item."""
    found = [s for s in sequences(block) if s.shape != "sentence" or not negated(block, s)]
    found += relation_pairs(block) + listed_orders(block) + gradient_paths(block)
    return sorted(found, key=lambda s: (s.items[0].line, s.items[0].col))


def readable(block: str) -> bool:
    """Does the block hold a sequence or step reference this locator reads?"""
    return any(_mode(s)[0] for s in all_sequences(block)) or bool(_step_refs(block))


def _mode(seq: Sequence) -> tuple[str, list[tuple[str, Item]]]:
    quantities = _read_quantities(seq)
    if seq.shape == "path":  # a gradient path: its symbols that name quantities
        if quantity_of(seq.items[0].text) is None:
            return "", []  # 从 Attention 转移到…: no quantity where the path starts
        path: list[tuple[str, Item]] = []
        for q, it in quantities:
            if not (path and path[-1][0] == q):
                path.append((q, it))
        return ("path", path) if len(path) >= 2 else ("", [])
    if seq.shape == "chain" and len(quantities) >= 3 and len(quantities) * 2 >= len(seq.items):
        return "quantities", quantities
    ops = _read_ops(seq)
    if seq.shape == "sentence" and len(ops) < min(3, len(seq.items)):
        return "", []  # prose with 先…再: read only when its items are operations
    return ("operations", ops) if len(ops) >= 2 else ("", [])


# --------------------------------------------------------------------------- the truth


@functools.cache
def _runs() -> tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...]:
    """(name, recorded events) of tinygpt's reference runs, each one pass."""
    from tinygpt import TinyGPT
    from tinygpt.steps import recording
    from verifiers.procedures.spec import TraceSpec
    from verifiers.procedures.trace import _config, compress, recorded

    out = []
    for arrangement in ("pre", "post"):
        base = {"arrangement": arrangement, "positions": "sinusoidal"}
        forward = recorded(TraceSpec("forward", base))
        out.append((f"forward ({arrangement}-LN)", _with_ends(forward)))
        training = recorded(TraceSpec("training", base))
        with recording() as events:  # the forward pass with its softmax of the logits
            TinyGPT(_config(base), seed=0).forward_trace([1, 2, 3])
        after = [e for e in training if e[0] != "forward" and "forward" not in e[1]]
        out.append((f"training ({arrangement}-LN)",
                    _with_ends([(e.name, e.path) for e in events] + after)))
        for strategy in ("sample", "greedy"):
            opts = {**base, "strategy": strategy, "temperature": 0.7, "top_k": 3,
                    "top_p": 0.9} if strategy == "sample" else {**base, "strategy": strategy}
            out.append((f"decoding ({strategy}, {arrangement}-LN)",
                        _with_ends(_used(recorded(TraceSpec("decoding", opts))))))
    # BPE's rounds are one loop: seen once (``repeat`` after it), so an order inside a round
    # is not satisfied by the next round (merge → count is no order of one round)
    rounds = compress([name for name, _ in recorded(TraceSpec("bpe", {}))])
    out.append(("BPE training", tuple((name, ()) for name in rounds)))
    return tuple(out)


def _used(events: list[Any]) -> list[Any]:
    """A decoding step without what its forward pass computes after the logits for reading
    only (``forward_trace``'s softmax ``p``): the loop chooses from the logits, with its own
    temperature and softmax."""
    out, after_logits = [], False
    for name, path in events:
        inside = bool(path) and path[0] == "forward"
        if not inside:
            after_logits = False
        elif name == "logits":
            after_logits = True
        elif after_logits:
            continue
        out.append((name, path))
    return out


def _with_ends(events: list[Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The events with each scope seen again where it ends: an item that names a scope's
    result (``MultiHead Output`` after ``concat → W_O``) stands after its operations."""
    out: list[tuple[str, tuple[str, ...]]] = []
    stack: list[list[Any]] = []  # [name, path, has operations inside]
    for name, path in events:
        path = tuple(path)
        while stack and len(path) <= len(stack[-1][1]):
            done = stack.pop()
            if done[2]:
                out.append((done[0], done[1]))
        if stack:
            stack[-1][2] = True
        out.append((name, path))
        stack.append([name, path, False])
    out.extend((n, p) for n, p, inside in reversed(stack) if inside)
    return tuple(out)


def _matches(op: str, name: str) -> bool:
    return name == op or read.broader(name) == op


def _visible(events: tuple[tuple[str, tuple[str, ...]], ...], ops: list[str]) -> list[str]:
    """The run seen at the coarsest level showing every op: a scope is opened only for an
    op that occurs nowhere outside it."""
    opened: set[str] = set()
    for op in ops:
        paths = [path for name, path in events if _matches(op, name)]
        if paths:
            depth = min(map(len, paths))
            for path in paths:
                if len(path) == depth:
                    opened.update(path)
    seen = [(name, path) for name, path in events if all(s in opened for s in path)]
    # an operation done at several depths is read at the deepest one the reading opened
    # (a softmax after A · V inside an opened attention is that attention's softmax, not
    # the later one over the logits)
    deepest = {op: max((len(p) for n, p in seen if _matches(op, n)), default=0) for op in ops}
    return [name if not any(_matches(op, name) and len(path) < deepest[op] for op in ops)
            else "" for name, path in seen]


def _embed(seen: list[str], ops: list[str]) -> int:
    """How many of ``ops`` match ``seen`` in order (greedy, earliest)."""
    k = 0
    for name in seen:
        if k < len(ops) and _matches(ops[k], name):
            k += 1
    return k


def _judge_ops(read_ops: list[tuple[str, Item]]) -> tuple[int, str, list[str]]:
    """(index of the first item out of order or len, best run's name, its visible ops).

    Among the runs that hold the whole order, the first one that skips no required step
    between two printed ones; else the first that holds it (:func:`_dropped` says what
    it skips)."""
    ops = [op for op, _ in read_ops]
    best = (-1, "", [])
    for name, events in _runs():
        seen = _visible(events, ops)
        k = _embed(seen, ops)
        if k == len(ops) and _dropped(seen, ops) is None:
            return k, name, seen
        if k > best[0]:
            best = (k, name, seen)
    return best


def _dropped(seen: list[str], ops: list[str]) -> tuple[int, str] | None:
    """(index of the printed op after the gap, the required step skipped before it) where
    the order, embedded in ``seen`` (greedy, earliest), leaves out a required step that it
    names nowhere; None when it skips none."""
    required = _step_lists()[0]
    printed = set(ops) | {b for o in ops if (b := read.broader(o)) is not None}
    at: list[int] = []
    for i, name in enumerate(seen):
        if len(at) < len(ops) and _matches(ops[len(at)], name):
            at.append(i)
    for j, (a, b) in enumerate(zip(at, at[1:], strict=False)):
        gap = [n for n in seen[a + 1:b] if n in required and n not in printed
               and read.broader(n) not in printed]
        if gap:
            return j + 1, gap[0]
    return None


@functools.cache
def _dependencies() -> dict[tuple[str, str], bool]:
    """(y, x) -> is y computed from x in tinygpt's forward pass and loss (autograd)."""
    import torch

    from tinygpt import TinyGPT, cross_entropy
    from verifiers.procedures.trace import _config

    model = TinyGPT(_config({"positions": "sinusoidal"}), seed=0)
    trace = model.forward_trace([1, 2, 3])
    layer = trace["layers"][0]
    block = model.blocks[0]
    targets = torch.tensor([2, 3, 4])
    named: dict[str, Any] = {
        "E": model.E, "x": trace["x"], "W_Q": block.W_Q[0], "W_K": block.W_K[0],
        "W_V": block.W_V[0], "W_O": block.W_O, "q": layer["q"][0], "k": layer["k"][0],
        "v": layer["v"][0], "scores": layer["scores"][0], "weights": layer["weights"][0],
        "z": layer["z"], "attn_out": layer["attn_out"], "t": layer["t"], "y": layer["y"],
        "h": trace["h"], "U": model.U,
        "logits": trace["logits"], "p": trace["p"],
        "loss": cross_entropy(trace["logits"], targets)}
    leaves = [t for t in named.values() if t.is_leaf]
    order = list(named)  # the order tinygpt's forward pass produces them in

    def grad(y: Any, x: Any) -> bool:
        if y is x or not (y.requires_grad and x.requires_grad):
            return False
        return torch.autograd.grad(y.sum(), x, retain_graph=True, allow_unused=True)[0] \
            is not None

    ancestors = {n: frozenset(k for k, leaf in enumerate(leaves) if grad(t, leaf) or t is leaf)
                 for n, t in named.items()}
    out: dict[tuple[str, str], bool] = {}
    for y, ty in named.items():
        for x, tx in named.items():
            # computed from x: through autograd, or, where tinygpt recomputes a quantity it
            # keeps for reading (the scores q k^T/√d_k), from the same parameters, later
            again = x != y and not tx.is_leaf and bool(ancestors[x]) and \
                ancestors[x] <= ancestors[y] and order.index(x) < order.index(y)
            out[(y, x)] = grad(ty, tx) or again
    return out


# --------------------------------------------------------------------------- findings


def _finding(item: Item, status: str, printed: str, expected: str, message: str) -> Finding:
    return Finding(item.line + 1, item.col, item.end, status, "order", printed, expected,
                   message)


def _check_quantities(read_q: list[tuple[str, Item]]) -> list[Finding]:
    dep = _dependencies()
    arrows = list(zip(read_q, read_q[1:], strict=False))
    forward = sum(dep.get((b, a), False) for (a, _), (b, _) in arrows)
    backward = sum(dep.get((a, b), False) for (a, _), (b, _) in arrows)
    ahead = forward >= backward
    out: list[Finding] = []
    chain = " → ".join(it.text for _, it in read_q)
    for (a, ia), (b, ib) in arrows:
        ok = dep.get((b, a) if ahead else (a, b), False)
        if ok:
            continue
        if ahead:
            why = f"{ib.text} ({b}) is not computed from {ia.text} ({a}) in tinygpt's " \
                  f"forward pass and loss"
            if dep.get((a, b), False):
                why += f": it is the other way round, {ia.text} is computed from {ib.text}"
        else:
            why = f"on a backward path each item is computed from the next, but {ia.text} " \
                  f"({a}) does not depend on {ib.text} ({b}) in tinygpt"
        out.append(_finding(ib, "discrepancy", ib.text, "", f"chain {chain}: {why}"))
    if not out:
        last = read_q[-1][1]
        way = "each computed from the one before" if ahead else \
            "a backward path: each computed from the next"
        out.append(_finding(last, "verified", last.text, last.text,
                            f"chain {chain}: {way}, as in tinygpt (autograd)"))
    return out


@functools.cache
def _through() -> dict[str, str]:
    """Parameter -> the product it makes, for a parameter inside a gradient path."""
    root = load(QUANTITIES.read_text(encoding="utf-8"))
    data = (root.plain() if root is not None else None) or {}
    return {str(k): str(v) for k, v in (data.get("through") or {}).items()}


def _check_path(read_q: list[tuple[str, Item]]) -> list[Finding]:
    """A gradient path, from the loss towards a parameter: each quantity on it is computed
    from the next one (autograd); a parameter inside the path stands for its product."""
    dep = _dependencies()
    through = _through()
    names = [through.get(q, q) if 0 < k < len(read_q) - 1 else q
             for k, (q, _) in enumerate(read_q)]
    said = " → ".join(it.text for _, it in read_q)
    for k in range(len(read_q) - 1):
        a, b = names[k], names[k + 1]
        if a == b or dep.get((a, b), False):
            continue
        ia, ib = read_q[k][1], read_q[k + 1][1]
        why = f"{ia.text} ({a}) is not computed from {ib.text} ({b}) in tinygpt, so a " \
              f"gradient from the loss does not reach {ib.text} through {ia.text}"
        if dep.get((b, a), False):
            why += f": it is the other way round, {ib.text} is computed from {ia.text}"
        return [_finding(ib, "discrepancy", ib.text, "", f"gradient path {said}: {why}")]
    last = read_q[-1][1]
    return [_finding(last, "verified", last.text, last.text,
                     f"gradient path {said}: each computed from the next, as in tinygpt "
                     f"(autograd)")]


def _check_ops(plain: list[tuple[str, Item]]) -> list[Finding]:
    read_ops = plain
    for reading in _readings(plain):
        k, run, seen = _judge_ops(reading)
        if k == len(reading):
            read_ops = reading
            break
    else:
        k, run, seen = _judge_ops(plain)
    said = " → ".join(f"{it.text} ({op})" for op, it in read_ops)
    dropped = _dropped(seen, [op for op, _ in read_ops]) if k == len(read_ops) else None
    if dropped is not None:
        j, step = dropped
        item = read_ops[j][1]
        return [_finding(item, "discrepancy", item.text, "", (
            f"order {said}: a step is missing before {item.text!r}: tinygpt's {run} does "
            f"{step} between {read_ops[j - 1][0]} and {read_ops[j][0]}, and the order never "
            f"names it (required steps: vocabulary.yaml)"))]
    if k == len(read_ops):
        last = read_ops[-1][1]
        return [_finding(last, "verified", last.text, last.text,
                         f"order {said}: as tinygpt's {run} does it")]
    op, item = read_ops[k]
    before = [o for o, _ in read_ops[:k]]
    first = next((o for o in before if op in seen and o in seen
                  and seen.index(op) < seen.index(o)), None)
    where = f"tinygpt's {run}: {' → '.join(n for n in dict.fromkeys(seen) if n)}"
    why = f"tinygpt does {op} before {first}" if first else \
        f"no run of tinygpt does {op} after {' → '.join(before)}"
    return [_finding(item, "discrepancy", item.text, "",
                     f"order {said}: {item.text!r} ({op}) is out of order, {why} ({where})")]


# --------------------------------------------------------------------------- step references

_REF = re.compile(r"(?:重复|回到|返回|repeat|go back to)\s*(?:第\s*)?(?:步骤|steps?\s*)?\s*"
                  r"(\d{1,2})(?:\s*(?:~|～|-|–|—|到|至|、|，|,|和|and|to)\s*(\d{1,2}))?\s*步?",
                  re.IGNORECASE)
_NUMBERED = re.compile(r"^[\s│┃|]*(\d{1,2})(?:\. |、|\.)\s*(\S.*?)[\s│┃|]*$")


def _numbered(block: str) -> dict[int, tuple[int, str]]:
    """Step number -> (0-based line, text) of the numbered steps of the block."""
    out: dict[int, tuple[int, str]] = {}
    for k, line in enumerate(block.split("\n")):
        m = _NUMBERED.match(line)
        if m and int(m[1]) not in out:
            out[int(m[1])] = (k, m[2])
    return out


def _step_refs(block: str) -> list[tuple[int, re.Match[str]]]:
    steps = _numbered(block)
    if len(steps) < 3:
        return []
    out = []
    for k, line in enumerate(block.split("\n")):
        for m in _REF.finditer(line):
            if int(m[1]) in steps and (m[2] is None or int(m[2]) in steps):
                out.append((k, m))
    return out


@functools.cache
def _loops() -> tuple[tuple[str, frozenset[str]], ...]:
    """(run, the operations its loop runs again): tinygpt's decoding loop for the next token
    (the events between the first token appended and the second) and BPE's merge rounds
    (the events after the first merge, before its stop)."""
    from verifiers.procedures.spec import TraceSpec
    from verifiers.procedures.trace import recorded

    decoding: set[str] = set()
    for opts in ({"strategy": "greedy"},
                 {"strategy": "sample", "temperature": 0.7, "top_k": 3, "top_p": 0.9}):
        names = [n for n, _ in recorded(TraceSpec("decoding", {**opts, "new_tokens": 2}))]
        decoding.update(names[names.index("append") + 1:])
    bpe = [n for n, _ in recorded(TraceSpec("bpe", {}))]
    rounds = set(bpe[bpe.index("merge") + 1:]) - {"stop"}
    return (("decoding loop", frozenset(decoding)), ("BPE merge loop", frozenset(rounds)))


def _check_refs(block: str) -> list[Finding]:
    steps = _numbered(block)
    out = []
    for k, m in _step_refs(block):
        here = max((n for n, (line, _) in steps.items() if line <= k), default=max(steps))
        # the loop whose operations the steps before the reference name most often
        loop_name, inside = max(
            ((name, [n for n in sorted(steps) if n < here and _in_loop(steps[n][1], ops)])
             for name, ops in _loops()), key=lambda x: len(x[1]))
        if not inside:
            continue
        a, b = inside[0], inside[-1]
        got_a, got_b = int(m[1]), int(m[2] or m[1])
        item = Item(m[0], k, m.start(1), m.end(2) if m[2] else m.end(1))
        said = f"{got_a}~{got_b}" if m[2] else str(got_a)
        want = f"{a}~{b}" if m[2] else str(a)
        if (got_a, got_b) == (a, b) or (not m[2] and got_a == a):
            out.append(_finding(item, "verified", said, want,
                                f"step reference {m[0]!r}: steps {a}–{b} are the ones "
                                f"tinygpt's {loop_name} runs again"))
        else:
            names = ", ".join(f"{n}. {steps[n][1][:24]}" for n in inside)
            out.append(_finding(item, "discrepancy", said, want, (
                f"step reference {m[0]!r}: tinygpt's {loop_name} runs steps {a}–{b} again "
                f"({names}); the note repeats {said}")))
    return out


def _in_loop(text: str, loop: frozenset[str]) -> bool:
    key = _scan(text)
    ops = read.ops_of(key) if key else None
    return bool(ops) and any(o in loop or (o == "block" and "attention" in loop) for o in ops)


def order_findings(block: str) -> list[Finding]:
    """Every read sequence and step reference of the block, judged."""
    out: list[Finding] = []
    for seq in all_sequences(block):
        mode, items = _mode(seq)
        twice = _duplicate(seq) if mode == "operations" else None
        if twice is not None:
            out.append(_finding(twice, "discrepancy", twice.text, "", (
                f"{twice.text!r} is printed twice in a row: tinygpt does "
                f"{_op(twice.text)} once at this point")))
        elif mode == "path":
            out += _check_path(items)
        elif mode == "quantities":
            out += _check_quantities(items)
        elif mode == "operations":
            out += _check_ops(items)
    out += _check_refs(block)
    return out
