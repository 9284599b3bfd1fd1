"""Domains of named quantities: a printed range or typical value checked against what the
quantity can be.

"TopP 常见值 0.0 ~ 1.0" edited to "0 ~ 100" broke no computation: the range claims compared
the recommended values with the printed range, and every TopP lies in [0, 100] too. What the
edit breaks is the domain: TopP is a probability mass. A claim names the quantity a hole
holds with ``domain: {hole: id}`` (ids in ``domains.yaml``, data with Chinese and English
names); after the run each such hole's printed value is compared with the domain, and a value
outside it is a ``discrepancy`` at the hole, which names the domain. A percentage (``90%``)
is read as the fraction it states, so "0% ~ 100%" for a probability passes.
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

__all__ = ["DOMAINS", "Domain", "DomainError", "domains", "outside", "reconcile"]

DOMAINS = Path(__file__).resolve().parent / "domains.yaml"


class DomainError(ValueError):
    """domains.yaml is malformed (a test keeps it well-formed)."""


@dataclass(frozen=True)
class Domain:
    """Where a quantity's values lie: [lo, hi], either end open or absent."""

    id: str
    names: tuple[str, ...]
    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = False
    hi_open: bool = False
    integer: bool = False

    def text(self) -> str:
        left = "(" if self.lo_open or self.lo == -math.inf else "["
        right = ")" if self.hi_open or self.hi == math.inf else "]"
        lo = "−∞" if self.lo == -math.inf else f"{self.lo:g}"
        hi = "∞" if self.hi == math.inf else f"{self.hi:g}"
        return f"{left}{lo}, {hi}{right}{', an integer' if self.integer else ''}"


_KEYS = {"names", "lo", "hi", "lo_open", "hi_open", "integer"}


@functools.cache
def domains(path: Path = DOMAINS) -> dict[str, Domain]:
    """The domains of ``domains.yaml`` by id."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    table = data.get("domains") if isinstance(data, dict) else None
    if not isinstance(table, dict) or not table:
        raise DomainError(f"{path}: a mapping 'domains' of id -> {{names, lo, hi}} is needed")
    out = {}
    for key, spec in table.items():
        if not isinstance(spec, dict) or set(spec) - _KEYS or not spec.get("names"):
            raise DomainError(f"{path}: {key}: keys are {sorted(_KEYS)}, names required")
        lo, hi = float(spec.get("lo", -math.inf)), float(spec.get("hi", math.inf))
        if not lo <= hi:
            raise DomainError(f"{path}: {key}: lo {lo} above hi {hi}")
        out[str(key)] = Domain(str(key), tuple(str(n) for n in spec["names"]), lo, hi,
                               bool(spec.get("lo_open")), bool(spec.get("hi_open")),
                               bool(spec.get("integer")))
    return out


_NUMBER = re.compile(r"^\s*([-+−]?\d+(?:\.\d+)?)\s*(%?)\s*$")


def value_of(printed: str) -> float | None:
    """The value a printed number states (``90%`` is 0.9); None when it is not one number."""
    m = _NUMBER.match(printed)
    if m is None:
        return None
    value = float(m.group(1).replace("−", "-"))
    return value / 100 if m.group(2) else value


def outside(domain: Domain, value: float) -> bool:
    """Whether ``value`` lies outside the domain."""
    below = value < domain.lo or (domain.lo_open and value == domain.lo)
    above = value > domain.hi or (domain.hi_open and value == domain.hi)
    return below or above or (domain.integer and value != math.floor(value))


def _base(name: str) -> str:
    return name.split("[", 1)[0]  # p[3]: an element of hole p


def reconcile(verdicts: list, claims: Iterable) -> list:
    """The verdicts with every hole that a claim's ``domain:`` names compared with its domain:
    a printed value outside it is a ``discrepancy`` at the hole."""
    from verifiers.verdicts import DISCREPANCY, GIVEN, VERIFIED, settle

    wanted = {c.id: c.domain for c in claims if getattr(c, "domain", None)}
    if not wanted:
        return verdicts
    table = domains()
    out = list(verdicts)
    for i, verdict in enumerate(verdicts):
        spec = wanted.get(verdict.id)
        if not spec or verdict.span is None:
            continue
        changed = copy.deepcopy(verdict)  # cached verdicts are shared objects
        inside = 0
        for hole in changed.values:
            domain = table.get(spec.get(_base(hole.name), ""))
            number = value_of(hole.printed) if domain is not None else None
            if domain is None or number is None:
                continue
            if not outside(domain, number):
                inside += 1
                if hole.status == GIVEN:  # an input of the claim: now checked, in its domain
                    hole.status, hole.expected = VERIFIED, hole.printed
                    hole.message = f"{hole.name}: in the domain of {domain.id}"
                continue
            if hole.status not in (GIVEN, VERIFIED):  # already failing: its own message stays
                continue
            hole.status = DISCREPANCY
            hole.expected = f"a value in {domain.text()}"
            hole.message = (f"{hole.name} = {hole.printed.strip()} lies outside the domain of "
                            f"{domain.names[0]} ({domain.id}: {domain.text()}, "
                            f"verifiers/notation/domains.yaml)")
        out[i] = settle(changed)
        if out[i].status == VERIFIED and out[i].kind == "given":  # not "nothing checked"
            out[i].message = f"{inside} printed value(s) in their quantity's domain"
    return out
