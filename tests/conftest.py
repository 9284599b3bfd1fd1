"""Hypothesis profiles: derandomized in CI (same verdicts every run), stronger locally on request.

    CI=true pytest                               # profile "ci" (set by .ci/run)
    HYPOTHESIS_PROFILE=thorough pytest tests     # a long local search

The profiles live in :mod:`verifiers.profiles`, which the engine's property claims use too.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from verifiers import profiles

profiles.load()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-durations", type=int, default=0, metavar="N",
                     help="show the N tests that cost the most CPU time (tests/cpu_time.py)")


def pytest_configure(config: pytest.Config) -> None:
    from tests.bytecode import compile_for_workers

    compile_for_workers(config)  # before xdist starts the workers (tests/bytecode.py)
    top = config.getoption("--cpu-durations", 0)
    if top:
        from tests.cpu_time import CpuDurations

        config.pluginmanager.register(CpuDurations(top), "notecheck-cpu-durations")


@pytest.fixture(autouse=True, scope="session")
def _verdict_cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """CLI runs in tests cache verdicts away from the working tree."""
    os.environ["NOTECHECK_CACHE"] = str(tmp_path_factory.mktemp("notecheck-cache"))


ROOT = Path(__file__).resolve().parent.parent


REAL_GROUP = "real-claims"  # the xdist scope of the real claims and the tests that evaluate them
# The tests (file::function, parameters aside) that evaluate the real claims: the session result
# (``real_result``) or runs over copies of the real notes, whose SymPy proofs, property searches
# and model runs the worker that holds the real claims already did (kept per process).
REAL_TESTS = frozenset({
    "tests/test_coverage_meaning.py::test_every_formula_statement_and_procedure_is_covered_or_waived",
    "tests/test_report_html.py::test_real_report_content",
    "tests/test_report_html.py::test_write_is_atomic_and_deterministic",
    "tests/test_report_html.py::test_real_report_identical_across_hash_seeds",
    "tests/test_report_html.py::test_report_in_chromium",
    "tests/test_sensitivity.py::test_one_digit_edits_of_covered_values_are_caught",
    "tests/test_cache.py::test_cached_and_uncached_runs_give_the_same_report_bytes",
    "tests/test_determinism.py::test_workers_give_the_same_report_bytes_as_one_process",
    "tests/test_planted.py::test_end_to_end_two_edits",
    "tests/test_properties.py::test_the_property_claims_verify_on_the_notes",
    "tests/test_copies.py::test_first_printing_of_d_k_edited_in_the_real_note",
})


QUOTES_GROUP = "real-quotes"  # the xdist scope of the tests reading ``real_quote_coverage``
QUOTES_TESTS = frozenset({
    "tests/test_coverage.py::test_the_real_notes_are_classified_without_waiver_problems",
    "tests/test_coverage.py::test_every_literal_of_the_notes_is_covered_or_waived",
    "tests/test_strength_floor.py::test_the_recomputed_share_of_each_note_is_at_its_floor",
    "tests/test_strength_floor.py::test_no_real_copy_is_an_orphan",
    "tests/test_coverage.py::test_a_printed_order_covers_no_number_of_its_block",
})


def _in_real_group(nodeid: str) -> bool:
    return nodeid.startswith("claims/") or nodeid.split("[")[0] in REAL_TESTS


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadgroup`` (pyproject.toml): the real claims and REAL_TESTS are one scope, so
    one worker evaluates each real claim once (the claim items and ``real_result`` share the
    plugin's engine) instead of the claim items once and the session result again in every
    worker. By node id: xdist's own ``xdist_group`` marks are lost under pytest 9
    (pytest-dev/pytest-xdist#1386). Every other test is a scope of its own, as with
    ``--dist load``."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class RealClaimsTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            if _in_real_group(nodeid):
                return REAL_GROUP
            if nodeid.split("[")[0] in QUOTES_TESTS:
                return QUOTES_GROUP
            return super()._split_scope(nodeid)

    return RealClaimsTogether(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test reading ``real_result`` outside REAL_TESTS still passes, at the cost of a
    second evaluation of the real claims in its worker: say so."""
    for item in items:
        if "real_result" in getattr(item, "fixturenames", ()) and not _in_real_group(item.nodeid):
            item.warn(pytest.PytestWarning(
                "reads real_result but is not in tests/conftest.py's REAL_TESTS: under xdist "
                "its worker may evaluate the real claims a second time"))


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


@pytest.fixture(scope="session")
def real_verdict(request: pytest.FixtureRequest) -> Callable[[str], Any]:
    """One real claim's verdict on the unedited real notes, as ``run(notes, claims,
    select=that claim)`` gives it (``finish`` included), from the plugin's per-process
    engine: the edit tests compare an edited copy with it, and loading every claim file
    and evaluating the claim again for each test cost more than the edit. The claims are
    loaded once per process and each claim is evaluated once (shared with the claim items
    and ``real_result``). Without the plugin's settings for the real notes: ``run``."""
    from verifiers.budget import Budget
    from verifiers.run import finish, run

    settings = _plugin_settings(request.config)
    if (settings is None or settings.notes != ROOT / "notes"
            or settings.claims != ROOT / "claims" or settings.loaded() is None):
        def by_run(claim_id: str) -> Any:
            (verdict,) = run(ROOT / "notes", ROOT / "claims",
                             select=lambda c: c.id == claim_id).verdicts
            return verdict
        return by_run
    loaded = settings.loaded()

    def from_engine(claim_id: str) -> Any:
        (verdict,) = finish([settings.verdict(claim_id)], loaded.claims, loaded.notes, Budget())
        return verdict
    return from_engine


@pytest.fixture(scope="session")
def real_quote_coverage() -> tuple[Any, ...]:
    """``(result, coverages, problems)``: the real notes' literals classified once per
    process from a run that evaluates no claim (coverage reads the quotes), shared by the
    coverage and strength-floor tests (QUOTES_TESTS, one xdist scope). Tests only read it."""
    from verifiers.coverage.literals import coverage
    from verifiers.run import run

    result = run(ROOT / "notes", ROOT / "claims", lambda claim: False)
    return (result, *coverage(result))


@pytest.fixture
def first_counterexample(monkeypatch: pytest.MonkeyPatch) -> None:
    """Property searches without Hypothesis's shrink phase, for a test that shows a law
    catches a planted mutant or a flipped word: the profile's derandomized examples are
    drawn as always, so the same failing example is found (or none), and the message quotes
    it as found rather than shrunk. Not for a test that reads the shrunk example; never the
    gate's searches (the claims keep the profile's phases)."""
    from hypothesis import Phase, settings

    full = profiles.settings_for

    def settings_for(profile: str | None = None) -> Any:
        base = full(profile)
        return settings(base, phases=[p for p in base.phases if p != Phase.shrink])

    monkeypatch.setattr(profiles, "settings_for", settings_for)


_LOADED: dict[tuple[Any, ...], bytes] = {}  # the real claims as parsed, per known notes and files


def _stamps(folder: Path) -> tuple[tuple[str, int, int], ...]:
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size)
                 for p in sorted(folder.rglob("*")) if p.is_file())


@pytest.fixture
def real_claims_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run`` over (a copy of) the real notes with the real claims parses the claim files
    once per process and hands each run its own deep copy (unpickled), as a fresh parse would give:
    the edit tests run one claim each, and parsing every claim file cost more than the
    claim. Other claim folders (the tests' own, written in tmp_path) load as always."""
    from verifiers import run as run_module

    parse = run_module.load_claims

    def load_claims(claims_dir: Path, known_notes: set[str],
                    waivers: list[Any] | None = None) -> Any:
        if Path(claims_dir).resolve() != ROOT / "claims":
            return parse(claims_dir, known_notes, waivers)
        key = (frozenset(known_notes), _stamps(ROOT / "claims"))
        if key not in _LOADED:
            found: list[Any] = []
            # kept pickled: unpickling makes the deep copy in a third of deepcopy's time
            # (311 edit tests load the claims), from bytes this process wrote
            _LOADED[key] = pickle.dumps((parse(claims_dir, known_notes, found), found))
        (claims, problems), found = pickle.loads(_LOADED[key])
        if waivers is not None:
            waivers.extend(found)
        return claims, problems

    monkeypatch.setattr(run_module, "load_claims", load_claims)
