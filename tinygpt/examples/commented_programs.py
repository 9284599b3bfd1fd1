"""A printed program whose outputs the note writes as comments, run and compared (code holes).

* ``program_comments`` — the note's program (``code: {from: FIRST LINE}``, read as it is now)
  runs in the jail under a harness that records what each ``print`` call prints and from
  which line. The note writes the output as comments: the comment lines right under a
  ``print(…)`` statement (``# [0 1] [0.7311 0.2689]``), or a comment on the print's own line
  after an arrow (``print(x)  # → 0.5``, ``# -> 0.5``, ``# => 0.5``). Each comment line is the
  next line that print printed; each number of it is compared with the printed number, within
  the comment's own precision (``0.7311`` stands for anything that rounds to it).

An edited comment is a discrepancy at its number. An edited code line that changes what is
printed is a discrepancy at the printed output it changes, and the message names the code
lines that feed only the outputs that now differ (a backward slice over the program's
statements, minus the lines that also feed an output that still agrees): one line when
the others are confirmed by a matching output. A program that fails is an ``error`` at the
line that raised. Nothing here knows a note: no variable name, no expected number.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import secrets

import torch

from tinygpt.examples import example
from verifiers.programs.codehole import Finding, _defs_uses, _slice, comments, locator

__all__ = ["commented_outputs", "program_comments", "program_comments_findings"]

TIMEOUT = 30  # seconds: a note's small program
NOTE_FILE = "note_program.py"
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_ARROW = re.compile(r"#\s*(?:→|->|=>|⇒|输出[：:]?|prints?:?)\s*")
# what a printed line may hold besides numbers: brackets, separators, array/tensor wrappers
_PRINTED_WORDS = re.compile(r"\b(?:array|tensor|dtype|float\d*|int\d*|True|False|None|nan|inf)\b"
                            r"|[\[\](){},;:'\"=\s]|torch\.|np\.")
_HARNESS = r'''
import builtins as _b, io as _io, json as _json, runpy as _runpy, sys as _sys
_NOTE = {note!r}
_MARK = {mark!r}
_orig = _b.print
_rec = []
def _print(*args, **kw):
    kw.pop("file", None)
    buf = _io.StringIO()
    _orig(*args, file=buf, **kw)
    f = _sys._getframe(1)
    while f is not None and f.f_code.co_filename != _NOTE:
        f = f.f_back
    _rec.append([f.f_lineno if f is not None else 0, buf.getvalue()])
_b.print = _print
try:
    _runpy.run_path(_NOTE, run_name="__main__")
finally:
    _b.print = _orig
    _orig(_MARK + _json.dumps(_rec))
'''
_RAISED_AT = re.compile(r'File "[^"]*' + re.escape(NOTE_FILE) + r'", line (\d+)')


@functools.lru_cache(maxsize=16)
def _run(program: str) -> tuple[tuple[tuple[int, str], ...] | None, str, bool]:
    """(per-print records (program line, printed text) or None, stderr, timed out)."""
    from verifiers.programs import run_program

    mark = "\x00notecheck-" + secrets.token_hex(8) + ":"
    result = run_program(_HARNESS.format(note=NOTE_FILE, mark=mark), timeout=TIMEOUT,
                         extra_files={NOTE_FILE: program})
    records = None
    for line in result.stdout.splitlines():
        if line.startswith(mark):
            try:
                records = tuple((int(a), str(b)) for a, b in json.loads(line[len(mark):]))
            except ValueError:
                records = None
    failed = result.returncode != 0 or result.timed_out
    return (None if failed else records), result.stderr, result.timed_out


def _looks_printed(text: str) -> bool:
    """A comment that is output: numbers, brackets and separators only."""
    return bool(_NUMBER.search(text)) and not _PRINTED_WORDS.sub("", _NUMBER.sub("", text))


def _print_statements(tree: ast.Module) -> list[ast.stmt]:
    return [s for s in ast.walk(tree) if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
            and isinstance(s.value.func, ast.Name) and s.value.func.id == "print"]


def commented_outputs(program: str) -> dict[int, list[tuple[int, int, str]]]:
    """Print line → the comments that show its output: (line, column after '#', text)."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return {}
    lines = program.splitlines()
    by_line = {c.line: c for c in comments(program)}
    out: dict[int, list[tuple[int, int, str]]] = {}
    for stmt in _print_statements(tree):
        first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
        got: list[tuple[int, int, str]] = []
        same = by_line.get(last)
        if same is not None:
            arrow = _ARROW.match(same.text)
            if arrow and _looks_printed(same.text[arrow.end():]):
                got.append((last, same.col + arrow.end(), same.text[arrow.end():]))
        k = last + 1
        while not got or got[0][0] != last:
            c = by_line.get(k)
            if c is None or lines[k - 1][:c.col].strip() or not _looks_printed(c.text[1:]):
                break
            got.append((k, c.col + 1, c.text[1:]))
            k += 1
        if got:
            out[first] = got
    return out


def _decimals(text: str) -> int:
    mant = re.split(r"[eE]", text)[0]
    return len(mant.split(".")[1]) if "." in mant else 0


def _close(shown: str, value: float) -> bool:
    """``shown`` is ``value`` at the comment's precision (rounded, or truncated when short)."""
    want = float(shown)
    if re.search(r"[eE]", shown):
        exp = int(re.split(r"[eE]", shown)[1])
        half = 0.5 * 10.0 ** (exp - _decimals(shown))
    else:
        half = 0.5 * 10.0 ** -_decimals(shown)
    return abs(want - value) <= half * (1 + 1e-9) + 1e-12 * abs(value)


def _statements(tree: ast.Module) -> list[tuple[int, set[str], set[str]]]:
    out = []
    for stmt in tree.body:
        defs, uses = _defs_uses(stmt)
        out.append((stmt.lineno, defs, uses))
    return out


def _feeders(tree: ast.Module, line: int) -> set[int]:
    """Top-level lines the statement at ``line`` (a print) reads, itself included."""
    stmts = _statements(tree)
    top = max((s for s in stmts if s[0] <= line), key=lambda s: s[0], default=None)
    if top is None:
        return set()
    before = [s for s in stmts if s[0] < top[0]]
    lines, _ = _slice(before, top[2] | top[1])
    return lines | {top[0]}


def _culprit(tree: ast.Module, bad: list[int], good: list[int], source: list[str]) -> str:
    """The code lines only the differing outputs read (none when it cannot tell)."""
    suspects: set[int] = set()
    for line in bad:
        suspects |= _feeders(tree, line)
    for line in good:
        suspects -= _feeders(tree, line)
    suspects -= set(bad)
    if not suspects:
        return "; every line it reads also feeds an output that matches: the print line " \
            "itself is the likely edit"
    if len(suspects) == 1:
        k = next(iter(suspects))
        return f"; the only code line feeding it that no matching output confirms is line {k}: " \
               f"`{source[k - 1].strip()}`"
    if len(suspects) <= 6:
        return f"; it is computed by lines {', '.join(map(str, sorted(suspects)))}"
    return ""


_MARKER = re.compile(r"(?:输出|运行结果|打印结果|程序输出|output|it prints|this prints|prints"
                     r"|printed)(?:如下|是)?\s*[：:]?\s*$", re.IGNORECASE)


def split_block(block: str) -> tuple[str, list[tuple[int, str]]]:
    """(the program, the output block's lines (1-based block line, text)).

    A block that holds a fenced program and what follows it (``code: {from: …, to: …}``)
    is cut at the program's closing fence; its output is the next fenced block (after an
    optional marker line such as ``Output:``/``输出：``), or the lines after a marker up to
    a blank line. A block without a fence is all program.
    """
    lines = block.split("\n")
    fence = next((k for k, ln in enumerate(lines) if ln.strip().startswith("```")), None)
    if fence is None:
        return _split_unfenced(lines)
    program = "\n".join(lines[:fence]) + "\n"
    k = fence + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    marked = k < len(lines) and bool(_MARKER.search(lines[k].strip())) and \
        len(lines[k].strip()) <= 40
    if marked:
        k += 1
        while k < len(lines) and not lines[k].strip():
            k += 1
    out: list[tuple[int, str]] = []
    if k < len(lines) and lines[k].strip().startswith("```"):
        k += 1
        while k < len(lines) and not lines[k].strip().startswith("```"):
            out.append((k + 1, lines[k]))
            k += 1
    elif marked:
        while k < len(lines) and lines[k].strip() and not lines[k].strip().startswith("```"):
            out.append((k + 1, lines[k]))
            k += 1
    return program, [(n, t) for n, t in out if t.strip()]


def _split_unfenced(lines: list[str]) -> tuple[str, list[tuple[int, str]]]:
    """A plain-text note's program (no fence): it ends at an unindented marker line
    (``输出：``, ``Output:``); its output is the lines after the marker, up to a blank line
    after the first output line. Without a marker the block is all program."""
    marker = next((k for k, ln in enumerate(lines) if k and ln.strip()
                   and not ln[:1].isspace() and not ln.lstrip().startswith("#")
                   and len(ln.strip()) <= 40 and _MARKER.fullmatch(ln.strip())), None)
    if marker is None:
        return "\n".join(lines), []
    program = "\n".join(lines[:marker]).rstrip("\n") + "\n"
    k = marker + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    out: list[tuple[int, str]] = []
    while k < len(lines) and lines[k].strip():
        out.append((k + 1, lines[k]))
        k += 1
    return program, out


def _compare(cline: int, col: int, text: str, actual: str | None, where: str
             ) -> tuple[list[Finding], bool]:
    """One shown output line against the printed line: each number at its precision."""
    nums = [(m.group(), col + m.start(), col + m.end()) for m in _NUMBER.finditer(text)]
    if not nums:
        ok = actual is not None and actual.strip() == text.strip()
        return [Finding(cline, col, col + len(text), "verified" if ok else "discrepancy",
                        "output", text.strip(), (actual or "").strip(),
                        f"the {where} prints {(actual or '').strip()!r}")], ok
    vals = [float(m.group()) for m in _NUMBER.finditer(actual or "")]
    if actual is None or len(vals) != len(nums):
        say = "prints nothing here" if actual is None else f"prints {actual.strip()!r}"
        return [Finding(cline, nums[0][1], nums[-1][2], "discrepancy", "output", text.strip(),
                        (actual or "").strip(), f"the {where} {say}")], False
    out, ok_all = [], True
    for (t, a, b), v in zip(nums, vals, strict=True):
        ok = _close(t, v)
        ok_all = ok_all and ok
        shown = f"{v:.{_decimals(t)}f}" if "e" not in t.lower() else repr(v)
        out.append(Finding(cline, a, b, "verified" if ok else "discrepancy", "output", t,
                           t if ok else shown, f"the {where} prints {actual.strip()!r}"))
    return out, ok_all


def _failure(source: list[str], stderr: str, timed_out: bool) -> Finding:
    raised = [int(m.group(1)) for m in _RAISED_AT.finditer(stderr)]
    at = raised[-1] if raised and 1 <= raised[-1] <= len(source) else 1
    last = (stderr.strip().splitlines() or ["(no message)"])[-1]
    why = f"the program did not finish within {TIMEOUT} s" if timed_out else \
        f"the program stops at its line {at}: {last}"
    return Finding(at, 0, len(source[at - 1]) if source else 0, "error", "program",
                   source[at - 1] if source else "", "", why)


@locator("program_comments")
def program_comments_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each shown output (a comment under its print, or a line of the output block after
    the program) compared with what the program prints."""
    program, shown_block = split_block(block)
    expected = commented_outputs(program)
    source = program.splitlines()
    if not expected and not shown_block:
        return [Finding(1, 0, len(source[0]) if source else 0, "error", "program", "", "",
                        "no shown output (a `# …` line under a print, `# → …`, or an output "
                        "block after the program)")]
    records, stderr, timed_out = _run(program)
    if records is None:
        return [_failure(source, stderr, timed_out)]
    printed: dict[int, list[str]] = {}
    flat: list[tuple[int, str]] = []  # every printed line with the print line it came from
    for line, text in records:
        for part in text.rstrip("\n").split("\n"):
            printed.setdefault(line, []).append(part)
            flat.append((line, part))
    pending: list[tuple[int, Finding]] = []
    verdict: dict[int, bool] = {}
    for pline, shown in sorted(expected.items()):
        got = printed.get(pline, [])
        for k, (cline, col, text) in enumerate(shown):
            found, ok = _compare(cline, col, text, got[k] if k < len(got) else None,
                                 f"print at line {pline}")
            pending += [(pline, f) for f in found]
            verdict[pline] = verdict.get(pline, True) and ok
    for k, (cline, text) in enumerate(shown_block):
        pline, actual = flat[k] if k < len(flat) else (0, None)
        col = len(text) - len(text.lstrip())
        found, ok = _compare(cline, col, text.strip(), actual,
                             f"program's line {k + 1} of output (print at line {pline})")
        pending += [(pline, f) for f in found]
        if pline:
            verdict[pline] = verdict.get(pline, True) and ok
    bad = [p for p, ok in verdict.items() if not ok]
    good = [p for p, ok in verdict.items() if ok]
    try:
        tree = ast.parse(program)
    except SyntaxError:
        tree = None
    blame = _culprit(tree, bad, good, source) if tree is not None and bad else ""
    out: list[Finding] = []
    for pline, f in pending:
        if f.status == "discrepancy" and blame and pline in bad:
            f = Finding(f.line, f.col, f.end_col, f.status, f.name, f.printed, f.expected,
                        f.message + blame)
        out.append(f)
    return out


@example("program_comments")
def program_comments(program: str, text: str = "") -> dict[str, torch.Tensor]:
    """The number of shown output lines (the locator compares each)."""
    code, block_out = split_block(program)
    n = sum(len(v) for v in commented_outputs(code).values()) + len(block_out)
    return {"outputs": torch.tensor(float(n), dtype=torch.float64)}
