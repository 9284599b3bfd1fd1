"""Word holes ⟦slot⟧ (issue 12 item 1): a property claim reads its law from its sentence.

Each parametrised law is searched with its own words (it verifies) and with a flipped word
(the planted error: 加上 -> 乘以, j ≤ i -> j < i, 尖 <-> 平, …), which must fail. End to end, a
changed word is a discrepancy at the word and a word outside the vocabulary is unparsed there.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.test_laws_components import COMPONENT_FLIPS
from tests.test_laws_hedges import HEDGE_FLIPS, HEDGE_MUTANTS
from tests.test_laws_prose import PROSE_FLIPS, PROSE_MUTANTS
from tests.test_laws_read import READ_FLIPS, READ_SEARCHED
from tests.test_laws_reading import READING_FLIPS
from tests.test_laws_relations import RELATION_FLIPS
from tests.test_laws_statements import STATEMENT_FLIPS, STATEMENT_MUTANTS
from verifiers import words
from verifiers.cli import main
from verifiers.holes import find
from verifiers.properties.catalog import CATALOG
from verifiers.properties.params import VOCAB_CLASSES
from verifiers.properties.runner import clear_cache, search
from verifiers.verdicts import DISCREPANCY, VERIFIED


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    clear_cache()


# -- the vocabulary ------------------------------------------------------------------------

def test_vocabulary_classes_are_the_meanings_the_laws_handle() -> None:
    table = words.classes()
    assert set(table) == set(VOCAB_CLASSES)
    for cls, meanings in VOCAB_CLASSES.items():
        assert tuple(table[cls]) == meanings, cls
        seen: dict[str, str] = {}
        for meaning, ws in table[cls].items():
            for w in ws:
                assert seen.setdefault(words.normal(w), meaning) == meaning, (cls, w)
    for spec in CATALOG.values():
        for slot in spec.slots:
            assert slot.vocab in table and slot.default in slot.choices, (spec.name, slot)
            assert slot.choices == VOCAB_CLASSES[slot.vocab], (spec.name, slot.name)


def test_meaning_ignores_whitespace_and_knows_its_class() -> None:
    assert words.meaning("operation", "加上") == "shift"
    assert words.meaning("operation", "乘以") == "scale"
    assert words.meaning("allowed", "j ≤ i") == "le"
    assert words.meaning("allowed", "j<i") == "lt"
    assert words.meaning("limit", r"T\to0^+") == "zero"
    assert words.meaning("shape", "更尖锐") == "sharp"
    assert words.meaning("operation", "不变") is None


def test_a_word_hole_reads_any_word_and_the_literal_after_it_decides() -> None:
    quote = "给所有 logit ⟦op⟧同一个常数 $c$，结果⟦effect⟧："
    for text, op, effect in (("给所有 logit 加上同一个常数 $c$，结果不变：", "加上", "不变"),
                             ("给所有 logit 乘以同一个常数 $c$，结果变化：", "乘以", "变化"),
                             ("给所有 logit 乘方同一个常数 $c$，结果不变：", "乘方", "不变")):
        m = find(text, quote, [(0, len(text))])
        assert (m.words["op"].text, m.words["effect"].text) == (op, effect)
        assert m.values == {}


# -- each parametrised law: its own words verify, a flipped word fails -----------------------

FLIPS = [
    ("softmax-shift-invariance", {"op": "scale"}),
    ("softmax-shift-invariance", {"effect": "changes"}),
    ("softmax-ratio", {"op": "scale"}),
    ("softmax-ratio", {"effect": "changes"}),
    ("softmax-keeps-order", {"prob": "decreases"}),
    ("softmax-keeps-order", {"order": "changes"}),
    ("temperature-entropy-monotone", {"low": "flat"}),
    ("temperature-entropy-monotone", {"high": "sharp"}),
    ("temperature-entropy-monotone", {"low_t": "higher"}),
    ("temperature-entropy-monotone", {"high_t": "lower"}),
    ("temperature-entropy-monotone", {"gap": "decreases"}),
    ("temperature-entropy-monotone", {"others": "decreases"}),
    ("temperature-zero-argmax", {"limit": "infinity"}),
    ("temperature-zero-argmax", {"outcome": "uniform"}),
    ("temperature-infinity-uniform", {"limit": "zero"}),
    ("temperature-infinity-uniform", {"outcome": "onehot"}),
    ("softmax-jacobian", {"rowsum": "one"}),
    ("ce-decreases-with-target-prob", {"loss": "increases"}),
    ("ce-decreases-with-target-prob", {"prob": "decreases"}),
    ("uniform-guess-loss-ln-v", {"ppl": "ln_v"}),
    ("uniform-guess-loss-ln-v", {"ppl": "inv_v"}),
    ("causal-weights", {"allowed": "lt"}),
    ("causal-weights", {"allowed": "ge"}),
    ("causal-weights", {"allowed": "all"}),
    ("causal-weights", {"allowed2": "next"}),
    ("permutation-equivariance", {"symmetry": "invariant"}),
    ("dot-product-variance", {"spread": "decreases"}),
    ("softmax-jacobian-signs", {"own": "decreases"}),
    ("softmax-jacobian-signs", {"other": "increases"}),
    ("small-step-lowers-loss", {"loss": "increases"}),
    ("permutation-equivariance", {"symmetry": "aware"}),
    ("ce-gradient-signs", {"target": "decreases"}),
    ("ce-gradient-signs", {"other": "increases"}),
    ("ce-gradient-signs", {"push": "weak"}),
    ("ce-gradient-signs", {"pull": "weak"}),
    ("softmax-equal-scores-uniform", {"effect": "changes"}),
    ("attention-matrix-equals-loop", {"effect": "changes"}),
    ("causal-no-future-dependence", {"effect": "changes"}),
    ("train-inference-same-distribution", {"effect": "changes"}),
    ("onehot-lookup", {"effect": "changes"}),
    ("projection-rows-independent", {"effect": "changes"}),
    ("softmax-sums-to-one", {"total": "zero"}),
    ("attention-rows-simplex", {"total": "zero"}),
    ("next-token-distribution", {"total": "zero"}),
]
FLIPS += STATEMENT_FLIPS  # laws of law-stating sentences (issue 12 item 4)
FLIPS += READ_FLIPS  # the words of the sentences once quoted literally (issue 12 item 1)
FLIPS += PROSE_FLIPS  # comparatives and scope words (issue 12, second pass)
FLIPS += HEDGE_FLIPS  # laws of sentences once waived as hedges (test_laws_hedges)
FLIPS += READING_FLIPS  # words no slot read before (test_laws_reading)
FLIPS += COMPONENT_FLIPS  # the component law (test_laws_components)
FLIPS += RELATION_FLIPS  # comparison, count, condition, cause (test_laws_relations)


def test_every_slot_has_a_flip_that_fails() -> None:
    covered = {(name, slot) for name, flip in FLIPS for slot in flip}
    every = {(spec.name, s.name) for spec in CATALOG.values() for s in spec.slots}
    assert every <= covered, every - covered


# The flips of test_laws_statements, test_laws_prose and test_laws_read's READ_SEARCHED are
# searched there, with the same assertion (or a stronger one); each search runs once in the suite.
SEARCHED_ELSEWHERE = (STATEMENT_FLIPS + READ_SEARCHED + PROSE_FLIPS + HEDGE_FLIPS
                      + READING_FLIPS + COMPONENT_FLIPS + RELATION_FLIPS)
SEARCHED_HERE = [(n, f) for n, f in FLIPS if (n, f) not in SEARCHED_ELSEWHERE]


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), SEARCHED_HERE,
                         ids=[f"{n}-{next(iter(f.values()))}" for n, f in SEARCHED_HERE])
def test_a_flipped_word_states_a_false_law(name: str, flip: dict[str, str]) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY, outcome.text
    if outcome.found:  # the shrunk counterexample is in the message
        assert "counterexample" in outcome.text


# test_laws_statements, test_laws_hedges and test_laws_prose verify the laws of their
# *_MUTANTS with this same search and assertion (test_the_real_implementation_verifies)
VERIFIED_ELSEWHERE = {*STATEMENT_MUTANTS, *HEDGE_MUTANTS, *PROSE_MUTANTS}


@pytest.mark.parametrize("name", sorted({n for n, _ in FLIPS} - VERIFIED_ELSEWHERE))
def test_the_law_s_own_words_verify(name: str) -> None:
    outcome = search(name, profile="ci")
    assert outcome.status == VERIFIED, outcome.text


@pytest.mark.parametrize(("name", "words_said"), [
    ("softmax-shift-invariance", {"op": "scale", "effect": "changes"}),  # true: scaling changes
    ("ce-decreases-with-target-prob", {"prob": "decreases", "loss": "increases"}),
    ("temperature-zero-argmax", {"limit": "infinity", "outcome": "uniform"}),
    ("temperature-entropy-monotone", {"low_t": "higher", "low": "flat",
                                      "high_t": "lower", "high": "sharp"}),
])
def test_two_flipped_words_that_agree_state_a_true_law(name: str, words_said: dict) -> None:
    outcome = search(name, words_said, profile="ci")
    assert outcome.status == VERIFIED, outcome.text


# -- end to end: located at the word --------------------------------------------------------

NOTE = "第 1 章：例子\n1.1 软最大\n给所有分数{op}同一个常数，结果不变。\n"
CLAIMS = """\
note: n.txt
claims:
  - id: shift
    kind: property
    section: "1.1"
    says: softmax ignores a common shift
    text: 给所有分数⟦op⟧同一个常数，结果⟦effect⟧。
    property: softmax-shift-invariance
    params: {max_len: 4}
"""


def check(tmp_path: Path, op: str, capsys: pytest.CaptureFixture[str],
          claims: str = CLAIMS) -> tuple[int, dict]:
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE.format(op=op), encoding="utf-8")
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(claims), encoding="utf-8")
    out = tmp_path / "out.json"
    code = main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
                 str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    return code, json.loads(out.read_text(encoding="utf-8"))["claims"][0]


def test_the_note_s_words_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "加上", capsys)
    assert code == 0 and claim["status"] == "verified", claim["message"]


def test_a_changed_word_is_a_discrepancy_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "乘以", capsys)
    assert code == 1 and claim["status"] == "discrepancy"
    assert "multiplied by c" in claim["message"] and "op = scale ('乘以')" in claim["message"]
    value = claim["values"][0]
    assert value["start"] == {"line": 3, "col": 6} and value["end"] == {"line": 3, "col": 8}


def test_a_word_outside_the_vocabulary_is_unparsed_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, claim = check(tmp_path, "乘方", capsys)
    assert code == 1 and claim["status"] == "unparsed"
    assert "'乘方'" in claim["message"] and "shift: 加" in claim["message"]
    assert claim["values"][0]["start"] == {"line": 3, "col": 6}


@pytest.mark.parametrize(("text", "problem"), [
    ("给所有分数⟦op⟧同一个常数，结果⟦efect⟧。", "has no slot 'efect' (did you mean 'effect'?)"),
    ("⟦op⟧同一个常数，结果不变。", "cannot start with a word hole"),
])
def test_word_hole_mistakes_are_load_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            text: str, problem: str) -> None:
    claims = CLAIMS.replace("给所有分数⟦op⟧同一个常数，结果⟦effect⟧。", text)
    code, claim = check(tmp_path, "加上", capsys, claims)
    assert code == 1 and claim["status"] == "error" and problem in claim["message"]


def test_word_holes_need_a_property_claim(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    claims = CLAIMS.replace("    property: softmax-shift-invariance\n    params: {max_len: 4}\n",
                            "    check: {}\n").replace("kind: property", "kind: arithmetic")
    code, claim = check(tmp_path, "加上", capsys, claims)
    assert claim["status"] == "error" and "word holes ⟦slot⟧ need kind: property" in claim[
        "message"]
