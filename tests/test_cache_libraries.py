"""The verdict cache's key covers the libraries a verdict depends on.

A Hypothesis release draws other examples (so a property claim can quote another
counterexample), a SymPy release can decide a step differently: after an upgrade, a
verdict cached before it was returned as if the new engine had given it.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_engine import CHAIN, project
from verifiers import cache as cache_module
from verifiers.cache import VerdictCache
from verifiers.run import run


def test_a_library_upgrade_is_a_cache_miss(tmp_path: Path, monkeypatch) -> None:
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', ""))
    result = run(root / "notes", root / "claims")
    claims = {c.id: c for c in result.claims}
    verdict = result.verdicts[0]
    cache_module.engine_version.cache_clear()
    try:
        store = VerdictCache(tmp_path / "cache", result.notes, claims)
        store.put(verdict)
        assert VerdictCache(tmp_path / "cache", result.notes, claims).get(verdict.id) == verdict

        from importlib import metadata

        real = metadata.version
        monkeypatch.setattr(metadata, "version", lambda name: "99.0" if name == "hypothesis"
                            else real(name))
        cache_module.engine_version.cache_clear()
        upgraded = VerdictCache(tmp_path / "cache", result.notes, claims)
        assert upgraded.get(verdict.id) is None  # the old entry is not the new engine's
    finally:
        cache_module.engine_version.cache_clear()
