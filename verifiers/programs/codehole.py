"""Code holes: a claim reads a block of the note (a printed program, a printed trace) as it is now.

A claim with ``code: {from: MARKER, to: END, as: NAME}`` names a block of its note by
its first line (the first line of the claim's section that starts with ``from``) and,
optionally, its last line (the first line at or after it containing ``to``; without it
a program ends where the longest compiling prefix ends, see
:func:`verifiers.programs.extract.extract_program`). Nothing of the block is restated in
the claim: an edit of the program is read, run and judged, never ``stale``.

The engine passes the block's text to the claim's model example as keyword ``NAME``
(default ``program``), and asks the example's **locator** (registered with
:func:`locator` under the example's name) for findings: each one a place in the block
(1-based line, 0-based columns) with a status and a message. Findings become the
claim's values, located in the note, ahead of the values of its holes, so a claim's
``where`` is the first finding that fails (e.g. the line of a program that first
computes something else than the reference).

This module also runs a program **traced** in the jail (:func:`traced_run`): the
program is executed by a small harness that records, line by line, the values the
program's variables take (during its set-up and the first two passes through the loop
that prints), the first line after which a float turns NaN or infinite, and the line of an
uncaught exception. Only the jail runs the note's text; the gate parses (``ast``,
``tokenize``) and never executes it.
"""

from __future__ import annotations

import ast
import io
import json
import re
import secrets
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verifiers.programs.extract import Block, locate_block

__all__ = ["Block", "CodeRef", "Finding", "LoopShape", "Trace", "block_span", "block_text",
           "block_values", "comments", "data_sources", "later_pass_feeders", "shape_comments",
           "later_pass_settings", "locate_block", "locator", "loop_shape", "traced_run"]


@dataclass(frozen=True)
class CodeRef:
    """A claim's ``code:`` entry."""

    start: str
    end: str | None = None
    name: str = "program"
    line: int = 0


@dataclass(frozen=True)
class Finding:
    """One place in a block and what is wrong (or right) there.

    ``status`` is a verdict status (``verified``, ``discrepancy``, ``error``); ``printed``
    the block's text at the place, ``expected`` what it should be (or the text again).
    """

    line: int
    col: int
    end_col: int
    status: str
    name: str
    printed: str
    expected: str
    message: str


# --------------------------------------------------------------------------- locating


# --------------------------------------------------------------------------- locators

LOCATORS: dict[str, Callable[..., list[Finding]]] = {}


def locator(name: str) -> Callable[[Callable[..., list[Finding]]], Callable[..., list[Finding]]]:
    """Register the findings of model example ``name``.

    The locator is called with the block's text, the quote's text and the note line where
    the block starts (for messages that name other lines of the block).
    """
    def register(fn: Callable[..., list[Finding]]) -> Callable[..., list[Finding]]:
        LOCATORS[name] = fn
        return fn
    return register


def _scope(claim: Any, match: Any, note: Any) -> tuple[int, int]:
    scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
    return next(((a, b) for a, b in scopes if a <= match.start <= b), scopes[0])


def block_text(claim: Any, match: Any, note: Any) -> str:
    """The block's text, for the example; a block that is not there is ``stale``."""
    from verifiers.verdicts import STALE, ClaimFailure

    ref: CodeRef = claim.code
    a, b = _scope(claim, match, note)
    try:
        return locate_block(note.text, a, b, ref.start, ref.end).text
    except ValueError as err:
        raise ClaimFailure(STALE, f"code: {err}", ref.line) from None


# Examples whose code hole reads a block's words only (the order of its operations): the
# numbers and shapes printed inside the block are not theirs to judge, so the block is no
# span they read (coverage: covers no literal; readers: a quote's edit there is not judged).
WORDS_ONLY = frozenset({"printed_order"})


def reads_block(claim: Any) -> bool:
    """Whether the claim's code hole judges every token of its block (a program run, a
    trace recomputed), not only some words of it."""
    return (getattr(claim, "code", None) is not None and getattr(claim, "run", None) is not None
            and claim.run.example not in WORDS_ONLY)


def block_span(claim: Any, match: Any, note: Any) -> tuple[int, int] | None:
    """Where the claim's block lies in the note (coverage: every literal in it is judged)."""
    a, b = _scope(claim, match, note)
    try:
        block = locate_block(note.text, a, b, claim.code.start, claim.code.end)
    except ValueError:
        return None
    last = block.line_offsets[-1]
    end = note.text.find("\n", last)
    return block.line_offsets[0], len(note.text) if end < 0 else end


def block_values(claim: Any, match: Any, note: Any) -> list[Any]:
    """The engine's entry point: the claim's findings as values located in the note."""
    from tinygpt.examples import load_all
    from verifiers.verdicts import ERROR, ValueVerdict

    ref: CodeRef = claim.code
    scope = _scope(claim, match, note)

    def value(start: int, end: int, status: str, name: str, printed: str, expected: str,
              message: str) -> Any:
        return ValueVerdict(name=name, printed=printed, expected=expected, status=status,
                            start=note.position(start), end=note.position(end),
                            message=message, suggestion=None)

    try:
        block = locate_block(note.text, scope[0], scope[1], ref.start, ref.end)
    except ValueError as err:
        return [value(match.start, match.end, ERROR, ref.name, "", "", f"code: {err}")]
    load_all()
    fn = LOCATORS.get(claim.run.example if claim.run else "")
    if fn is None:
        return []
    quote = note.text[match.start:match.end]
    out = []
    findings = fn(block.text, quote, block.first_line)
    for f in [*findings, *later_pass_settings(block.text, findings, block.first_line),
              *data_sources(block.text, findings, block.first_line)]:
        start = block.offset(f.line, f.col)
        end = block.offset(f.line, f.end_col)
        out.append(value(start, max(start, end), f.status, f.name, f.printed, f.expected,
                         f"{f.name}: {f.message}"))
    return out


# --------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Comment:
    line: int
    col: int  # 0-based column of '#'
    text: str


def comments(source: str) -> list[Comment]:
    """The program's comments (tokenize: a ``#`` inside a string is not one)."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                out.append(Comment(tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError):
        pass
    return out


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def comment_numbers(c: Comment) -> list[tuple[str, int]]:
    """(text, column in the line) of each number written in a comment."""
    return [(m.group(), c.col + m.start()) for m in _NUMBER.finditer(c.text)]


@dataclass(frozen=True)
class LoopShape:
    """The loop that prints: its header line, first body line, guard and print lines."""

    header: int
    body: int
    guard: int | None
    printing: int
    end: int


def loop_shape(source: str) -> LoopShape | None:
    """The outermost ``for`` loop whose body calls ``print`` (parsed, not run)."""
    tree = ast.parse(source)
    for node in tree.body:
        if not isinstance(node, ast.For):
            continue
        guard = None
        printing = None
        for sub in ast.walk(node):
            if isinstance(sub, ast.If) and any(
                    isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                    and c.func.id == "print" for s in sub.body for c in ast.walk(s)):
                guard = guard or sub.lineno
            if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                    and sub.func.id == "print" and printing is None):
                printing = sub.lineno
        if printing is not None:
            return LoopShape(node.lineno, node.body[0].lineno, guard, printing,
                             node.end_lineno or printing)
    return None


def assignment_targets(source: str) -> dict[int, list[str]]:
    """Line → the names a top-level assignment on that line binds, in order."""
    out: dict[int, list[str]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            elts = t.elts if isinstance(t, ast.Tuple) else [t]
            if all(isinstance(e, ast.Name) for e in elts):
                out[node.lineno] = [e.id for e in elts]  # type: ignore[attr-defined]
    return out


# --------------------------------------------------------------------------- data flow
#
# Which lines feed a printed output, read from the program (``ast``), never run. A statement
# defines the names it assigns, augments or subscripts into, and the names it passes to a
# call made for its effect (``np.add.at(dE, …)`` fills dE); it reads every other name.


def _names(node: ast.AST, ctx: type) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _defs_uses(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    defs, uses = _names(stmt, ast.Store), _names(stmt, ast.Load)
    for node in ast.walk(stmt):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            defs.add(node.target.id)
            uses.add(node.target.id)
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                base = t
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name) and base is not t:
                    defs.add(base.id)  # G[...] -= 1 changes G
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        defs |= {a.id for a in stmt.value.args if isinstance(a, ast.Name)}
    return defs, uses


def _slice(stmts: list[tuple[int, set[str], set[str]]], needed: set[str]
           ) -> tuple[set[int], set[str]]:
    """Backward slice through ``stmts`` (in program order): the lines and the names needed
    before the first of them."""
    lines: set[int] = set()
    need = set(needed)
    for line, defs, uses in reversed(stmts):
        if defs & need:
            lines.add(line)
            need = (need - defs) | uses | (defs & uses)
    return lines, need


def later_pass_feeders(source: str, shape: LoopShape) -> list[int]:
    """Set-up lines (before the printing loop) that feed what the loop prints only through
    the state the loop carries to its later passes, not its first print.

    A program whose first printed output is right and whose later ones are wrong, while
    every line of its first pass computes what the reference computes, went wrong in one
    of these lines (or the later printed values are wrong): e.g. a step size that acts only
    through the updates.
    """
    tree = ast.parse(source)
    loop = next((n for n in tree.body if isinstance(n, ast.For) and n.lineno == shape.header),
                None)
    if loop is None:
        return []
    setup = [(n.lineno, *_defs_uses(n)) for n in tree.body if n.lineno < shape.header]
    body = [(n.lineno, *_defs_uses(n)) for n in loop.body]
    printing = [n for n in loop.body if n.lineno <= shape.printing <= (n.end_lineno or n.lineno)]
    if not printing:
        return []
    at = loop.body.index(printing[0])
    wanted = _names(printing[0], ast.Load) - {"print"}
    loop_vars = _names(loop.target, ast.Store)
    _, first_need = _slice(body[:at], wanted)
    first_lines, _ = _slice(setup, first_need - loop_vars)
    need = set(wanted)
    while True:  # every pass: the state carried around the loop
        _, more = _slice(body, need)
        if more <= need:
            break
        need |= more
    all_lines, _ = _slice(setup, need - loop_vars)
    return sorted(all_lines - first_lines)


def later_pass_settings(source: str, findings: list[Finding], first_line: int) -> list[Finding]:
    """Findings at the set-up lines that only later passes read, when the loop's first printed
    output (on its print line) is verified, a later one is not, and no finding names a line of
    the code: the outputs then say which lines can be wrong, by what feeds them."""
    try:
        shape = loop_shape(source)
    except SyntaxError:
        return []
    if shape is None:
        return []
    outputs = sorted((f for f in findings if f.line == shape.printing), key=lambda f: f.col)
    code_lines = {f.line for f in findings if f.status != "verified" and f.line != shape.printing}
    if (len(outputs) < 2 or outputs[0].status != "verified" or code_lines
            or all(f.status == "verified" for f in outputs[1:])):
        return []
    wrong = next(f for f in outputs[1:] if f.status != "verified")
    lines = source.splitlines()
    out = []
    for line in later_pass_feeders(source, shape):
        text = lines[line - 1]
        code = text.split("#", 1)[0].rstrip()
        col = len(code) - len(code.lstrip())
        out.append(Finding(line, col, len(code), "discrepancy", "setting", code.strip(),
                           code.strip(), (
                               f"the loop's first printed output is the note's, {wrong.name} is "
                               f"not; this line feeds only the later passes (its value reaches "
                               f"the output through the loop's updates): `{code.strip()}` or the "
                               f"printed value at note line {first_line + shape.printing - 1} "
                               "is wrong")))
    return out


_SHAPE = re.compile(r"(?<![\w])([A-Za-z]\w*)\s*×\s*([A-Za-z]\w*)(?![\w])")


def _assigned(source: str) -> dict[int, set[str]]:
    """Line -> the names a statement starting there assigns or augments (ast, never run)."""
    out: dict[int, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {e.id for t in targets for e in ast.walk(t)
                     if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Store)}
            out.setdefault(node.lineno, set()).update(names)
    return out


def shape_comments(source: str, events: list[tuple[int, str, int, Any]]) -> list[Finding]:
    """A comment that prints the shape of what its line computes (``# B×V``, ``# E: V×d``)
    against the shape the traced run gave it, the sizes being the set-up's integers.

    Why: the note's program documents each matrix by its shape in words of its own sizes; a
    comment that says ``V×d`` where the line computes a ``d×V`` matrix is wrong, and no
    number of it is a literal that another check reads.
    """
    try:
        assigned = _assigned(source)
    except SyntaxError:
        return []
    sizes = {name: v for _, name, it, v in events
             if it < 0 and isinstance(v, int) and not isinstance(v, bool)}
    first: dict[tuple[int, str], Any] = {}
    for line, name, it, v in events:
        if it <= 0:
            first.setdefault((line, name), v)
    out = []
    for c in comments(source):
        m = _SHAPE.search(c.text)
        names = sorted(assigned.get(c.line, ()))
        if m is None or m.group(1) not in sizes or m.group(2) not in sizes or not names:
            continue
        value = next((first[(c.line, n)] for n in names if (c.line, n) in first), None)
        if not hasattr(value, "shape") or len(value.shape) != 2:
            continue
        said = (sizes[m.group(1)], sizes[m.group(2)])
        ok = tuple(value.shape) == said
        got = "×".join(str(k) for k in value.shape)
        out.append(Finding(c.line, c.col + m.start(), c.col + m.end(),
                           "verified" if ok else "discrepancy", "shape", m.group(),
                           m.group() if ok else got, (
                               f"the comment prints the shape {m.group()} = "
                               f"{said[0]}×{said[1]}; this line computes a {got} matrix")))
    return out


_CODE_FINDINGS = ("program", "loop", "step", "setting")


def data_sources(source: str, findings: list[Finding], first_line: int) -> list[Finding]:
    """Findings at the literal data lines (``text = "…"``) behind a set-up value whose
    comment disagrees, when the program's first printed output disagrees too and no finding
    names a line of the code.

    Why: such a program computes, line by line, what the reference computes from its own
    data, yet prints other values than the note: its data changed (a corpus edited), or the
    printed values are wrong. The set-up value the comment prints (``# 15, 8, 36``) says
    which data: its backward slice through the set-up ends at the literal lines it comes
    from, and those are named. A comment edited alone leaves the outputs right: nothing.
    """
    try:
        shape = loop_shape(source)
        tree = ast.parse(source)
    except SyntaxError:
        return []
    if shape is None:
        return []
    outputs = sorted((f for f in findings if f.line == shape.printing), key=lambda f: f.col)
    if (not outputs or outputs[0].status == "verified"
            or any(f.status != "verified" and f.name in _CODE_FINDINGS for f in findings)):
        return []
    targets = assignment_targets(source)
    wrong = [f for f in findings if f.status == "discrepancy" and f.line < shape.header
             and f.name in targets.get(f.line, [])]
    setup = [(n.lineno, *_defs_uses(n)) for n in tree.body if n.lineno < shape.header]
    lines = source.splitlines()
    out: list[Finding] = []
    for f in wrong:
        before = [s for s in setup if s[0] <= f.line]
        defined = set().union(*(defs for _, defs, _ in before))
        sliced, _ = _slice(before, {f.name})
        for line, _defs, uses in before:
            if line not in sliced or uses & defined or line in {x.line for x in out}:
                continue  # only lines that read no other line of the set-up: literal data
            code = lines[line - 1].split("#", 1)[0].rstrip()
            col = len(code) - len(code.lstrip())
            out.append(Finding(line, col, len(code), "discrepancy", "data", code.strip(),
                               code.strip(), (
                                   f"the program's `{f.name}` is {f.expected} where the comment "
                                   f"at note line {first_line + f.line - 1} prints {f.printed}, "
                                   f"and its first printed output ({outputs[0].name}) is not "
                                   "the note's either, while no line of the code departs from "
                                   f"the reference: `{f.name}` comes from this line's literal "
                                   "data, so this data or the printed values are wrong")))
    return out


# --------------------------------------------------------------------------- tracing

NOTE_FILE = "note_program.py"  # the traced program's name in the jail

_HARNESS = r'''
import json as _json, runpy as _runpy, sys as _sys, traceback as _tb
import numpy as _np
_NOTE = {note!r}  # the note's program, a file beside this harness in the jail
_BODY = {body}
_MARK = {mark!r}
_WINDOW = 4000
_PASSES = 2
_G = [None]  # the note program's globals (its module frame's, live)
_state = {{"events": [], "entries": [], "nonfinite": None, "error": None, "iterations": 0}}
_snap = {{}}
_prev = [None]
_count = [0]

def _keep(v):
    if isinstance(v, _np.ndarray):
        if v.dtype.kind in "fiub" and v.size <= 20000:
            return v.copy()
        return None
    if isinstance(v, (_np.floating, _np.integer)):
        return v.item()
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str) and len(v) <= 10000:
        return v
    if isinstance(v, list) and len(v) <= 10000 and all(
            isinstance(x, (str, int)) and not isinstance(x, bool) for x in v):
        return list(v)  # a vocabulary, a list of ids: literal data a line builds
    if isinstance(v, dict) and len(v) <= 10000 and all(
            isinstance(a, str) and isinstance(b, int) and not isinstance(b, bool)
            for a, b in v.items()):
        return dict(v)  # a token -> id table
    return None

def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, _np.ndarray):
        return (a.shape == b.shape and a.dtype == b.dtype
                and _np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return a == b or (a != a and b != b)

def _enc(v):
    if isinstance(v, _np.ndarray):
        return {{"shape": list(v.shape), "kind": v.dtype.kind,
                 "data": v.astype(float).ravel().tolist()}}
    if isinstance(v, dict):
        return {{"items": [[a, b] for a, b in v.items()]}}
    return v

def _bad(v):
    if isinstance(v, _np.ndarray):
        return v.dtype.kind == "f" and not _np.isfinite(v).all()
    return isinstance(v, float) and not (v == v and abs(v) != float("inf"))

def _diff(line):
    it = _state["iterations"] - 1
    for k, v in list(_G[0].items()):
        if k.startswith("__"):
            continue
        kept = _keep(v)
        if kept is None:
            continue
        if k in _snap and _same(_snap[k], kept):
            continue
        _snap[k] = kept
        _state["events"].append([line, k, it, _enc(kept)])

def _watch(line):
    for k, v in list(_G[0].items()):
        if not k.startswith("__") and _bad(v):
            _state["nonfinite"] = [line, k, _state["iterations"] - 1]
            return

def _line(frame, event, arg):
    if event != "line" or frame.f_code.co_name != "<module>":
        return _line
    _G[0] = frame.f_globals
    prev = _prev[0]
    _count[0] += 1
    recording = _state["iterations"] <= _PASSES and _count[0] <= _WINDOW
    if prev is not None and recording:
        _diff(prev)
    if prev is not None and _state["nonfinite"] is None:
        _watch(prev)
    if frame.f_lineno == _BODY:
        _state["iterations"] += 1
        if _state["iterations"] <= _PASSES:
            _state["entries"].append({{k: _enc(_keep(v)) for k, v in _G[0].items()
                                      if not k.startswith("__") and _keep(v) is not None}})
    _prev[0] = frame.f_lineno
    return _line

def _call(frame, event, arg):
    if frame.f_code.co_filename == _NOTE:
        return _line
    return None

_sys.settrace(_call)
try:
    _runpy.run_path(_NOTE, run_name="__main__")
except SystemExit:
    pass
except BaseException as _e:
    _frames = [f for f in _tb.extract_tb(_e.__traceback__) if f.filename == _NOTE]
    _state["error"] = [_frames[-1].lineno if _frames else 0,
                       (type(_e).__name__ + ": " + str(_e))[:300]]
finally:
    _sys.settrace(None)
if _prev[0] is not None:
    if _state["iterations"] <= _PASSES:
        _diff(_prev[0])
    if _state["nonfinite"] is None:
        _watch(_prev[0])
_sys.stdout.flush()
_out = _json.dumps(_state)
for _i in range(0, len(_out), 30000):
    print(_MARK + _out[_i:_i + 30000])
'''


@dataclass
class Trace:
    """What a traced run saw.

    ``events``: ``(line, name, iteration, value)`` — after the program's ``line`` ran,
    variable ``name`` held ``value`` (a float ndarray, an int, a float, a str, a list of
    str/int such as a vocabulary, or a str -> int table);
    ``iteration`` is -1 before the printing loop, 0 and 1 in its first two passes.
    ``entries``: the variables when the loop's body is entered, for its first two passes
    (``entry``: the first). ``output``: what the program
    itself printed, one string per line. ``nonfinite``: (line, name, iteration) of the
    first NaN/inf; ``error``: (line, message) of an uncaught exception.
    """

    output: list[str]
    events: list[tuple[int, str, int, Any]] = field(default_factory=list)
    entry: dict[str, Any] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    nonfinite: tuple[int, str, int] | None = None
    error: tuple[int, str] | None = None
    iterations: int = 0
    timed_out: bool = False
    truncated: bool = False
    stderr: str = ""


def _decode(v: Any) -> Any:
    import numpy as np

    if isinstance(v, dict) and "items" in v:
        return {str(a): int(b) for a, b in v["items"]}
    if isinstance(v, dict) and "shape" in v:
        arr = np.array(v["data"], dtype=float).reshape(v["shape"])
        return arr.astype(np.int64) if v["kind"] in "iub" else arr
    return v


def traced_run(program: str, body_line: int, timeout: float = 60) -> Trace:
    """Run ``program`` traced in the jail (see the module docstring)."""
    from verifiers.programs.jail import run_program

    mark = "\x00notecheck-" + secrets.token_hex(8) + ":"
    # The note's text goes in as a file of its own, run by runpy inside the jail: it is
    # never spliced into Python source, and nothing of it is compiled in the gate.
    harness = _HARNESS.format(note=NOTE_FILE, body=int(body_line), mark=mark)
    result = run_program(harness, timeout=timeout, extra_files={NOTE_FILE: program})
    chunks: list[str] = []
    output: list[str] = []
    for line in result.stdout.splitlines():
        if line.startswith(mark):
            chunks.append(line[len(mark):])
        else:
            output.append(line)
    trace = Trace(output=output, timed_out=result.timed_out, truncated=result.truncated,
                  stderr=result.stderr)
    if not chunks:
        return trace
    try:
        state = json.loads("".join(chunks))
    except ValueError:
        trace.truncated = True
        return trace
    trace.events = [(int(a), str(b), int(c), _decode(d)) for a, b, c, d in state["events"]]
    trace.entries = [{k: _decode(v) for k, v in e.items()} for e in state["entries"]]
    trace.entry = trace.entries[0] if trace.entries else {}
    if state["nonfinite"]:
        a, b, c = state["nonfinite"]
        trace.nonfinite = (int(a), str(b), int(c))
    if state["error"]:
        trace.error = (int(state["error"][0]), str(state["error"][1]))
    trace.iterations = int(state["iterations"])
    return trace
