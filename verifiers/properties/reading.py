"""Which property claims read their law from the sentence (issue 12 item 1): a measure.

A property claim *reads its law* when the word that carries the law is a word hole ⟦slot⟧
(an edit of that word is then searched as the law it states); otherwise it quotes the
sentence literally and an edited law word only makes it ``stale``. Light: claim files only.

    python -m verifiers.properties.reading [claims_dir]   # "read N of M" and the literal ids
"""

from __future__ import annotations

import sys
from pathlib import Path

from verifiers.schema import Claim, load_claim_file


def reads_its_law(claim: Claim) -> bool:
    """The claim has a word hole (its law is built from the word the note prints there), or
    a formula hole that another claim reads and checks (``read_by:``: the value the law
    states, ``=1``, ``∞/∞``, is in the formula, and an edit of it fails this claim there)."""
    return any(h.word for h in claim.holes) or bool(claim.read_by)


def property_claims(claims_dir: Path) -> list[Claim]:
    """Every property claim under ``claims_dir``, files in sorted order."""
    out: list[Claim] = []
    for path in sorted(claims_dir.rglob("*.yaml")):
        loaded = load_claim_file(path, str(path), set())
        out.extend(c for c in loaded.claims if c.kind == "property")
    return out


def literal_ids(claims_dir: Path) -> list[str]:
    """Ids of the property claims that still quote their law word literally (sorted)."""
    return sorted(c.id for c in property_claims(claims_dir) if not reads_its_law(c))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    claims_dir = Path(args[0]) if args else Path("claims")
    claims = property_claims(claims_dir)
    literal = literal_ids(claims_dir)
    print(f"property claims reading their law word: {len(claims) - len(literal)} of {len(claims)}")
    for cid in literal:
        print(f"  literal: {cid}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
