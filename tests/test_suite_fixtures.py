"""The suite's sharing fixtures (tests/conftest.py) give what the code they stand for gives."""

from __future__ import annotations

from pathlib import Path

from verifiers import run as run_module

ROOT = Path(__file__).resolve().parent.parent
PARSE = run_module.load_claims  # taken at import, before any test patches it


def test_claims_parsed_once_equal_a_fresh_parse_and_stay_apart(real_claims_parsed_once,
                                                               tmp_path: Path) -> None:
    """Each load is a deep copy equal to a fresh parse: a claim one run changes (run renames
    duplicates, appends problems) is not the next run's; other folders parse as always."""
    assert run_module.load_claims is not PARSE  # the fixture is in place
    notes = {p.name for p in (ROOT / "notes").iterdir()}
    waivers: list = []
    first = run_module.load_claims(ROOT / "claims", notes, waivers)
    fresh_waivers: list = []
    assert first == PARSE(ROOT / "claims", notes, fresh_waivers)
    assert waivers == fresh_waivers and waivers
    first[0][0].id = "changed by a run"
    second = run_module.load_claims(ROOT / "claims", notes)
    assert second[0][0].id != "changed by a run" and second == PARSE(ROOT / "claims", notes)
    (tmp_path / "c.yaml").write_text("note: x.txt\nclaims: []\n", encoding="utf-8")
    claims, problems = run_module.load_claims(tmp_path, notes)
    assert claims == [] and problems and problems[0].file.endswith("c.yaml")


def test_real_verdict_is_the_verdict_of_a_run_of_that_claim(real_verdict) -> None:
    cid = "aat-s-4-9-softmax-derivative"
    (by_run,) = run_module.run(ROOT / "notes", ROOT / "claims",
                               select=lambda c: c.id == cid).verdicts
    assert real_verdict(cid) == by_run and by_run.status == "verified"


def _planted_search() -> object:
    """A flipped word (shift -> scale) the law refutes: a counterexample to find."""
    from verifiers.properties.runner import search

    return search("softmax-shift-invariance", {"op": "scale"}, profile="ci")


def test_first_counterexample_finds_what_the_full_search_finds(request) -> None:
    """Without the shrink phase the same derandomized examples are drawn: the planted error is
    still found, by the same profile budget, and only the shrinking is left out."""
    from hypothesis import Phase

    from verifiers import profiles

    full_settings = profiles.settings_for("ci")
    full = _planted_search()
    request.getfixturevalue("first_counterexample")
    found = _planted_search()
    assert full.found and found.found and found.status == full.status == "discrepancy"
    assert found.message.split(":")[0] == full.message.split(":")[0]  # the same implementation
    quick = profiles.settings_for("ci")
    assert Phase.shrink in full_settings.phases and Phase.shrink not in quick.phases
    assert (quick.max_examples, quick.derandomize) == (full_settings.max_examples, True)
