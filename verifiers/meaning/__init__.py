"""Reading a note's meaning: the formulas, the sentences that state a law, the procedures.

Numeric coverage sees only numbers, so a formula with no number in its line could change
unnoticed. These detectors find the other things a claim can check, each with its span in
``Note.text``; :mod:`verifiers.coverage` classifies them. They read text only (no SymPy,
no claims) and each runs in time linear in the note's size. Imports are one-way: this
package imports nothing of the suite but :mod:`verifiers.yamlload` (the cue words).

* :mod:`.formulas` -- inline/display LaTeX and plain-text math;
* :mod:`.statements` -- sentences with a cue word from ``cues.yaml``;
* :mod:`.procedures` -- numbered steps and ``A → B → C`` pipelines.
"""

from __future__ import annotations

from verifiers.meaning.formulas import find_formulas
from verifiers.meaning.items import Item
from verifiers.meaning.procedures import find_procedures
from verifiers.meaning.statements import find_statements

__all__ = ["FINDERS", "Item", "find_formulas", "find_procedures", "find_statements"]

# kind (the JSON key of ``notecheck coverage``) -> detector over a note's text
FINDERS = {
    "formulas": find_formulas,
    "statements": find_statements,
    "procedures": find_procedures,
}
