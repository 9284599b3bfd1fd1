"""Run a property under a Hypothesis profile and turn the outcome into a claim's value verdict.

:func:`search` is the whole contract: the law's strategy draws examples, its check runs on
every implementation under test (the defaults, or an injected mutant), and the outcome is
either "no counterexample in N examples" or the shrunk counterexample's message. Anything
else (a check that raises, a health check, a flaky failure) is an error with a one-line
message, never a traceback. Hypothesis and torch are imported here, on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from hypothesis import Phase, Verbosity, errors, example, given, settings

from verifiers import profiles
from verifiers.holes import Match
from verifiers.notes import Note
from verifiers.properties import fixedwords
from verifiers.properties.catalog import CATALOG, complete, law_key, law_label
from verifiers.properties.laws import LAWS, Counterexample
from verifiers.properties.params import FAILS
from verifiers.properties.slots import known_words, read_words
from verifiers.schema import Claim
from verifiers.verdicts import DISCREPANCY, ERROR, UNPARSED, VERIFIED, ValueVerdict


@dataclass(frozen=True)
class Outcome:
    """What one search found: a counterexample (``found``) or ``examples`` passing examples."""

    name: str
    expect: str
    found: bool
    examples: int
    message: str = ""
    error: bool = False

    @property
    def status(self) -> str:
        if self.error:
            return ERROR
        return VERIFIED if self.found == (self.expect == FAILS) else DISCREPANCY

    @property
    def expected(self) -> str:
        if self.expect == FAILS:
            return "a counterexample (the note says the law fails)"
        return f"no counterexample in {self.examples} examples"

    @property
    def text(self) -> str:
        """One line for the console, the JSON ``message`` and the pytest failure."""
        if self.error:
            return f"{self.name}: error: {self.message}"
        if self.found and self.expect == FAILS:
            return f"{self.name}: counterexample found, as the note says: {self.message}"
        if self.found:
            return f"{self.name}: counterexample: {self.message}"
        if self.expect == FAILS:
            return (f"{self.name}: no counterexample in {self.examples} examples, but the note "
                    "says this law fails")
        return f"{self.name}: no counterexample in {self.examples} examples"


def search(
    name: str,
    params: Mapping[str, Any] | None = None,
    impl: Any = None,
    profile: str | None = None,
    max_examples: int | None = None,
) -> Outcome:
    """Search for a counterexample to property ``name``.

    ``impl`` replaces the law's implementations under test: a mapping ``{label: impl}`` or a
    single implementation (labelled "injected"). ``profile`` defaults to the selected one
    (:func:`verifiers.profiles.name`); ``max_examples`` overrides the budget, which is
    otherwise the profile's ``max_examples`` scaled by the property's cost.
    """
    spec = CATALOG[name]
    expect = spec.expect
    try:
        full = complete(name, params)
        expect = spec.expectation(full)  # a word may state the opposite ("变化" for "不变")
        base = profiles.settings_for(profile)
        law = LAWS[name](full)
    except Exception as exc:  # a bad parameter combination or profile: the claim's error
        return Outcome(name, expect, False, 0, f"{type(exc).__name__}: {exc}", error=True)
    budget = max_examples or max(1, round(base.max_examples * spec.cost))
    impls = law.impls if impl is None else (
        impl if isinstance(impl, Mapping) else {"injected": impl})
    passed = 0

    def body(case: Any) -> None:
        nonlocal passed
        for label, fn in impls.items():
            try:
                law.check(case, fn)
            except Counterexample as found:
                raise Counterexample(f"{label}: {found}") from None
        passed += 1

    test: Callable[[], None] = given(law.strategy)(body)
    for case in reversed(law.examples):
        test = example(case)(test)
    test = settings(
        base, max_examples=budget, database=None, deadline=None, verbosity=Verbosity.quiet,
        report_multiple_bugs=False, print_blob=False,
        phases=tuple(p for p in base.phases if p != Phase.explain),
    )(test)
    torch.set_num_threads(1)  # tiny tensors: threads only add contention (and jitter)
    try:
        test()
    except Counterexample as found:
        return Outcome(name, expect, True, passed, " ".join(str(found).split()))
    except errors.Flaky as exc:
        return Outcome(name, expect, False, passed,
                       f"the check fails only sometimes on the same example ({_first_line(exc)})",
                       error=True)
    except (errors.Unsatisfiable, errors.FailedHealthCheck) as exc:
        return Outcome(name, expect, False, passed,
                       f"Hypothesis could not search: {_first_line(exc)}", error=True)
    except Exception as exc:  # the property itself is broken: say so, never a traceback
        where = _falsifying(exc)
        return Outcome(name, expect, False, passed,
                       f"the check raised {type(exc).__name__}: {_first_line(exc)}{where}",
                       error=True)
    return Outcome(name, expect, False, passed)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _falsifying(exc: BaseException) -> str:
    """Hypothesis's note naming the example, shortened, if it left one."""
    for note in getattr(exc, "__notes__", ()):
        if note.startswith("Falsifying example"):
            flat = " ".join(note.split())
            return f" (on {flat[:300]})"
    return ""


_CACHE: dict[tuple[Any, ...], Outcome] = {}


def clear_cache() -> None:
    """Forget earlier searches (a test running the same property twice wants two searches)."""
    _CACHE.clear()


def outcome_for(name: str, params: Mapping[str, Any], profile: str) -> Outcome:
    """One search per law (:func:`law_key`), profile and process: the claims stating it
    share it. The run keeps the claims of one property in one worker (``verifiers.run``),
    so under ``-j`` too each law is searched once, whatever the split."""
    key = (*law_key(name, params), profile)
    if key not in _CACHE:
        _CACHE[key] = search(name, params, profile=profile)
    return _CACHE[key]


def check_property(claim: Claim, match: Match, note: Note) -> ValueVerdict:
    """The claim's one value: the law its sentence states (its words), searched.

    A word outside its slot's vocabulary is ``unparsed`` at the word; a law that fails
    because of a word the note changed is reported at that word.
    """
    name, spec = claim.property_name, CATALOG[claim.property_name]
    quoted = " ".join(note.text[match.start:match.end].split())
    value = ValueVerdict(
        name=name, printed=quoted, expected="", status=ERROR,
        start=note.position(match.start), end=note.position(match.end), suggestion=None,
    )
    read = read_words(claim, spec, match.words, match.phrased)
    unknown = next((w for w in read if w.meaning is None), None)
    if unknown is not None:
        value.status, value.printed = UNPARSED, unknown.text
        value.start, value.end = note.position(unknown.start), note.position(unknown.end)
        value.expected = f"a word of {unknown.vocab!r}"
        value.message = (f"{name}: the word {unknown.text!r} (slot ⟦{unknown.slot}⟧) is not in "
                         f"the vocabulary of {unknown.vocab!r} ({known_words(unknown.vocab)})")
        return value
    read, unread = fixedwords.apply(spec, read, match)  # fixed law words the note changed
    unjudged = None
    if unread:
        change, quoted, printed = unread[0]
        why = (f"a word of no class of {quoted!r}" if change is None else
               f"law {name!r} has no slot for it ({', '.join(change.classes)})")
        unjudged = fixedwords.unparsed(name, quoted, printed, note, why)
        if not any(w.flipped for w in read):
            return unjudged  # a law the words state, searched only beside a flipped slot
    stated = {w.slot: w.meaning for w in read}
    params = {**claim.params, **stated}
    try:
        outcome = outcome_for(name, params, profiles.name())
    except profiles.ProfileError as err:
        value.message = f"{name}: error: {err}"
        return value
    if unjudged is not None and outcome.status != DISCREPANCY:
        return unjudged  # the flipped words state a true law: what else changed is unread
    value.law = law_label(law_key(name, params))
    value.status, value.expected, value.message = outcome.status, outcome.expected, outcome.text
    flipped = [w for w in read if w.flipped]
    if flipped:
        said = ", ".join(f"{w.slot} = {w.meaning} ({w.text!r})" for w in flipped)
        value.message = f"{value.message} [the sentence states {said}]"
        if outcome.status == DISCREPANCY:  # the words the note changed are where it went wrong
            value.start = note.position(flipped[0].start)
            value.end = note.position(flipped[-1].end)
    return value
