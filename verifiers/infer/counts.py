"""Pattern family: a count word and the items it counts (``得到⟨n⟩个分数：s = ⟨v⟩``).

The sites come from :mod:`verifiers.restate.counted`: a count word (三个, 两类, 五块) next to
printed items (a vector, the rows or columns of a matrix, a run of printed numbers) or
enumerated ones (``k_{1}, k_{2}, k_{3}``, “患者、服用、华法林”, read by an ``⟨items⟩`` hole:
:mod:`verifiers.restate.items`). Each site becomes one claim that reads the word as a hole and
checks it against the number of items (``n: len(v)``); a claim is written only when it
evaluates ``verified`` on the note as it is (zero false alarms), so a count word that counts
something else (两类 before three matrices of two kinds) gets no claim.

``python -m verifiers.infer.counts NOTE … [--notes DIR] [--claims DIR]`` writes the claims of
the given notes to ``claims/<stem>/89-counts-inferred.yaml``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

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
    for site in count_sites(note.text):
        cid, entry = site_entry(note, stem, site)
        if cid in existing:
            continue
        verdict = _evaluate(notes, note_name, cid, entry)
        if verdict is None or getattr(verdict, "status", "") != "verified":
            continue
        existing.add(cid)
        out.append(Inferred(cid, entry, "verified", "count", (), ()))
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the count claims of the given notes (their own file, replaced)."""
    from verifiers.files import write_output
    from verifiers.notes import read_note

    parser = argparse.ArgumentParser(prog="python -m verifiers.infer.counts")
    parser.add_argument("notes", nargs="+")
    parser.add_argument("--notes", dest="folder", default="notes")
    parser.add_argument("--claims", default="claims")
    args = parser.parse_args(argv)
    notes = {name: read_note(Path(args.folder) / name) for name in args.notes}
    for name in args.notes:
        stem = Path(name).stem
        found = count_claims(notes, name, stem, set())
        path = Path(args.claims) / stem / FILE_NAME
        if not found:  # a claim file needs a list of claims: none is no file
            path.unlink(missing_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        head = ("# Count words checked against the items they count (written by "
                f"python -m verifiers.infer.counts {name}).\n"
                f"note: {json.dumps(name, ensure_ascii=False)}\nclaims:\n")
        write_output(path, head + "".join(c.yaml for c in found))
        print(f"{path}: {len(found)} count claims", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
