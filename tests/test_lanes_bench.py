"""benchmarks/lanes.py's replay of the -j 2 queue: each process pays torch's import once,
when it first takes torch work, and every claim's cost lands in exactly one process."""

from __future__ import annotations

import sys

import pytest

from benchmarks.lanes import replay
from verifiers import schedule
from verifiers.schema import Claim


def claim(cid: str, kind: str, law: str = "") -> Claim:
    c = Claim(id=cid, file="c.yaml", line=1, col=1, note="n.txt", kind=kind)
    if law:
        c.property_name = law
    return c


@pytest.fixture(autouse=True)
def _keep_torch_entry():
    saved = sys.modules.get("torch")
    yield
    if saved is not None:
        sys.modules["torch"] = saved
    else:
        sys.modules.pop("torch", None)


def test_the_worker_pays_the_import_and_the_gate_keeps_its_lane():
    claims = {c.id: c for c in [claim("a1", "arithmetic"), claim("p1", "property", law="L")]}
    plan = replay({"a1": 1.0, "p1": 3.0}, 0.5, claims)
    assert plan["clock"] == {schedule.PLAIN: 1.0, schedule.TORCH: 3.5}
    assert plan["imports"] == 1
    assert plan["kinds"][schedule.TORCH]["(torch import)"] == 0.5


def test_a_gate_that_steals_torch_work_pays_its_own_import():
    laws = {f"p{k}": claim(f"p{k}", "property", law=f"L{k}") for k in range(40)}
    plan = replay(dict.fromkeys(laws, 1.0), 2.0, laws)
    assert plan["imports"] == 2  # 40 searches: the gate joins in, importing torch too
    assert sum(plan["clock"].values()) == pytest.approx(40 * 1.0 + 2 * 2.0)
