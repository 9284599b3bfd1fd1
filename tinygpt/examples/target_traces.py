"""Printed next-token training targets, judged entry by entry (code holes).

* ``next_token_targets`` — a block of the note (``code: {from: …, to: …, as: trace}``) that
  pairs each position with the target it is trained to predict. A language model's target
  at a position is the **next** token (the labels are the inputs shifted by one), so each
  entry is recomputed:

  - a table or list of indexed symbols, ``$h_{1}$  $t_{2}$`` / ``h₃ → t₄`` (the position's
    symbol first, its target second): the target's index is the position's index + 1;
  - labels of a printed sequence, ``输入序列："猫 追 老鼠 <EOS>"`` (or ``input: "…"``) and
    one line per position ``position0: 正确答案="追"`` (``位置 1：目标 "老鼠"``): the label at
    position k is the sequence's token k + 1 (positions count from 0 when the list starts
    at 0, else from 1);
  - pairs ``"猫" → "追"`` under such a sequence: each input is followed by its next token.

An edited entry (a target left unshifted, a row copied) is a discrepancy at that entry.
Nothing here knows a note; a block with no entry is an ``error``.
"""

from __future__ import annotations

import re

import torch

from tinygpt.examples import example
from verifiers.programs.codehole import Finding, locator

__all__ = ["next_token_targets", "target_findings"]

_SUB = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_INDEXED = re.compile(r"(?P<sym>[A-Za-z])(?:_\{\s*(?P<a>\d+)\s*\}|_(?P<b>\d+)|(?P<c>[₀-₉]+))")
_Q = r"[\"“「『]"
_UQ = r"[\"”」』]"
_SEQUENCE = re.compile(r"(?:输入序列|输入|序列|input sequence|input|sequence)\s*[：:]\s*" + _Q
                       + r"(?P<seq>[^\"”」』]+)" + _UQ, re.IGNORECASE)
_POSITION = re.compile(r"(?:position|pos|位置)\s*(?P<k>\d+)\s*[：:]?[^\"“「『\n]*?" + _Q
                       + r"(?P<tok>[^\"”」』]+)" + _UQ, re.IGNORECASE)
_RANGE = re.compile(r"\$?(?P<s>[A-Za-z])_?\{?(?P<a>\d+)\}?\$?\s*(?:到|至|…|\.\.\.?|–|-|to)\s*"
                    r"\$?(?P=s)_?\{?(?P<b>\d+)\}?\$?")
_LABEL_WORD = re.compile(r"标签|目标|label|target", re.IGNORECASE)
_PAIR = re.compile(_Q + r"(?P<x>[^\"”」』]+)" + _UQ + r"\s*(?:→|->|⟶)\s*" + _Q
                   + r"(?P<y>[^\"”」』]+)" + _UQ)


def _index(m: re.Match[str]) -> int:
    return int((m.group("a") or m.group("b") or m.group("c")).translate(_SUB))


def _symbol_rows(lines: list[str]) -> list[Finding]:
    """Rows pairing ``h_i`` with ``t_j``: j must be i + 1."""
    out: list[Finding] = []
    for i, line in enumerate(lines, start=1):
        found = list(_INDEXED.finditer(line))
        if len(found) != 2 or found[0].group("sym") == found[1].group("sym"):
            continue
        pos, tgt = found
        p, t = _index(pos), _index(tgt)
        span = tgt.span("a") if tgt.group("a") else tgt.span("b") if tgt.group("b") \
            else tgt.span("c")
        ok = t == p + 1
        out.append(Finding(i, span[0], span[1], "verified" if ok else "discrepancy",
                           f"target of {pos.group()}", tgt.group(),
                           f"{tgt.group('sym')}_{p + 1}",
                           f"position {pos.group()} is trained to predict the next token: "
                           f"{tgt.group('sym')}_{p + 1}" + ("" if ok else f", not {tgt.group()}")))
    return out


def _range_rows(lines: list[str]) -> list[Finding]:
    """``输入设为t1到t6，标签设为t2到t7``: the labels are the inputs' range shifted by one."""
    out: list[Finding] = []
    for i, line in enumerate(lines, start=1):
        found = list(_RANGE.finditer(line))
        if len(found) != 2 or not _LABEL_WORD.search(line, found[0].end(), found[1].start()):
            continue
        x, y = found
        a, b, c, d = (int(x.group("a")), int(x.group("b")), int(y.group("a")),
                      int(y.group("b")))
        for group, got, want in (("a", c, a + 1), ("b", d, b + 1)):
            ok = got == want
            out.append(Finding(i, y.start(group), y.end(group), "verified" if ok else "discrepancy",
                               f"label range {group}", str(got), str(want),
                               f"inputs {x.group()} are trained on the next tokens: labels "
                               f"{y.group('s')}{a + 1}…{y.group('s')}{b + 1}"))
    return out


def _sequence_rows(lines: list[str]) -> list[Finding]:
    """Labels of a printed sequence: per position, or as input → target pairs."""
    out: list[Finding] = []
    seq: list[str] | None = None
    rows: list[tuple[int, re.Match[str]]] = []
    pairs: list[tuple[int, re.Match[str]]] = []
    for i, line in enumerate(lines, start=1):
        s = _SEQUENCE.search(line)
        if s is not None and seq is None:
            seq = s.group("seq").split()
            continue
        rows += [(i, m) for m in _POSITION.finditer(line)]
        pairs += [(i, m) for m in _PAIR.finditer(line)]
    if seq is None:
        return out
    base = 0 if any(int(m.group("k")) == 0 for _, m in rows) else 1
    for i, m in rows:
        k = int(m.group("k")) - base
        want = seq[k + 1] if 0 <= k and k + 1 < len(seq) else None
        tok = m.group("tok").strip()
        ok = want == tok
        why = (f"position {m.group('k')} reads {seq[k]!r} and is trained to predict the next "
               f"token {want!r}") if want is not None else \
            f"position {m.group('k')} has no next token in the sequence {' '.join(seq)!r}"
        out.append(Finding(i, m.start("tok"), m.end("tok"), "verified" if ok else "discrepancy",
                           f"label of position {m.group('k')}", tok, want or "", why))
    at = 0
    for i, m in pairs:
        x, y = m.group("x").strip(), m.group("y").strip()
        k = next((j for j in range(at, len(seq) - 1) if seq[j] == x), None)
        if k is None:
            out.append(Finding(i, m.start("x"), m.end("x"), "discrepancy", f"input {x}", x, "",
                               f"{x!r} is not a next input of the sequence {' '.join(seq)!r}"))
            continue
        at = k + 1
        ok = seq[k + 1] == y
        out.append(Finding(i, m.start("y"), m.end("y"), "verified" if ok else "discrepancy",
                           f"target of {x}", y, seq[k + 1],
                           f"{x!r} is followed by {seq[k + 1]!r} in {' '.join(seq)!r}"))
    return out


@locator("next_token_targets")
def target_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each entry pairing a position with its target, recomputed as the next token."""
    lines = block.splitlines()
    out = _sequence_rows(lines) or (_symbol_rows(lines) + _range_rows(lines))
    if not out:
        out.append(Finding(1, 0, len(lines[0]) if lines else 0, "error", "trace", "", "",
                           "no position → target entry in the block"))
    return out


@example("next_token_targets")
def next_token_targets(text: str, trace: str) -> dict[str, torch.Tensor]:
    """The number of entries the block prints (the locator judges each)."""
    n = len(target_findings(trace, text, 1))
    return {"entries": torch.tensor(float(n), dtype=torch.float64)}
