"""The component-word survey (laws8, issue 12 items 1 and 4): every component word of the three
notes (vocabulary class ``component``: Softmax, 注意力, LayerNorm, 残差 …), with how a checking
claim reads it.

Why: a component swapped for its neighbour (Softmax -> Sigmoid) is judged only where a claim
reads the word. Exhaustive (every occurrence, no sample, so no seed): each is

- ``hole``: a word hole of a checking claim reads it (the law is searched on the component
  named, so a swap fails with a counterexample or is ``unparsed``);
- ``fixed``: it is law-word fixed text of a checking claim's quote (``verifiers/words.py``
  ``relax`` reads it when the note changes it: ``unparsed`` at the word);
- ``none``: no checking claim reads it (a heading, a narration, a sentence nobody claims).

    python -m benchmarks.component_words [--list] [--claims DIR]   # --list: the ``none`` ones
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

from verifiers import words
from verifiers.coverage.meaning import _Reading, claim_checks
from verifiers.meaning.statements import sentences
from verifiers.verdicts import RunResult

ROOT = Path(__file__).resolve().parents[1]


def _pattern() -> re.Pattern[str]:
    every = sorted({w for ws in words.words_of("component").values() for w in ws},
                   key=len, reverse=True)
    return re.compile("|".join(re.escape(w) for w in every))


def survey(result: RunResult) -> list[tuple[str, int, str, str, str]]:
    """(note, line, word, status, sentence) of every component word, note then text order."""
    out = []
    pattern = _pattern()
    for name in sorted(result.notes):
        note = result.notes[name]
        reading = _Reading()
        for claim in result.claims:
            if claim.note == name and not claim.problems and claim_checks(claim):
                reading.add_claim(note, claim)
        for a, b in sentences(note.text):
            for m in pattern.finditer(note.text, a, b):
                x, y = m.span()
                before, after = note.text[x - 1:x], note.text[y:y + 1]
                if m.group().isascii() and ((before.isascii() and before.isalnum())
                                            or (after.isascii() and after.isalnum())):
                    continue  # inside a Latin word
                if any(p <= x and y <= q for p, q in reading.word_holes):
                    status = "hole"
                elif any(p <= x and y <= q for p, q in reading.read):
                    status = "fixed"
                else:
                    status = "none"
                out.append((name, note.position(x)[0], m.group(), status, note.text[a:b]))
    return out


def main(argv: list[str] | None = None) -> int:
    from verifiers.run import run

    args = sys.argv[1:] if argv is None else argv
    claims = Path(args[args.index("--claims") + 1]) if "--claims" in args else ROOT / "claims"
    found = survey(run(ROOT / "notes", claims, lambda claim: False))
    by_note: dict[str, Counter] = {}
    for name, _, _, status, _ in found:
        by_note.setdefault(name, Counter())[status] += 1
    print(f"{'note':<36}{'words':>7}{'hole':>7}{'fixed':>7}{'none':>7}")
    for name, c in sorted(by_note.items()):
        print(f"{name:<36}{sum(c.values()):>7}{c['hole']:>7}{c['fixed']:>7}{c['none']:>7}")
    total = Counter(s for _, _, _, s, _ in found)
    print(f"{'total':<36}{len(found):>7}{total['hole']:>7}{total['fixed']:>7}{total['none']:>7}")
    if "--list" in args:
        for name, line, word, status, text in found:
            if status == "none":
                print(f"  {name}:{line}: {word} | {text[:90]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
