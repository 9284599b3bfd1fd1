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


@pytest.fixture(scope="session")
def real_result(request: pytest.FixtureRequest):  # -> verifiers.run.RunResult
    """One evaluation of the real notes and claims per session (per xdist worker), shared
    by every test that reads it: the plugin's session run when it has one, else ours.
    Tests only read it."""
    from verifiers.run import run

    try:
        from verifiers.plugin import _KEY

        settings = request.config.stash.get(_KEY, None)
    except ImportError:
        settings = None
    if settings is not None and settings.notes == ROOT / "notes" and settings.verdicts():
        return settings.result
    return run(ROOT / "notes", ROOT / "claims")
