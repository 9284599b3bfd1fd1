"""Strength of coverage: *how* a covered literal is checked, not only *that* it is.

A literal a claim reads is covered, but a green mark means different things: the note's
value may have been recomputed from other values, or only compared with another printing
of the same number, or only checked through a restatement in the claim's words, or not
checked at all because it is an input. Each covered literal gets the strongest class of
the claim spans over it (:data:`ORDER`):

* ``recomputed`` -- a checked hole whose ``check`` computes (anything other than a bare
  reference), a symbolic step read from the note as printed, a trace recomputed entry by
  entry; and a second printing of a derived value whose check is only a reference
  (``x: y``, ``x: L[2]``, through ``where:`` aliases and ``uses:``) to a value recomputed
  somewhere: the engine judges it on every route by recomputing what it names
  (:mod:`verifiers.arithmetic.recompute`), never by the other printing's digits;
* ``copy`` -- a reference that reads a derived value through a ``uses:`` entry taken
  ``as: printed``: it is only compared with that printing (an item of a list check, quoted
  as ``⟨L[0]⟩``, is classed by its own expression); a reference whose chain ends at a
  value that is neither recomputed nor an input is an *orphan*, reported
  (:attr:`Strengths.orphans`);
* ``restated`` -- a symbolic step checked through the claim's ``restate:``. A restatement
  covers the note's literals only when the note's text is a formula (no words): then the
  restatement is compared with it side by side (``symbolic.claims.restatement_differs``). Over
  words it is not the note's own formula and covers nothing;
* ``given`` -- an input hole, a ``kind: given`` hole that a checking claim uses, a
  ``define:`` of a symbolic claim, a program's literals, a value whose check reads its own
  printing (a range check: ``uses: {from: …, as: printed}`` of a claim quoting the same
  text), and a printing that only repeats an input (a copy of a given value:
  :mod:`verifiers.copies` compares such printings with each other, but nothing recomputes
  them).

This is static, like coverage: it reads the claims, never their verdicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verifiers import expr as ex
from verifiers.arithmetic.recompute import reference_names
from verifiers.schema import Claim

__all__ = ["COPY", "GIVEN", "ORDER", "RECOMPUTED", "RESTATED", "Strengths", "best"]

RECOMPUTED, COPY, RESTATED, GIVEN = "recomputed", "copy", "restated", "given"
ORDER = (RECOMPUTED, COPY, RESTATED, GIVEN)  # strongest first
_ORPHAN = "orphan"  # a reference chain that ends nowhere recomputed and at no input
_ORPHAN_COPY = "orphan copy"  # a copy whose original is never recomputed
_WORDS = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")  # CJK text: words, not a formula
_MATH = re.compile(r"\$([^$]+)\$")
_SPACE = re.compile(r"\s+")
MAX_DEPTH = 64

Hole = tuple[str, str]  # (claim id, hole name)


def best(classes: list[str]) -> str | None:
    """The strongest class of several spans over one literal."""
    return min(classes, key=ORDER.index) if classes else None


_FIRST = re.compile(r"\[\s*(\d+)\s*[,\]]")


def _item(claim: Claim, name: str, key: str | None) -> ex.Expr | None:
    """The item expression a printed key selects from a list check (``Qr[1]`` of
    ``Qr: "[q0, Xi[1] @ W]"``), or None when the check is not a list literal."""
    if key is None or claim.kind == "given" or name not in claim.check:
        return None
    node = claim.check[name][0]
    found = _FIRST.match(key, len(name))
    if not isinstance(node, ex.ListLit) or found is None:
        return None
    index = int(found.group(1))
    return node.items[index] if index < len(node.items) else None


@dataclass
class Strengths:
    """The class of every hole of every claim, memoised; ``orphans`` lists the copies whose
    original is never recomputed, ``copies_of_given`` the printings that only repeat an input."""

    claims: dict[str, Claim]
    _memo: dict[Hole, str] = field(default_factory=dict)
    orphans: list[Hole] = field(default_factory=list)
    copies_of_given: set[Hole] = field(default_factory=set)

    def hole(self, claim: Claim, name: str, key: str | None = None) -> str:
        """``recomputed``, ``copy`` or ``given``. With ``key`` (the printed hole as quoted,
        ``Qr[0]``), an item of a list check is classed by its own expression: in
        ``[q0, Xi[1] @ W]`` item 0 is a copy of ``q0`` though item 1 computes."""
        item = _item(claim, name, key)
        if item is not None:
            found = self._item(claim, name, item)
        else:
            found = self._hole(claim, name, 0)
        return COPY if found == _ORPHAN_COPY else found

    def _item(self, claim: Claim, name: str, node: ex.Expr) -> str:
        """The class of one item of a list check (as :meth:`_hole` for a whole check)."""
        source = self._names(claim, node, {name}, 0)
        if source is None:
            return GIVEN if self._rereads(claim, node) else RECOMPUTED
        if source == GIVEN:
            self.copies_of_given.add((claim.id, name))
            return GIVEN
        return _ORPHAN_COPY if source == _ORPHAN else source

    def _hole(self, claim: Claim, name: str, depth: int) -> str:
        key = (claim.id, name)
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH:
            return _ORPHAN
        self._memo[key] = _ORPHAN  # a cycle ends here
        if claim.kind == "given" or name not in claim.check:
            result = GIVEN
        else:
            source = self._names(claim, claim.check[name][0], {name}, depth)
            if source is None:
                result = GIVEN if self._rereads(claim, claim.check[name][0]) else RECOMPUTED
            elif source == GIVEN:
                result = GIVEN
                self.copies_of_given.add(key)
            elif source == _ORPHAN:
                result = _ORPHAN_COPY
                self.orphans.append(key)
            else:
                result = source  # recomputed on every route, or a copy of a printing
        self._memo[key] = result
        return result

    def _rereads(self, claim: Claim, node: ex.Expr) -> bool:
        """Does the check read its own printing (``uses: … as: printed`` of a claim that
        quotes the same text)? Then it checks the value (a range, say), never derives it."""
        for name in ex.free_names(node):
            use = claim.uses.get(name)
            up = self.claims.get(use.claim_id) if use is not None else None
            if up is not None and use.as_printed and up.text.split() == claim.text.split():
                return True
        return False

    def _names(self, claim: Claim, node: ex.Expr, seen: set[str], depth: int) -> str | None:
        """What a reference reads: None (it computes), ``given`` (only inputs),
        ``recomputed`` (values the engine recomputes on every route), ``copy`` (some
        derived value as printed) or ``orphan``."""
        names = reference_names(node)
        if names is None:
            return None
        found = [self._name(claim, n, seen, depth) for n in names]
        if any(f is None for f in found):
            return None
        if all(f == GIVEN for f in found):
            return GIVEN
        if _ORPHAN in found:
            return _ORPHAN
        return COPY if COPY in found else RECOMPUTED

    def _name(self, claim: Claim, name: str, seen: set[str], depth: int) -> str | None:
        if name in claim.where:
            if name in seen:
                return _ORPHAN
            return self._names(claim, claim.where[name][0], seen | {name}, depth + 1)
        if name in claim.uses:
            use = claim.uses[name]
            up = self.claims.get(use.claim_id)
            if up is None or up.problems or use.hole not in up.hole_names:
                return _ORPHAN
            source = _upstream(self._hole(up, use.hole, depth + 1))
            return COPY if use.as_printed and source == RECOMPUTED else source
        if name in claim.hole_names:
            if name in seen:
                return _ORPHAN  # checked against itself
            return _upstream(self._hole(claim, name, depth + 1))
        if name in claim.constants:
            return GIVEN
        return None  # an iterate state, a run's output, a loop name: computed here

    def formula(self, claim: Claim, name: str, start: int, note_text: str
                ) -> list[tuple[int, int, str]]:
        """A formula hole's spans and class. A restatement over words covers only the math
        units (``$…$``) of those words that it repeats (spaces aside): there it is the
        note's own formula; elsewhere it is the claim's own words, and covers nothing."""
        end = start + len(note_text)
        if name in claim.define.values():
            return [(start, end, GIVEN)]
        if name not in claim.restate:
            return [(start, end, RECOMPUTED)]
        if not _WORDS.search(note_text):
            return [(start, end, RESTATED)]
        ours = _plain(claim.restate[name].text)
        return [(start + m.start(), start + m.end(), RESTATED) for m in _MATH.finditer(note_text)
                if _plain(m.group(1)) in ours]


_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")


def _plain(latex: str) -> str:
    """LaTeX compared up to spacing and grouping: ``\\frac{1}{p_{i}}`` is ``1/p_i``."""
    latex = re.sub(r"_\{(\w)\}", r"_\1", re.sub(r"\s+", "", latex))  # p_{i} -> p_i
    return re.sub(r"[{}]", "", _FRAC.sub(r"\1/\2", latex))


def _upstream(strength: str) -> str:
    """The class an original passes on to a reference to it: a value recomputed (itself, or
    by recomputing what it repeats) is recomputed again; a copy of a printing stays one."""
    return {RECOMPUTED: RECOMPUTED, COPY: COPY, GIVEN: GIVEN}.get(strength, _ORPHAN)
