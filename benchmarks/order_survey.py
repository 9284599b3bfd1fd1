"""Exhaustive survey of printed orders: every site, one seeded author edit each.

``python -m benchmarks.order_survey [--without-orders] [--progress] [--list]``

Sites are found in the three notes by the readers themselves, not by looking at claims:
every printed sequence whose items the operation or quantity vocabulary reads (an arrow
chain, a box diagram, ``先…再…``), every step reference in a block of numbered steps
(``重复步骤 1~6``) and every yes/no row of a table comparing training and inference. Each
site gets one edit, drawn with ``random.Random(SEED)``:

* a sequence: two adjacent read items with different meanings swapped;
* a step reference: its first number changed to another step of the block;
* a table row: one yes/no cell flipped.

The edits run through the planted-error runner (:func:`benchmarks.planted.survey.survey`)
with every claim of the note, as ``--held-out`` edits are. ``--without-orders`` runs them
with the claims minus the inferred order claims (``88-orders-inferred.yaml``): the figure
before this change. The table says, per shape, how many got a real verdict at an edited line.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from pathlib import Path

from benchmarks.planted.survey import Edit, survey, table

ROOT = Path(__file__).resolve().parents[1]
NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt")
SEED = 20261207


def _sequence_edits(name: str, text: str, rng: random.Random) -> list[Edit]:
    from verifiers.procedures.orders import _mode
    from verifiers.procedures.sequences import sequences

    lines = text.split("\n")
    out = []
    for seq in sequences(text):
        mode, read = _mode(seq)
        pairs = [(a, b) for (oa, a), (ob, b) in zip(read, read[1:], strict=False) if oa != ob]
        if not mode or not pairs:
            continue
        a, b = pairs[rng.randrange(len(pairs))]
        first, last = a.line, b.line
        block = lines[first:last + 1]
        if first == last:
            row = block[0]
            block = [row[:a.col] + b.text + row[a.end:b.col] + a.text + row[b.end:]]
        else:
            block[0] = block[0][:a.col] + b.text + block[0][a.end:]
            block[-1] = block[-1][:b.col] + a.text + block[-1][b.end:]
        find = "\n".join(lines[first:last + 1])
        out.append(Edit(f"os-{name[:4]}-{first + 1}-{a.col}-{seq.shape}", "program", name, find,
                        "\n".join(block), f"{a.text!r} and {b.text!r} swapped ({mode})",
                        line=first + 1, source="order-survey"))
    return out


def _ref_edits(name: str, text: str, rng: random.Random) -> list[Edit]:
    from verifiers.procedures.orders import _numbered, _step_refs

    lines = text.split("\n")
    steps = _numbered(text)
    out = []
    for k, m in _step_refs(text):
        other = [n for n in sorted(steps) if n != int(m[1]) and n <= int(m[2] or m[1])]
        if not other:
            continue
        new = other[rng.randrange(len(other))]
        row = lines[k]
        edited = row[:m.start(1)] + str(new) + row[m.end(1):]
        out.append(Edit(f"os-{name[:4]}-{k + 1}-ref", "program", name, row, edited,
                        f"step reference {m[1]} -> {new}", line=k + 1, source="order-survey"))
    return out


def _row_edits(name: str, text: str, rng: random.Random) -> list[Edit]:
    from verifiers.procedures.modes import _cells, _tables, table_rows

    lines = text.split("\n")
    answers = _tables()[1]
    out = []
    for k, header, _ in table_rows(text):
        cells = _cells(lines[k])
        cols = [c for c in header if 0 < c < len(cells) and cells[c][0].casefold() in answers]
        if not cols:
            continue
        c = cols[rng.randrange(len(cols))]
        cell, a, b = cells[c]
        flip = "否" if answers[cell.casefold()] else "是"
        row = lines[k]
        out.append(Edit(f"os-{name[:4]}-{k + 1}-row", "program", name, row,
                        row[:a] + flip + row[b:], f"{cell} -> {flip} in a mode table",
                        line=k + 1, source="order-survey"))
    return out


def edits() -> list[Edit]:
    """The survey's edits, the same on every run (seeded)."""
    out: list[Edit] = []
    for name in NOTES:
        text = (ROOT / "notes" / name).read_text(encoding="utf-8")
        rng = random.Random(f"{SEED}:{name}")
        out += _sequence_edits(name, text, rng) + _ref_edits(name, text, rng) + \
            _row_edits(name, text, rng)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.order_survey")
    parser.add_argument("--without-orders", action="store_true",
                        help="run without the inferred order claims (the figure before)")
    parser.add_argument("--list", action="store_true", help="only list the edits")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    found = edits()
    if args.list:
        for e in found:
            print(f"{e.id}: {e.why}")
        return 0
    claims = ROOT / "claims"
    tmp = None
    if args.without_orders:
        tmp = Path(tempfile.mkdtemp(prefix="notecheck-orders-"))
        claims = tmp / "claims"
        shutil.copytree(ROOT / "claims", claims,
                        ignore=shutil.ignore_patterns("88-orders-inferred.yaml"))

    def progress(i: int, n: int, o: object) -> None:
        print(f"[{i}/{n}] {o.edit.id}: {o.outcome} {o.detail}",  # type: ignore[attr-defined]
              file=sys.stderr, flush=True)

    try:
        result = survey(found, claims_dir=claims, progress=progress if args.progress else None)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    print(table(result))
    shapes: dict[str, list[str]] = {}
    for o in result.outcomes:
        shapes.setdefault(o.edit.id.rsplit("-", 1)[1], []).append(o.outcome)
    for shape, got in sorted(shapes.items()):
        print(f"{shape:10} {sum(x == 'real' for x in got)}/{len(got)} real at the edited line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
