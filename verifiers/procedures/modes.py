"""Tables that compare modes (training / inference × "updates parameters? computes Q, K, V?").

A table whose header names modes (``modes.yaml``: 训练阶段, 推理, training, inference, …)
and whose cells answer yes or no (是/否, ✓/✗, yes/no) is read row by row: the row's label
names an operation in the procedure vocabulary (``是否更新`` → update, ``是否计算 Q, K, V``
→ qkv, ``是否知道标准答案`` → targets), and a mode does it when tinygpt's recorded run in
that mode does it (training: forward pass, loss, backward, update; inference: decoding).
A cell that says otherwise is a discrepancy at the cell. Cells that are not a bare yes or no
(``有，但被因果掩码挡住``) and labels the vocabulary does not know are not read.

A claim reads one row: the last table row of its block (``code: {from: HEADER, to: LABEL}``),
so each row is kept or dropped on its own.
"""

from __future__ import annotations

import functools
from pathlib import Path

from verifiers.procedures import read
from verifiers.programs.codehole import Finding
from verifiers.yamlload import load

__all__ = ["mode_findings", "table_rows"]

MODES = Path(__file__).resolve().parent / "modes.yaml"


@functools.cache
def _tables() -> tuple[dict[str, str], dict[str, bool]]:
    root = load(MODES.read_text(encoding="utf-8"))
    data = root.plain() if root is not None else None
    if not isinstance(data, dict):
        raise ValueError(f"{MODES.name}: expected a mapping")
    modes = {w.casefold(): str(m) for m, ws in data["modes"].items() for w in ws}
    answers = {w.casefold(): a == "yes" for a, ws in data["answers"].items() for w in ws}
    return modes, answers


def _cells(line: str) -> list[tuple[str, int, int]]:
    """(text, start, end) of each cell: tab- or ``|``-separated."""
    sep = "\t" if "\t" in line else "|" if line.count("|") >= 2 else None
    if sep is None:
        return []
    out, pos = [], 0
    for part in line.split(sep):
        a = pos + len(part) - len(part.lstrip())
        out.append((part.strip(), a, a + len(part.strip())))
        pos += len(part) + 1
    if sep == "|":
        out = out[1:-1] if line.strip().startswith("|") else out
    return out


def _header(line: str) -> dict[int, str]:
    """Column -> mode, when at least two columns name a mode."""
    modes = _tables()[0]
    found = {k: modes[c.casefold()] for k, (c, _, _) in enumerate(_cells(line))
             if c.casefold() in modes}
    return found if len(found) >= 2 else {}


def table_rows(block: str) -> list[tuple[int, dict[int, str], int]]:
    """(0-based line, header columns, header's line) of each row under a mode header."""
    out = []
    header: dict[int, str] = {}
    at = -1
    for k, line in enumerate(block.split("\n")):
        if not line.strip():
            header = {}
            continue
        found = _header(line)
        if found:
            header, at = found, k
        elif header and _cells(line):
            out.append((k, header, at))
    return out


@functools.cache
def _done() -> dict[str, frozenset[str]]:
    """Mode -> every operation tinygpt's runs in that mode record."""
    from verifiers.procedures.orders import _runs

    out: dict[str, set[str]] = {"training": set(), "inference": set()}
    for name, events in _runs():
        mode = "training" if name.startswith("training") else \
            "inference" if name.startswith("decoding") else None
        if mode:
            out[mode].update(n for n, _ in events)
    return {m: frozenset(v) for m, v in out.items()}


def _row_op(label: str) -> str | None:
    from verifiers.procedures.orders import _scan

    key = _scan(label)
    ops = read.ops_of(key) if key else None
    return ops[0] if ops else None


def mode_findings(block: str) -> list[Finding]:
    """The block's last mode-table row, each yes/no cell against tinygpt's run."""
    rows = table_rows(block)
    if not rows:
        return []
    k, header, _ = rows[-1]
    line = block.split("\n")[k]
    cells = _cells(line)
    if not cells:
        return []
    label = cells[0][0]
    op = _row_op(label)
    answers = _tables()[1]
    out = []
    for col, mode in sorted(header.items()):
        if col >= len(cells) or col == 0 or op is None:
            continue
        text, a, b = cells[col]
        said = answers.get(text.casefold())
        if said is None:
            continue
        does = op in _done()[mode]
        yes = "yes" if does else "no"
        if said == does:
            out.append(Finding(k + 1, a, b, "verified", "mode", text, text,
                               f"{label!r} in {mode}: {text} ({yes}), as tinygpt's {mode} "
                               f"run does ({op} {'recorded' if does else 'not recorded'})"))
        else:
            out.append(Finding(k + 1, a, b, "discrepancy", "mode", text, yes, (
                f"{label!r} in {mode}: the table says {text!r}, but tinygpt's {mode} run "
                f"{'does' if does else 'never does'} {op}")))
    return out

