"""Pattern family: a monotone law in prose, checked against the note's own table.

``ε 越大，最优间隔越小``, ``随 ε 增大，Δ* 减小``, ``Δ* 随 ε 增大而减小``, ``ε 增大时 Δ* 减小``,
``the gap decreases as ε grows``, ``as ε grows, the gap shrinks``, ``the larger K, the larger the
gap``: a sentence that says how one quantity moves with another, next to a
table (Markdown or plain text, within :data:`MAX_LINES` lines) with a column for each. The
word that says where the second quantity goes (越小, decreases) is a word hole ``⟦w⟧`` read
with ``states: {w: {sign: EXPR}}`` (:mod:`verifiers.printed_data`) over the printed columns:
EXPR is the largest (for a falling law) or smallest (rising) product of a step of the first
column and the step of the second, so the word must agree with every pair of rows. An edit of
the word (越小 → 越大) is a ``discrepancy`` at the word; so is an edited cell that breaks it.

A column is named in the sentence by its symbol (``ε``, ``Δ*``) or by the words of its header
(``最优间隔``). The word about the first quantity stays fixed quote text. A reading of prose:
kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate
from verifiers.infer.named import _head, _name_at, _tables
from verifiers.infer.tables import _cell
from verifiers.infer.tokens import NUM, OTHER, Token
from verifiers.words import meaning

__all__ = ["monotone_candidates"]

MAX_LINES = 12  # lines between the sentence and its table
MIN_ROWS = 3
_CN = "大|小|高|低|多|少|长|短|强|弱"
_MOVE = "增大|增加|变大|增长|上升|升高|减小|减少|变小|下降|降低|单调递减|单调递增|递增|递减"
_EN_UP = "increases|decreases|grows|shrinks|falls|rises|drops|declines"
_PHRASE = r"[^，,。；;：:！？!?\n]{1,24}?"
_EN_PHRASE = r"[^,.;:!?\n]{1,40}?"
_LAWS = [
    # X 越大，Y 越小
    re.compile(rf"(?P<x>{_PHRASE})越(?P<xw>{_CN})[，,、\s]*(?P<y>{_PHRASE})(?P<yw>越(?:{_CN}))"),
    # 随(着) X 增大，Y 减小
    re.compile(rf"随着?\s*(?P<x>{_PHRASE})(?:的)?(?P<xw>{_MOVE})[，,、\s]*(?:时\s*)?"
               rf"(?P<y>{_PHRASE})(?P<yw>{_MOVE})"),
    # Y 随 X 增大而减小
    re.compile(rf"(?P<y>{_PHRASE})随着?\s*(?P<x>{_PHRASE})(?:的)?(?P<xw>{_MOVE})而\s*"
               rf"(?P<yw>{_MOVE})"),
    # X 增大时，Y 减小
    re.compile(rf"(?P<x>{_PHRASE})(?P<xw>{_MOVE})时[，,、\s]*(?P<y>{_PHRASE})(?P<yw>{_MOVE})"),
    # as X grows, Y decreases
    re.compile(rf"[Aa]s\s+(?P<x>{_EN_PHRASE})\s+(?P<xw>grows|increases|rises|decreases|falls|"
               rf"shrinks),?\s+(?P<y>{_EN_PHRASE})\s+(?P<yw>{_EN_UP})(?=[\s,.;:!?)]|$)"),
    # Y decreases as/with X (grows)
    re.compile(rf"(?P<y>{_EN_PHRASE})\s+(?P<yw>{_EN_UP})\s+(?:as|with|when)\s+"
               rf"(?P<x>{_EN_PHRASE})(?:\s+(?P<xw>grows|increases|rises|decreases|falls|shrinks))?"
               r"\s*(?=[,.;:!?)\n]|$)", re.IGNORECASE),
    # the larger X, the smaller Y
    re.compile(r"[Tt]he\s+(?P<xw>larger|higher|greater|bigger|smaller|lower)\s+"
               rf"(?P<x>{_EN_PHRASE}),\s+the\s+(?P<yw>larger|higher|greater|bigger|smaller|lower)"
               rf"\s+(?P<y>{_EN_PHRASE})\s*(?=[,.;:!?)\n]|$)"),
]
_GREATER = {"greater": "larger"}


def _direction(word: str) -> str | None:
    return meaning("direction", _GREATER.get(word.lower(), word.lower()))


def _column(text: str, tokens: list[Token], header: list[tuple[int, int]], phrase: str
            ) -> int | None:
    """The one column the phrase names: by the header's symbol or by its words."""
    found = set()
    plain = "".join(phrase.split())
    for j, span in enumerate(header):
        head = _head(text, tokens, span)
        got = _name_at(text, head, 0) if head else None
        symbol = got[0] if got is not None and got[1] == len(head) else None
        cell = text[span[0]:span[1]]
        words = "".join(cell[:head[0].start - span[0]].split()) if head else "".join(
            cell.split())
        words = words.strip("|$ ")
        if symbol and re.search(rf"(?<![A-Za-z0-9_]){re.escape(symbol)}(?![A-Za-z0-9_])",
                                phrase):
            found.add(j)
        elif len(words) >= 2 and (words in plain or (len(plain) >= 2 and plain in words)):
            found.add(j)
    return found.pop() if len(found) == 1 else None


def monotone_candidates(text: str, tokens: list[Token], uncovered: set[int]
                        ) -> list[Candidate]:
    """One candidate per (law sentence, table near it) whose columns it names."""
    tables = _tables(text)
    out = []
    for pattern in _LAWS:
        for m in pattern.finditer(text):
            yw = _direction(m.group("yw"))
            xw = _direction(m.group("xw")) if m.group("xw") else "increases"
            if yw is None or xw is None:
                continue
            line = text.count("\n", 0, m.start())
            for header, rows in tables:
                t_line = text.count("\n", 0, header[0][0])
                last = text.count("\n", 0, rows[-1][0][0])
                if not (t_line - MAX_LINES <= line <= last + MAX_LINES):
                    continue
                cand = _candidate(text, tokens, uncovered, m, header, rows, xw)
                if cand is not None:
                    out.append(cand)
                    break
    return out


def _candidate(text: str, tokens: list[Token], uncovered: set[int], m: re.Match[str],
               header: list[tuple[int, int]], rows: list[list[tuple[int, int]]], xw: str
               ) -> Candidate | None:
    jx = _column(text, tokens, header, m.group("x"))
    jy = _column(text, tokens, header, m.group("y"))
    if jx is None or jy is None or jx == jy:
        return None
    xs: list[Token] = []
    ys: list[Token] = []
    vx: list[float] = []
    vy: list[float] = []
    for row in rows:
        if max(jx, jy) >= len(row):
            return None
        cx, cy = _cell(tokens, row[jx]), _cell(tokens, row[jy])
        if cx is None or cy is None:
            return None
        xs.append(cx[0])
        ys.append(cy[0])
        vx.append(cx[1])
        vy.append(cy[1])
    if len(xs) < MIN_ROWS or not any(t.start in uncovered for t in ys):
        return None
    sign = 1 if xw == "increases" else -1
    products = [sign * (b - a) * (d - c) for a, b, c, d in
                zip(vx, vx[1:], vy, vy[1:], strict=False)]
    if not (all(p < 0 for p in products) or all(p > 0 for p in products)):
        return None
    falling = products[0] < 0
    holes = {f"x{k}": t for k, t in enumerate(xs, start=1)}
    holes.update({f"y{k}": t for k, t in enumerate(ys, start=1)})
    minus = "" if sign == 1 else "-"
    terms = ", ".join(f"{minus}(x{k + 1} - x{k}) * (y{k + 1} - y{k})" for k in
                      range(1, len(xs)))
    expr = f"{'max' if falling else 'min'}({terms})"
    if any(t.kind == OTHER for t in xs + ys) or any(t.kind != NUM for t in xs + ys):
        return None
    cand = Candidate("monotone", "inferred: the law in the sentence agrees with every pair "
                     "of rows of the table", holes, [], {},
                     ["    states:", f"      w: {{sign: \"{expr}\"}}"])
    cand.words = {"w": m.span("yw")}
    return cand
