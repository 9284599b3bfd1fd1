"""Formulas are read, never quoted as text (issue 12 item 2).

A claim's quote is matched against the note character by character, so formula text in the
literal part of a quote (outside a hole) is never checked: an edit of it makes the claim
``stale`` (or goes unseen when no claim reads that formula) instead of failing a step. This
test reads every claim under ``claims/`` and fails when the literal parts of a quote hold
formula text; the formula belongs in a formula hole ``⟪F⟫`` that a symbolic claim reads, or
that an arithmetic, model or property claim reads with ``computes:`` (formulas/inline.py).

The detector (``formula_text``), applied to each literal part of a quote (the text between
holes; a hole is never inspected), reports a **formula** when one of these occurs:

* ``latex-operator``: ``\\frac \\dfrac \\tfrac \\sqrt \\sum \\prod \\partial \\nabla \\int \\lim
  \\cdot \\odot \\otimes \\exp \\ln \\log \\sin \\cos \\tanh`` or one of ``√ ∂ Σ ∑ ∏ ∇ ⊙``,
  with a symbol (a Latin or Greek letter that is not part of a LaTeX command name) in the
  next 24 characters before any CJK text: ``\\sqrt{d_{k}}``, ``√d_k``, ``Σ_j`` are formulas;
  ``\\sqrt{64}``, ``\\ln 2``, ``\\frac{1}{3}`` are arithmetic on printed numbers (a value hole);
* ``function``: ``softmax( exp( ln( log( sin( cos( tanh( Var( E( LN(`` whose argument holds a
  symbol (``exp(score[i,j] / √d_k)``, ``Var (X + Y)``; not ``exp(2.0)``);
* ``transpose``: ``^T``, ``^{T}``, ``^\\top``, ``^{\\top}``, ``ᵀ``;
* ``power``: a superscript whose exponent holds a symbol (``e^{s_{j}}``, ``10000^(2i/d)``;
  not ``10^{-11}``, ``e^{2.0}``);
* ``relation``: a name (a letter, optionally subscripted: ``s``, ``d_k``, ``s_{i j}``) or a
  closing bracket, then ``=``, ``≈`` or ``\\approx``, then an expression that opens with a
  symbol (``Q = X W_Q``, ``j=k``; not ``q00 = 1.255``, not ``x = ⟨x⟩``);
* ``operator``: two operands at least one of which is a name, joined by ``+``, ``−``, ``*``,
  ``·``, ``×``, ``⊙`` (``-`` only with spaces on both sides, so ``top-k`` is a word), or
  ``/`` followed by ``(``, ``√`` or ``\\``: ``x_r - μ``, ``Q · K``, ``1 - a_{j}``.

A subscripted name alone (``$a_{j}$``, ``W_{Q}``) is a name, not a formula; numbers joined by
operators (``0.50×0.10 + 1.20×0.40``) are the arithmetic of a value claim.

Every claim kind is covered. ``BASELINE`` (non-property claims) and ``PROPERTY_BASELINE``
(property claims, whose law-carrying words are word holes but whose formulas are not read
yet) list the claims not converted yet, each still required to violate (so the lists only
shrink: a converted claim left in one fails the test). Anything new must read its formulas.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.note_edits import run_edited
from verifiers.schema import load_claim_file

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"

_HOLE = re.compile(r"⟨[^⟩]*⟩|⟪[^⟫]*⟫")
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_LETTER = re.compile(r"[A-Za-zα-ωΑ-Ω]")
_OPS = (r"\\(?:[dt]?frac|sqrt|sum|prod|partial|nabla|int|lim|cdot|odot|otimes|exp|ln|log|sin"
        r"|cos|tanh)(?![A-Za-z])|[√∂Σ∑∏∇⊙]")
_NAME = r"(?:[A-Za-zα-ωΑ-Ω](?:_\{[^{}]*\}|_[A-Za-z0-9]+)?)"
_SYM = r"(?:[A-Za-zα-ωΑ-Ω\\√∂Σ]|\((?=\s*[A-Za-zα-ωΑ-Ω\\]))"
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("latex-operator", re.compile(_OPS)),
    ("function", re.compile(r"(?<![A-Za-z_])(?:softmax|exp|ln|log|sin|cos|tanh|Var|E|LN)"
                            r"\s?\(([^()]*)\)")),
    ("transpose", re.compile(r"\^\s?\{?\s?(?:T|\\top)(?![A-Za-z])|ᵀ")),
    ("power", re.compile(r"\^\s?(?:\{[^{}]*[A-Za-zα-ωΑ-Ω][^{}]*\}|\([^()]*[A-Za-z][^()]*\)"
                         r"|[A-Za-zα-ω])")),
    ("relation", re.compile(rf"(?:{_NAME}|[)\]}}])\s*(?:=|≈|\\approx)\s*[-−]?\s*{_SYM}")),
    ("operator", re.compile(rf"(?:{_NAME}|[)\]}}]|\d)(?:\s*[+−*·×⊙]\s*|\s+-\s+)(?:{_NAME}|[(\\√])"
                            rf"|{_NAME}\s*/\s*[(√\\]")),
)


def _operands_symbolic(rule: str, m: re.Match[str], part: str) -> bool:
    """The extra condition of a rule: a symbol where the rule needs one."""
    if rule == "latex-operator":
        window = _CJK.split(part[m.end():m.end() + 24], 1)[0]
        return bool(_LETTER.search(_COMMAND.sub(" ", window)))
    if rule == "function":
        return bool(_LETTER.search(_COMMAND.sub(" ", m.group(1))))
    if rule == "operator":  # not two plain numbers: at least one operand is a name
        return bool(_LETTER.search(_COMMAND.sub(" ", m.group(0))))
    return True


def formula_text(quote: str) -> list[tuple[str, str]]:
    """(rule, matched text) for every formula the literal parts of ``quote`` hold."""
    found: list[tuple[str, str]] = []
    for part in _HOLE.split(quote):
        for rule, pattern in RULES:
            for m in pattern.finditer(part):
                if _operands_symbolic(rule, m, part):
                    found.append((rule, m.group(0)))
    return found


# ---------------------------------------------------------------- the detector, both ways

FORMULAS = [
    r"s_{i j} = \frac{q_{i} \cdot k_{j}}{\sqrt{d_{k}}}",
    "exp(score[i,j] / √d_k) / Σ_j exp(score[i,j] / √d_k)",
    "PE(pos, 2i) = sin(pos / 10000^(2i/d_model))",
    r"\frac{\partial c}{\partial s_{1}} = - a c",
    r"γ_{r} \frac{x_{r} - μ}{\sqrt{v + ε}} + β_{r}",
    "Q · K^T",
    "softmax(QK^T/√d_k)",
    r"$Var (X + Y)$",
    r"e^{s_{j} - s_{k}}",
    "Q = X W_Q",
    "⟪F⟫ = a_{j} (1 - a_{j}) .",
    r"的 $\sum_{j} p_{j}$ 都",
    "a_{i j} ⊙ v_j",
]
NOT_FORMULAS = [
    "Q[0, 0] = 0.50×0.10 + 1.20×0.40 = ⟨q00⟩",
    r"对比例 $a_{j}$ 和分数 $s_{k}$ 求导",
    r"误差 < 3 \times 10^{- 11}",
    r"\sqrt{64} = ⟨r⟩",
    r"\ln 2 \approx ⟨l⟩",
    "用 top-k 或 top-p 采样，Q/K/V 三个矩阵",
    "x = ⟨x⟩, d_k = ⟨dk⟩",
    "⟪F⟫ = ⟪G⟫",
    r"$\frac{1}{3}$ 与 exp(2.0)",
    "W_{Q} 的形状是 ⟨n⟩ × ⟨m⟩",
    "⟪G⟫ 中 $s_{1}$ 与 ⟪H⟫",
]


@pytest.mark.parametrize("text", FORMULAS)
def test_detector_finds_formula_text(text: str) -> None:
    assert formula_text(text), text


@pytest.mark.parametrize("text", NOT_FORMULAS)
def test_detector_leaves_names_numbers_and_holes(text: str) -> None:
    assert formula_text(text) == [], formula_text(text)


# ---------------------------------------------------------------- the claims

def _violations() -> dict[str, tuple[str, str, list[tuple[str, str]]]]:
    notes = {p.name for p in (ROOT / "notes").iterdir()}
    out: dict[str, tuple[str, str, list[tuple[str, str]]]] = {}
    for path in sorted(CLAIMS.rglob("*.yaml")):
        loaded = load_claim_file(path, str(path.relative_to(ROOT)), notes)
        for claim in loaded.claims:
            found = formula_text(claim.text)
            if found:
                out[claim.id] = (claim.kind, str(path.relative_to(ROOT)), found)
    return out


def _report(items: dict[str, tuple[str, str, list[tuple[str, str]]]]) -> str:
    return "\n".join(f"{cid} ({kind}, {file}): " + "; ".join(f"{r} {t!r}" for r, t in hits[:3])
                     for cid, (kind, file, hits) in sorted(items.items()))


#: Non-property claims that still quote formula text (not converted yet): each must still
#: violate, so the list only shrinks.
BASELINE: frozenset[str] = frozenset({
    # 8.6's a_{i j} = cases(…, j \in J_{i}; 0, j \notin J_{i}): the LaTeX reader reads no
    # set-membership condition, so the display is quoted around its printed 0 (the sentence
    # above it is read: J_i's first index and the 0 of 其他系数设0).
    "aat-cov-8-6-allowed-set",
    # 15.5's FFN lines between its LayerNorm holes: each rule is read and checked against
    # autograd and tinygpt by aat-15-5-ffn-rules-read (an edit there fails at that rule; this
    # claim is then stale as well); only the quote spans them.
    "aat-s-15-5-layernorm-backward",
    # §5's formulas between its holes are read by the claims quoting each as a hole: the two
    # cases p_i(1-p_i), -p_ip_j are its own holes JD, JO (read as ∂p_i/∂z_j), diag(p)_{ij}
    # and (pp^T)_{ij} by l1-s-5-jacobian-entries, the quotient rule by its own claim; left
    # literal here: the
    # labels $e^{z_i}$, $i=j$ of the prose, which no formula of the claim contains.
    "l1-c-5-jacobian-from-definition",
})


# Property claims that still quote formula text beside their word holes (issue 12 item 2):
# like BASELINE, it can only shrink.
PROPERTY_BASELINE: frozenset[str] = frozenset()


def test_claims_read_formulas_not_quote_them() -> None:
    bad = {k: v for k, v in _violations().items() if v[0] != "property" and k not in BASELINE}
    assert not bad, ("claims quote formula text outside a hole (use a formula hole ⟪F⟫ read "
                     "by a symbolic claim, or by computes:):\n" + _report(bad))


def test_baseline_only_shrinks() -> None:
    found = _violations()
    converted = sorted(c for c in BASELINE | PROPERTY_BASELINE if c not in found)
    assert not converted, f"remove from BASELINE, they no longer quote formulas: {converted}"


def test_property_claims_read_formulas_not_quote_them() -> None:
    bad = {k: v for k, v in _violations().items()
           if v[0] == "property" and k not in PROPERTY_BASELINE}
    assert not bad, "property claims quote formula text outside a hole:\n" + _report(bad)


# ---------------------------------------------------------------- edits of read formulas

AAT = "architecture-and-training.txt"
L1 = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"

# Edits of formulas that no claim read before (4.9, 13.8) and of a restated one (LayerNorm,
# restated because the reader cannot read LN (x)_{r}): each is a discrepancy at its line.
EDITS = [
    ("aat-s-15-5-layernorm-backward",
     r"\frac{x_{r} - μ}{\sqrt{v + ε}} + β_{r} .", r"\frac{x_{r} - μ}{v + ε} + β_{r} .", 2888, AAT),
    ("aat-s-4-9-softmax-derivative",
     "= a_{j} (δ_{j k} - a_{k}) .", "= a_{j} (δ_{j k} + a_{k}) .", 750, AAT),
    ("aat-s-13-8-two-softmax-derivative",
     r"\frac{\partial c}{\partial s_{1}} = - a c",
     r"\frac{\partial c}{\partial s_{1}} = a c", 2675, AAT),
    # formulas that arithmetic claims quoted as text, now read by formula holes (BASELINE shrink)
    ("aat-b77-4-1-sqrt-dk", r"\sqrt{d_{k}} = \sqrt{64} = 8", r"d_{k} = \sqrt{64} = 8", 414, AAT),
    ("aat-s-m-4-5-var-sum", "= E [X^{2} + 2 X Y + Y^{2}]", "= E [X^{2} + 2 X Y + 2 Y^{2}]", 630,
     AAT),
    # branch formulas: one edit per converted group, each read by the claim named
    ("aat-f73-3-1-dots", r"1 \times 0 + 0 \times 1 = 0", r"1 \times 0 + 0 \times 1 = 1", 225, AAT),
    ("aat-fr-9-3-softmax", r"{e^{2} + e^{1} + e^{0}}", r"{e^{2} + e^{1}}", 1657, AAT),
    ("aat-f73-13-4-z2", r"\frac{1}{e + 1}) \approx", r"\frac{1}{e - 1}) \approx", 2599, AAT),
    ("aat-fr-13-4-residual", "h = x_{2} + z_{2} W_{O}", "h = x_{2} - z_{2} W_{O}", 2611, AAT),
    ("aat-s-15-7-jacobian", "J_{y} = I + J_{F} .", "J_{y} = J_{F} .", 2926, AAT),
    ("aat-fr-13-6-logit-gradient", "p_{j} - 1_{j = C}", "1_{j = C} - p_{j}", 2645, AAT),
    ("aat-fr-15-2-derivative", "第二项给 $e^{ℓ_{j}} /", "第二项给 $e^{ℓ_{y}} /", 2816, AAT),
    ("aat-fr-13-7-z2-mix", "而z2是 $a v_{1} + c v_{2}$", "而z2是 $a v_{1} - c v_{2}$", 2665, AAT),
    ("aat-s-3-5-shift", "同一个因子 $e^{c}$", "同一个因子 $e^{-c}$", 362, AAT),
    ("aat-cov-4-4-square", "$Z - E [Z]$ ：", "$Z + E [Z]$ ：", 547, AAT),
    ("aat-cov-4-4-not-square", "写成 $E [(X + Y)^{2}]$", "写成 $E [(X + Y)^{3}]$", 597, AAT),
    ("l1-s-5-shift-steps", "共有的因子 $e^c$", "共有的因子 $e^{-c}$", 154, L1),
    ("l1-c-5-temperature-zero-limits", "$(z_k-z_i)/T\\to+\\infty$",
     "$(z_i-z_k)/T\\to+\\infty$", 171, L1),
    ("l1-c-5-temperature-infinity-limits", "所以 $p_i\\to1/V$", "所以 $p_i\\to1/V^2$", 172, L1),
    ("l1-s-2-onehot-lookup", "所以 $e_i^\\top E=E_{i,:}$", "所以 $e_i^\\top E=E_{:,i}$", 95, L1),
    ("mbm-s-1-4-pe", "PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))",
     "PE(pos, 2i+1) = cos(pos / 10000^((2i+1)/d_model))", 53, MBM),
    # plain-text formulas read by the plain-math front end (verifiers/formulas/plain.py) and
    # evaluated against tinygpt: the formula card, 6.7's summary, 6.4's heads (BASELINE shrink)
    ("mbm-fc-card-multihead", "X · W_kᵢ, X · W_vᵢ)", "X · W_qᵢ, X · W_vᵢ)", 768, MBM),
    ("mbm-fc-card-temperature", "P = softmax(logits / T)", "P = softmax(logits × T)", 775, MBM),
    ("mbm-fc-card-qkv", "│ K = X · W_k │", "│ K = X · W_q │", 760, MBM),
    ("mbm-fc-card-attention", "Attention(Q, K, V) = softmax(Q · K^T / √d_k) · V",
     "Attention(Q, K, V) = softmax(Q · K^T / d_k) · V", 764, MBM),
    ("mbm-fc-card-input", "Embedding(Token) + Positional", "Embedding(Token) - Positional", 756,
     MBM),
    ("mbm-fc-6-7-multihead", "│ MultiHead = concat(head₁, ..., headₕ) · W_o │\n│ │\n└",
     "│ MultiHead = concat(head₁, ..., headₕ) │\n│ │\n└", 413, MBM),
    ("mbm-6-4-head1-formulas", "Q₁·K₁^T/√2", "Q₁·K₁^T/2", 349, MBM),
    ("mbm-6-4-head1-formulas", "K₁ = X · W_k1 → 3×2", "K₁ = X · W_k1 → 2×3", 347, MBM),
    ("mbm-6-4-head2-formulas", "V₂ = X · W_v2", "V₂ = X · W_k2", 353, MBM),
    ("mbm-fh-7-3-softmax-entries", "/ Σ exp(logits_j)以位置0", "/ Σ logits_j以位置0", 470, MBM),
    ("aat-f78-15-6-tied", "可以有意设置 $U = E^{T}$", "可以有意设置 $U = E$", 2918, AAT),
    # 11.2's conditions, uncovered before: judged against tinygpt.sgd_step's direction
    ("aat-f78-11-2-positive-slope", r"\frac{d L}{d w} > 0", r"\frac{d L}{d w} < 0", 2093, AAT),
    ("aat-f78-11-2-negative-slope", r"\frac{d L}{d w} < 0", r"\frac{d L}{d w} > 0", 2099, AAT),
]


def _verdicts(tmp_path: Path, real_verdict, cid: str, name: str, find: str,
              replace: str) -> tuple:
    """The claim's verdict on the notes as they are (the session's: tests/conftest.py),
    then with the one edit (tests/note_edits.py)."""
    edited, _ = run_edited(tmp_path, cid, name, find, replace)
    return real_verdict(cid), edited


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), EDITS,
                         ids=[e[0] for e in EDITS])
def test_an_edited_formula_fails_at_its_line(tmp_path: Path, real_verdict, cid: str, find: str,
                                             replace: str, line: int, name: str) -> None:
    clean, edited = _verdicts(tmp_path, real_verdict, cid, name, find, replace)
    # verified, or known where the note's own slips are pinned
    assert clean.status in ("verified", "known"), clean.message
    assert edited.status == "discrepancy", edited.message
    assert any(v.status == "discrepancy" and v.start[0] == line for v in edited.values)


# Edits that the reading claim cannot refute but never passes: an `error` ("undecided") at the
# formula. 4.1's sum over entries q_{i r} at symbolic i, j has no numeric sample to refute it.
UNDECIDED_EDITS = [
    ("aat-fr-4-1-dot-product", "q_{i r} k_{j r}", "q_{i r} k_{i r}", 408, AAT),
    ("aat-fr-4-1-dot-product", r"\sum_{r = 1}^{64} q_{i r}", r"\sum_{r = 1}^{32} q_{i r}", 408,
     AAT),
]


@pytest.mark.usefixtures("real_claims_parsed_once")
@pytest.mark.parametrize(("cid", "find", "replace", "line", "name"), UNDECIDED_EDITS)
def test_an_undecided_edit_is_an_error_at_its_line(tmp_path: Path, real_verdict, cid: str,
                                                   find: str, replace: str, line: int,
                                                   name: str) -> None:
    clean, edited = _verdicts(tmp_path, real_verdict, cid, name, find, replace)
    assert clean.status == "verified", clean.message
    assert edited.status == "error" and "undecided" in edited.message, edited.message
    assert any(v.status == "error" and v.start[0] == line for v in edited.values)
