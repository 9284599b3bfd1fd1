"""Formulas written compactly are read too, never quoted as text (issue 12 item 2).

``tests/test_claims_read_formulas.py`` finds formula text in the literal parts of quotes by
LaTeX operators, functions, powers, ``=`` and spaced operators. Lesson 1 writes its math
compactly, ``$p_y-1\\le0$``, ``$p_y\\to1$``, ``$j\\ne k$``, which that detector lets through:
an edit there made the claim ``stale`` while a sign-only reader passed it. This test adds two
rules, applied only inside a ``$…$`` span that holds no hole and no CJK (dollars paired over
the whole quote, a hole one character):

* ``compact-relation``: an operand (a name, optionally subscripted or ``\\mathbf``, a closing
  bracket or a digit), then ``\\le \\ge \\lt \\gt \\ne \\leq \\geq \\neq \\to \\ll \\gg`` or
  ``≤ ≥ ≠ →``, then an operand;
* ``compact-operator``: a name or closing bracket, ``-``/``+``/``−`` with no space, then a
  name, bracket or command (``p-\\mathbf y``, ``z_j-z_i``), or a digit then an operator then a
  name (``1-p_y``).

``BASELINE`` lists the claims that still quote such text, each with why; it only shrinks.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_claims_read_formulas import _HOLE, formula_text
from verifiers.schema import load_claim_file

ROOT = Path(__file__).resolve().parent.parent
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_NAME = r"(?:\\mathbf\s?[A-Za-z]|[A-Za-zα-ωΑ-Ω](?:_\{[^{}]*\}|_[A-Za-z0-9]+)?)"
RULES = (
    ("compact-relation",
     re.compile(rf"(?:{_NAME}|[)\]}}]|\d)\s*(?:\\(?:le|ge|lt|gt|ne|leq|geq|neq|to|ll|gg)"
                rf"(?![A-Za-z])|[≤≥≠→])\s*[-−+]?\s*(?:{_NAME}|\d|\\infty|[(\\])")),
    ("compact-operator",
     re.compile(rf"(?:{_NAME}|[)\]}}])[-+−](?:{_NAME}|[(\\])|\d[-+−]{_NAME}")),
)


def compact_formulas(quote: str) -> list[tuple[str, str]]:
    """(rule, text) for every compact formula inside ``$…$`` of the literal parts."""
    found = []
    # dollars are paired over the whole quote, each hole one placeholder character, so a
    # math span right after a hole's ``$`` is not paired across the words between
    for span in re.findall(r"\$([^$]+)\$", _HOLE.sub("\0", quote)):
        if _CJK.search(span) or "\0" in span:
            continue
        for rule, pattern in RULES:
            found.extend((rule, m.group()) for m in pattern.finditer(span))
    return found


@pytest.mark.parametrize("text", [r"是 $p_y-1\le0$，所以", r"$p_y\to1$ 时", r"对 $j\ne k$ 都",
                                  r"往 $-(p-\mathbf y)$ 方向", r"被推高 $1-p_y$", r"$T\gt0$"])
def test_compact_formula_is_found(text: str) -> None:
    assert compact_formulas(text), text


@pytest.mark.parametrize("text", [r"$⟪F⟫$ 时 $⟪G⟫$", r"$p_j$ 与 one-hot 的 $e_i$",
                                  r"$z_y$：梯度", r"Self-Attention 与 $x_{t-1}$ 前",
                                  r"$0.1^{400}=10^{-400}$"])
def test_names_words_and_holes_are_not(text: str) -> None:
    assert compact_formulas(text) == [], compact_formulas(text)


#: claims that still quote compact formula text, each with its reason (only shrinks)
BASELINE: dict[str, str] = {
    "aat-s-p-12-6-first-order": "g \\neq 0 is the hypothesis under which the step is read",
    "aat-p-12-6-small-step": "the same hypothesis, beside the law's words",
    "l1-p-5-jacobian-signs": "i\\ne j labels the case; its formulas are read_by holes",
    "l1-s-2-onehot-orthogonal": "d\\ll V compares the sizes in prose (d = 3, V = 50257 "
                                "elsewhere); the claim reads the dot products",
    "l1-p-5-t-zero": "j\\ne k labels the case; the limits are read by "
                     "l1-c-5-temperature-zero-limits",
    "l1-p-5-t-infinity": "its limits are read by l1-c-5-temperature-infinity-limits",
    "l1-p-6-bounded": "p_y\\to0 names the regime; the bound is the law's (ce-gradient-bounded)",
    "l1-c-6-loss-at-zero": "p_y\\to1, L\\to0 are read by l1-f8-6-loss-at-one (one hypothesis "
                           "per name and claim)",
    "l1-c-6-push-correct-logit": "p_y-1\\le0 is read by l1-s-6-gradient-sign-correct, "
                                 "-(p-y) names the direction the frame of PU uses",
    "l1-c-5-temperature-one": "T\\gt0 is the condition of the temperature's definition",
    "l1-c-5-temperature-zero-limits": "j\\ne k labels the case of the limits it reads",
}


def _violations() -> dict[str, list[tuple[str, str]]]:
    notes = {p.name for p in (ROOT / "notes").iterdir()}
    out = {}
    for path in sorted((ROOT / "claims").rglob("*.yaml")):
        for claim in load_claim_file(path, str(path.relative_to(ROOT)), notes).claims:
            if formula_text(claim.text):
                continue  # the other test's (and its baselines')
            found = compact_formulas(claim.text)
            if found:
                out[claim.id] = found
    return out


def test_claims_read_compact_formulas_not_quote_them() -> None:
    found = _violations()
    bad = {cid: hits for cid, hits in found.items() if cid not in BASELINE}
    assert not bad, f"claims quote compact formula text outside a hole: {bad}"
    converted = sorted(set(BASELINE) - set(found))
    assert not converted, f"remove from BASELINE, they no longer quote formulas: {converted}"
