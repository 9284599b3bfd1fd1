"""Hypothesis settings profiles, shared by the tests and by the engine's property claims.

    ci        derandomized, no example database, no deadline, the timing and filtering health
              checks off, a fixed example budget: the same verdicts (and the same report
              bytes) on every run. ``.ci/run`` sets CI=true; ``notecheck check`` uses it
              by default.
    dev       random search with the example database (a failure found once is replayed).
    thorough  a long local search: ``HYPOTHESIS_PROFILE=thorough pytest``.

Selection: ``HYPOTHESIS_PROFILE``, else the default a caller set (the CLI sets ``ci``), else
``ci`` under ``CI=true``, else ``dev``. Only :func:`register` and :func:`settings_for` import
Hypothesis, so an arithmetic-only run never does.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

PROFILES = ("ci", "dev", "thorough")
EXAMPLES = {"ci": 100, "dev": 100, "thorough": 5000}

_default: str | None = None
_registered = False


class ProfileError(ValueError):
    """HYPOTHESIS_PROFILE names no profile of ours."""


def name(env: Mapping[str, str] | None = None) -> str:
    """The profile in force: HYPOTHESIS_PROFILE, the caller's default, CI=true -> ci, dev."""
    env = os.environ if env is None else env
    chosen = env.get("HYPOTHESIS_PROFILE") or _default
    if not chosen:
        chosen = "ci" if env.get("CI") == "true" else "dev"
    if chosen not in PROFILES:
        from verifiers.claimtext import did_you_mean

        raise ProfileError(f"unknown Hypothesis profile {chosen!r}{did_you_mean(chosen, PROFILES)}"
                           f"; use one of {', '.join(PROFILES)}")
    return chosen


@contextmanager
def default(profile: str) -> Iterator[None]:
    """Use ``profile`` unless HYPOTHESIS_PROFILE says otherwise (the CLI: ``ci``)."""
    global _default
    old, _default = _default, profile
    try:
        yield
    finally:
        _default = old


def register() -> None:
    """Register the three profiles with Hypothesis (idempotent)."""
    global _registered
    if _registered:
        return
    from hypothesis import HealthCheck, settings
    from hypothesis.configuration import set_hypothesis_home_dir

    from verifiers.files import cache_home

    # The example database of the 'dev' profile (a failure found once is replayed) lives
    # beside the verdict cache, not as a `.hypothesis/` folder in the user's working
    # directory. The 'ci' profile keeps no database at all.
    set_hypothesis_home_dir(str(cache_home() / "hypothesis"))
    quiet_checks = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
    settings.register_profile(
        "ci", derandomize=True, database=None, deadline=None, max_examples=EXAMPLES["ci"],
        suppress_health_check=quiet_checks, print_blob=False,
    )
    settings.register_profile("dev", max_examples=EXAMPLES["dev"], deadline=None)
    _without_local_constants()
    settings.register_profile("thorough", max_examples=EXAMPLES["thorough"], deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    _registered = True


def _without_local_constants() -> None:
    """Same inputs, same examples, whatever ran before in the process.

    Hypothesis (6.13x and later) mixes into its draws the literal constants of every
    *local* module loaded so far (``providers._get_local_constants``). Which of our modules
    are loaded depends on the claims a ``-j`` worker happened to take first, so a search
    could shrink to another counterexample from one run to the next (aat 8.6's underflow
    printed ``[746, 0]`` or ``[750, 0]``). The pool is emptied; the global constants
    (0, ±inf, NaN, …) stay. Older versions have no such pool and are left alone.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - another layout: nothing to freeze
        return
    if hasattr(providers, "_get_local_constants") and hasattr(providers, "Constants"):
        empty = providers.Constants()
        providers._get_local_constants = lambda: empty
        if hasattr(providers, "CONSTANTS_CACHE"):
            providers.CONSTANTS_CACHE.cache.clear()


def load(env: Mapping[str, str] | None = None) -> str:
    """Register and make the selected profile Hypothesis's default (tests/conftest.py)."""
    from hypothesis import settings

    register()
    chosen = name(env)
    settings.load_profile(chosen)
    return chosen


def settings_for(profile: str | None = None) -> Any:
    """The ``hypothesis.settings`` of a profile (the selected one by default)."""
    from hypothesis import settings

    register()
    return settings.get_profile(profile or name())
