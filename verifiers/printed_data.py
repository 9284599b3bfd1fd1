"""Statements about printed data: the word a sentence uses is judged against the printed values.

A note says things about the numbers it prints: the list is 从高到低, the gap 变大, 「猫」 is the
most likely token. Each printed number may be right while the sentence about them is wrong (a
list printed out of order, a quiz answer that says 变小). An arithmetic claim states such a
sentence with a word hole ``⟦w⟧`` and a ``states:`` entry that says what decides the word,
computed from the *printed* values (the claim's holes and ``uses:`` as the note prints them,
never the exact upstream values -- the statement is about what the reader sees):

* ``sign: EXPR`` -- a direction (变大/变小, 增加/减少, …) or a level (高/低 …): the word must
  mean ``increases``/``higher`` when EXPR > 0 and ``decreases``/``lower`` when EXPR < 0;
* ``order: EXPR`` -- a vector, and the word an order (从高到低, 从小到大, …): the printed entries
  must be in that order;
* ``largest: EXPR`` / ``smallest: EXPR`` with ``labels: [...]`` -- the word must be the label
  of the largest (smallest) entry;
* ``share: EXPR`` -- a fraction in [0, 1], and the word a share (几乎全部, 明显份额, 几乎没有):
  ``most`` is at least 95%, ``little`` below 5%, ``some`` in between (:data:`SHARES`);
* ``unit: EXPR`` -- the factor a printed size stands for, and the word a unit (GiB/GB,
  bits/bytes, K/M/B): the unit of its dimension nearest to EXPR (:mod:`verifiers.unit_words`).

The word is read from the note, so an edit of the word, or of a value, is judged again: a word
that does not say what the values say is a ``discrepancy`` at the word, a word of no class the
rule reads is ``unparsed``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verifiers import expr as ex
from verifiers.pins import apply_pin
from verifiers.unit_words import decide as decide_unit
from verifiers.words import meaning, normal

__all__ = ["RULES", "Statement", "judge", "parse"]

RULES = ("sign", "order", "largest", "smallest", "share", "unit")
SHARES = (("little", 0.05), ("some", 0.95), ("most", 1.0))  # a share below each bound
_SIGN = {"direction": ("increases", "decreases"), "level": ("higher", "lower")}
_WORDS = {"increases": "变大", "decreases": "变小", "higher": "高", "lower": "低",
          "descending": "从高到低", "ascending": "从低到高", "most": "几乎全部",
          "some": "明显份额", "little": "几乎没有"}


@dataclass(frozen=True)
class Statement:
    """What decides one word hole: a rule, its expression (and labels for largest/smallest)."""

    rule: str
    expr: ex.Expr
    line: int
    labels: tuple[str, ...] = ()


def parse(claim: Any, node: Any, problem: Callable[[int, int, str], None],
          expression: Callable[[Any], str]) -> dict[str, Statement]:
    """``states:`` of a claim (``node``: the YAML node or None); problems are reported, and
    every word hole must have an entry and every entry a word hole."""
    out: dict[str, Statement] = {}
    words = {h.name for h in claim.holes if h.word} - set(getattr(claim, "convention", {}))
    if node is None:
        if words and claim.kind not in ("property", "procedure"):
            problem(claim.line, claim.col, "word holes ⟦slot⟧ need kind: property or "
                    "procedure, or a "
                    "'states:' entry each (statements about printed data)")
        return out
    if claim.kind != "arithmetic" or not isinstance(node.value, dict):
        problem(node.line, node.col, "'states' is a mapping {word hole: {rule: expression}} "
                "of an arithmetic claim")
        return out
    for name, value in node.value.items():
        line, col = node.keys[name]
        entry = value.value if isinstance(value.value, dict) else None
        rules = [r for r in RULES if entry is not None and r in entry]
        extra = [k for k in (entry or {}) if k not in (*RULES, "labels")]
        if name not in words:
            problem(line, col, f"states: {name!r} is not a word hole ⟦{name}⟧ of the text")
            continue
        if len(rules) != 1 or extra:
            problem(line, col, f"states: {name}: one of {', '.join(RULES)} (and 'labels' "
                    "for largest/smallest)")
            continue
        rule = rules[0]
        labels: tuple[str, ...] = ()
        if rule in ("largest", "smallest"):
            raw = entry.get("labels")
            items = raw.value if raw is not None else None
            if not isinstance(items, list) or not items \
                    or not all(isinstance(i.value, str) and i.value for i in items):
                problem(line, col, f"states: {name}: {rule} needs 'labels', a list of words")
                continue
            labels = tuple(i.value for i in items)
        elif "labels" in entry:
            problem(line, col, f"states: {name}: 'labels' only goes with largest/smallest")
            continue
        source = entry[rule]
        try:
            tree = ex.parse(expression(source), claim.user_functions)
        except ex.ExprError as err:
            problem(source.line, source.col, f"states: {name}: {err.message}")
            continue
        out[name] = Statement(rule, tree, source.line, labels)
    for name in sorted(words - set(node.value)):
        problem(node.line, node.col, f"word hole ⟦{name}⟧ has no 'states:' entry")
    return out


def _floats(value: Any) -> list[float]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _floats(v)]
    if hasattr(value, "tolist"):
        return _floats(value.tolist())
    return [float(value)]


def _decide(st: Statement, value: Any, word: str) -> tuple[str | None, str, str]:
    """(the word's meaning or None, the meaning the values give or "", why)."""
    if st.rule == "sign":
        x = _floats(value)
        if len(x) != 1:
            return None, "", "sign: the expression is not one number"
        for cls, (up, down) in _SIGN.items():
            said = meaning(cls, word)
            if said is not None:
                if x[0] == 0:
                    return said, "", f"the printed values give {x[0]:g}: neither way"
                return said, up if x[0] > 0 else down, f"the printed values give {x[0]:.6g}"
        return None, "", "not a direction (变大/变小 …) or a level (高/低 …)"
    if st.rule == "unit":  # a unit word (GiB/GB, bits/bytes): verifiers/unit_words.py
        x = _floats(value)
        return decide_unit(x[0], word) if len(x) == 1 else (None, "", "unit: not one number")
    if st.rule == "share":
        x = _floats(value)
        said = meaning("share", word)
        if said is None:
            return None, "", "not a share (几乎全部/明显份额/几乎没有 …)"
        if len(x) != 1 or not 0 <= x[0] <= 1:
            return said, "", "share: the expression is not one fraction in [0, 1]"
        found = next(name for name, bound in SHARES if x[0] < bound or bound == 1.0)
        return said, found, f"the printed values give a share of {x[0]:.4g}"
    if st.rule == "order":
        x = _floats(value)
        said = meaning("order", word)
        if said is None:
            return None, "", "not an order (从高到低/从小到大 …)"
        down = next((k for k in range(len(x) - 1) if x[k] < x[k + 1]), None)
        up = next((k for k in range(len(x) - 1) if x[k] > x[k + 1]), None)
        if down is None and said == "descending" or up is None and said == "ascending":
            return said, said, "the printed entries are in that order"
        k = down if said == "descending" else up
        found = "descending" if down is None else "ascending" if up is None else ""
        return said, found, f"entries {k + 1} and {k + 2} are {x[k]:g}, {x[k + 1]:g}"
    x = _floats(value)
    if len(x) != len(st.labels):
        return None, "", f"{len(st.labels)} labels for {len(x)} entries"
    pick = max if st.rule == "largest" else min
    k = x.index(pick(x))
    tied = [st.labels[i] for i, v in enumerate(x) if v == x[k]]
    said = normal(word)
    expected = normal(st.labels[k]) if len(tied) == 1 else ""
    why = f"the {st.rule} entry is {x[k]:g} ({'/'.join(tied)})"
    return said, expected, why


def judge(claim: Any, match: Any, note: Any, printed: Mapping[str, Any],
          value_verdict: Callable[..., Any]) -> list[Any]:
    """One value per word hole: ``verified`` when the word says what the printed values say."""
    out = []
    for name, st in claim.states.items():
        word = match.words[name]
        try:
            value = ex.evaluate(st.expr, printed, "point", claim.user_functions)
        except Exception as err:  # noqa: BLE001 -- an unknown name, a failed upstream: located
            message = getattr(err, "message", None) or str(err)
            out.append(value_verdict(name, word, "", "error", f"states: {name}: {message}"))
            continue
        said, expected, why = _decide(st, value, word.text)
        if said is None:
            out.append(value_verdict(name, word, "", "unparsed",
                                     f"{name}: '{word.text}': {why}"))
            continue
        shown = _WORDS.get(expected, expected) if expected else "neither"
        if said == expected:
            status, message = "verified", f"{name}: '{word.text}' ({st.rule}): {why}"
        else:
            status, message = "discrepancy", (f"{name}: the note says '{word.text}' but {why}: "
                                              f"{st.rule} gives {shown}")
        pin = claim.known.get(name)
        if pin is not None:  # a known wrong statement, pinned to the word and the verdict
            status, message = apply_pin(pin, word.text, shown, status, message)
            message = message if message.startswith(f"{name}:") else f"{name}: {message}"
        out.append(value_verdict(name, word, word.text if status == "verified" else shown,
                                 status, message))
    return out
