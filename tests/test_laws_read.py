"""Property claims read the word that carries their law (issue 12 item 1).

``READ_FLIPS`` flips every slot of ``verifiers/properties/specs_words.py`` (能 -> 不能, 正比于 ->
反比于, 最大 -> 最小, …); ``tests/test_words.py`` searches each flipped law (it must be a
discrepancy) and each law with its own words (it must verify). End to end here: a flipped word
in a note is a discrepancy at the word, a word outside the class is unparsed there.

``LITERAL_BASELINE`` lists the property claims that still quote their law word literally (an
edit of it only makes them ``stale``). It can only shrink: a new literal claim fails, and a
converted claim left in the list fails too, so the count of claims reading their law only
goes up (``python -m verifiers.properties.reading`` prints it).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.test_laws_hedges import SAID_FLIPS
from tests.test_laws_reading import READING_SAID_FLIPS
from verifiers import words
from verifiers.cli import main
from verifiers.properties.catalog import CATALOG
from verifiers.properties.params import SENTENCE_CLASSES
from verifiers.properties.reading import literal_ids, property_claims
from verifiers.properties.runner import clear_cache, search
from verifiers.properties.specs_words import SAID
from verifiers.verdicts import DISCREPANCY

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "claims"

READ_FLIPS = [
    ("softmax-positive", {"negatives": "keeps"}),
    ("softmax-positive", {"negative": "can"}),
    ("softmax-positive", {"zero": "can"}),
    ("softmax-positive", {"sign": "zero"}),
    ("softmax-stable-form", {"avoid": "keeps"}),
    ("softmax-stable-form", {"overflow": "can"}),
    ("softmax-stable-form", {"ensure": "not"}),
    ("softmax-jacobian-saturation", {"size": "large"}),
    ("softmax-jacobian-saturation", {"grad": "large"}),
    ("attention-convex-hull", {"weights": "negative"}),
    ("attention-convex-hull", {"ensure": "not"}),
    ("attention-convex-hull", {"where": "outside"}),
    ("attention-rows-simplex", {"is": "isnot"}),
    ("attention-rows-simplex", {"sign": "zero"}),
    ("attention-rows-simplex", {"ensure": "not"}),
    ("attention-rows-simplex", {"axis": "column"}),
    ("attention-scores-are-dot-products", {"first": "column"}),
    ("attention-scores-are-dot-products", {"second": "row"}),
    ("attention-scores-are-dot-products", {"q": "key"}),
    ("attention-scores-are-dot-products", {"k": "value"}),
    ("ffn-linear-collapses", {"can": "cannot"}),
    ("ffn-nonlinear-does-not-collapse", {"can": "can"}),
    ("block-output-outside-value-hull", {"where": "inside"}),
    ("permutation-breaks-with-order", {"transfer": "can"}),
    ("permutation-breaks-with-order", {"intro": "none"}),
    ("permutation-breaks-with-order", {"provide": "cannot"}),
    ("rope-relative-position", {"kind": "absolute"}),
    ("attention-not-linear", {"linear": "linear"}),
    ("layernorm-per-position", {"scope": "all"}),
    ("causal-weights", {"masked": "past"}),
    ("causal-weights", {"weight": "positive"}),
    ("causal-weights", {"others": "one"}),
    ("causal-weights", {"first": "zero"}),
    ("causal-no-future-dependence", {"dep": "also"}),
    ("causal-no-future-dependence", {"can": "can"}),
    ("causal-no-future-dependence", {"ensure": "not"}),
    ("causal-no-future-dependence", {"mix": "some"}),
    ("attention-weights-underflow", {"can": "cannot"}),
    ("next-token-distribution", {"single": "is"}),
    ("train-inference-same-distribution", {"can": "cannot"}),
    ("train-inference-same-distribution", {"separate": "is"}),
    ("tied-gradient-sum", {"combine": "subtract"}),
    ("large-step-can-raise-loss", {"auto": "ensures"}),
    ("large-step-can-raise-loss", {"loss": "decreases"}),
    ("greedy-is-argmax", {"pick": "min"}),
    ("greedy-not-sequence-optimal", {"ensure": "ensures"}),
    ("sampling-frequencies", {"can": "cannot"}),
    ("sampling-frequencies", {"ensure": "ensures"}),  # 模型一定会生成这句话 (a sampled one)
    ("top-k-keeps-k", {"renorm": "not"}),
    ("top-k-keeps-k", {"rest": "one"}),
    ("top-k-keeps-k", {"pick": "min"}),
    ("top-p-smallest-prefix", {"renorm": "not"}),
    ("top-p-smallest-prefix", {"set": "max"}),
    ("top-k-1-is-greedy", {"pick": "min"}),
    ("kv-cache-equals-recompute", {"effect": "changes"}),
    ("kv-cache-equals-recompute", {"need": "needed"}),
    ("embedding-gradient-rows", {"combine": "subtract"}),
    ("embedding-gradient-rows", {"combine2": "subtract"}),
    ("embedding-gradient-rows", {"unused": "one"}),
    ("residual-jacobian", {"path": "none"}),
    ("onehot-lookup", {"axis": "column"}),
    ("cosine-in-range", {"same": "opposite"}),
    ("cosine-in-range", {"perp": "same"}),
    ("cosine-in-range", {"opposite": "perpendicular"}),
    ("cosine-in-range", {"every": "some"}),
    ("ce-onehot-equals-neg-log", {"effect": "changes"}),
    ("ce-gradient-autograd", {"op": "add"}),
    ("ce-gradient-bounded", {"can": "can"}),
    ("bigram-gradients", {"unused": "one"}),
    ("bigram-gradients", {"can": "can"}),
    ("bigram-gradients", {"combine": "subtract"}),
    ("logit-matrix-rank", {"bound": "atleast"}),
    ("logit-matrix-rank", {"bound": "exactly"}),
    ("embedding-fancy-index-loses-repeats", {"result": "right"}),
    ("embedding-fancy-index-loses-repeats", {"times": "zero"}),
    ("chain-rule-scores-text", {"eq": "changes"}),
    ("vocab-proportional-parameters", {"prop": "inverse"}),
    ("vocab-proportional-parameters", {"prop": "independent"}),
    ("dot-product-variance", {"cancel": "accumulate"}),
    ("dot-product-variance", {"normalised": "zero"}),
    ("dot-product-variance", {"indep": "correlated"}),
    ("qk-tied-symmetric-psd", {"matrix": "antisymmetric"}),
    ("onehot-orthogonal", {"every": "some"}),
    ("onehot-orthogonal", {"dot": "one"}),
    ("projection-rows-independent", {"dep": "also"}),
    ("bigram-context-blind", {"dep": "also"}),
    ("bigram-gradients", {"row": "target"}),
]

LITERAL_BASELINE = frozenset({
    "aat-p-15-7-residual-jacobian",
    "l1-p-5-ratio",
    "l1-p-6-sum-zero",
    "mbm-p-10-4-top-p-covers",
    "mbm-p-3-2-variance-64",
})


def test_no_new_property_claim_quotes_its_law_word() -> None:
    new = sorted(set(literal_ids(CLAIMS)) - LITERAL_BASELINE)
    assert not new, f"property claims quoting their law word literally (use a word hole): {new}"


def test_literal_baseline_only_shrinks() -> None:
    converted = sorted(LITERAL_BASELINE - set(literal_ids(CLAIMS)))
    assert not converted, f"remove from LITERAL_BASELINE, they read their law word: {converted}"


def test_the_count_reads_word_holes() -> None:
    claims = property_claims(CLAIMS)
    assert len(claims) - len(LITERAL_BASELINE) >= 51  # the count before issue 12 item 1


# -- the words: every slot flipped, every class with Chinese and English words ----------------

def test_every_slot_of_a_sentence_has_a_flip() -> None:
    said = {(name, s.name) for name, slots in SAID.items() for s in slots}
    flips = READ_FLIPS + SAID_FLIPS + READING_SAID_FLIPS
    assert said == {(name, slot) for name, flip in flips for slot in flip}


def test_every_meaning_has_chinese_and_english_words() -> None:
    for cls, meanings in SENTENCE_CLASSES.items():
        table = words.words_of(cls)
        assert tuple(table) == meanings, cls
        for meaning, ws in table.items():
            assert any(any("\u4e00" <= ch <= "\u9fff" for ch in w) for w in ws), (cls, meaning)
            assert any(w.isascii() and w[:1].isalpha() for w in ws), (cls, meaning)


# the flips whose law reads the flipped word (test_words searches the other READ_FLIPS)
READ_SEARCHED = [(name, flip) for name, flip in READ_FLIPS
                 if any(s.law_reads for s in SAID[name] if s.name in flip)]


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize(("name", "flip"), READ_SEARCHED)
def test_a_law_that_reads_its_word_fails_with_a_counterexample(name: str, flip: dict) -> None:
    outcome = search(name, flip, profile="ci")
    assert outcome.status == DISCREPANCY and outcome.found, outcome.text


def test_a_denying_word_flips_the_expectation_once() -> None:
    spec = CATALOG["softmax-positive"]
    assert spec.expectation({}) == "holds"
    assert spec.expectation({"negative": "can"}) == "fails"
    assert spec.expectation({"negative": "can", "zero": "can"}) == "fails"  # not a double negation
    assert CATALOG["attention-convex-hull"].expectation({"weights": "positive"}) == "holds"


# -- end to end: a sentence of the notes, its law word edited --------------------------------

NOTE = "第 1 章：例子\n1.1 软最大\n概率{neg}是负数，也{zero}是 0。嵌入矩阵的大小{prop} $V$。\n"
CLAIM_FILE = """\
note: n.txt
claims:
  - id: never-zero
    kind: property
    section: "1.1"
    says: softmax outputs are never negative or zero
    text: 概率⟦negative⟧是负数，也⟦zero⟧是 0。
    property: softmax-positive
    params: {max_len: 4}
  - id: prop
    kind: property
    section: "1.1"
    says: the embedding matrix grows in proportion to V
    text: 嵌入矩阵的大小⟦prop⟧ $V$。
    property: vocab-proportional-parameters
    params: {max_vocab: 8}
"""


@pytest.fixture()
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))
    monkeypatch.setenv("HYPOTHESIS_PROFILE", "ci")
    clear_cache()


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], **said: str) -> dict[str, dict]:
    for sub in ("notes", "claims"):
        (tmp_path / sub).mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(_note(**said), encoding="utf-8")
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(CLAIM_FILE), encoding="utf-8")
    out = tmp_path / "out.json"
    main(["check", "--no-cache", "--notes", str(tmp_path / "notes"), "--claims",
          str(tmp_path / "claims"), "--json", str(out)])
    capsys.readouterr()
    return {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["claims"]}


def _note(**said: str) -> str:
    return NOTE.format(**{"neg": "不会", "zero": "不会", "prop": "正比于", **said})


@pytest.mark.usefixtures("_fresh")
def test_the_note_s_own_words_verify(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    got = _run(tmp_path, capsys)
    assert {k: v["status"] for k, v in got.items()} == {"never-zero": "verified",
                                                        "prop": "verified"}


@pytest.mark.usefixtures("_fresh")
@pytest.mark.parametrize(("said", "cid", "word", "fragment"), [
    ({"zero": "可能"}, "never-zero", "可能", "the sentence states zero = can"),
    ({"neg": "可以"}, "never-zero", "可以", "the sentence states negative = can"),
    ({"prop": "反比于"}, "prop", "反比于", "inversely proportional"),
    ({"prop": "与之无关"}, "prop", "与之无关", "independent of V"),
])
def test_an_edited_law_word_is_a_discrepancy_at_the_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], said: dict, cid: str, word: str,
        fragment: str) -> None:
    claim = _run(tmp_path, capsys, **said)[cid]
    assert claim["status"] == "discrepancy", claim
    value = claim["values"][0]
    assert fragment in claim["message"], claim["message"]
    line = _note(**said).splitlines()[2]
    assert value["start"] == {"line": 3, "col": line.index(word) + 1}, value


@pytest.mark.usefixtures("_fresh")
def test_a_word_outside_the_class_is_unparsed(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    claim = _run(tmp_path, capsys, prop="平方于")["prop"]
    assert claim["status"] == "unparsed", claim
    assert "'平方于'" in claim["message"] and "proportional: 正比于" in claim["message"]
    line = _note(prop="平方于").splitlines()[2]
    assert claim["values"][0]["start"] == {"line": 3, "col": line.index("平方于") + 1}
