"""The -j queue (verifiers.schedule): every group once, its own lane first, longest first,
torch work stolen only when it pays, and the same across a fork."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from verifiers import schedule
from verifiers.schema import Claim


def claim(cid: str, kind: str, law: str = "", ref: str = "") -> Claim:
    c = Claim(id=cid, file="c.yaml", line=1, col=1, note="n.txt", kind=kind)
    if law:
        c.property_name = law
    if ref:
        c.reference = {"x": ref}
    return c


CLAIMS = {c.id: c for c in [
    claim("a1", "arithmetic"), claim("a2", "arithmetic"), claim("s1", "symbolic"),
    claim("s2", "symbolic", ref="tinygpt-attention"), claim("p1", "property", law="L"),
    claim("p2", "property", law="L"), claim("p3", "property", law="M"), claim("m1", "model"),
    claim("m2", "model"), claim("q1", "procedure"),
    claim("s3", "symbolic", ref="attention-weights"),
]}


def test_groups_keep_a_law_and_the_model_claims_together_in_the_torch_lane():
    groups = {g.ids: g for g in schedule.groups(CLAIMS, list(CLAIMS))}
    assert ("p1", "p2") in groups and ("p3",) in groups and ("m1", "m2") in groups
    lanes = {ids: g.lane for ids, g in groups.items()}
    assert lanes[("p1", "p2")] == lanes[("m1", "m2")] == lanes[("s2",)] == schedule.TORCH
    assert lanes[("q1",)] == schedule.TORCH  # a procedure runs tinygpt
    assert lanes[("s3",)] == schedule.TORCH  # a plain-text formula checked against tinygpt
    assert lanes[("a1",)] == lanes[("s1",)] == schedule.PLAIN


def test_the_estimated_cost_orders_the_lane_longest_first():
    queue = schedule.Queue(schedule.groups(CLAIMS, ["a1", "a2", "s1"]),
                           multiprocessing.get_context())
    order = []
    while (g := queue.take(schedule.PLAIN)) is not None:
        order.append(g.ids)
    assert order == [("s1",), ("a1",), ("a2",)]  # a symbolic claim before arithmetic ones


def test_every_group_is_taken_once_own_lane_first(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", object())  # torch imported: stealing is free
    queue = schedule.Queue(schedule.groups(CLAIMS, list(CLAIMS)), multiprocessing.get_context())
    first_plain = queue.take(schedule.PLAIN)
    first_torch = queue.take(schedule.TORCH)
    assert first_plain.lane == schedule.PLAIN and first_torch.lane == schedule.TORCH
    taken = [first_plain.ids, first_torch.ids]
    while (g := queue.take(schedule.PLAIN)) is not None:
        taken.append(g.ids)
    assert sorted(i for ids in taken for i in ids) == sorted(CLAIMS)
    assert len(taken) == len(set(taken))


def test_a_plain_process_leaves_a_little_torch_work_to_the_torch_process(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    small = schedule.Queue(schedule.groups(CLAIMS, ["a1", "m1"]), multiprocessing.get_context())
    assert small.take(schedule.PLAIN).ids == ("a1",)
    assert small.take(schedule.PLAIN) is None  # 0.1 s of torch work: not worth the import
    assert small.take(schedule.TORCH).ids == ("m1",)
    laws = {f"p{k}": claim(f"p{k}", "property", law=f"L{k}") for k in range(40)}
    big = schedule.Queue(schedule.groups(laws, list(laws)), multiprocessing.get_context())
    assert big.take(schedule.PLAIN) is not None  # 40 searches, 8 s left: the import pays


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork")
def test_forked_processes_share_the_queue():
    context = multiprocessing.get_context("fork")
    many = {f"s{k}": claim(f"s{k}", "symbolic") for k in range(40)}
    queue = schedule.Queue(schedule.groups(many, list(many)), context)
    receive, send = context.Pipe(duplex=False)

    def child() -> None:
        got = []
        while (g := queue.take(schedule.TORCH)) is not None:
            got.extend(g.ids)
        send.send(got)

    worker = context.Process(target=child)
    worker.start()
    mine = []
    while (g := queue.take(schedule.PLAIN)) is not None:
        mine.extend(g.ids)
    theirs = receive.recv()
    worker.join()
    assert sorted(mine + theirs) == sorted(many) and not set(mine) & set(theirs)


class _CountingEngine:
    """Stands in for the engine: a verdict names the process that evaluated it. The first
    claim this process evaluates waits until the worker has sent its verdicts, so the gate
    reads them mid-loop (the case that lost them: every worker claim then ran twice)."""

    def __init__(self, claims, started, done) -> None:
        self.claims = {c.id: c for c in claims}
        self.started, self.done = started, done

    def verdict(self, claim_id: str):
        from verifiers.verdicts import VERIFIED, Verdict

        if not self.started.is_set():
            self.started.set()
            assert self.done.wait(60), "the worker never finished"
        c = self.claims[claim_id]
        return Verdict(id=c.id, file=c.file, line=c.line, note=c.note, kind=c.kind, says="",
                       status=VERIFIED, message=str(multiprocessing.current_process().pid))


def test_a_worker_done_before_the_gate_keeps_its_verdicts(monkeypatch):
    from verifiers import run

    context = multiprocessing.get_context("fork")
    started, done = context.Event(), context.Event()
    claims = [claim(f"a{k}", "arithmetic") for k in range(6)] + [
        claim("p1", "property", law="L"), claim("m1", "model")]
    monkeypatch.setattr(run, "PARALLEL_FROM", 0.0)
    monkeypatch.setattr(run, "_engine",
                        lambda notes, cs, budget: _CountingEngine(cs, started, done))
    share = run._evaluate_share

    def worker(*args, **kwargs) -> None:  # starts once the gate holds its first claim
        started.wait(60)
        try:
            share(*args, **kwargs)
        finally:
            done.set()

    monkeypatch.setattr(run, "_evaluate_share", worker)
    got = run._evaluate_in_parallel({}, claims, [c.id for c in claims], jobs=2)
    assert sorted(got) == sorted(c.id for c in claims)  # none left to evaluate again
    gate = str(multiprocessing.current_process().pid)
    assert got["p1"].message != gate and got["m1"].message != gate  # the worker's, kept
