"""Pattern family: printed orders (pipelines, box diagrams, chains, step references).

Every sequence :mod:`verifiers.procedures.sequences` finds in a note, and that the
vocabularies read (:func:`verifiers.procedures.orders.readable`), gets one ``kind: model``
claim with a code hole over the lines around it (``code: {from: ANCHOR, to: NEXT}``, run
``printed_order``): the order is read from the note as it is now and judged against tinygpt
on every run, so an edit that swaps, moves or replaces an item is a discrepancy at it, never
``stale``. The quote is the anchor line above the sequence (never its items). A claim is
written only when it evaluates ``verified`` on the note as it is (zero false alarms).

``python -m verifiers.infer.orders NOTE … [--notes DIR] [--claims DIR]`` writes the claims
of the given notes to ``claims/<stem>/88-orders-inferred.yaml``.
"""

from __future__ import annotations

import re

from verifiers.infer.evaluate import Inferred, _evaluate, _head, claim_id
from verifiers.notes import Note

__all__ = ["order_claims"]

SAYS = "inferred: the printed order is the order tinygpt computes in (read from the note)"
_FRAME = "│┃|├└┌┐┘┤┬┴┼─↓ \t\u3000"
ANCHOR_LINES = 8  # how far above a sequence its anchor line may be
_MATH = re.compile(r"[$\\=^]|_\{")  # LaTeX, an equation, a power or a subscript


def _content(line: str) -> str:
    return line.strip(_FRAME)


def _anchor(lines: list[str], first: int, lo: int, hi: int,
            items: frozenset[int]) -> int | None:
    """The nearest line above ``first`` (within the section, from ``lo``) whose text no
    earlier line of the section starts with, so ``from:`` finds it."""
    for k in range(first - 1, max(lo - 1, first - 1 - ANCHOR_LINES), -1):
        body = lines[k].strip()
        if not body or not _content(body) or k in items or _MATH.search(body):
            continue  # a formula line is no anchor: an edit of its formula would move it
        if not any(lines[j].strip().startswith(body) for j in range(lo, k)) and \
                sum(body in lines[j] for j in range(lo, hi)) == 1:
            return k
    return None


def _marker(line: str) -> str:
    """A line's ``to:`` text: without a box's frame; for a step reference only its longest
    run without digits (``重复步骤 1~6`` is found again after ``1~6`` is edited)."""
    from verifiers.procedures.orders import _REF

    body = _content(line)
    if _REF.search(body):
        body = max(re.split(r"[\d~～\-–]+", body), key=len).strip()
    return _outside_items(line) or body


def _outside_items(line: str) -> str | None:
    """For a line stating an order in prose (a pair, a list), its longest stretch outside
    the order's words: an edit that swaps, drops or inserts a word keeps it."""
    from verifiers.procedures.relations import listed_orders, relation_pairs

    items = [it for seq in relation_pairs(line) + listed_orders(line) for it in seq.items]
    if not items:
        return None
    cuts = sorted({0, len(line), *(p for it in items for p in (it.col, it.end))})
    pieces = [line[a:b].strip() for a, b in zip(cuts, cuts[1:], strict=False)
              if not any(it.col <= a and b <= it.end for it in items)]
    best = max(pieces, key=len, default="")
    return best if len(best) >= 4 else None


def _end(lines: list[str], first: int, last: int, start: int, items: frozenset[int],
         hi: int) -> tuple[int, str] | None:
    """The block's ``to:`` (line, text): the last line of the site that holds no item (an
    edit there would lose the block's end), else the first line after it in the section
    (before line ``hi``), else the site's last item line; its text is on no line before it."""
    def ok(k: int) -> bool:
        body = _marker(lines[k])
        return len(body) >= 2 and not any(body in lines[j] for j in range(start, k))

    inside = [k for k in range(last, first, -1) if k not in items and ok(k)]
    after = [k for k in range(last + 1, min(hi, last + 6)) if ok(k)]
    if inside or after:
        k = (inside or after)[0]
        return k, _marker(lines[k])
    # last resort: the longest item of the last line (a swap or a move keeps it on its line)
    from verifiers.procedures.sequences import sequences

    for k in range(last, first - 1, -1):
        if k not in items:
            continue
        prose = _outside_items(lines[k])
        texts = [prose] if prose else sorted(
            (it.text for seq in sequences(lines[k]) for it in seq.items),
            key=len, reverse=True) or [_marker(lines[k])]
        return next(((k, t) for t in texts if len(t) >= 2
                     and not any(t in lines[j] for j in range(start, k))), None)
    return None


def _box(line: str) -> bool:
    return line.lstrip().startswith(("│", "┃")) and not line.lstrip(" │┃").startswith("└")


def _sites(note: Note) -> list[tuple[int, int, frozenset[int]]]:
    """(first line, last line, lines holding items) (0-based) of each readable sequence; a
    sequence inside a box diagram runs on to the box's end (its step references too), and
    sites that overlap are one."""
    from verifiers.procedures.orders import all_sequences, readable

    lines = note.text.split("\n")
    found: list[tuple[int, int, frozenset[int]]] = []
    for seq in all_sequences(note.text):
        first, last = seq.items[0].line, seq.items[-1].line
        if not readable("\n".join(lines[first:last + 1])):
            continue
        while _box(lines[last]) and last + 1 < len(lines) and _box(lines[last + 1]):
            last += 1
        items = frozenset(it.line for it in seq.items)
        found = _merge(found, first, last, items)
    for first, last in _ref_sites(lines):
        found = _merge(sorted(found), first, last, frozenset())
    return sorted(found)


def _merge(found: list[tuple[int, int, frozenset[int]]], first: int, last: int,
           items: frozenset[int]) -> list[tuple[int, int, frozenset[int]]]:
    """``found`` with the site (first, last) added, merged with the sites it overlaps."""
    keep = []
    for a, b, seen in found:
        if a <= last and first <= b:
            first, last, items = min(a, first), max(b, last), seen | items
        else:
            keep.append((a, b, seen))
    return [*keep, (first, last, items)]


def _ref_sites(lines: list[str]) -> list[tuple[int, int]]:
    """(first step's line, reference's line) of each step reference under numbered steps."""
    from verifiers.procedures.orders import _REF

    out = []
    for k, line in enumerate(lines):
        if not _REF.search(line):
            continue
        start = next((j for j in range(k, max(-1, k - 40), -1)
                      if re.match(r"^[\s│┃|]*1(?:\. |、|\.)", lines[j])), None)
        if start is not None:
            out.append((start, k))
    return out


def _entry(cid: str, label: str | None, quote: str, start: str, end: str) -> str:
    import json

    return "\n".join(_head(cid, label, SAYS, quote) + [
        "    kind: model",
        f"    code: {{from: {json.dumps(start, ensure_ascii=False)}, "
        f"to: {json.dumps(end, ensure_ascii=False)}}}",
        "    run:",
        "      example: printed_order",
        "      text: true",
        "      outputs: {n: outputs}"]) + "\n"


def _keep(notes: dict[str, Note], note_name: str, cid: str, entry: str,
          existing: set[str]) -> Inferred | None:
    if cid in existing:
        return None
    verdict = _evaluate(notes, note_name, cid, entry)
    if verdict is None or getattr(verdict, "status", "") != "verified":
        return None
    existing.add(cid)
    return Inferred(cid, entry, "verified", "order", (), ())


def _row_claims(notes: dict[str, Note], note_name: str, stem: str,
                existing: set[str]) -> list[Inferred]:
    """One claim per row of a mode table: from its header to the row's label."""
    from verifiers.procedures.modes import _cells, mode_findings, table_rows

    note = notes[note_name]
    lines = note.text.split("\n")
    out: list[Inferred] = []
    for k, _, head in table_rows(note.text):
        label = _cells(lines[k])[0][0]
        block = "\n".join(lines[head:k + 1])
        if len(label) < 2 or any(label in ln for ln in lines[head:k]) or \
                not mode_findings(block):
            continue
        section = note.section_at(note.offset(head + 1, 1))
        scope = (section.start, section.end) if section else (0, len(note.text))
        quote = lines[head].strip()
        if note.text.count(quote, *scope) != 1:
            continue
        name = section.label if section else None
        cid = claim_id(stem, name, f"mode-row:{quote}:{label}")
        got = _keep(notes, note_name, cid, _entry(cid, name, quote, quote, label), existing)
        if got is not None:
            out.append(got)
    return out


def order_claims(notes: dict[str, Note], note_name: str, stem: str,
                 existing: set[str]) -> list[Inferred]:
    """One verified ``printed_order`` claim per site whose block reads (and per row of a
    mode table)."""
    note = notes[note_name]
    lines = note.text.split("\n")
    out: list[Inferred] = _row_claims(notes, note_name, stem, existing)
    blocks: set[tuple[int, int]] = set()
    for first, last, items in _sites(note):
        offset = note.offset(first + 1, 1)
        section = note.section_at(offset)
        lo = note.position(section.start)[0] - 1 if section else 0
        hi = note.position(section.end)[0] - 1 if section else len(lines)
        start = _anchor(lines, first, lo, hi, items)
        if start is None:
            continue
        found = _end(lines, first, last, start, items, hi)
        if found is None or (start, found[0]) in blocks:
            continue
        end, marker = found
        quote = lines[start].strip()
        scope = (section.start, section.end) if section else (0, len(note.text))
        if note.text.count(quote, *scope) != 1:
            continue
        label = section.label if section else None
        cid = claim_id(stem, label, f"order:{quote}:{marker}")
        got = _keep(notes, note_name, cid, _entry(cid, label, quote, quote, marker), existing)
        if got is None:
            continue
        blocks.add((start, end))
        out.append(got)
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the order claims of the given notes (their own file, replaced)."""
    from verifiers.infer.write import write_own_files

    return write_own_files(argv, "verifiers.infer.orders", "88-orders-inferred.yaml",
                           "Printed orders read from the note and checked against tinygpt",
                           order_claims, "order")


if __name__ == "__main__":
    raise SystemExit(main())
