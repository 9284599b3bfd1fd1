"""Hypothesis profiles: derandomized in CI (same verdicts every run), stronger locally on request.

    CI=true pytest                               # profile "ci" (set by .ci/run)
    HYPOTHESIS_PROFILE=thorough pytest tests     # a long local search

The profiles live in :mod:`verifiers.profiles`, which the engine's property claims use too.
"""

from __future__ import annotations

import os

import pytest

from verifiers import profiles

profiles.load()


@pytest.fixture(autouse=True, scope="session")
def _verdict_cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CLI runs in tests cache verdicts away from the working tree."""
    os.environ["NOTECHECK_CACHE"] = str(tmp_path_factory.mktemp("notecheck-cache"))
