"""The verdict cache never changes a verdict, and a re-run after an edit re-checks only that."""

from __future__ import annotations

import dataclasses
import faulthandler
import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tests.test_engine import CHAIN, NOTE, PIN, project
from verifiers.cache import VerdictCache
from verifiers.report.json import dumps
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


# --------------------------------------------------------------------------- untrusted entries
# The cache folder is only a folder of files: an entry edited by hand, by another tool or by
# an attacker with write access to it must never make a failing claim pass, crash or hang.

WRONG = NOTE.replace("y = 2x = 2.40", "y = 2x = 2.50")  # c-double's own step is wrong


def _failing_project(tmp_path: Path) -> tuple[Path, Path, str]:
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', ""), WRONG)
    cache = tmp_path / "cache"
    truth = dumps(run(root / "notes", root / "claims"))
    assert '"status": "discrepancy"' in truth
    run(root / "notes", root / "claims", cache=cache)
    return root, cache, truth


def _entry(root: Path, cache: Path, claim_id: str) -> Path:
    result = run(root / "notes", root / "claims")
    store = VerdictCache(cache, result.notes, {c.id: c for c in result.claims})
    path = store._path(claim_id)
    assert path.is_file()
    return path


def _edited(tmp_path: Path, edit) -> None:
    """Edit c-double's entry with ``edit(data) -> text``: the cached run is still the truth."""
    root, cache, truth = _failing_project(tmp_path)
    path = _entry(root, cache, "c-double")
    data = json.loads(path.read_text(encoding="utf-8"))
    text = edit(data)
    if text is not None:
        path.unlink()
        path.write_text(text, encoding="utf-8")
    assert dumps(run(root / "notes", root / "claims", cache=cache)) == truth


def test_an_entry_edited_to_known_is_a_miss(tmp_path):
    def to_known(data):
        data["status"] = "known"
        for x in data["values"]:
            x["status"] = "known"
        return json.dumps(data)
    _edited(tmp_path, to_known)


def test_an_entry_edited_to_verified_without_values_is_a_miss(tmp_path):
    def emptied(data):
        data.update(status="verified", message="", root_cause=None, values=[])
        return json.dumps(data)
    _edited(tmp_path, emptied)


def test_an_entry_edited_to_verified_values_is_a_miss(tmp_path):
    def verified(data):  # consistent in itself, but a hole of the claim is missing
        data.update(status="verified", values=[x for x in data["values"] if x["name"] != "y"])
        return json.dumps(data)
    _edited(tmp_path, verified)


def test_an_entry_with_another_claims_values_is_a_miss(tmp_path):
    def renamed(data):
        for x in data["values"]:
            x["name"], x["status"] = "other", "verified"
        data["status"] = "verified"
        return json.dumps(data)
    _edited(tmp_path, renamed)


@pytest.mark.parametrize("edit", [
    lambda d: json.dumps({**d, "line": 10**400}),  # OverflowError in int()
    lambda d: json.dumps({**d, "line": 1e400}),
    lambda d: json.dumps({**d, "where": [1e308 * 10, 1]}),
    lambda d: json.dumps({**d, "where": [-1, 2**70]}),
    lambda d: json.dumps({k: v for k, v in d.items() if k != "status"}),  # KeyError
    lambda d: json.dumps({**d, "extra": 1}),
    lambda d: json.dumps({**d, "values": [{"name": "y"}]}),
    lambda d: json.dumps({**d, "values": "abc"}),
    lambda d: json.dumps({**d, "status": "passed"}),
    lambda d: json.dumps({**d, "kind": 3}),
    lambda d: json.dumps({**d, "span": [[1, 1]]}),
    lambda d: json.dumps({**d, "message": "x" * 300_000}),
    lambda d: json.dumps({k: v for k, v in d.items() if k != "depends_on_time"}),  # old format
    lambda d: json.dumps({**d, "depends_on_time": True}),
    lambda d: json.dumps({**d, "id": "c-in"}),
    lambda d: json.dumps([d]),
    lambda d: '{"id": NaN}',
    lambda d: "[" * 100_000 + "]" * 100_000,  # RecursionError in json.loads
    lambda d: '{"values": ' + "[" * 100_000 + "]" * 100_000 + "}",
    lambda d: "\udcff",
], ids=["huge-int", "huge-float", "inf-position", "out-of-range", "missing-key", "extra-key",
        "bad-value", "values-not-list", "unknown-status", "kind-number", "short-span",
        "huge-message", "no-depends-on-time", "depends-on-time", "other-id", "a-list", "nan",
        "deep-nesting", "deep-values", "not-utf8"])
def test_a_malformed_entry_is_a_miss_not_a_crash(tmp_path, edit):
    def write(data):
        text = edit(data)
        return text if text != "\udcff" else None
    _edited(tmp_path, write)


def test_an_entry_over_the_size_cap_is_a_miss(tmp_path):
    _edited(tmp_path, lambda d: json.dumps({**d, "says": "x" * (2 << 20)}))


def test_an_entry_that_is_a_fifo_or_a_link_to_dev_zero_is_a_miss(tmp_path):
    """Neither hangs the run: a watchdog aborts the session if one does."""
    root, cache, truth = _failing_project(tmp_path)
    entry = _entry(root, cache, "c-double")
    entry.unlink()
    os.mkfifo(entry)
    other = _entry(root, cache, "c-in")
    other.unlink()
    other.symlink_to("/dev/zero")
    faulthandler.dump_traceback_later(120, exit=True, file=sys.__stderr__)
    try:
        assert dumps(run(root / "notes", root / "claims", cache=cache)) == truth
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert stat.S_ISFIFO(os.lstat(entry).st_mode)  # a miss is not rewritten over a FIFO ...
    assert other.is_symlink()  # ... nor over a link


def test_a_known_entry_counts_only_where_the_claim_pins_it(tmp_path):
    """The real pin verifies from the cache; the same entry for an unpinned claim does not."""
    pinned = CHAIN.replace('section: "1.3"\n', "").replace(
        "    check: {y: 2 * xv}\n", "    check: {y: 2 * xv}\n" + PIN + "\n")
    root = project(tmp_path, pinned, WRONG)
    cache = tmp_path / "cache"
    truth = run(root / "notes", root / "claims")
    assert {v.id: v.status for v in truth.verdicts}["c-double"] == "known"
    run(root / "notes", root / "claims", cache=cache)
    store = VerdictCache(cache, truth.notes, {c.id: c for c in truth.claims})
    assert store.get("c-double") is not None and store.get("c-double").status == "known"
    known_entry = store._path("c-double").read_text(encoding="utf-8")
    # the same verdict, moved to the key of the unpinned claim of the same name
    root2 = project(tmp_path / "unpinned", CHAIN.replace('section: "1.3"\n', ""), WRONG)
    cache2 = tmp_path / "cache2"
    after = run(root2 / "notes", root2 / "claims")
    store2 = VerdictCache(cache2, after.notes, {c.id: c for c in after.claims})
    forged = json.loads(known_entry)
    forged["file"] = after.verdicts[1].file
    store2._path("c-double").parent.mkdir(parents=True)
    store2._path("c-double").write_text(json.dumps(forged), encoding="utf-8")
    assert store2.get("c-double") is None
    assert dumps(run(root2 / "notes", root2 / "claims", cache=cache2)) == dumps(after)


# --------------------------------------------------------------------------- verdicts of the clock


def _first_verdict(tmp_path: Path) -> tuple[VerdictCache, object]:
    root = project(tmp_path, CHAIN.replace('section: "1.3"\n', ""))
    result = run(root / "notes", root / "claims")
    store = VerdictCache(tmp_path / "cache", result.notes, {c.id: c for c in result.claims})
    return store, result.verdicts[0]


def test_a_verdict_that_depends_on_time_is_not_cached(tmp_path):
    store, verdict = _first_verdict(tmp_path)
    store.put(dataclasses.replace(verdict, depends_on_time=True))
    assert not any((tmp_path / "cache").rglob("*.json"))
    assert store.get(verdict.id) is None


@pytest.mark.parametrize("message", [
    "F.step1: symbolic attempt cut off after 3 s", "x: the run timed out",
    "lesson1 program did not finish within 60 s", "SymPy took longer than 3 s"])
def test_a_timeout_message_is_not_cached(tmp_path, message):
    store, verdict = _first_verdict(tmp_path)
    store.put(dataclasses.replace(verdict, status="error", message=message))
    value = dataclasses.replace(verdict.values[0], message=message)
    store.put(dataclasses.replace(verdict, values=[value]))
    assert not any((tmp_path / "cache").rglob("*.json"))


def test_the_cache_round_trips_a_verdict_exactly(tmp_path):
    store, verdict = _first_verdict(tmp_path)
    store.put(verdict)
    assert store.get(verdict.id) == verdict and verdict.depends_on_time is False
    verdict.values[0].approximate = True  # a value the note marks with 约: kept as such
    store.put(verdict)
    assert store.get(verdict.id).values[0].approximate is True


def test_the_engine_version_covers_the_vocabularies(monkeypatch, tmp_path):
    """A word hole's meaning lives in YAML data: editing a vocabulary must change the key."""
    from verifiers import cache as cache_module

    root = tmp_path / "repo"
    for package in cache_module.PACKAGES:
        shutil.copytree(REAL / package, root / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    fake = root / "verifiers" / "cache.py"
    monkeypatch.setattr(cache_module, "__file__", str(fake))
    cache_module.engine_version.cache_clear()
    before = cache_module.engine_version()
    vocabulary = root / "verifiers" / "properties" / "vocabulary.yaml"
    vocabulary.write_text(vocabulary.read_text(encoding="utf-8") + "\n# edited\n",
                          encoding="utf-8")
    cache_module.engine_version.cache_clear()
    after = cache_module.engine_version()
    cache_module.engine_version.cache_clear()
    assert before != after


def test_claims_whose_checker_names_the_values_are_cache_hits(tmp_path, monkeypatch):
    """Procedure steps, findings in a code block and statements about printed data have
    values their checker names (``s1``, ``rule …``, ``order``): a warm re-run takes them from
    the cache like any other (they were misses, re-evaluated every run: a 7 s warm run)."""
    from verifiers.engine import Engine

    def named_by_checker(claim: Claim) -> bool:
        return claim.kind == "procedure" or claim.code is not None or bool(claim.states)

    cache = tmp_path / "cache"
    first = run(REAL / "notes", REAL / "claims", named_by_checker, cache=cache)
    assert len(first.verdicts) >= 20
    assert all(v.status in ("verified", "known") for v in first.verdicts)
    evaluated: list[str] = []
    real_evaluate = Engine._evaluate_one
    monkeypatch.setattr(Engine, "_evaluate_one",
                        lambda self, cid: evaluated.append(cid) or real_evaluate(self, cid))
    second = run(REAL / "notes", REAL / "claims", named_by_checker, cache=cache)
    assert evaluated == []
    assert dumps(second) == dumps(first)
