"""benchmarks/attribute.py splits a library function's time among our call sites by the
profile's caller edges: by time spent, not by calls, through helpers, skipping recursion."""

from __future__ import annotations

import cProfile
import pstats

import pytest

from benchmarks import attribute

LIB = ("lib.py", 10, "ask")
HELPER = ("lib.py", 20, "helper")
F = ("proj/a.py", 1, "f")
G = ("proj/a.py", 9, "g")
DIRECT = ("proj/b.py", 5, "direct")


def _stats() -> dict:
    """ask: 4 s, 3 s of it through helper (f 2 s in 1 call, g 1 s in 50 calls), 1 s called
    by direct; helper also calls itself."""
    return {
        LIB: (60, 60, 4.0, 4.0, {HELPER: (50, 50, 3.0, 3.0), DIRECT: (10, 10, 1.0, 1.0)}),
        HELPER: (51, 70, 0.5, 3.5, {F: (1, 1, 0.3, 2.0), G: (50, 50, 0.2, 1.0),
                                    HELPER: (19, 19, 0.1, 2.9)}),
        F: (1, 1, 0.1, 2.1, {}),
        G: (50, 50, 0.1, 1.1, {}),
        DIRECT: (10, 10, 0.0, 1.0, {}),
    }


def _ours(func: attribute.Func) -> bool:
    return func[0].startswith("proj/")


def test_time_goes_to_the_callers_that_spent_it() -> None:
    shares = attribute.attribute(_stats(), LIB, _ours)
    # by calls, g (50 calls) would get most; by time f gets twice g's share
    assert shares == pytest.approx({F: 2.0, G: 1.0, DIRECT: 1.0})


def test_weight_without_a_project_caller_is_reported_not_lost() -> None:
    stats = _stats()
    stats[F] = (1, 1, 0.1, 2.1, {})
    shares = attribute.attribute(stats, LIB, lambda f: f == DIRECT)
    assert shares[DIRECT] == pytest.approx(1.0)
    assert shares[attribute.ROOT] == pytest.approx(3.0)
    assert sum(shares.values()) == pytest.approx(4.0)


def _lib_work(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _lib_helper(n: int) -> int:
    return _lib_work(n)


def proj_heavy() -> int:
    total = 0
    for _ in range(8):
        total += _lib_helper(20_000)
    return total


def proj_light() -> int:
    return _lib_helper(20_000)


def test_a_real_profile_names_both_call_sites() -> None:
    profile = cProfile.Profile()
    profile.runcall(lambda: (proj_heavy(), proj_light()))
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    lines = attribute.report(stats, "(_lib_work)", lambda f: f[2].startswith("proj_"))
    assert "_lib_work" in lines[0]
    named = {line.split(maxsplit=1)[1] for line in lines[1:]}  # no ROOT, no DEEP
    assert named == {f"{__file__}:{proj_heavy.__code__.co_firstlineno}(proj_heavy)",
                     f"{__file__}:{proj_light.__code__.co_firstlineno}(proj_light)"}
