"""One verification run: read the notes and claims folders, evaluate, return verdicts.

The CLI and the pytest plugin are thin layers over ``run``.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from verifiers import lifecycle
from verifiers.budget import Budget
from verifiers.engine import Engine
from verifiers.errors import InputError
from verifiers.files import display_path, walk_files

if TYPE_CHECKING:
    from verifiers.changes import Changes
    from verifiers.progress import Progress
from verifiers.notes import Note, NoteError, read_note
from verifiers.schema import Claim, LoadProblem, Waiver, load_claim_file
from verifiers.verdicts import ERROR, RunResult, Verdict

NOTE_SUFFIXES = (".txt", ".md")
CLAIM_SUFFIXES = (".yaml", ".yml")
# ``--changed-since``: the caller narrows a run to the claims a diff touches. It gets the
# loaded claims and notes and returns the diff's lines and the selection, so the run does
# not import the editing loop's git reading (:mod:`verifiers.changes`, a later stage).
Narrow = Callable[[list[Claim], dict[str, Note]], "tuple[Changes, Callable[[Claim], bool]]"]


def load_notes(notes_dir: Path) -> dict[str, Note]:
    if not notes_dir.is_dir():
        raise InputError(f"{display_path(notes_dir)}: notes folder not found")
    notes: dict[str, Note] = {}
    for path in sorted(notes_dir.iterdir()):
        if path.suffix in NOTE_SUFFIXES and path.name.lower() != "readme.md":
            try:
                notes[path.name] = read_note(path)
            except NoteError as err:
                raise InputError(str(err)) from None
    return notes


def claim_paths(claims_dir: Path) -> list[Path]:
    """The claim files under ``claims_dir``, sorted, and every entry that would not be read
    as one (a symbolic link, a FIFO, a device named ``*.yaml``): loading those gives an
    ``error`` verdict at the file, so nothing is skipped silently (:mod:`verifiers.files`)."""
    if not claims_dir.is_dir():
        raise InputError(f"{display_path(claims_dir)}: claims folder not found")
    return [path for path, _ in walk_files(claims_dir, CLAIM_SUFFIXES)]


def load_claims(claims_dir: Path, known_notes: set[str],
                waivers: list[Waiver] | None = None) -> tuple[list[Claim], list[LoadProblem]]:
    """All claims in file order; duplicate ids become problems of the later claim.

    The files' waivers are appended to ``waivers`` when a list is given.
    """
    claims: list[Claim] = []
    problems: list[LoadProblem] = []
    first_seen: dict[str, Claim] = {}
    for path in claim_paths(claims_dir):
        loaded = load_claim_file(path, display_path(path), known_notes)
        problems.extend(loaded.problems)
        if waivers is not None:
            waivers.extend(loaded.waivers)
        for claim in loaded.claims:
            if claim.id in first_seen:
                other = first_seen[claim.id]
                claim.problems.append(LoadProblem(
                    claim.file, claim.line, claim.col,
                    f"duplicate id {claim.id!r} (first at {other.file}:{other.line})", claim.id))
                claim.id = f"{claim.id}@{claim.file}:{claim.line}"
            else:
                first_seen[claim.id] = claim
            claims.append(claim)
    return claims, problems


def run(
    notes_dir: Path, claims_dir: Path, select: Callable[[Claim], bool] | None = None,
    narrow: Narrow | None = None, cache: Path | None = None, jobs: int = 1,
    budget: Budget | None = None, progress: Progress | None = None,
) -> RunResult:
    """Evaluate every (selected) claim; file-level problems become ``error`` verdicts.

    With ``narrow`` (``--changed-since``: :func:`verifiers.cli.changed_since`) only the
    claims it selects run.
    With ``cache`` (a folder) verdicts are looked up by content first
    (:mod:`verifiers.cache`); a miss is evaluated and stored. With ``jobs`` > 1 the
    claims to evaluate are shared among that many forked workers (each claim's verdict
    depends only on its own inputs, so the split cannot change it). ``budget`` bounds
    each claim's and the whole run's time (:mod:`verifiers.budget`; default 60 s and
    15 min, counted from here). ``progress`` (a terminal's) hears of each claim.
    """
    budget = budget if budget is not None else Budget()
    lifecycle.children_die_with_parent()
    notes = load_notes(notes_dir)
    waivers: list[Waiver] = []
    claims, problems = load_claims(claims_dir, set(notes), waivers)
    changes = None
    if narrow is not None:
        changes, touched = narrow(claims, notes)
        keep = select
        select = touched if keep is None else (lambda c: keep(c) and touched(c))
    engine = Engine(notes, claims, budget)
    verdicts = [problem_verdict(p) for p in problems if select is None or select_file(select, p)]
    store = None
    if cache is not None:
        from verifiers.cache import VerdictCache

        store = VerdictCache(cache, notes, engine.claims)
    chosen = [c for c in claims if select is None or select(c)]
    found = {c.id: store.get(c.id) for c in chosen} if store is not None else {}
    todo = [c.id for c in chosen if found.get(c.id) is None]
    if progress is not None:
        progress.begin(len(chosen))
        progress.advance(len(chosen) - len(todo))  # from the cache
    fresh = (_evaluate_in_parallel(notes, claims, todo, jobs, budget, progress)
             if jobs > 1 else {})
    for claim in chosen:
        lifecycle.raise_if_interrupted()
        verdict = found.get(claim.id) or fresh.get(claim.id)
        if verdict is None:
            if progress is not None:
                progress.running(claim.kind)
            verdict = engine.verdict(claim.id)
            if progress is not None:
                progress.advance()
        if store is not None and found.get(claim.id) is None and not verdict.depends_on_time:
            store.put(verdict)
        verdicts.append(verdict)
    verdicts = finish(verdicts, claims, notes, budget)
    if progress is not None:
        progress.end()
    return RunResult(verdicts, notes, notes_dir, claims_dir, waivers, claims, changes)


def finish(verdicts: list[Verdict], claims: list[Claim],
           notes: dict[str, Note] | None = None,
           budget: Budget | None = None) -> list[Verdict]:
    """The verdicts in note order, with the printings of each given value and of each formula
    compared: what follows the claims' evaluation in every run (the tests' shared session
    result ends the same way, from the pytest plugin's verdicts)."""
    verdicts = sorted(verdicts, key=lambda v: (v.file, v.line))
    from verifiers.copies import reconcile

    verdicts = reconcile(verdicts, claims)  # the printings of each given value, compared
    from verifiers.formulas.printings import reconcile as reconcile_formulas

    verdicts = reconcile_formulas(verdicts, claims)  # the printings of each formula, compared
    from verifiers.notation.domains import reconcile as reconcile_domains

    verdicts = reconcile_domains(verdicts, claims)  # printed values in their quantity's domain
    from verifiers.notation.conventions import reconcile as reconcile_conventions

    verdicts = reconcile_conventions(verdicts, claims)  # declared conventions vs the values
    from verifiers.arithmetic.suspects import attribute

    return attribute(verdicts, claims, notes, budget)  # an edited input (suspects.py)


PARALLEL_FROM = 2.0  # estimated seconds of work below which forking workers does not pay
GRACE = 5.0  # seconds a worker may overrun the run's budget before it is killed


def _evaluate_in_parallel(notes: dict[str, Note], claims: list[Claim], ids: list[str],
                          jobs: int, budget: Budget | None = None,
                          progress: Progress | None = None) -> dict[str, Verdict]:
    """Verdicts of ``ids`` from ``jobs`` processes (this one and forked workers) taking
    groups of claims from a shared queue (:mod:`verifiers.schedule`); {} when it is not
    worth it.

    Workers die with the gate: they are killed when it is interrupted, when one overruns
    the run's budget (its claims are then evaluated here, where the spent budget ends
    them at once), and by the kernel if the gate itself is killed (PR_SET_PDEATHSIG).
    """
    budget = budget if budget is not None else Budget()
    import multiprocessing

    from verifiers import schedule

    if "fork" not in multiprocessing.get_all_start_methods():
        return {}
    # Not a Pool: its workers are daemons, and the symbolic checker starts its own worker.
    context = multiprocessing.get_context("fork")
    by_id = {c.id: c for c in claims}
    queue = schedule.Queue(schedule.groups(by_id, ids), context)
    if queue.cost() < PARALLEL_FROM:
        return {}
    # One thread per worker: the workers already use the cores (torch is imported after the
    # fork, so it reads these).
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    lifecycle.children_die_with_parent()
    workers = []
    try:
        for k in range(1, jobs):  # the first worker runs the torch lane, this process the other
            lane = schedule.TORCH if k % 2 else schedule.PLAIN
            receive, send = context.Pipe(duplex=False)
            worker = context.Process(target=_evaluate_share,
                                     args=(notes, claims, queue, lane, send, budget))
            worker.start()
            send.close()
            workers.append((worker, receive))
        verdicts: dict[str, Verdict] = {}
        engine = _engine(notes, claims, budget)
        finished: set[int] = set()  # workers whose verdicts have arrived
        while (group := queue.take(schedule.PLAIN)) is not None:
            verdicts.update((v.id, v) for v in _verdicts(engine, group.ids, progress))
            for k, (_worker, receive) in enumerate(workers):
                if k not in finished and (received := _drain(receive, progress, 0.0)) is not None:
                    finished.add(k)  # a worker done before this process: keep its verdicts
                    verdicts.update((v.id, v) for v in received)
        for k, (_worker, receive) in enumerate(workers):
            if k in finished:
                continue
            left = budget.run_left() + GRACE
            received = _drain(receive, progress, None if math.isinf(left) else max(left, 0.0))
            verdicts.update((v.id, v) for v in received or [])
    finally:  # normally they have exited; interrupted or over budget, they are killed
        for worker, receive in workers:
            if worker.is_alive():
                worker.kill()
            worker.join()
            receive.close()
    return verdicts


def _drain(receive: Any, progress: Progress | None,
           wait: float | None) -> list[Verdict] | None:
    """Read a worker's messages: counts of claims done (progress) and, last, its verdicts.

    ``wait`` 0: only what is there; otherwise until the verdicts arrive, at most ``wait``
    seconds (None: no limit). Returns the verdicts once they arrive (the message comes once:
    the caller must keep them), else None. A worker that died returns [] and leaves its claims
    to the caller.
    """
    end = None if wait is None else time.monotonic() + wait
    try:
        while True:
            left = None if end is None else max(end - time.monotonic(), 0.0)
            if not receive.poll(left):
                return None
            what, payload = receive.recv()
            if what == "verdicts":
                return payload
            if progress is not None:
                progress.advance(payload)
    except (EOFError, OSError):
        return []  # a worker that died: the parent evaluates its claims afterwards


def _engine(notes: dict[str, Note], claims: list[Claim], budget: Budget | None) -> Engine:
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
    return Engine(notes, claims, budget)


def _verdicts(engine: Engine, ids: tuple[str, ...] | list[str],
              progress: Progress | None = None) -> list[Verdict]:
    verdicts = []
    for claim_id in ids:
        if progress is not None:
            progress.running(engine.claims[claim_id].kind)
        verdicts.append(engine.verdict(claim_id))
        if progress is not None:
            progress.advance()
    return verdicts


def _evaluate_share(notes: dict[str, Note], claims: list[Claim], queue: Any, lane: int,
                    send: Any, budget: Budget | None = None) -> None:
    """A worker: takes groups from the queue; the gate handles Ctrl-C and kills it;
    SIGTERM ends it quietly. Counts of claims done go to the gate as they finish (small
    messages: the pipe never fills while the gate is busy), the verdicts at the end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        engine = _engine(notes, claims, budget)
        verdicts: list[Verdict] = []
        while (group := queue.take(lane)) is not None:
            verdicts.extend(_verdicts(engine, group.ids))
            send.send(("done", len(group.ids)))
        send.send(("verdicts", verdicts))
        send.close()
    except BaseException:  # noqa: BLE001 - no traceback from a worker: the gate re-evaluates
        os._exit(1)


def select_file(select: Callable[[Claim], bool], problem: LoadProblem) -> bool:
    return select(Claim(id=problem.file, file=problem.file, line=problem.line, col=1, note=""))


def problem_verdict(problem: LoadProblem) -> Verdict:
    return Verdict(
        id=problem.claim_id or problem.file, file=problem.file, line=problem.line, note="",
        kind="arithmetic", says="", status=ERROR, message=problem.message,
        claim_place=(problem.line, problem.col),
    )
