"""A limit sympy.limit leaves undecided with what the warm worker has cached is tried again
from an empty cache (verifiers.symbolic.prove._job_limit), so whether a limit is ``proved``
does not depend on the jobs that ran before it in that worker."""

from __future__ import annotations

import sympy
import sympy.core.cache

from verifiers.symbolic import prove


def test_an_undecided_limit_is_tried_again_on_an_empty_cache(monkeypatch):
    x = sympy.Symbol("x", positive=True)
    real_limit = sympy.limit
    cleared = []

    def limit_that_needs_a_clean_cache(*args, **kwargs):  # stands in for a polluted cache
        return real_limit(*args, **kwargs) if cleared else sympy.Limit(*args[:3])

    monkeypatch.setattr(prove.sympy, "limit", limit_that_needs_a_clean_cache)
    monkeypatch.setattr(sympy.core.cache, "clear_cache", lambda: cleared.append(True))
    (status, text), = prove._job_limit(sympy.exp(-1 / x), x, sympy.Integer(0), "+",
                                       sympy.Integer(0))
    assert cleared and (status, text) == ("proved", "the limit is 0")


def test_a_limit_undecided_on_an_empty_cache_stays_undecided(monkeypatch):
    x = sympy.Symbol("x", positive=True)
    monkeypatch.setattr(prove.sympy, "limit", lambda *a, **k: sympy.Limit(*a[:3]))
    (status, _), = prove._job_limit(sympy.exp(-1 / x), x, sympy.Integer(0), "+",
                                    sympy.Integer(0))
    assert status == "undecided"
