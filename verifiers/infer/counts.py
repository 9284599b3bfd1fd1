"""Pattern family: a count word and the items it counts (``得到⟨n⟩个分数：s = ⟨v⟩``).

The sites come from :mod:`verifiers.restate.counted`: a count word (三个, 两类, 五块) next to
printed items (a vector, the rows or columns of a matrix, a run of printed numbers) or
enumerated ones (``k_{1}, k_{2}, k_{3}``, “患者、服用、华法林”, read by an ``⟨items⟩`` hole:
:mod:`verifiers.restate.items`). Each site becomes one claim that reads the word as a hole and
checks it against the number of items (``n: len(v)``); a claim is written only when it
evaluates ``verified`` on the note as it is (zero false alarms), so a count word that counts
something else (两类 before three matrices of two kinds) gets no claim.

``python -m verifiers.restate.write_counts NOTE … [--notes DIR] [--claims DIR]`` writes the
claims of the given notes to ``claims/<stem>/89-counts-inferred.yaml``.
"""

from __future__ import annotations

import json

from verifiers.infer.evaluate import Inferred, _evaluate, _head, claim_id
from verifiers.notes import Note
from verifiers.restate.counted import CountSite, count_sites

__all__ = ["count_claims", "site_entry"]

SAYS = "inferred: the count word is the number of the items printed next to it"
FILE_NAME = "89-counts-inferred.yaml"


def _quote(text: str, site: CountSite) -> tuple[str, str]:
    """The quote with its holes, and the check of the word hole ``n``."""
    holes = [(site.word.start, site.word.end, "n")]
    if site.named:
        holes.append((*site.items[0], "items"))
        check = "len(items)"
    elif len(site.items) == 1:
        holes.append((*site.items[0], "v"))
        check = "len(transpose(v))" if site.columns else "len(v)"
    else:
        names = [f"a{k}" for k in range(1, len(site.items) + 1)]
        holes += [(a, b, name) for (a, b), name in zip(site.items, names, strict=True)]
        check = f"len([{', '.join(names)}])"
    parts, pos = [], site.lead
    for a, b, name in sorted(holes):
        parts.append(text[pos:a] + f"⟨{name}⟩")
        pos = b
    parts.append(text[pos:site.end])
    return "".join(parts).strip(), check


def site_entry(note: Note, stem: str, site: CountSite) -> tuple[str, str]:
    """(id, YAML entry) of the claim of one site."""
    quote, check = _quote(note.text, site)
    section = note.section_at(site.word.start)
    label = section.label if section else None
    cid = claim_id(stem, label, f"count:{quote}")
    lines = _head(cid, label, SAYS, quote)
    lines += ["    check:", f"      n: {json.dumps(check)}"]
    return cid, "\n".join(lines) + "\n"


def count_claims(notes: dict[str, Note], note_name: str, stem: str,
                 existing: set[str]) -> list[Inferred]:
    """One verified count claim per site, in note order."""
    note = notes[note_name]
    out = []
    done: set[int] = set()  # count words a kept claim reads
    for site in count_sites(note.text):
        if site.word.start in done:
            continue
        cid, entry = site_entry(note, stem, site)
        if cid in existing:
            continue
        verdict = _evaluate(notes, note_name, cid, entry)
        if verdict is None or getattr(verdict, "status", "") != "verified":
            continue
        existing.add(cid)
        done.add(site.word.start)
        out.append(Inferred(cid, entry, "verified", "count", (), ()))
    return out
