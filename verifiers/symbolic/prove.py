"""Symbolic claims: check derivation chains step by step with SymPy, bounded in time.

A derivation in the notes is a chain ``A = B = C ...``. Each adjacent pair is a
*step*; :func:`check_step` decides one step and :func:`check_chain` a whole chain,
so a planted error is reported at the step where it enters, not at the end.

How a step is decided, and why in this order:

1. **Assumptions are applied to the symbols** (:class:`Assumptions`): SymPy only
   simplifies ``log(x*y)`` or ``sqrt(x**2)`` when it knows the symbols are
   positive/real, so every free symbol is re-created with the assumptions the
   note states. A probability vector loses its last entry (``p_n = 1 - sum``),
   which is how ``sum p = 1`` enters an algebraic proof; a one-hot vector is
   handled by case analysis over its ``n`` possible values (a finite case split
   is a proof).
2. **A symbolic attempt in a worker process** tries cheap rewrites first
   (``expand``, ``cancel(together())``) and only then ``simplify``,
   ``trigsimp``, ``powsimp``, ``logcombine``/``expand_log`` (forced only when every
   symbol is positive, where forcing is sound). ``simplify`` can run for minutes,
   and a SymPy call cannot be interrupted from a thread, so the attempt runs in a
   forked process that is killed at the deadline. The process is forked once and
   kept warm for the next step (SymPy's cache with it) until a step runs out of time;
   the deadline counts its CPU time, so load does not cut a step off. Only our own
   pickled SymPy arguments go in; only tuples of strings (and, for ``sympy.stats``
   evaluation, SymPy objects via pickle) travel back; nothing is ever parsed with
   ``eval``. A step equal to one already decided in this process is not sent again.
3. **Numeric evidence in-process** when the symbolic attempt neither proves nor
   disproves: both sides are evaluated with ``evalf(subs=..., n=50)`` (no
   ``lambdify``, which ``eval``s generated code) at 30 deterministic random
   points that respect the assumptions (positive samples for positive symbols,
   normalised positive weights for a probability vector, every basis vector for a
   one-hot vector). Agreement to a relative 1e-30 (plus an absolute 1e-40 floor
   for sides that cancel to zero at 50 digits) is *evidence*, reported as
   ``numeric``, never as ``proved``; a disagreement is confirmed at 80 digits
   and reported as ``failed`` with the point.

Statuses of :class:`StepVerdict`:

* ``proved``    -- SymPy reduced the difference to 0 (or proved the inequality).
* ``numeric``   -- SymPy could not decide; every sample point agrees.
* ``failed``    -- SymPy disproved the step, or a sample point violates it.
* ``timeout``   -- the symbolic attempt was cut off and no sample point violates
  the step; ``numeric`` on the verdict says whether the evidence agrees.
* ``undecided`` -- neither SymPy nor the sampling could decide (e.g. too few
  points where both sides are finite, or an undefined function).

Random variables: :func:`expectation`, :func:`variance` and :func:`covariance`
work on polynomials in independent random variables by their moments (exact and
fast; ``sympy.stats`` needs ~50 s for ``Var(q.k)`` at ``d_k = 8``), and the
finite-distribution helpers (:func:`enumerate_sum`) enumerate tables exactly as
the notes do. ``sympy.stats`` builds the ``Var(X + Y)`` counterexample.

Matrix calculus: :func:`matrix_grad` differentiates a scalar loss of explicit
symbol matrices entry by entry; :func:`compare_matrices` lists the entries where
two matrices differ.

This module takes SymPy objects and never strings (``sympify`` of a string calls
``eval``); reading the notes' LaTeX is another module's job.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy
from sympy.core.function import AppliedUndef
from sympy.core.relational import Relational

from verifiers.deadline import WALL_FACTOR
from verifiers.deadline import deadline as _deadline  # evalf can run unbounded


def _fixed_fact_order() -> None:
    """Let SymPy's assumption queries visit a fact's prerequisites in sorted order.

    ``sympy.core.assumptions._ask`` shuffles each fact's prerequisite list with an unseeded
    generator (and the list comes from a set of strings, whose order also changes with the
    hash seed): a shuffle for every query not decided by a handler, 450,000 in a cold run,
    about 4% of the symbolic stage's CPU. The answers do not depend on the order when the
    handlers are consistent, and where a handler is not (see :func:`_clearly_nonzero`), a
    fixed order makes the answer the same in every run instead of the luck of the draw.
    """
    import importlib

    # the module, by name: ``sympy.core.assumptions`` as an attribute is a function
    importlib.import_module("sympy.core.assumptions").shuffle = list.sort


_fixed_fact_order()

__all__ = [
    "Assumptions",
    "StepVerdict",
    "EntryDiff",
    "AdditivityCounterexample",
    "check_step",
    "check_chain",
    "check_cases",
    "tolerance_from_printed",
    "apply_assumptions",
    "expectation",
    "variance",
    "covariance",
    "moment",
    "product_distribution",
    "enumerate_sum",
    "finite_expectation",
    "finite_variance",
    "finite_covariance",
    "var_of_sum",
    "var_of_dot",
    "var_sum_counterexample",
    "symbol_matrix",
    "symbol_matrices",
    "matrix_grad",
    "compare_matrices",
    "limit_check",
    "run_streaming",
]

PROVED = "proved"
NUMERIC = "numeric"
FAILED = "failed"
TIMEOUT = "timeout"
UNDECIDED = "undecided"
STATUSES = (PROVED, NUMERIC, FAILED, TIMEOUT, UNDECIDED)

DIGITS = 50  # working precision of the numeric evidence
CONFIRM_DIGITS = 80  # a disagreement is re-evaluated here before it is reported
REL_TOL = mpmath.mpf("1e-30")
ABS_FLOOR = mpmath.mpf("1e-40")  # sides that cancel to 0 at 50 digits leave ~1e-50 residue
N_POINTS = 30
MIN_VALID = 10  # fewer finite sample points than this cannot count as evidence
SEED = 20240611

_RELATIONS = {
    "=": "=", "==": "=",
    "≈": "≈", "\\approx": "≈", "approx": "≈", "~=": "≈", "~": "≈",
    "<=": "<=", "≤": "<=", "\\le": "<=", "\\leq": "<=",
    "<": "<",
    ">=": ">=", "≥": ">=", "\\ge": ">=", "\\geq": ">=",
    ">": ">",
}  # fmt: skip


# --------------------------------------------------------------------------- data


def _names(value: Iterable[str] | str | None) -> frozenset[str]:
    if value is None:
        return frozenset()
    if isinstance(value, str):  # a bare string would otherwise become its characters
        return frozenset({value})
    return frozenset(value)


@dataclass(frozen=True)
class Assumptions:
    """What the note assumes about its symbols; every field names symbols by name.

    Fields:

    * ``real`` -- every symbol is real (the notes work over the reals). Off, the
      numeric evidence samples complex points, so identities that only hold on
      the reals (``log(x*y) = log x + log y``) fail as they should.
    * ``positive`` / ``nonzero`` / ``integer`` -- per-symbol SymPy assumptions;
      they unlock rewrites (``log`` of products, ``sqrt(x**2) = x``) and steer
      the sampler (positive symbols get positive samples, integers integers).
    * ``sum_to_one`` -- the entries ``p_1..p_n`` of a probability vector, in
      order. They are positive, and the last is eliminated as ``1 - sum(rest)``
      before simplifying, so identities that need ``sum p = 1`` are provable;
      samples are normalised positive weights.
    * ``one_hot`` -- the entries ``y_1..y_n`` of a one-hot vector: exactly one is
      1, the rest 0. Proofs split into the ``n`` cases; samples cycle through
      every basis vector.
    * ``independent`` -- random variables that are mutually independent. Only
      :func:`expectation` and friends read the three random-variable fields; they
      factor ``E[XY] = E[X] E[Y]`` only across independent variables, so
      independence is always an explicit, visible assumption.
    * ``zero_mean`` -- random variables with ``E[X] = 0`` (else mean ``mu_X``).
    * ``unit_variance`` -- random variables with ``Var X = 1`` (else
      ``sigma_X**2``).
    * ``random`` -- random variables about which nothing is assumed (not independent
      of anything, mean ``mu_X``, variance ``sigma_X**2``). Not a claim key: the
      claim checker puts here the names it meets inside ``E``/``Var``/``SD``/``Cov``
      that the claim does not declare.

    Any iterable of names is accepted for the set-valued fields and stored as a
    frozenset, so the dataclass stays hashable and immutable.
    """

    real: bool = True
    positive: frozenset[str] = frozenset()
    nonzero: frozenset[str] = frozenset()
    integer: frozenset[str] = frozenset()
    sum_to_one: tuple[str, ...] | None = None
    one_hot: tuple[str, ...] | None = None
    independent: frozenset[str] = frozenset()
    zero_mean: frozenset[str] = frozenset()
    unit_variance: frozenset[str] = frozenset()
    random: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in ("positive", "nonzero", "integer", "independent", "zero_mean",
                     "unit_variance", "random"):
            object.__setattr__(self, name, _names(getattr(self, name)))
        for name in ("sum_to_one", "one_hot"):
            value = getattr(self, name)
            if value is not None:
                value = (value,) if isinstance(value, str) else tuple(value)
                if len(set(value)) != len(value) or not value:
                    raise ValueError(f"{name} needs distinct entry names, got {value!r}")
                object.__setattr__(self, name, value)
        if self.sum_to_one is not None and len(self.sum_to_one) < 2:
            raise ValueError("sum_to_one needs at least two entries")
        if self.sum_to_one and self.one_hot and set(self.sum_to_one) & set(self.one_hot):
            raise ValueError("a vector cannot be both a probability vector and one-hot")

    @property
    def random_variables(self) -> frozenset[str]:
        """Every name declared as a random variable by any of the four RV fields."""
        return self.independent | self.zero_mean | self.unit_variance | self.random


DEFAULT = Assumptions()


@dataclass(frozen=True)
class StepVerdict:
    """The outcome of one step ``lhs <relation> rhs``.

    ``index`` is 1-based (step 1 compares the first two expressions of a chain),
    matching how notes number their steps. ``counterexample`` maps symbol names
    to the values (20 significant digits) where the step fails. ``symbolic`` and
    ``numeric`` record the two halves separately so a report can say *why*:
    ``symbolic`` is proved/disproved/undecided/timeout/error/skipped, ``numeric``
    is agree/differ/insufficient/skipped.
    """

    index: int
    lhs: str
    rhs: str
    relation: str
    status: str
    detail: str
    counterexample: dict[str, str] | None = None
    symbolic: str = "skipped"
    numeric: str = "skipped"
    elapsed: float = 0.0

    @property
    def passed(self) -> bool:
        """Proved or supported by numeric evidence (a timeout is not a pass)."""
        return self.status in (PROVED, NUMERIC)


@dataclass(frozen=True)
class EntryDiff:
    """One matrix entry (0-based ``row``, ``col``) where two matrices disagree."""

    row: int
    col: int
    a: str
    b: str
    verdict: StepVerdict


# ----------------------------------------------------------------- assumptions


def _sym_kwargs(name: str, a: Assumptions) -> dict[str, bool]:
    kw: dict[str, bool] = {}
    if a.real:
        kw["real"] = True
    if name in a.positive or (a.sum_to_one and name in a.sum_to_one):
        kw["positive"] = True
    if name in a.nonzero:
        kw["nonzero"] = True
    if name in a.integer:
        kw["integer"] = True
    if a.one_hot and name in a.one_hot:
        kw.update(integer=True, nonnegative=True)
    return kw


def _symbol(name: str, a: Assumptions, original: sympy.Symbol | None = None) -> sympy.Symbol:
    kw: dict[str, bool] = {}
    if original is not None:
        kw.update(getattr(original, "_assumptions_orig", {}) or {})
    kw.update(_sym_kwargs(name, a))
    return sympy.Symbol(name, **kw)


def _as_expr(value: Any, what: str) -> sympy.Basic:
    """A SymPy object from a SymPy object or a Python number; never from text.

    sympify of a str runs SymPy's parser, which evals: claims are data, so text
    is refused and no parser is ever involved.
    """
    if isinstance(value, sympy.Basic):
        return value
    if isinstance(value, bool) or isinstance(value, str):
        raise TypeError(f"{what}: pass a SymPy expression, not a string or bool ({value!r})")
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, float):
        return sympy.Float(value)
    raise TypeError(f"{what}: pass a SymPy expression, not {type(value).__name__}")


def apply_assumptions(expr: Any, assumptions: Assumptions = DEFAULT) -> sympy.Basic:
    """Re-create every free symbol with the assumptions, then eliminate the last ``p``.

    Symbols are matched by *name*, so a claim may build its expressions with plain
    ``Symbol('p_1')`` and still get the note's assumptions. Assumptions the
    caller already put on a symbol are kept.
    """
    expr = _as_expr(expr, "expression")
    mapping = {
        s: _symbol(s.name, assumptions, s)
        for s in expr.free_symbols
        if isinstance(s, sympy.Symbol)
    }
    expr = expr.xreplace(mapping)
    if assumptions.sum_to_one:
        ps = [_symbol(n, assumptions) for n in assumptions.sum_to_one]
        last = [s for s in expr.free_symbols if getattr(s, "name", None) == ps[-1].name]
        if last:
            expr = expr.xreplace({last[0]: 1 - sum(ps[:-1])})
    return expr


def _one_hot_cases(expr_syms: Iterable[sympy.Basic], a: Assumptions) -> list[dict]:
    """The basis-vector substitutions of a one-hot vector (``[{}]`` when there is none)."""
    if not a.one_hot:
        return [{}]
    ys = [_symbol(n, a) for n in a.one_hot]
    present = {s.name for s in expr_syms if isinstance(s, sympy.Symbol)}
    if not present & set(a.one_hot):
        return [{}]
    return [{y: sympy.Integer(int(i == k)) for i, y in enumerate(ys)} for k in range(len(ys))]


def tolerance_from_printed(text: str) -> float:
    """Half a unit in the last printed digit: ``"0.333"`` -> 5e-4, ``"12.50"`` -> 5e-3.

    An ``≈`` in a note promises the digits it prints, no more; this is the
    tolerance that promise implies. Scientific notation is understood.
    """
    s = text.strip().lstrip("+-").lower()
    mantissa, _, exp = s.partition("e")
    shift = int(exp) if exp else 0
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (shift - decimals)


def _printed(value: sympy.Basic) -> sympy.Basic:
    """A Float made from printed text, as the exact decimal it prints.

    ``Float("0.333", "")`` keeps 13 bits, i.e. 0.3330078125; comparing that binary
    neighbour instead of 0.333 would move an ``≈`` verdict near its edge.
    """
    if isinstance(value, sympy.Float):
        digits = mpmath.libmp.prec_to_dps(value._prec)
        return sympy.Rational(mpmath.libmp.to_str(value._mpf_, digits))
    return value


def _tolerance_of(rhs: sympy.Basic) -> float | None:
    if isinstance(rhs, sympy.Float) and rhs != 0:
        digits = mpmath.libmp.prec_to_dps(rhs._prec)
        magnitude = int(mpmath.floor(mpmath.log10(abs(mpmath.mpf(rhs._mpf_)))))
        return 0.5 * 10.0 ** (magnitude - digits + 1)
    return None


# ------------------------------------------------------------------- worker


_DONE = "__done__"
_DIED = "__died__"  # the warm worker failed on a job and exits: a fresh one takes the next


def _mp_context() -> multiprocessing.context.BaseContext:
    # fork starts in milliseconds with SymPy already imported; spawn (which pickles
    # the SymPy arguments) is the fallback where fork does not exist.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _send_results(conn: Any, fn: Callable[..., Iterator[Any]], args: tuple) -> bool:
    """Stream ``fn(*args)`` to the parent, then ``_DONE``; on a failure send it as
    ``("error", …)`` instead and return False (both workers report the same way)."""
    try:
        for item in fn(*args):
            conn.send(item)
        conn.send(_DONE)
        return True
    except BaseException as exc:  # noqa: BLE001 - report every failure to the parent
        try:
            conn.send(("error", f"{type(exc).__name__}: {exc}"[:500]))
        except Exception:  # noqa: BLE001
            pass
        return False


def _worker_main(conn: Any, fn: Callable[..., Iterator[Any]], args: tuple) -> None:
    try:
        _send_results(conn, fn, args)
    finally:
        conn.close()


NUMERIC_SECONDS = 10.0  # a bound on the in-process numeric evidence of one step


# A step's time box counts the worker's CPU time, read from /proc, so a busy machine does
# not cut a step off (the same verdict on a busy and an idle machine); WALL_FACTOR times
# it in wall time ends a worker that waits instead of working. Without /proc: wall time.
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _child_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) process ``pid`` has used; None where /proc cannot say."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, ValueError, IndexError):
        return None


def _collect(recv: Any, pid: int, timeout: float) -> tuple[list[Any], bool, bool]:
    """Items from a worker until it is done or ``timeout`` CPU seconds of it are spent.

    Returns ``(items, finished, reusable)``: ``reusable`` when the worker finished the job
    and waits for the next one.
    """
    timeout = max(timeout, 0.0)
    start = time.monotonic()
    wall_end = start + timeout * WALL_FACTOR
    cpu0 = _child_cpu(pid)
    items: list[Any] = []
    while True:
        now = time.monotonic()
        cpu = _child_cpu(pid) if cpu0 is not None else None
        left = timeout - (cpu - cpu0) if cpu0 is not None and cpu is not None else (
            start + timeout - now if cpu0 is None else 0.05)  # exited: read what is left
        left = min(left, wall_end - now)
        if left <= 0 and not recv.poll(0):
            return items, False, False
        if not recv.poll(max(left, 0.0)):
            continue  # the worker's CPU clock is behind the wall clock: look again
        try:
            item = recv.recv()
        except EOFError:  # the child died (e.g. recursion limit in C code)
            items.append(("error", "worker process died"))
            return items, True, False
        if isinstance(item, str) and item == _DONE:
            return items, True, True
        if isinstance(item, str) and item == _DIED:
            items.append(("error", "worker process died"))
            return items, True, False
        items.append(item)


def _serve(conn: Any) -> None:
    """The warm worker: run jobs one after another with SymPy's cache kept between them.

    A job that fails reports like a one-shot worker (its error, then "died") and the
    worker exits, so no half-finished state reaches the next job. Ctrl-C is the
    parent's to handle; SIGTERM (the parent's exit) ends it quietly.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            fn, args = conn.recv()
        except (EOFError, OSError):
            return
        if not _send_results(conn, fn, args):
            try:
                conn.send(_DIED)
            except Exception:  # noqa: BLE001
                pass
            return


class _Warm:
    """This process's warm worker (one per process: a forked ``-j`` worker starts its own).

    Forking a process per step cost more than most steps (SymPy's cache starts cold in
    every child); the warm worker is forked once and killed only when a job runs out of
    time or fails.
    """

    def __init__(self) -> None:
        self.owner = 0
        self.proc: Any = None
        self.conn: Any = None

    def get(self) -> _Warm | None:
        if self.owner != os.getpid():  # inherited through a fork: not ours to use or kill
            self.owner, self.proc, self.conn = os.getpid(), None, None
        if self.proc is None:
            ctx = _mp_context()
            if ctx.get_start_method() != "fork":
                return None
            mine, theirs = ctx.Pipe(duplex=True)
            self.proc = ctx.Process(target=_serve, args=(theirs,), daemon=True)
            self.proc.start()
            theirs.close()
            self.conn = mine
        return self

    def stop(self) -> None:
        if self.proc is not None and self.owner == os.getpid():
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join()
            self.conn.close()
        self.proc = self.conn = None


_warm = _Warm()
# Finished jobs by content (the function, the time box and the arguments' srepr): an equal
# step in another claim is decided once per process. Only complete, error-free results
# are kept, and only for the same time box, so a result never depends on which claims
# ran before it in the process.
_decided: dict[str, list[Any]] = {}


def _content_key(fn: Callable[..., Any], args: tuple, timeout: float) -> str | None:
    try:
        return f"{fn.__module__}.{fn.__qualname__}|{timeout!r}|{sympy.srepr(args)}"
    except Exception:  # noqa: BLE001 - no key, no reuse
        return None


def _run_streaming(
    fn: Callable[..., Iterator[Any]], args: tuple, timeout: float
) -> tuple[list[Any], bool]:
    """Run generator ``fn(*args)`` in a worker; collect what it yields within ``timeout``
    seconds of the worker's CPU time.

    Returns ``(items, finished)``. Results stream one by one so a batch (a matrix
    compared entry by entry) keeps the entries decided before the cut-off.
    """
    key = _content_key(fn, args, timeout)
    if key is not None and key in _decided:
        return list(_decided[key]), True
    warm = _warm.get()
    if warm is None:
        return _run_forked(fn, args, timeout)
    try:
        warm.conn.send((fn, args))  # pickled before anything is written
    except OSError:  # the worker is gone: a fresh process for this job
        warm.stop()
        return _run_forked(fn, args, timeout)
    except Exception:  # noqa: BLE001 - an argument that does not pickle: fork, which needn't
        return _run_forked(fn, args, timeout)
    reusable = False
    try:
        items, finished, reusable = _collect(warm.conn, warm.proc.pid, timeout)
    except (OSError, EOFError):
        items, finished = [("error", "worker process died")], True
    finally:
        if not reusable:
            warm.stop()
    if key is not None and finished and not any(
            isinstance(i, tuple) and i and i[0] == "error" for i in items):
        _decided[key] = list(items)
    return items, finished


def _run_forked(
    fn: Callable[..., Iterator[Any]], args: tuple, timeout: float
) -> tuple[list[Any], bool]:
    """One job in a process of its own (fork or, where there is none, spawn)."""
    ctx = _mp_context()
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_worker_main, args=(send, fn, args), daemon=True)
    proc.start()
    send.close()
    try:
        items, finished, _ = _collect(recv, proc.pid, timeout)
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    return items, finished


run_streaming = _run_streaming  # for callers that run a whole claim in a worker


def _is_positive_everywhere(expr: sympy.Basic) -> bool:
    syms = expr.free_symbols
    return bool(syms) and all(s.is_positive for s in syms)


def _zero_attempts(d: sympy.Basic) -> Iterator[tuple[str, Callable[[], sympy.Basic]]]:
    """Rewrites to try on ``lhs - rhs``, cheapest first."""
    force = _is_positive_everywhere(d)
    yield "identical", lambda: d
    yield "expand", lambda: sympy.expand(d)
    yield "cancel", lambda: sympy.cancel(sympy.together(d))
    if d.has(sympy.log):
        yield "expand_log", lambda: sympy.cancel(sympy.expand(sympy.expand_log(d, force=force)))
    yield "simplify", lambda: sympy.simplify(d)
    if d.has(sympy.sin, sympy.cos, sympy.tan):
        yield "trigsimp", lambda: sympy.trigsimp(sympy.expand(d))
    yield "powsimp", lambda: sympy.cancel(sympy.powsimp(sympy.expand(d), force=force))
    if d.has(sympy.log):
        yield "logcombine", lambda: sympy.simplify(sympy.logcombine(d, force=force))


def _decide_zero(d: sympy.Basic) -> tuple[str, str]:
    """``("proved", how)`` / ``("disproved", value)`` / ``("undecided", "")`` for ``d == 0``."""
    for how, attempt in _zero_attempts(d):
        r = attempt()
        if r == 0 or r.is_zero is True:
            return "proved", how
        if r.is_number and r.is_zero is False and _clearly_nonzero(r):
            return "disproved", f"lhs - rhs simplifies to the constant {sympy.sstr(r)}"
    return "undecided", ""


def _clearly_nonzero(constant: sympy.Basic) -> bool:
    """Confirm a constant's nonzero verdict by evaluating it: SymPy's assumption system can
    call an unevaluated ``1 - cos(0/10000**2)`` nonzero, depending on query order."""
    try:
        value = sympy.N(constant.doit(), 60)
    except (TypeError, ValueError, ArithmeticError):
        return True
    return not (value.is_number and abs(complex(value)) < 1e-45)


def _decide_sign(d: sympy.Basic, strict: bool) -> tuple[str, str]:
    """Is ``d >= 0`` (``d > 0`` when strict) everywhere under the symbols' assumptions?"""
    for how, attempt in (
        ("assumptions", lambda: d),
        ("expand", lambda: sympy.expand(d)),
        ("cancel", lambda: sympy.cancel(sympy.together(d))),
        ("factor", lambda: sympy.factor(d)),
        ("simplify", lambda: sympy.simplify(d)),
    ):
        r = attempt()
        holds = r.is_positive if strict else r.is_nonnegative
        if holds:
            return "proved", how
        # Violated everywhere (so certainly somewhere): the margin is never allowed.
        if r.is_nonpositive if strict else r.is_negative:
            return "disproved", f"the margin simplifies to {sympy.sstr(r)}, never allowed"
    return "undecided", ""


def _job_pairs(
    pairs: list[tuple[sympy.Basic, sympy.Basic]], relation: str, cases: list[dict]
) -> Iterator[tuple[str, str]]:
    """Child-side: decide each pair over every one-hot case; yield one result per pair."""
    for lhs, rhs in pairs:
        outcome, how = "proved", ""
        for case in cases:
            a, b = lhs.xreplace(case), rhs.xreplace(case)
            if relation == "=":
                st, msg = _decide_zero(a - b)
            elif relation in ("<=", "<"):
                st, msg = _decide_sign(b - a, relation == "<")
            else:  # ">=", ">"
                st, msg = _decide_sign(a - b, relation == ">")
            if st == "disproved":
                where = f" (case {_case_text(case)})" if case else ""
                outcome, how = "disproved", msg + where
                break
            if st != "proved":
                outcome, how = "undecided", ""
                break
            how = how or msg
        if outcome == "proved" and cases != [{}]:
            how = f"{how}, in each of the {len(cases)} one-hot cases"
        yield outcome, how


def _case_text(case: Mapping) -> str:
    hot = [k.name for k, v in case.items() if v == 1]
    return f"{hot[0]} = 1, the rest 0" if hot else "all zero"


def _job_doit(exprs: list[sympy.Basic]) -> Iterator[list[sympy.Basic]]:
    """Child-side: evaluate unevaluated E/Var/Cov/P objects (sympy.stats can be slow).

    ``doit`` leaves ``Variance(2*X)`` alone, so each object is replaced by the
    matching sympy.stats function applied to its own arguments.
    """
    from sympy import stats

    compute = {
        stats.Expectation: stats.E,
        stats.Variance: stats.variance,
        stats.Covariance: stats.covariance,
        stats.Probability: stats.P,
    }

    def evaluate(node: sympy.Basic) -> sympy.Basic:
        return next(f(*node.args) for t, f in compute.items() if isinstance(node, t))

    kinds = tuple(compute)
    yield [e.replace(lambda n: isinstance(n, kinds), evaluate) for e in exprs]


def _limit_value(expr: sympy.Basic, var: sympy.Symbol, point: sympy.Basic,
                 direction: str) -> sympy.Basic | None:
    """sympy.limit's value, None where it gives up. It gives up on forms such as
    exp((a + z)/T)/(exp(z/T) + ...) when it cannot sign z; the simplified form (common
    factors cancelled) often works."""
    for form in (lambda: expr, lambda: sympy.simplify(expr)):
        try:
            value = sympy.limit(form(), var, point, direction)
        except (NotImplementedError, ValueError, TypeError):
            continue
        if not (isinstance(value, sympy.Limit) or value.has(sympy.Limit)):
            return value
    return None


def _job_limit(expr: sympy.Basic, var: sympy.Symbol, point: sympy.Basic, direction: str,
               expected: sympy.Basic) -> Iterator[tuple[str, str]]:
    value = _limit_value(expr, var, point, direction)
    if value is None:
        # The warm worker keeps SymPy's cache between jobs, and what sympy.limit decides can
        # depend on what is cached: once undecided, try again from an empty cache, so the
        # verdict does not depend on which jobs ran before (a -k run, another test).
        from sympy.core.cache import clear_cache

        clear_cache()
        value = _limit_value(expr, var, point, direction)
    if value is None:
        yield "undecided", "sympy.limit could not evaluate the limit"
        return
    text = f"the limit is {sympy.sstr(value)}"
    if value == expected:
        yield "proved", text
        return
    if value.has(sympy.oo, -sympy.oo, sympy.zoo) or expected.has(sympy.oo, -sympy.oo):
        yield "disproved", text
        return
    st, _ = _decide_zero(value - expected)
    yield ("proved" if st == "proved" else st), text


# -------------------------------------------------------------------- numeric


def _rand01(rng: random.Random) -> sympy.Rational:
    # 170 random bits: an exact rational with more than 50 significant digits.
    return sympy.Rational(rng.getrandbits(170), 2**170)


def _sample(sym: sympy.Symbol, rng: random.Random) -> sympy.Basic:
    u = _rand01(rng)
    if sym.is_integer:
        if sym.is_positive:
            return sympy.Integer(rng.randint(1, 6))
        if sym.is_nonnegative:
            return sympy.Integer(rng.randint(0, 6))
        if sym.is_negative:
            return sympy.Integer(-rng.randint(1, 6))
        if sym.is_nonzero:
            return sympy.Integer(rng.choice([-1, 1]) * rng.randint(1, 6))
        return sympy.Integer(rng.randint(-5, 5))
    if sym.is_positive:
        return sympy.Rational(1, 20) + 3 * u
    if sym.is_negative:
        return -(sympy.Rational(1, 20) + 3 * u)
    if sym.is_nonnegative:
        return 3 * u
    if sym.is_nonpositive:
        return -3 * u
    if sym.is_nonzero:
        return rng.choice([-1, 1]) * (sympy.Rational(1, 10) + 3 * u)
    if sym.is_real:
        return 6 * u - 3
    return (6 * u - 3) + sympy.I * (6 * _rand01(rng) - 3)


def _index_symbols(*exprs: sympy.Basic) -> frozenset[str]:
    """Names used as indices of a Kronecker delta: they must be sampled as small integers,
    or every δ is 0 at real points and a false identity passes."""
    names: set[str] = set()
    for expr in exprs:
        for delta in expr.atoms(sympy.KroneckerDelta):
            names |= {s.name for s in delta.free_symbols if isinstance(s, sympy.Symbol)}
    return frozenset(names)


def _points(
    syms: Iterable[sympy.Basic], a: Assumptions, n: int, seed: int = SEED,
    indices: frozenset[str] = frozenset(),
) -> list[dict[sympy.Basic, sympy.Basic]]:
    """``n`` deterministic sample points over ``syms`` that respect the assumptions.

    Index names (``indices``) take values 1..3, so equal and unequal indices both occur.
    """
    syms = sorted((s for s in syms if isinstance(s, sympy.Symbol)), key=lambda s: s.name)
    rng = random.Random(seed)
    probs = set(a.sum_to_one or ())
    hots = list(a.one_hot or ())
    points = []
    for k in range(n):
        point: dict[sympy.Basic, sympy.Basic] = {}
        if probs:
            weights = [sympy.Rational(1, 50) + _rand01(rng) for _ in a.sum_to_one]
            total = sum(weights)
            values = {name: w / total for name, w in zip(a.sum_to_one, weights, strict=True)}
        for s in syms:
            if s.name in probs:
                point[s] = values[s.name]
            elif s.name in hots:
                point[s] = sympy.Integer(int(hots.index(s.name) == k % len(hots)))
            elif s.name in indices:
                point[s] = sympy.Integer(rng.randint(1, 3))
            else:
                point[s] = _sample(s, rng)
        points.append(point)
    return points


def _value(expr: sympy.Basic, point: Mapping, digits: int) -> mpmath.mpc | None:
    """``expr`` at ``point`` as an mpc with ``digits`` digits, or None when not finite."""
    try:
        v = _as_expr(expr, "expression").evalf(n=digits, subs=dict(point))
    except (ValueError, TypeError, ZeroDivisionError, ArithmeticError, RecursionError):
        return None
    if not v.is_number or v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    try:
        re, im = v.as_real_imag()
        with mpmath.workdps(digits + 10):
            out = mpmath.mpc(mpmath.mpf(sympy.Float(re, digits + 10)._mpf_),
                             mpmath.mpf(sympy.Float(im, digits + 10)._mpf_))
    except (TypeError, ValueError, AttributeError):
        return None
    if not (mpmath.isfinite(out.real) and mpmath.isfinite(out.imag)):
        return None
    return out


def _fmt(v: mpmath.mpc | None) -> str:
    if v is None:
        return "undefined"
    if v.imag == 0:
        return mpmath.nstr(v.real, 20)
    return mpmath.nstr(v, 20)


def _point_text(point: Mapping) -> dict[str, str]:
    def show(v: sympy.Basic) -> str:
        if v.is_Integer:
            return str(v)
        if v.is_real:
            return mpmath.nstr(mpmath.mpf(sympy.Float(v, 30)._mpf_), 20)
        return sympy.sstr(sympy.N(v, 20))

    return {str(k): show(v) for k, v in sorted(point.items(), key=lambda kv: str(kv[0]))}


def _holds(relation: str, lv: mpmath.mpc, rv: mpmath.mpc, tol: mpmath.mpf | None) -> bool:
    with mpmath.workdps(CONFIRM_DIGITS):
        if relation == "≈":
            return abs(lv - rv) <= tol
        gap = abs(lv - rv)
        if relation == "=":
            return gap <= REL_TOL * max(abs(lv), abs(rv)) + ABS_FLOOR
        if lv.imag != 0 or rv.imag != 0:  # an order between complex values is a failure
            return False
        slack = REL_TOL * max(abs(lv), abs(rv)) + ABS_FLOOR
        lo, hi = (lv.real, rv.real) if relation in ("<=", "<") else (rv.real, lv.real)
        return lo - hi <= slack if relation in ("<=", ">=") else hi - lo > slack


def _numeric(
    lhs: sympy.Basic, rhs: sympy.Basic, relation: str, a: Assumptions,
    tol: mpmath.mpf | None, n_points: int = N_POINTS,
) -> tuple[str, str, dict[str, str] | None]:
    """Sample both sides; ``("agree"|"differ"|"insufficient", detail, counterexample)``."""
    syms = lhs.free_symbols | rhs.free_symbols
    points = _points(syms, a, n_points if syms else 1, indices=_index_symbols(lhs, rhs))
    valid = 0
    for point in points:
        lv, rv = _value(lhs, point, DIGITS), _value(rhs, point, DIGITS)
        if lv is None or rv is None:
            continue
        valid += 1
        if _holds(relation, lv, rv, tol):
            continue
        # Confirm at higher precision so cancellation at 50 digits cannot fake a failure.
        lv2, rv2 = _value(lhs, point, CONFIRM_DIGITS), _value(rhs, point, CONFIRM_DIGITS)
        if lv2 is None or rv2 is None or _holds(relation, lv2, rv2, tol):
            continue
        detail = f"at the point shown, lhs = {_fmt(lv2)} but rhs = {_fmt(rv2)}"
        return "differ", detail, _point_text(point)
    needed = min(MIN_VALID, len(points))
    if valid < needed:
        return "insufficient", f"only {valid} of {len(points)} sample points were finite", None
    what = "within " + mpmath.nstr(tol, 3) if relation == "≈" else "to a relative 1e-30"
    return "agree", f"{valid} of {len(points)} sample points agree {what}", None


# ---------------------------------------------------------------------- steps


def _norm_relation(relation: str) -> str:
    try:
        return _RELATIONS[relation.strip()]
    except KeyError:
        raise ValueError(
            f"unknown relation {relation!r}; use one of {sorted(set(_RELATIONS))}"
        ) from None


def _has_stats(expr: sympy.Basic) -> bool:
    """Does ``expr`` hold sympy.stats objects that need ``doit`` before comparing?"""
    from sympy.stats import Covariance, Expectation, Probability, Variance
    from sympy.stats.rv import RandomSymbol

    return bool(expr.atoms(RandomSymbol)) or expr.has(Expectation, Variance, Covariance,
                                                      Probability)


def _verdict(index: int, lhs: Any, rhs: Any, relation: str, status: str, detail: str,
             t0: float, **kw: Any) -> StepVerdict:
    return StepVerdict(
        index=index, lhs=_text(lhs), rhs=_text(rhs), relation=relation, status=status,
        detail=detail, elapsed=round(time.monotonic() - t0, 4), **kw,
    )


def _text(e: Any) -> str:
    return e if isinstance(e, str) else sympy.sstr(e)


def check_step(
    lhs: Any,
    rhs: Any,
    relation: str = "=",
    assumptions: Assumptions = DEFAULT,
    timeout: float = 3.0,
    *,
    tolerance: float | None = None,
    index: int = 1,
) -> StepVerdict:
    """Decide ``lhs <relation> rhs``; see the module docstring for the procedure.

    ``relation``: ``=``, ``≈``/``\\approx``, ``<=``/``≤``, ``<``, ``>=``, ``>``.
    For ``≈`` the sides are only compared numerically (an approximation is never
    "proved"), within ``tolerance`` -- by default half a unit in the last digit
    of ``rhs`` (else of ``lhs``) when it is a Float made from its printed text
    (``sympy.Float("0.333", "")``, compared as the exact decimal 0.333), else a
    relative 1e-6.
    ``timeout`` bounds the symbolic attempt (seconds, wall clock); the numeric
    evidence runs afterwards in-process.
    """
    t0 = time.monotonic()
    rel = _norm_relation(relation)
    raw_l, raw_r = _as_expr(lhs, "lhs"), _as_expr(rhs, "rhs")
    if isinstance(raw_l, (sympy.MatrixBase, Relational)) or isinstance(
        raw_r, (sympy.MatrixBase, Relational)
    ):
        raise TypeError("check_step compares scalar expressions; use compare_matrices")
    a = assumptions
    if _has_stats(raw_l) or _has_stats(raw_r):
        items, finished = _run_streaming(_job_doit, ([raw_l, raw_r],), timeout)
        if not items or not isinstance(items[0], list):
            msg = items[0][1] if items else f"cut off after {timeout:g} s"
            return _verdict(index, raw_l, raw_r, rel, TIMEOUT if not finished else UNDECIDED,
                            f"could not evaluate the random-variable expressions: {msg}", t0,
                            symbolic=TIMEOUT if not finished else "error")
        raw_l, raw_r = items[0]
        if _has_stats(raw_l) or _has_stats(raw_r):
            return _verdict(index, raw_l, raw_r, rel, UNDECIDED,
                            "sympy.stats left a random variable unevaluated", t0,
                            symbolic="error")
    left, right = apply_assumptions(raw_l, a), apply_assumptions(raw_r, a)

    # 1. symbolic attempt, bounded (a step whose sides already evaluate equal needs no worker)
    symbolic, how = "skipped", ""
    if rel == "=" and _one_hot_cases(left.free_symbols | right.free_symbols, a) == [{}] \
            and (left - right) == 0:
        return _verdict(index, raw_l, raw_r, rel, PROVED, "proved by evaluation", t0,
                        symbolic="proved")
    if rel != "≈":
        cases = _one_hot_cases(left.free_symbols | right.free_symbols, a)
        items, finished = _run_streaming(_job_pairs, ([(left, right)], rel, cases), timeout)
        if items and items[0][0] in ("proved", "disproved", "undecided", "error"):
            symbolic, how = items[0]
        elif not finished:
            symbolic, how = TIMEOUT, f"symbolic attempt cut off after {timeout:g} s"
        else:
            symbolic, how = "error", "worker returned nothing"
        if symbolic == "proved":
            return _verdict(index, raw_l, raw_r, rel, PROVED, f"proved by {how}", t0,
                            symbolic=symbolic)

    # 2. numeric evidence -- never over unknown functions (a name nothing defines, see
    # claims.undefined_functions): a sample of them would be a guess, not evidence
    unknown = sorted({f.func.__name__ for side in (left, right)
                      for f in side.atoms(AppliedUndef) if getattr(f.func, "unknown", False)})
    if unknown:
        return _verdict(index, raw_l, raw_r, rel, UNDECIDED,
                        "; ".join(p for p in (how, "no numeric evidence over the unknown "
                                              f"functions {', '.join(unknown)}") if p), t0,
                        symbolic=symbolic)
    tol = None
    note = ""
    if rel == "≈":
        left, right = _printed(left), _printed(right)
        if tolerance is None:
            # The rhs is what the note prints; failing that, a printed lhs.
            tolerance = _tolerance_of(raw_r) or _tolerance_of(raw_l)
            if tolerance is None:
                scale = _value(right, {}, DIGITS) if not right.free_symbols else None
                base = abs(scale) if scale is not None and scale != 0 else 1
                tolerance = float(mpmath.mpf("1e-6") * base)
                note = " (no printed precision known: relative 1e-6)"
        tol = mpmath.mpf(tolerance)
    try:
        with _deadline(NUMERIC_SECONDS):
            numeric, ndetail, point = _numeric(left, right, rel, a, tol)
    except TimeoutError:
        return _verdict(index, raw_l, raw_r, rel, TIMEOUT,
                        f"numeric evidence cut off after {NUMERIC_SECONDS:g} s", t0,
                        symbolic=symbolic, numeric="skipped")
    ndetail += note
    parts = [p for p in (how, ndetail) if p]
    detail = "; ".join(parts)
    if symbolic == "disproved" or numeric == "differ":
        if point is None and symbolic == "disproved":
            # Give a concrete point anyway when SymPy disproved a step with free symbols.
            syms = left.free_symbols | right.free_symbols
            point = _point_text(_points(syms, a, 1)[0]) if syms else {}
        return _verdict(index, raw_l, raw_r, rel, FAILED, detail, t0, counterexample=point,
                        symbolic=symbolic, numeric=numeric)
    if symbolic == TIMEOUT:
        return _verdict(index, raw_l, raw_r, rel, TIMEOUT, detail, t0, symbolic=symbolic,
                        numeric=numeric)
    if numeric == "agree":
        return _verdict(index, raw_l, raw_r, rel, NUMERIC, detail, t0, symbolic=symbolic,
                        numeric=numeric)
    return _verdict(index, raw_l, raw_r, rel, UNDECIDED, detail, t0, symbolic=symbolic,
                    numeric=numeric)


def check_chain(
    exprs: Sequence[Any],
    relations: Sequence[str] | str,
    assumptions: Assumptions = DEFAULT,
    timeout: float = 3.0,
    *,
    tolerance: float | None = None,
) -> list[StepVerdict]:
    """Check ``exprs[0] r1 exprs[1] r2 exprs[2] ...`` one adjacent pair at a time.

    Each step is judged on its own (not against the first expression) so an
    error is reported at the step that introduces it and later correct steps
    still pass. ``relations`` is one per step, or a single string for all.
    """
    if isinstance(relations, str):
        relations = [relations] * (len(exprs) - 1)
    if len(exprs) < 2 or len(relations) != len(exprs) - 1:
        raise ValueError(
            f"a chain of {len(exprs)} expressions needs {len(exprs) - 1} relations, "
            f"got {len(relations)}"
        )
    return [
        check_step(exprs[i], exprs[i + 1], relations[i], assumptions, timeout,
                   tolerance=tolerance, index=i + 1)
        for i in range(len(relations))
    ]


def check_cases(
    pairs: Sequence[tuple[Any, Any]],
    labels: Sequence[str],
    relation: str = "=",
    assumptions: Assumptions = DEFAULT,
    timeout: float = 3.0,
    *,
    index: int = 1,
    shown: tuple[str, str] = ("", ""),
) -> StepVerdict:
    """One step checked on several instances (``labels[k]`` names case ``k``, e.g. ``i=1, j=2``).

    ``proved`` only when every case is proved (a finite case split is a proof of the
    instance); ``numeric`` when the rest agree at every sample point; ``failed`` names
    the first case where the sides differ. One worker decides all cases within
    ``timeout``; sides that already evaluate equal need none. ``shown`` is the step
    as the note prints it (lhs, rhs), for the verdict.
    """
    t0 = time.monotonic()
    rel = _norm_relation(relation)
    if rel == "≈" or not pairs or len(labels) != len(pairs):
        raise ValueError("check_cases needs one label per case and an exact relation")
    a = assumptions
    applied = [(apply_assumptions(_as_expr(lhs, "lhs"), a),
                apply_assumptions(_as_expr(rhs, "rhs"), a)) for lhs, rhs in pairs]
    syms: set = set()
    for left, right in applied:
        syms |= left.free_symbols | right.free_symbols
    cases = _one_hot_cases(syms, a)
    todo = [k for k, (left, right) in enumerate(applied)
            if not (rel == "=" and cases == [{}] and left - right == 0)]
    items, finished = (_run_streaming(_job_pairs, ([applied[k] for k in todo], rel, cases),
                                      timeout) if todo else ([], True))
    shown_lhs, shown_rhs = shown
    numeric_cases = []
    undecided = []
    for n, k in enumerate(todo):
        symbolic, how = items[n] if n < len(items) else (TIMEOUT, "cut off")
        if symbolic == "proved":
            continue
        left, right = applied[k]
        numeric, ndetail, point = _numeric(left, right, rel, a, None)
        if symbolic == "disproved" or numeric == "differ":
            if point is None:
                free = left.free_symbols | right.free_symbols
                point = _point_text(_points(free, a, 1)[0]) if free else {}
            detail = "; ".join(p for p in (f"case {labels[k]}", how, ndetail) if p)
            return _verdict(index, shown_lhs, shown_rhs, rel, FAILED, detail, t0,
                            counterexample={"case": labels[k], **point}, symbolic=symbolic,
                            numeric=numeric)
        if numeric == "agree":
            numeric_cases.append(labels[k])
        else:
            undecided.append((labels[k], symbolic))
    n = len(pairs)
    if undecided:
        status = TIMEOUT if any(s == TIMEOUT for _, s in undecided) or not finished \
            else UNDECIDED
        return _verdict(index, shown_lhs, shown_rhs, rel, status,
                        f"not decided in case {undecided[0][0]} ({len(undecided)} of {n} "
                        "cases)", t0, symbolic=status)
    if numeric_cases:
        return _verdict(index, shown_lhs, shown_rhs, rel, NUMERIC,
                        f"numeric evidence in {len(numeric_cases)} of {n} cases (first: "
                        f"{numeric_cases[0]}), proved in the others", t0, symbolic="undecided",
                        numeric="agree")
    return _verdict(index, shown_lhs, shown_rhs, rel, PROVED,
                    f"proved in each of the {n} cases", t0, symbolic="proved")


# ---------------------------------------------------------- random variables


def moment(name: str, k: int, assumptions: Assumptions) -> sympy.Expr:
    """``E[X**k]`` for random variable ``name`` from what the assumptions say.

    Unknown moments stay symbols (``mu_X``, ``sigma_X``, ``E[X^3]``), so a result
    that silently needed an unstated moment shows it instead of hiding it.
    """
    if k == 0:
        return sympy.Integer(1)
    mean = sympy.Integer(0) if name in assumptions.zero_mean else sympy.Symbol(
        f"mu_{name}", real=True)
    if k == 1:
        return mean
    var = sympy.Integer(1) if name in assumptions.unit_variance else sympy.Symbol(
        f"sigma_{name}", positive=True) ** 2
    if k == 2:
        return var + mean**2
    return sympy.Symbol(f"E[{name}^{k}]", real=True)


def expectation(expr: Any, assumptions: Assumptions) -> sympy.Expr:
    """``E[expr]`` for a polynomial in the declared random variables, exactly.

    Linearity needs no independence: each term is taken on its own. The
    factorisation ``E[X^a Y^b] = E[X^a] E[Y^b]`` does need it, so a product of
    several random variables factors only when every one of them is in
    ``assumptions.independent``; otherwise its expectation stays an unknown joint
    moment, the real symbol ``E[X*Y]`` (``E[X^2*Y]``, ...), and a step that needed
    independence is then not proved (``Var(X + Y) = Var X + Var Y`` keeps a
    ``2 E[X*Y] - 2 mu_X mu_Y`` it cannot drop).
    """
    expr = sympy.expand(_as_expr(expr, "expression"))
    rvs = assumptions.random_variables
    total = sympy.Integer(0)
    for term in sympy.Add.make_args(expr):
        coeff = sympy.Integer(1)
        powers: dict[str, int] = {}
        for factor in sympy.Mul.make_args(term):
            base, exp = factor.as_base_exp()
            if isinstance(base, sympy.Symbol) and base.name in rvs:
                if not (exp.is_Integer and exp >= 0):
                    raise ValueError(f"{factor} is not a polynomial in random variables")
                powers[base.name] = powers.get(base.name, 0) + int(exp)
            elif any(s.name in rvs for s in factor.free_symbols):
                raise ValueError(f"{factor} is not a polynomial in random variables")
            else:
                coeff *= factor
        total += coeff * _joint_moment(powers, assumptions)
    return sympy.expand(total)


def _joint_moment(powers: Mapping[str, int], assumptions: Assumptions) -> sympy.Expr:
    """``E[X^a Y^b ...]``: a product of moments across independent variables, else the
    unknown joint moment as a symbol (named by the sorted variables and powers)."""
    powers = {n: k for n, k in powers.items() if k}
    if len(powers) <= 1 or set(powers) <= assumptions.independent:
        return sympy.Mul(*(moment(n, k, assumptions) for n, k in powers.items()))
    name = "*".join(n if k == 1 else f"{n}^{k}" for n, k in sorted(powers.items()))
    return sympy.Symbol(f"E[{name}]", real=True)


def variance(expr: Any, assumptions: Assumptions) -> sympy.Expr:
    """``Var[expr] = E[expr^2] - E[expr]^2`` (same rules as :func:`expectation`)."""
    expr = _as_expr(expr, "expression")
    return sympy.expand(expectation(expr**2, assumptions) - expectation(expr, assumptions) ** 2)


def covariance(x: Any, y: Any, assumptions: Assumptions) -> sympy.Expr:
    """``Cov[x, y] = E[xy] - E[x]E[y]``."""
    x, y = _as_expr(x, "x"), _as_expr(y, "y")
    return sympy.expand(
        expectation(x * y, assumptions) - expectation(x, assumptions) * expectation(y, assumptions)
    )


def _exact(v: Any) -> sympy.Basic:
    if isinstance(v, float):  # 0.5 from a table is meant as 1/2, not its binary neighbour
        return sympy.nsimplify(v, rational=True)
    return _as_expr(v, "value")


def product_distribution(
    values: Sequence[Any], probs: Sequence[Any], n: int
) -> dict[tuple[sympy.Basic, ...], sympy.Basic]:
    """The joint law of ``n`` independent copies of a finite variable, by enumeration.

    Outcomes are tuples of values; equal tuples (repeated values) pool their
    probability. Capped at 10**6 outcomes so a claim cannot stall the run.
    """
    vals = [_exact(v) for v in values]
    ps = [_exact(p) for p in probs]
    if len(vals) != len(ps) or not vals:
        raise ValueError("values and probs need the same, nonzero length")
    total = sympy.nsimplify(sum(ps))
    if total.is_number and total != 1:
        raise ValueError(f"probabilities sum to {total}, not 1")
    if len(vals) ** n > 10**6:
        raise ValueError(f"{len(vals)}**{n} outcomes is too many to enumerate")
    joint: dict[tuple[sympy.Basic, ...], sympy.Basic] = {}
    for combo in itertools.product(range(len(vals)), repeat=n):
        key = tuple(vals[i] for i in combo)
        prob = sympy.Mul(*(ps[i] for i in combo))
        joint[key] = joint.get(key, sympy.Integer(0)) + prob
    return joint


def enumerate_sum(
    values: Sequence[Any], probs: Sequence[Any], n: int
) -> dict[sympy.Basic, sympy.Basic]:
    """The law of ``X_1 + ... + X_n`` for i.i.d. finite ``X``, as the notes' tables do it.

    ``enumerate_sum([-1, 1], [1/2, 1/2], 4)`` enumerates the 16 sign patterns and
    returns ``{-4: 1/16, -2: 1/4, 0: 3/8, 2: 1/4, 4: 1/16}``.
    """
    law: dict[sympy.Basic, sympy.Basic] = {}
    for outcome, prob in product_distribution(values, probs, n).items():
        s = sympy.expand(sum(outcome))
        law[s] = law.get(s, sympy.Integer(0)) + prob
    return dict(sorted(law.items(), key=lambda kv: sympy.default_sort_key(kv[0])))


def finite_expectation(
    law: Mapping[Any, Any], f: Callable[[Any], Any] | None = None
) -> sympy.Basic:
    """``E[f(X)]`` over a finite law ``{outcome: probability}`` (``f`` defaults to identity)."""
    f = f or (lambda x: x)
    return sympy.nsimplify(sympy.expand(sum(_exact(p) * f(x) for x, p in law.items())))


def finite_variance(law: Mapping[Any, Any]) -> sympy.Basic:
    """``Var X = E[X^2] - (E X)^2`` over a finite law."""
    m = finite_expectation(law)
    return sympy.expand(finite_expectation(law, lambda x: x**2) - m**2)


def finite_covariance(joint: Mapping[tuple, Any], i: int, j: int) -> sympy.Basic:
    """``Cov(X_i, X_j)`` over a finite joint law ``{(x_1, ..., x_n): probability}``."""
    ei = finite_expectation(joint, lambda t: t[i])
    ej = finite_expectation(joint, lambda t: t[j])
    return sympy.expand(finite_expectation(joint, lambda t: t[i] * t[j]) - ei * ej)


def _standard_rvs(names: Sequence[str]) -> Assumptions:
    return Assumptions(independent=frozenset(names), zero_mean=frozenset(names),
                       unit_variance=frozenset(names))


def var_of_sum(n: int, independent: bool = True) -> sympy.Expr:
    """``Var(X_1 + ... + X_n)`` for zero-mean, unit-variance ``X_i``.

    Independent: ``n`` (variances add). ``independent=False`` takes the extreme
    dependence ``X_i = X`` for all ``i``: ``n**2`` -- additivity needs zero
    covariance, not just linearity.
    """
    xs = [sympy.Symbol(f"X_{i}", real=True) for i in range(1, n + 1)]
    if independent:
        return variance(sum(xs), _standard_rvs([x.name for x in xs]))
    return variance(n * xs[0], _standard_rvs([xs[0].name]))


def var_of_dot(d_k: int, scale: Any = 1) -> sympy.Expr:
    """``Var(scale * q.k)`` for ``q, k`` in R^d_k with independent standard entries.

    ``scale=1`` gives ``d_k``; ``scale=1/sqrt(d_k)`` gives 1, which is why
    attention divides by ``sqrt(d_k)`` (and dividing by ``d_k`` would give
    ``1/d_k``).
    """
    qs = [sympy.Symbol(f"q_{i}", real=True) for i in range(1, d_k + 1)]
    ks = [sympy.Symbol(f"k_{i}", real=True) for i in range(1, d_k + 1)]
    dot = sum(q * k for q, k in zip(qs, ks, strict=True))
    return variance(_as_expr(scale, "scale") * dot, _standard_rvs([s.name for s in qs + ks]))


@dataclass(frozen=True)
class AdditivityCounterexample:
    """``Var(X + Y)`` versus ``Var X + Var Y`` for ``Y = X ~ Normal(0, sigma)``."""

    lhs: sympy.Expr  # Var(X + Y) = 4 sigma^2
    rhs: sympy.Expr  # Var X + Var Y = 2 sigma^2
    covariance: sympy.Expr  # Cov(X, Y) = sigma^2, the missing 2 Cov term is 2 sigma^2
    sigma: sympy.Symbol


def var_sum_counterexample() -> AdditivityCounterexample:
    """The claim "Var(X + Y) = Var X + Var Y" fails without zero covariance: take Y = X.

    Built with ``sympy.stats`` so the variances are computed, not typed in.
    """
    from sympy.stats import Normal
    from sympy.stats import covariance as st_cov
    from sympy.stats import variance as st_var

    sigma = sympy.Symbol("sigma", positive=True)
    x = Normal("X", 0, sigma)
    y = x
    return AdditivityCounterexample(
        lhs=sympy.simplify(st_var(x + y)),
        rhs=sympy.simplify(st_var(x) + st_var(y)),
        covariance=sympy.simplify(st_cov(x, y)),
        sigma=sigma,
    )


# ----------------------------------------------------------- matrix calculus


def symbol_matrix(
    name: str, rows: int, cols: int, assumptions: Assumptions = DEFAULT
) -> sympy.Matrix:
    """A ``rows x cols`` matrix of distinct symbols ``name_{i,j}`` (1-based, like the notes).

    Explicit entries instead of ``MatrixSymbol``: SymPy differentiates a scalar
    function of ordinary symbols reliably, and every entry can be compared.
    """
    return sympy.Matrix(rows, cols, lambda i, j: _symbol(f"{name}_{{{i + 1},{j + 1}}}",
                                                         assumptions))


def symbol_matrices(
    shapes: Mapping[str, tuple[int, int]], assumptions: Assumptions = DEFAULT
) -> dict[str, sympy.Matrix]:
    """:func:`symbol_matrix` for each name; the same symbols :func:`matrix_grad` uses."""
    return {name: symbol_matrix(name, r, c, assumptions) for name, (r, c) in shapes.items()}


def matrix_grad(
    loss_fn: Callable[..., Any],
    shapes: Mapping[str, tuple[int, int]],
    assumptions: Assumptions = DEFAULT,
) -> dict[str, sympy.Matrix]:
    """``dL/dM`` for every matrix ``M`` in ``shapes``, entry by entry.

    ``loss_fn`` is called with one keyword argument per name (an explicit symbol
    matrix, see :func:`symbol_matrices`) and must return a scalar (or 1x1
    matrix). The gradient has the shape of ``M``: ``G[i, j] = dL/dM[i, j]``.
    """
    mats = symbol_matrices(shapes, assumptions)
    loss = loss_fn(**mats)
    if isinstance(loss, sympy.MatrixBase):
        if loss.shape != (1, 1):
            raise ValueError(f"the loss must be a scalar, got shape {loss.shape}")
        loss = loss[0, 0]
    loss = _as_expr(loss, "loss")
    return {
        name: m.applyfunc(lambda s, loss=loss: sympy.diff(loss, s))
        for name, m in mats.items()
    }


def compare_matrices(
    a: sympy.MatrixBase,
    b: sympy.MatrixBase,
    assumptions: Assumptions = DEFAULT,
    timeout: float = 3.0,
) -> list[EntryDiff]:
    """The entries where ``a`` and ``b`` are not shown equal; ``[]`` means they agree.

    One worker decides all entries symbolically within ``timeout`` in total;
    entries it did not prove get the numeric evidence. An entry that agrees only
    numerically is *not* listed (it is evidence, not a difference); anything
    failed, timed out or undecided is.
    """
    a, b = sympy.Matrix(a), sympy.Matrix(b)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    t0 = time.monotonic()
    cells = [(i, j) for i in range(a.rows) for j in range(a.cols)]
    pairs = [(apply_assumptions(a[i, j], assumptions), apply_assumptions(b[i, j], assumptions))
             for i, j in cells]
    syms: set = set()
    for pl, pr in pairs:
        syms |= pl.free_symbols | pr.free_symbols
    cases = _one_hot_cases(syms, assumptions)
    items, _ = _run_streaming(_job_pairs, (pairs, "=", cases), timeout)
    diffs = []
    for k, ((i, j), (pl, pr)) in enumerate(zip(cells, pairs, strict=True)):
        symbolic, how = items[k] if k < len(items) else (TIMEOUT, "cut off")
        if symbolic == "proved":
            continue
        numeric, ndetail, point = _numeric(pl, pr, "=", assumptions, None)
        if numeric == "agree" and symbolic != "disproved":
            continue
        status = FAILED if numeric == "differ" or symbolic == "disproved" else (
            TIMEOUT if symbolic == TIMEOUT else UNDECIDED)
        detail = "; ".join(p for p in (how, ndetail) if p)
        v = _verdict(k + 1, a[i, j], b[i, j], "=", status, f"entry ({i}, {j}): {detail}", t0,
                     counterexample=point, symbolic=symbolic, numeric=numeric)
        diffs.append(EntryDiff(i, j, v.lhs, v.rhs, v))
    return diffs


# --------------------------------------------------------------------- limits


_LIMIT_STEPS = (8, 16, 24, 32)  # var = point ± 10**-k (or ±10**k at infinity)


def limit_check(
    expr: Any,
    var: sympy.Symbol,
    point: Any,
    expected: Any,
    direction: str = "+",
    assumptions: Assumptions = DEFAULT,
    timeout: float = 3.0,
) -> StepVerdict:
    """Is ``lim_{var -> point^direction} expr == expected``?

    ``sympy.limit`` runs in the timeout worker. Otherwise the numeric evidence
    evaluates at ``var = point ± 10^-8, 10^-16, 10^-24, 10^-32`` (or ``±10^8 ...``
    at infinity) for 5 samples of the other symbols: the error must shrink to
    below 1e-6 (relative) for ``numeric``; an error that stays above 1e-3 without
    shrinking is ``failed``; anything in between is ``undecided`` (slow,
    logarithmic convergence cannot be told from a wrong limit by sampling).
    """
    t0 = time.monotonic()
    e0, exp0 = _as_expr(expr, "expr"), _as_expr(expected, "expected")
    pt = _as_expr(point, "point")
    if direction not in ("+", "-", "+-"):
        raise ValueError("direction is '+', '-' or '+-'")
    e, want = apply_assumptions(e0, assumptions), apply_assumptions(exp0, assumptions)
    v = next((s for s in e.free_symbols if s.name == var.name), None)
    if v is None:
        v = _symbol(var.name, assumptions, var)
    lhs_text = f"limit({sympy.sstr(e0)}, {var.name}, {sympy.sstr(pt)}, '{direction}')"

    items, finished = _run_streaming(_job_limit, (e, v, pt, direction, want), timeout)
    if items:
        symbolic, how = items[0]
    else:
        symbolic, how = (TIMEOUT, f"sympy.limit cut off after {timeout:g} s") if not finished \
            else ("error", "worker returned nothing")
    if symbolic == "proved":
        return _verdict(1, lhs_text, exp0, "lim", PROVED, f"proved by sympy.limit: {how}", t0,
                        symbolic=symbolic)

    numeric, ndetail, cex = _numeric_limit(e, v, pt, direction, want, assumptions)
    detail = "; ".join(p for p in (how, ndetail) if p)
    if symbolic == "disproved" or numeric == "differ":
        return _verdict(1, lhs_text, exp0, "lim", FAILED, detail, t0, counterexample=cex,
                        symbolic=symbolic, numeric=numeric)
    status = TIMEOUT if symbolic == TIMEOUT else (NUMERIC if numeric == "agree" else UNDECIDED)
    return _verdict(1, lhs_text, exp0, "lim", status, detail, t0, symbolic=symbolic,
                    numeric=numeric)


def _numeric_limit(
    e: sympy.Basic, v: sympy.Symbol, pt: sympy.Basic, direction: str, want: sympy.Basic,
    a: Assumptions,
) -> tuple[str, str, dict[str, str] | None]:
    others = (e.free_symbols | want.free_symbols) - {v}
    bases = _points(others, a, 5) if others else [{}]
    signs = {"+": [1], "-": [-1], "+-": [1, -1]}[direction]
    infinite = pt in (sympy.oo, -sympy.oo)
    if infinite:
        signs = [1 if pt == sympy.oo else -1]
    agreed = 0
    for base in bases:
        target = _value(want, base, DIGITS) if not want.has(sympy.oo, -sympy.oo) else None
        for sign in signs:
            errs = []
            for k in _LIMIT_STEPS:
                at = sign * sympy.Integer(10) ** k if infinite else pt + sign * sympy.Rational(
                    1, 10**k)
                val = _value(e, {**base, v: at}, DIGITS)
                if val is None:
                    errs.append(None)
                elif target is None:  # expected +-oo: track how large the value gets
                    errs.append(-val.real if want == sympy.oo else val.real)
                else:
                    errs.append(abs(val - target) / max(1, abs(target)))
            if any(x is None for x in errs):
                return "insufficient", "the expression is undefined near the point", None
            last, first = errs[-1], errs[0]
            if target is None:
                ok = last < -1e6 and last <= first
                bad = last > -1e3
            else:
                ok = last < 1e-6
                bad = last > 1e-3 and last >= first / 2
            if bad:
                at = "+" if sign > 0 else "-"
                near = f"{at}10^{_LIMIT_STEPS[-1]}" if infinite else \
                    f"{sympy.sstr(pt)}{at}10^-{_LIMIT_STEPS[-1]}"
                cex = {**_point_text(base), v.name: near}
                return "differ", (
                    f"near the point the expression stays {mpmath.nstr(last, 6)} "
                    "away from the expected limit (relative)" if target is not None else
                    "the expression stays bounded"), cex
            if not ok:
                return "insufficient", "sampling near the point does not settle the limit", None
            agreed += 1
    return "agree", f"{agreed} one-sided approaches converge to the expected limit", None
