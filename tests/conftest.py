"""Hypothesis profiles: derandomized in CI (same verdicts every run), stronger locally on request.

    CI=true pytest                               # profile "ci" (set by .ci/run)
    HYPOTHESIS_PROFILE=thorough pytest tests     # a long local search

The profiles live in :mod:`verifiers.profiles`, which the engine's property claims use too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from verifiers import profiles

profiles.load()


@pytest.fixture(autouse=True, scope="session")
def _verdict_cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CLI runs in tests cache verdicts away from the working tree."""
    os.environ["NOTECHECK_CACHE"] = str(tmp_path_factory.mktemp("notecheck-cache"))


ROOT = Path(__file__).resolve().parent.parent


REAL_GROUP = "real-claims"  # the xdist group of the real claims and the tests that read them


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The real claims' items and the tests reading ``real_result`` share one xdist worker:
    there each claim is evaluated once, by whichever asks first, instead of once by the
    claim items and again by the session result in every worker."""
    if not any("real_result" in getattr(item, "fixturenames", ()) for item in items):
        return  # no session result in this selection: the claim items spread over the workers
    from verifiers.plugin import ClaimItem

    settings = _plugin_settings(config)
    real = settings is not None and settings.notes == ROOT / "notes"
    for item in items:
        if ("real_result" in getattr(item, "fixturenames", ())
                or (real and isinstance(item, ClaimItem))):
            item.add_marker(pytest.mark.xdist_group(REAL_GROUP))


def _plugin_settings(config: pytest.Config):  # -> verifiers.plugin._Settings | None
    try:
        from verifiers.plugin import _KEY
    except ImportError:
        return None
    return config.stash.get(_KEY, None)


@pytest.fixture(scope="session")
def real_result(request: pytest.FixtureRequest):  # -> verifiers.run.RunResult
    """One evaluation of the real notes and claims per session (per xdist worker), shared
    by every test that reads it and by the plugin's claim items: the verdicts come from
    the plugin's engine, so a claim its item already evaluated is not evaluated again
    (and the other way round), and end as in :func:`verifiers.run.run`. Without the
    plugin's settings for the real notes: a run of our own. Tests only read it."""
    from verifiers.run import RunResult, finish, problem_verdict, run

    settings = _plugin_settings(request.config)
    if (settings is None or settings.notes != ROOT / "notes"
            or settings.claims != ROOT / "claims" or settings.loaded() is None):
        return run(ROOT / "notes", ROOT / "claims")
    loaded = settings.loaded()
    verdicts = [problem_verdict(p) for p in settings.problems]
    verdicts += [settings.verdict(claim.id) for claim in loaded.claims]
    return RunResult(finish(verdicts, loaded.claims), loaded.notes, settings.notes,
                     settings.claims, loaded.waivers, loaded.claims)
