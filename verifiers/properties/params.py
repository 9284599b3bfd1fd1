"""What a law's parameters are: :class:`Param`, :class:`Spec`, slots and the vocabulary
classes their words mean, below :mod:`.catalog` and :mod:`.specs_statements`, which both
build specs from them (so neither imports the other back).

Light, like the catalog: no torch, no Hypothesis.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

HOLDS, FAILS = "holds", "fails"


class ParamError(ValueError):
    """A bad parameter value (the message names the parameter and what it accepts)."""


@dataclass(frozen=True)
class Param:
    """One declared parameter: its kind, default and accepted range or choices."""

    name: str
    kind: str  # "int" | "float" | "bool" | "choice" | "ints"
    default: Any
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    vocab: str = ""  # a slot: read from a word hole ⟦name⟧, a class of vocabulary.yaml

    def parse(self, value: Any) -> Any:
        """The value as this parameter's type, or ParamError saying what is accepted."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ParamError(f"{self.name}: expected true or false, got {value!r}")
            return value
        if self.kind == "choice":
            if value not in self.choices:
                hint = difflib.get_close_matches(str(value), self.choices, n=1)
                extra = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise ParamError(f"{self.name}: {value!r} is not one of "
                                 f"{', '.join(self.choices)}{extra}")
            return value
        if self.kind == "ints":
            if not isinstance(value, list) or not value:
                raise ParamError(f"{self.name}: expected a non-empty list of integers")
            return tuple(self._number(v, integer=True) for v in value)
        return self._number(value, integer=self.kind == "int")

    def _number(self, value: Any, integer: bool) -> Any:
        ok = isinstance(value, int) if integer else isinstance(value, (int, float))
        if isinstance(value, bool) or not ok:
            kind = "an integer" if integer else "a number"
            raise ParamError(f"{self.name}: expected {kind}, got {value!r}")
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise ParamError(f"{self.name}: {value!r} is outside [{_num(self.lo)}, "
                             f"{_num(self.hi)}]")
        return int(value) if integer else float(value)

    def describe(self) -> str:
        if self.kind == "choice":
            return f"{self.name} ({'|'.join(self.choices)}, default {self.default})"
        if self.kind == "bool":
            return f"{self.name} (true|false, default {str(self.default).lower()})"
        default = list(self.default) if isinstance(self.default, tuple) else self.default
        return f"{self.name} ({self.kind} in [{_num(self.lo)}, {_num(self.hi)}], default {default})"


def _num(x: float | None) -> str:
    return "…" if x is None else (f"{x:g}" if isinstance(x, float) else str(x))


@dataclass(frozen=True)
class Spec:
    """One property: what it says, whether the note says it holds or fails, its parameters."""

    name: str
    says: str
    expect: str = HOLDS
    params: tuple[Param, ...] = ()
    cost: float = 0.3
    check_params: Callable[[Mapping[str, Any]], str | None] | None = field(
        default=None, compare=False)
    negated_by: tuple[tuple[str, str], ...] = ()  # (slot, meaning) that states the opposite
    denied_by: tuple[tuple[str, str], ...] = ()  # (slot, meaning) that denies the law outright

    def param(self, key: str) -> Param | None:
        return next((p for p in self.params if p.name == key), None)

    @property
    def slots(self) -> tuple[Param, ...]:
        """The parameters a sentence states in words (word holes ⟦slot⟧)."""
        return tuple(p for p in self.params if p.vocab)

    def expectation(self, params: Mapping[str, Any]) -> str:
        """HOLDS or FAILS: each slot word that states the opposite ("变化" for "不变") flips it;
        a word that denies the law ("能" for "不能", "反比于" for "正比于") flips it once, however
        many of the sentence's words deny it (they are a conjunction, not a double negation)."""
        flips = sum(params.get(slot) == value for slot, value in self.negated_by)
        flips += any(params.get(slot) == value for slot, value in self.denied_by)
        if flips % 2 == 0:
            return self.expect
        return FAILS if self.expect == HOLDS else HOLDS

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}


def slot(name: str, vocab: str, default: str, choices: tuple[str, ...]) -> Param:
    """A law parameter the note states in a word (vocabulary class ``vocab``)."""
    return Param(name, "choice", default, choices=choices, vocab=vocab)


OPERATION = ("shift", "scale")
EFFECT = ("invariant", "changes")
DIRECTION = ("increases", "decreases")
LEVEL = ("lower", "higher")
SHAPE = ("sharp", "flat")
LIMIT = ("zero", "infinity")
OUTCOME = ("onehot", "uniform")
ALLOWED = ("le", "lt", "ge", "gt", "next", "all")
DIGIT = ("zero", "one")
PERPLEXITY = ("v", "ln_v", "inv_v", "one")
SYMMETRY = ("equivariant", "invariant", "aware")
MAGNITUDE = ("strong", "weak")
#: the building blocks a law may be about, and what it may say of them (laws7: a property moved
#: to another component is searched on that component; :mod:`.laws_components`)
COMPONENT = ("softmax", "layernorm", "rmsnorm", "relu", "gelu", "sigmoid", "tanh", "attention",
             "masked_attention", "residual", "ffn")
TRAIT = ("sums_to_one", "nonneg", "positive", "unit_interval", "shift_invariant",
         "scale_invariant", "mean_zero", "unit_variance", "monotone", "bounded", "equivariant",
         "causal", "per_position", "mixes")
#: The classes of the words of every other law-stating sentence (issue 12 item 1; the slots
#: that read them: :mod:`.specs_words`), the default meaning first.
SENTENCE_CLASSES: dict[str, tuple[str, ...]] = {
    "possible": ("can", "cannot"),
    "guarantee": ("ensures", "not"),
    "need": ("none", "needed"),
    "removal": ("removes", "keeps"),
    "presence": ("some", "none"),
    "size": ("small", "large"),
    "sign": ("positive", "nonneg", "zero", "negative"),
    "inside": ("inside", "outside"),
    "truth": ("is", "isnot"),
    "correct": ("right", "wrong"),
    "axis": ("row", "column"),
    "linearity": ("linear", "nonlinear"),
    "scope": ("same", "all"),
    "dependence": ("only", "also"),
    "combine": ("add", "subtract"),
    "extreme": ("max", "min"),
    "renormalise": ("again", "not"),
    "orientation": ("same", "perpendicular", "opposite"),
    "quantifier": ("every", "some"),
    "proportion": ("proportional", "inverse", "independent"),
    "bound": ("atmost", "atleast", "exactly"),
    "cancel": ("cancel", "accumulate"),
    "role": ("query", "key", "value"),
    "position": ("relative", "absolute"),
    "time": ("future", "past"),
    "independence": ("independent", "correlated"),
    "matrix": ("psd", "antisymmetric", "nsd"),
    "exclusive": ("only", "also"),
    "growth": ("sqrt", "linear", "constant"),
    "token": ("input", "target"),
    "reach": ("previous", "all"),
    "layout": ("same", "transpose"),
    "side": ("decoder", "encoder"),
}
#: the causes a 因为 / because clause gives (laws8, law component-cause)
REASON = ("common_factor", "mean_removed", "spread_divided", "sum_divided", "exp_positive",
          "own_row", "future_masked")
#: Every vocabulary class a slot may name, with the meanings a law must handle.
VOCAB_CLASSES = {"operation": OPERATION, "effect": EFFECT, "direction": DIRECTION,
                 "level": LEVEL, "shape": SHAPE, "limit": LIMIT, "outcome": OUTCOME,
                 "allowed": ALLOWED, "digit": DIGIT, "perplexity": PERPLEXITY,
                 "symmetry": SYMMETRY, "magnitude": MAGNITUDE,
                 "component": COMPONENT, "trait": TRAIT,
                 # read from a quote's fixed text only (laws7): no slot yet
                 "comparison": ("much_less", "less", "approx", "greater", "much_greater"),
                 "condition": ("sufficient", "necessary", "iff"),
                 "count": ("same", "different"),
                 "reason": REASON,  # laws8: the causes a 因为 clause gives
                 "source": ("from", "notfrom"),  # laws8: read from fixed text only, no slot
                 # read by statements about printed data (verifiers/printed_data.py), no law
                 "order": ("descending", "ascending"), "share": ("most", "some", "little"),
                 **SENTENCE_CLASSES}
