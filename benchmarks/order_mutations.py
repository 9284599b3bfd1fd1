"""Exhaustive order survey: every printed or stated order, four author edits each.

``python -m benchmarks.order_mutations [--list] [--progress] [--dump FILE] [--edits FILE]``

Sites are found in the three notes by the order readers themselves
(:func:`verifiers.procedures.orders.all_sequences`): arrow chains, box diagrams, ``先…再``
sentences, numbered steps, and the orders stated in sentences (a relation word between two
operation words, a list after ``经过``). Every site that reads gets, where its shape allows,
one edit of each mutation, drawn with ``random.Random(SEED)``:

* ``swap``: two adjacent read items with different meanings swapped;
* ``drop``: an inner item of an order of operations left out (with its arrow or separator;
  a diagram's item line with the connector under it); ``dropopt`` when its step is not
  ``required:`` in vocabulary.yaml (an order may leave it out: no error, counted apart);
* ``dup``: an item printed twice in a row;
* ``insert``: a step that tinygpt's run of the order never does (``合并`` in a forward
  pass, the leaf ``E`` in a chain of quantities) put before an item.

Numbered steps get a swap only (a drop or an insert would renumber them). The edits run
through the planted-error runner (:func:`benchmarks.planted.survey.survey`) with every claim
of the note. ``--dump FILE`` writes the edits as JSON and ``--edits FILE`` runs edits read
from such a file, so the same edits run on an older tree (the figure before a change).
The table says, per mutation and per shape, how many got a real verdict at an edited line.
"""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.planted.survey import Edit, edits_main

ROOT = Path(__file__).resolve().parents[1]
NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt")
SEED = 20261202
MUTATIONS = ("swap", "drop", "dup", "insert")
# steps to insert: (operation, word); one that the order's run never does is drawn
FOREIGN = (("merge", "合并"), ("sample", "采样"), ("update", "更新参数"), ("loss", "算损失"),
           ("backward", "反向传播"), ("split", "拆分"))
FOREIGN_SYMBOLS = ("E", "W_K", "U")


def _read_items(seq: object) -> tuple[str, list]:
    """(mode, the items the order reads) of a sequence."""
    from verifiers.procedures.orders import _mode

    mode, read = _mode(seq)  # type: ignore[arg-type]
    return mode, [it for _, it in read]


def _run_ops(seq: object, read: list) -> set[str]:
    """The operations of the run that holds the order as printed (for the insert)."""
    from verifiers.procedures.orders import _judge_ops, _mode, _runs

    _, pairs = _mode(seq)  # type: ignore[arg-type]
    _, run, _ = _judge_ops(pairs)
    events = dict(_runs()).get(run, ())
    return {name for name, _ in events}


def _same_line_edit(line: str, a: int, b: int, new: str) -> str:
    return line[:a] + new + line[b:]


def _one_line(seq: object) -> bool:
    items = seq.items  # type: ignore[attr-defined]
    return len({it.line for it in items}) == 1


def _edits_of(name: str, lines: list[str], seq: object, rng: random.Random) -> list[Edit]:
    mode, read = _read_items(seq)
    if not mode or len(read) < 2:
        return []
    shape = seq.shape  # type: ignore[attr-defined]
    items = list(seq.items)  # type: ignore[attr-defined]
    out: list[Edit] = []

    def edit(tag: str, first: int, last: int, new: list[str], why: str) -> None:
        find = "\n".join(lines[first:last + 1])
        out.append(Edit(f"om-{name[:4]}-{first + 1}-{items[0].col}-{shape}-{tag}", "program",
                        name, find, "\n".join(new), why, line=first + 1,
                        source="order-mutations"))

    # swap: two adjacent read items with different meanings
    from verifiers.procedures.orders import _op, quantity_of

    def meaning(it: object) -> str | None:
        text = it.text  # type: ignore[attr-defined]
        return quantity_of(text) if mode == "quantities" else _op(text)

    pairs = [(a, b) for a, b in zip(read, read[1:], strict=False) if meaning(a) != meaning(b)]
    if pairs:
        a, b = sorted(pairs[rng.randrange(len(pairs))], key=lambda it: (it.line, it.col))
        block = lines[a.line:b.line + 1]
        if a.line == b.line:
            row = block[0]
            block = [row[:a.col] + b.text + row[a.end:b.col] + a.text + row[b.end:]]
        else:
            block[0] = block[0][:a.col] + b.text + block[0][a.end:]
            block[-1] = block[-1][:b.col] + a.text + block[-1][b.end:]
        edit("swap", a.line, b.line, block, f"{a.text!r} and {b.text!r} swapped ({mode})")
    if shape in ("steps", "pair"):
        return out
    one = _one_line(seq)
    position = {id(it): k for k, it in enumerate(items)}
    # drop: an inner read item (the order keeps two); a chain of quantities stays true
    # without one (computed from, through it), and a step vocabulary.yaml does not list as
    # required may go unprinted: those drops are tagged ``dropopt``, no error by definition
    inner = [it for it in read[1:-1]] if len(read) >= 3 and mode == "operations" else []
    if inner:
        from verifiers.procedures.orders import _step_lists

        it = inner[rng.randrange(len(inner))]
        nxt = items[position[id(it)] + 1]
        tag = "drop" if _op(it.text) in _step_lists()[0] else "dropopt"
        if one:
            edit(tag, it.line, it.line, [_same_line_edit(lines[it.line], it.col, nxt.col, "")],
                 f"{it.text!r} left out")
        else:
            edit(tag, it.line, nxt.line - 1, [], f"{it.text!r} and its connector left out")
    # dup: a read item printed twice
    it = read[rng.randrange(len(read))]
    k = position[id(it)]
    if one:
        row = lines[it.line]
        if k + 1 < len(items):
            new = row[:it.col] + row[it.col:items[k + 1].col] + row[it.col:]
        else:
            new = row[:it.end] + row[items[k - 1].end:it.col] + it.text + row[it.end:]
        edit("dup", it.line, it.line, [new], f"{it.text!r} printed twice")
    else:
        prev = items[k - 1] if k else None
        if prev is not None:
            row = lines[it.line]  # the item line again, under the connector above it
            edit("dup", it.line, it.line, [row, *lines[prev.line + 1:it.line], row],
                 f"{it.text!r} printed twice")
    # insert: a step the run never does, before an inner or last read item
    if mode == "quantities":
        names = {quantity_of(x.text) for x in read}
        pool = [s for s in FOREIGN_SYMBOLS if quantity_of(s) not in names]
    else:
        ops = _run_ops(seq, read)
        pool = [w for op, w in FOREIGN if op not in ops]
    if pool:
        word = pool[rng.randrange(len(pool))]
        it = read[1 + rng.randrange(len(read) - 1)]
        k = position[id(it)]
        prev = items[k - 1]
        if one:
            row = lines[it.line]
            sep = row[prev.end:it.col]
            edit("insert", it.line, it.line, [row[:it.col] + word + sep + row[it.col:]],
                 f"{word!r} inserted before {it.text!r}")
        else:
            row = lines[it.line]
            fake = row[:it.col] + word + row[it.end:]
            span = [fake, *lines[prev.line + 1:it.line], row]
            edit("insert", it.line, it.line, span, f"{word!r} inserted before {it.text!r}")
    return out


def edits() -> list[Edit]:
    """The survey's edits, the same on every run (seeded)."""
    from verifiers.procedures.orders import all_sequences

    out: list[Edit] = []
    for name in NOTES:
        text = (ROOT / "notes" / name).read_text(encoding="utf-8")
        lines = text.split("\n")
        rng = random.Random(f"{SEED}:{name}")
        seen: set[str] = set()
        for seq in all_sequences(text):
            for e in _edits_of(name, lines, seq, rng):
                if e.id not in seen and text.count(e.find) >= 1:
                    seen.add(e.id)
                    out.append(e)
    return out


def main(argv: list[str] | None = None) -> int:
    result = edits_main("python -m benchmarks.order_mutations", argv, edits)
    if result is None:
        return 0
    groups: dict[str, list[str]] = {}
    for o in result.outcomes:
        shape, mutation = o.edit.id.rsplit("-", 2)[1:]
        groups.setdefault(f"mutation {mutation}", []).append(o.outcome)
        groups.setdefault(f"shape {shape}", []).append(o.outcome)
    for key, got in sorted(groups.items()):
        print(f"{key:18} {sum(x == 'real' for x in got)}/{len(got)} real at the edited line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
