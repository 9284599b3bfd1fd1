"""Property claims (kind: property): laws the notes state in prose, searched with Hypothesis.

Layout (only :mod:`.catalog` is imported when claim files are loaded; everything else, and
with it torch and Hypothesis, only when a property claim is evaluated):

- :mod:`.catalog`     names, parameters, expectations (light: the schema validates with it);
- :mod:`.strategies`  Hypothesis strategies: score vectors, probabilities, tiny tinygpt models;
- :mod:`.laws`        one check per property, each with an injectable implementation;
- :mod:`.runner`      runs a property under a settings profile and words the verdict;
- :mod:`.counts`      laws searched and sentences stating them, for the reports (light);
- :mod:`.stated`      the laws the claims state, words read (the tests' mutant grid);
- :mod:`.specs_words` the slots each law's sentences state in words (能/不能, 正比于, …) (light);
- :mod:`.reading`     how many property claims read their law word (a measure, light);
- :mod:`.fixedwords`  law words a quote holds as fixed text, judged when an edit changed them
  (light: the engine calls it for every kind of claim);
- :mod:`.laws_prose`, :mod:`.specs_prose` the laws of the comparative and scope sentences.
"""

from __future__ import annotations

from typing import Any


def check_claim(claim: Any, match: Any, note: Any) -> Any:
    """The engine's entry point: the claim's one value, or an error if the search cannot run.

    Hypothesis and torch are imported here, on the first property claim; a missing package
    is an ``error`` verdict that says what to install, not a traceback.
    """
    try:
        from verifiers.properties.runner import check_property
    except ImportError as exc:
        from verifiers.verdicts import ERROR, ValueVerdict

        return ValueVerdict(
            name=claim.property_name, printed=" ".join(note.text[match.start:match.end].split()),
            expected="", status=ERROR, start=note.position(match.start),
            end=note.position(match.end), suggestion=None,
            message=f"{claim.property_name}: error: property claims need Hypothesis and torch "
                    f"(pip install hypothesis): {exc}")
    return check_property(claim, match, note)
