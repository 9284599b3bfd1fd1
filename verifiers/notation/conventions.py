"""Conventions a note declares, read as word holes by the claims that compute with them.

"$\\log$ 一律指自然对数 $\\ln$" edited to "以 10 为底的对数 $\\log_{10}$" went ``stale`` at
best: the claims that print ln V ≈ 10.825 or a loss −ln p compute with ``ln`` and never read
the declaration. A claim now reads the declaring word in a word hole and lists the printed
values computed with it::

    text: $\\log$ 一律指⟦base⟧ $⟦sym⟧$。
    convention:
      base: {kind: log-base, values: [l1-6-uniform-loss.lnV, ...]}
      sym: {kind: log-base, values: [l1-6-uniform-loss.lnV, ...]}

After the run each listed value (its claim's computed value, under the reference meaning of
``conventions.yaml``) is recomputed under the meaning the word states now: a logarithm in base
b is ``ln x / ln b``, a percentage 100 times the fraction. A printed value that no longer
agrees (within its last printed digit) is a ``discrepancy`` at the word, naming the value, its
place and both numbers; a word of no meaning is ``unparsed``.
"""

from __future__ import annotations

import copy
import functools
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

__all__ = ["CONVENTIONS", "Meaning", "conventions", "meaning_of", "reconcile"]

CONVENTIONS = Path(__file__).resolve().parent / "conventions.yaml"


class ConventionError(ValueError):
    """conventions.yaml is malformed (a test keeps it well-formed)."""


@dataclass(frozen=True)
class Meaning:
    """One meaning of a convention word and how a value changes under it."""

    name: str
    scale: float  # a value checked under the reference meaning, times this
    patterns: tuple[re.Pattern[str], ...]


def _scale(spec: dict) -> float:
    if "base" in spec:
        base = math.e if spec["base"] == "e" else float(spec["base"])
        return 1 / math.log(base)
    return float(spec.get("factor", 1))


@functools.cache
def conventions(path: Path = CONVENTIONS) -> dict[str, tuple[str, tuple[Meaning, ...]]]:
    """kind -> (reference meaning, meanings in the order they are tried)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    table = data.get("conventions") if isinstance(data, dict) else None
    if not isinstance(table, dict) or not table:
        raise ConventionError(f"{path}: a mapping 'conventions' is needed")
    out = {}
    for kind, spec in table.items():
        meanings = spec.get("meanings") if isinstance(spec, dict) else None
        if not isinstance(meanings, dict) or str(spec.get("reference")) not in map(str, meanings):
            raise ConventionError(f"{path}: {kind}: meanings and a reference among them")
        read = []
        for name, m in meanings.items():
            if not isinstance(m, dict) or not m.get("patterns") \
                    or not {"base", "factor"} & set(m):
                raise ConventionError(f"{path}: {kind}.{name}: base or factor, and patterns")
            read.append(Meaning(str(name), _scale(m),
                                tuple(re.compile(p, re.IGNORECASE) for p in m["patterns"])))
        out[str(kind)] = (str(spec["reference"]), tuple(read))
    return out


def meaning_of(kind: str, word: str) -> Meaning | None:
    """The meaning the word states for a convention kind (None: no meaning matches)."""
    key = "".join(word.split()).strip("$")
    for meaning in conventions()[kind][1]:
        if any(p.search(key) for p in meaning.patterns):
            return meaning
    return None


def _decimals(text: str) -> int | None:
    m = re.fullmatch(r"\s*[-+−]?\d+(?:\.(\d+))?\s*%?\s*", text)
    return None if m is None else len(m.group(1) or "")


def _number(text: str) -> float | None:
    try:
        return float(text.strip().rstrip("%").replace("−", "-"))
    except ValueError:
        return None


def _value(verdicts: dict, ref: str) -> tuple[object, object] | None:
    """(verdict, value) of ``claim-id.hole`` (a hole ``g[1]`` names one element)."""
    claim_id, _, hole = ref.rpartition(".")
    verdict = verdicts.get(claim_id)
    if verdict is None:
        return None
    for value in verdict.values:
        if value.name == hole:
            return verdict, value
    return None


def _judge(kind: str, word: object, refs: list[str], verdicts: dict) -> tuple[str, str]:
    """(status, message) for one convention word."""
    meaning = meaning_of(kind, word.printed)
    if meaning is None:
        names = ", ".join(m.name for m in conventions()[kind][1])
        return "unparsed", f"{word.name}: '{word.printed}' states no {kind} ({names})"
    reference = next(m for m in conventions()[kind][1] if m.name == conventions()[kind][0])
    ratio = meaning.scale / reference.scale
    checked = 0
    for ref in refs:
        found = _value(verdicts, ref)
        if found is None:
            continue  # not selected in this run, or stale: its own verdict says so
        verdict, value = found
        printed, exact = _number(value.printed), _number(value.expected)
        digits = _decimals(value.printed)
        if printed is None or exact is None or digits is None:
            continue
        checked += 1
        now = exact * ratio
        if abs(printed - now) > 10.0 ** -digits * (1 + 1e-9):
            line, col = value.start
            return "discrepancy", (
                f"{word.name}: the note declares '{word.printed}' ({kind} {meaning.name}), but "
                f"{ref} printed {value.printed} at {line}:{col} was computed with "
                f"{reference.name}: with {meaning.name} it is {now:.6g}")
    if not checked:  # the values were not in this run (a narrowed selection): nothing judged
        return "given", f"{word.name}: '{word.printed}' read; no value computed with it ran"
    return "verified", (f"{word.name}: '{word.printed}' ({kind} {meaning.name}) agrees with "
                        f"{checked} printed value(s) computed with it")


def reconcile(verdicts: list, claims: Iterable) -> list:
    """The verdicts with every convention word judged against the values computed with it."""
    from verifiers.verdicts import settle

    wanted = {c.id: c.convention for c in claims if getattr(c, "convention", None)}
    if not wanted:
        return verdicts
    by_id = {v.id: v for v in verdicts}
    out = list(verdicts)
    for i, verdict in enumerate(verdicts):
        spec = wanted.get(verdict.id)
        if not spec or verdict.span is None:
            continue
        changed = copy.deepcopy(verdict)  # cached verdicts are shared objects
        for value in changed.values:
            if value.name in spec:
                kind, refs = spec[value.name]
                value.status, value.message = _judge(kind, value, refs, by_id)
                value.expected = value.printed if value.status != "discrepancy" else ""
        out[i] = settle(changed)
        if out[i].status == "verified":  # settle calls a given claim's verdict "nothing checked"
            out[i].message = "; ".join(v.message for v in changed.values if v.name in spec)
    return out
