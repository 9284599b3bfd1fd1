"""Hypothesis profiles: derandomized in CI (same verdicts every run), stronger locally on request.

    CI=true pytest                               # profile "ci" (set by .ci/run)
    HYPOTHESIS_PROFILE=thorough pytest tests     # a long local search

The profiles live in :mod:`verifiers.profiles`, which the engine's property claims use too.
"""

from __future__ import annotations

from verifiers import profiles

profiles.load()
