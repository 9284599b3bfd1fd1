"""Which laws the claims state: each property claim's law, with the words its sentence says.

The tests use it to hold every law's mutant to the parameters the claims actually search
(not only the catalog's defaults). Reading a claim's words needs its quote found in the
note, so this resolves quotes with the engine; it searches nothing.
"""

from __future__ import annotations

from pathlib import Path

from verifiers.engine import Engine
from verifiers.properties.catalog import CATALOG, LawKey, law_key
from verifiers.properties.slots import read_words
from verifiers.run import load_claims, load_notes


def stated_laws(notes_dir: Path, claims_dir: Path) -> dict[LawKey, list[str]]:
    """Each law the property claims state (sorted), with the ids of the claims stating it.

    A claim whose quote is not found or whose word is outside its vocabulary states no law
    (the run reports it as stale or unparsed instead).
    """
    notes = load_notes(notes_dir)
    claims, _ = load_claims(claims_dir, set(notes))
    engine = Engine(notes, claims)
    found: dict[LawKey, list[str]] = {}
    for claim in claims:
        if claim.kind != "property" or claim.problems or claim.property_name not in CATALOG:
            continue
        ev = engine.evaluate(claim.id)
        if ev.failure is not None or ev.match is None:
            continue
        read = read_words(claim, CATALOG[claim.property_name], ev.match.words)
        if any(w.meaning is None for w in read):
            continue
        stated = {w.slot: w.meaning for w in read}
        found.setdefault(law_key(claim.property_name, {**claim.params, **stated}),
                         []).append(claim.id)
    return dict(sorted(found.items(), key=lambda item: repr(item[0])))
