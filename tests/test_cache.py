"""The verdict cache never changes a verdict, and a re-run after an edit re-checks only that."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.test_engine import CHAIN, NOTE, project
from verifiers.cache import VerdictCache
from verifiers.report_json import dumps
from verifiers.run import run
from verifiers.schema import Claim

REAL = Path(__file__).resolve().parent.parent


def test_cached_and_uncached_runs_give_the_same_report_bytes(tmp_path, monkeypatch):
    for folder in ("notes", "claims"):
        shutil.copytree(REAL / folder, tmp_path / folder)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache"
    notes, claims = Path("notes"), Path("claims")

    def no_properties(claim: Claim) -> bool:  # one note, every kind but the searches
        return claim.kind != "property" and claim.note == "matrix-by-matrix.txt"

    fresh = dumps(run(notes, claims, no_properties))
    first = run(notes, claims, no_properties, cache=cache)
    second = run(notes, claims, no_properties, cache=cache)
    assert dumps(first) == fresh == dumps(second)
    assert any(cache.rglob("*.json"))


def test_an_edit_invalidates_the_claim_and_what_uses_it(tmp_path):
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', ""))
    cache = tmp_path / "cache"
    run(root / "notes", root / "claims", cache=cache)
    note = root / "notes" / "n.txt"
    note.write_text(NOTE.replace("输入 x = 1.20", "输入 x = 1.25"), encoding="utf-8")
    notes_claims = run(root / "notes", root / "claims")  # uncached truth after the edit
    store = VerdictCache(cache, notes_claims.notes, {c.id: c for c in notes_claims.claims})
    # No section: every claim reads the whole note, so the edit invalidates all three.
    assert [store.get(c.id) for c in notes_claims.claims] == [None, None, None]
    cached = run(root / "notes", root / "claims", cache=cache)
    assert dumps(cached) == dumps(notes_claims)


def test_sections_limit_what_an_edit_invalidates(tmp_path):
    claims = CHAIN + """  - id: other
    section: "1.1"
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
"""
    root = project(tmp_path, claims)
    cache = tmp_path / "cache"
    run(root / "notes", root / "claims", cache=cache)
    # an edit in 1.3 (the chain), keeping line numbers: 1.1's claim stays cached
    (root / "notes" / "n.txt").write_text(NOTE.replace("z = y + 1 = 3.40", "z = y + 1 = 3.41"),
                                          encoding="utf-8")
    after = run(root / "notes", root / "claims")
    store = VerdictCache(cache, after.notes, {c.id: c for c in after.claims})
    hits = {c.id: store.get(c.id) is not None for c in after.claims}
    # the claim file is unchanged, 1.1's text and position are unchanged
    assert hits == {"c-in": False, "c-double": False, "c-plus": False, "other": True}
    assert dumps(run(root / "notes", root / "claims", cache=cache)) == dumps(after)


def test_a_corrupt_entry_is_a_miss(tmp_path):
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', ""))
    cache = tmp_path / "cache"
    clean = dumps(run(root / "notes", root / "claims", cache=cache))
    for entry in cache.rglob("*.json"):
        entry.write_text("{not json", encoding="utf-8")
    assert dumps(run(root / "notes", root / "claims", cache=cache)) == clean


def test_the_same_claims_in_another_file_are_not_confused(tmp_path):
    """A verdict names its claim file and line: identical content elsewhere is another key."""
    cache = tmp_path / "cache"
    first = project(tmp_path / "a", CHAIN.replace('section: "1.3"\n', ""))
    run(first / "notes", first / "claims", cache=cache)
    second = project(tmp_path / "b", CHAIN.replace('section: "1.3"\n', ""))
    (second / "claims" / "n" / "c.yaml").rename(second / "claims" / "n" / "other.yaml")
    result = run(second / "notes", second / "claims", cache=cache)
    assert all(v.file.endswith("claims/n/other.yaml") for v in result.verdicts)
