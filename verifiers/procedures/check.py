"""A procedure claim's check: the steps read from the note against tinygpt's recorded order.

Each step's word is read in the operation vocabulary (``vocabulary.yaml``); a word it does
not know is ``unparsed`` at the word. The read operations are aligned with the traced ones
(``trace.expected``); every difference is a ``discrepancy`` at the step it concerns, naming
what tinygpt does there and what the note says: a step replaced, moved, duplicated or added
(a read step with no counterpart) or dropped (a traced step with no counterpart, reported at
the read step that follows it).
"""

from __future__ import annotations

import difflib

from verifiers.holes import Match
from verifiers.notes import Note
from verifiers.procedures import read
from verifiers.procedures.locate import Step, param_owners, read_params, read_steps
from verifiers.procedures.trace import expected
from verifiers.schema import Claim
from verifiers.verdicts import DISCREPANCY, UNPARSED, VERIFIED, ValueVerdict

__all__ = ["check_claim"]

_UNKNOWN = "?"


def _value(note: Note, step: Step, status: str, expected_text: str, message: str,
           name: str | None = None) -> ValueVerdict:
    return ValueVerdict(name=name or step.name, printed=step.text, expected=expected_text,
                        status=status, start=note.position(step.start),
                        end=note.position(step.end), message=message)


def _read(note: Note, steps: list[Step]) -> tuple[list[str], list[Step], list[ValueVerdict]]:
    """(operations, the step each came from, unparsed verdicts)."""
    ops: list[str] = []
    owners: list[Step] = []
    bad: list[ValueVerdict] = []
    for step in steps:
        text = step.text.strip()
        names = read.ops_of(text)
        if names is None:  # an added step: any word it holds; a last word: the known start
            hit = read.scan(text) if step.name.startswith("+") else read.prefix(text)
            if hit is not None:
                names = read.ops_of(hit[0])
                step = Step(step.name, hit[0], step.start + step.text.find(hit[0]),
                            step.start + step.text.find(hit[0]) + len(hit[0]))
        if names is None:
            bad.append(_value(note, step, UNPARSED, "", f"{step.name}: {text!r} is not an "
                              f"operation word of the procedure vocabulary "
                              f"(verifiers/procedures/vocabulary.yaml: {read.known_words()})"))
            names = (_UNKNOWN,)
        for op in names:
            ops.append(op)
            owners.append(step)
    return ops, owners, bad


def _broaden(traced: list[str], ops: list[str]) -> list[str]:
    """A traced ``sample`` reads as ``choose`` where the note uses the broader word."""
    said = set(ops)
    return [read.broader(op) if op not in said and read.broader(op) in said else op
            for op in traced]


def _describe(ops: list[str], k: int) -> str:
    return ops[k] if 0 <= k < len(ops) else ("the start" if k < 0 else "the end")


def check_claim(claim: Claim, match: Match, note: Note) -> list[ValueVerdict]:
    """One verdict per step: verified, or what differs from tinygpt's order there."""
    from verifiers.procedures.spec import parse_trace

    spec, problems = parse_trace(claim.trace)
    if spec is None or problems:  # the schema refuses these first; kept for direct callers
        raise ValueError("; ".join(problems))
    steps = read_steps(match)
    ops, owners, out = _read(note, steps)
    traced = _broaden(expected(spec), ops)
    where = f"tinygpt's {spec.run} ({' → '.join(traced)})"
    matcher = difflib.SequenceMatcher(a=traced, b=ops, autojunk=False)
    flagged: set[int] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        for j in range(j1, j2):  # read steps without a counterpart, or in its place
            if ops[j] == _UNKNOWN:
                continue
            step, k = owners[j], i1 + (j - j1)
            if tag == "replace" and k < i2:
                there = traced[k]
                why = "moved: tinygpt does it elsewhere" if ops[j] in traced else "replaced"
                msg = f"{step.name}: read {ops[j]} ({step.text.strip()!r}), {where} does " \
                      f"{there} here — {why}"
            else:
                there = "nothing"
                twice = ops.count(ops[j]) > traced.count(ops[j])
                why = "duplicated" if twice else "out of order: tinygpt does it elsewhere" \
                    if ops[j] in traced else "not a step of it"
                msg = f"{step.name}: read {ops[j]} ({step.text.strip()!r}), {where} has no " \
                      f"such step here — {why}"
            out.append(_value(note, step, DISCREPANCY, there, msg))
            flagged.add(j)
        missing = traced[i1 + (j2 - j1):i2] if tag == "replace" else \
            traced[i1:i2] if tag == "delete" else []
        if missing:
            at = min(j2, len(ops) - 1) if ops else None
            if at is None:
                continue
            step = owners[at]
            before = _describe(traced, i1 - 1)
            gone = "out of order" if all(op in ops for op in missing) else "dropped"
            msg = (f"missing step{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                   f"(after {before}): {where}; the note goes on with "
                   f"{step.text.strip()!r} — {gone}")
            out.append(_value(note, step, DISCREPANCY, " → ".join(missing), msg,
                              name=f"{step.name}.missing"))
    params = _params(claim, match, note, ops, owners)
    if not out:
        for step in steps:
            said = " ".join(op for op, owner in zip(ops, owners, strict=True) if owner == step)
            out.append(_value(note, step, VERIFIED, said,
                              f"{step.name}: {step.text.strip()} = {said}, as tinygpt does"))
        out[0].message = f"{len(steps)} steps in the order of {where}"
    out += params
    out.sort(key=lambda v: (v.start, v.name))
    return out


def _params(claim: Claim, match: Match, note: Note, ops: list[str],
            owners: list[Step]) -> list[ValueVerdict]:
    """One verdict per parameter word: the value it states (``parameters.yaml``) against
    the value tinygpt's code shows for its step's operation (``probe.py``)."""
    from verifiers.procedures import params, probe

    step_of = param_owners(claim.text)
    out = []
    for word in read_params(match):
        cls = params.class_of(word.name) or ""
        text = word.text.strip()
        value = params.value_of(cls, text)
        if value is None:
            out.append(_value(note, word, UNPARSED, "", (
                f"{word.name}: {text!r} is not a word of the parameter class {cls!r} "
                f"(verifiers/procedures/parameters.yaml: {', '.join(params.words_of(cls)[-6:])}"
                f", …)")))
            continue
        said = [op for op, owner in zip(ops, owners, strict=True)
                if owner.name == step_of.get(word.name) and op != _UNKNOWN]
        seen = next(((op, probe.observe(op, cls)) for op in said
                     if probe.observe(op, cls) is not None), None)
        if seen is None:
            out.append(_value(note, word, UNPARSED, "", (
                f"{word.name}: {text!r} ({cls} {value}) sets a step that reads "
                f"{' '.join(said) or 'no known operation'}; no tinygpt probe says what that "
                f"step's {cls} is (verifiers/procedures/probe.py)")))
            continue
        op, (truth, how) = seen
        if truth == value:
            out.append(_value(note, word, VERIFIED, truth,
                              f"{word.name}: {text} = {cls} {value}, as tinygpt does ({how})"))
        else:
            out.append(_value(note, word, DISCREPANCY, truth, (
                f"{word.name}: read {cls} {value} ({text!r}) for the step {op}, but tinygpt's "
                f"{op} is {truth}: {how}")))
    return out
