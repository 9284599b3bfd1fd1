"""The set-up number behind a printed output that departs before any update.

Why: when a printed program's every line computes what the reference computes from the
program's own start, but the first printed output (the loss before any update) is not what
the program prints, the corpus, the initialisation or the printed value is wrong, and the
trace cannot say which: every later value is right *from* the program's own start. An
edit of an initialisation setting (``rng.normal(0.0, 1.0, …)`` → ``0.1``) lands there.

This is the rule of :mod:`verifiers.arithmetic.suspects` applied to a program: the set-up's
float literals are the inputs, the outputs the program's comment prints are their consumers.
Each literal is solved, alone, for the first printed output (a grid over decades, then
bisection), and the solution written at the literal's printed precision is run. The literal
is the culprit when, with that value, **every** printed output is what the program prints,
and no literal on another line does the same (a tie names nobody). The program is the note's
text as it is now; each variant runs in the jail like the program itself (a few batched runs,
only when the first output already departs).
"""

from __future__ import annotations

import ast
import json
import math
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from verifiers.programs.culprit import Culprit

__all__ = ["Literal", "run_variants", "setup_literals", "setup_setting"]

ROUNDS = 12  # bisection rounds at most (one batched jail run each)
GRID = (-4, -3, -2, -1, 1, 2, 3, 4)  # a literal v is tried at v·10^(k/2); 0 at ±10^(k/2)/100
MAX_LITERALS = 8  # a set-up with more float literals is not solved

Runner = Callable[[list[str]], list[str | None]]  # programs -> their stdout (None: failed)


@dataclass(frozen=True)
class Literal:
    """A float literal of the set-up: its program line (1-based), text and character span."""

    line: int
    start: int  # character offsets in the program
    end: int
    text: str
    value: float

    def decimals(self) -> int:
        return len(self.text.split(".")[1]) if "." in self.text else 0

    def put(self, program: str, text: str) -> str:
        return program[:self.start] + text + program[self.end:]


def setup_literals(program: str, header: int) -> list[Literal]:
    """The plain float literals (``1.0``, ``0.1``) of the statements before line ``header``."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return []
    starts = [0]
    for ln in program.splitlines(keepends=True):
        starts.append(starts[-1] + len(ln))
    lines = program.splitlines()
    out = []
    for stmt in tree.body:
        if stmt.lineno >= header:
            continue
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Constant) and type(node.value) is float
                    and node.end_lineno == node.lineno and node.end_col_offset is not None):
                continue
            raw = lines[node.lineno - 1].encode("utf-8")
            a = len(raw[:node.col_offset].decode("utf-8", "replace"))
            b = len(raw[:node.end_col_offset].decode("utf-8", "replace"))
            text = lines[node.lineno - 1][a:b]
            if not text.replace(".", "", 1).isdigit():
                continue  # 1e-3, 1_000.0: no digit-by-digit rewrite
            base = starts[node.lineno - 1]
            out.append(Literal(node.lineno, base + a, base + b, text, node.value))
    return sorted(out, key=lambda x: x.start)


def _outputs(stdout: str | None) -> dict[int, float]:
    """``step value`` lines of a program's output."""
    out: dict[int, float] = {}
    for line in (stdout or "").splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out.setdefault(int(parts[0]), float(parts[1]))
            except ValueError:
                continue
    return out


def _tol(text: str) -> float:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals * (1 + 1e-9)


def _matches(stdout: str | None, printed: Sequence[tuple[int, str]]) -> bool:
    got = _outputs(stdout)
    return all(step in got and math.isfinite(got[step])
               and abs(got[step] - float(text)) <= _tol(text) for step, text in printed)


def _fmt(value: float, decimals: int) -> str | None:
    if not math.isfinite(value) or value < 0:
        return None
    return f"{value:.{decimals}f}"


def setup_setting(program: str, header: int, printed: Sequence[tuple[int, str]],
                  run: Runner | None = None) -> Culprit | None:
    """The set-up line whose float literal, alone set to another value at its printed
    precision, makes every ``printed`` output (step, printed text) the program's; None when
    no literal, or literals on two lines, do (see the module)."""
    literals = setup_literals(program, header)
    if not printed or not literals or len(literals) > MAX_LITERALS:
        return None
    run = run or run_variants
    first_step, first_text = min(printed)
    target = float(first_text)
    probes = [(k, _grid(lit.value, g)) for k, lit in enumerate(literals) for g in GRID]
    texts = [repr(v) for _, v in probes]
    results = run([literals[k].put(program, t) for (k, _), t in zip(probes, texts, strict=True)])
    points: dict[int, list[tuple[float, float]]] = {k: [] for k in range(len(literals))}
    for (k, v), out in zip(probes, results, strict=True):
        f = _outputs(out).get(first_step)
        if f is not None and math.isfinite(f):
            points[k].append((v, f - target))
    brackets = {k: b for k in points if (b := _bracket(literals[k].value, points[k])) is not None}
    for _ in range(ROUNDS):
        active = [k for k, (a, b) in brackets.items()
                  if _fmt(a[0], literals[k].decimals()) != _fmt(b[0], literals[k].decimals())]
        if not active:
            break
        mids = {k: _middle(brackets[k][0][0], brackets[k][1][0]) for k in active}
        outs = run([literals[k].put(program, repr(mids[k])) for k in active])
        for k, out in zip(active, outs, strict=True):
            f = _outputs(out).get(first_step)
            if f is None or not math.isfinite(f):
                del brackets[k]
                continue
            (a, fa), (b, fb) = brackets[k]
            brackets[k] = ((mids[k], f - target), (b, fb)) if (f - target) * fa > 0 \
                else ((a, fa), (mids[k], f - target))
    candidates: list[tuple[int, str]] = []
    for k, ((a, _), (b, _)) in sorted(brackets.items()):
        lit = literals[k]  # at its printed precision only: a finer value would be a fit
        d = lit.decimals()
        for t in sorted({_fmt(a, d), _fmt(b, d), _fmt(_middle(a, b), d)} - {None}):
            if t is not None and t != lit.text and float(t) != lit.value:
                candidates.append((k, t))
    if not candidates:
        return None
    outs = run([literals[k].put(program, t) for k, t in candidates])
    found = sorted({(literals[k].line, k, t) for (k, t), out
                    in zip(candidates, outs, strict=True) if _matches(out, printed)})
    if not found or len({line for line, _, _ in found}) != 1:
        return None
    line, k, t = found[0]
    lit = literals[k]
    shown = ", ".join(f"{s} {x}" for s, x in sorted(printed))
    return Culprit(line, (
        f"the loss before any update already departs, and every line computes what the "
        f"reference computes from the program's own start: with {t} for {lit.text} on this "
        f"line the program prints what its comment prints ({shown}); no other set-up number "
        f"alone does"))


def _grid(v: float, g: int) -> float:
    return v * 10 ** (g / 2) if v else math.copysign(10 ** (abs(g) / 2) / 100, g)


def _middle(a: float, b: float) -> float:
    return math.sqrt(a * b) if a > 0 and b > 0 else (a + b) / 2


def _bracket(v: float, points: list[tuple[float, float]]
             ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """The pair of adjacent probes around a root of ``f − target``, the one nearest ``v``."""
    pts = sorted(points)
    pairs = [(pts[i], pts[i + 1]) for i in range(len(pts) - 1)
             if pts[i][1] * pts[i + 1][1] <= 0]
    if not pairs:
        return None
    return min(pairs, key=lambda p: abs(math.log(abs(_middle(p[0][0], p[1][0])) + 1e-300)
                                        - math.log(abs(v) + 1e-300)) if v else
               abs(p[0][0] + p[1][0]))


_HARNESS = r'''
import io as _io, json as _json, runpy as _runpy, sys as _sys
_out = []
for _name in {names!r}:
    _buf, _old = _io.StringIO(), _sys.stdout
    _sys.stdout = _buf
    try:
        _runpy.run_path(_name, run_name="__main__")
        _ok = True
    except BaseException:
        _ok = False
    finally:
        _sys.stdout = _old
    _out.append(_buf.getvalue()[:65536] if _ok else None)
print({mark!r} + _json.dumps(_out))
'''


def run_variants(programs: list[str], timeout: float = 120) -> list[str | None]:
    """Each program's standard output, run one after another in one jail (None: it failed).
    The programs are files beside the harness, run by runpy: never spliced into source."""
    from verifiers.programs.jail import JailUnavailable, run_program

    if not programs:
        return []
    names = [f"variant_{i}.py" for i in range(len(programs))]
    mark = "\x00notecheck-" + secrets.token_hex(8) + ":"
    try:
        result = run_program(_HARNESS.format(names=names, mark=mark), timeout=timeout,
                             extra_files=dict(zip(names, programs, strict=True)))
    except JailUnavailable:
        return [None] * len(programs)
    for line in result.stdout.splitlines():
        if line.startswith(mark):
            try:
                got = json.loads(line[len(mark):])
            except ValueError:
                break
            if isinstance(got, list) and len(got) == len(programs):
                return [g if isinstance(g, str) else None for g in got]
    return [None] * len(programs)
