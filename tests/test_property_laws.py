"""Issue 13 (properties): exact hull membership, laws on tinygpt's own code, one search
per law with the report counting laws and sentences."""

from __future__ import annotations

import json
import math
import textwrap
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import torch

import tinygpt.bigram as tg_bigram
import tinygpt.model as tg_model
from tinygpt import attention
from verifiers.cli import main
from verifiers.properties import runner
from verifiers.properties.laws_attention import gamma, hull_gap
from verifiers.properties.runner import clear_cache, search

F64 = torch.float64


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))
    clear_cache()
    yield
    clear_cache()


# -- the convex hull, exactly -------------------------------------------------------------

V = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]


def test_a_convex_combination_is_certified() -> None:
    assert hull_gap([0.5, 0.25, 0.25], V, [0.25, 0.25]) is None
    assert hull_gap([1.0, 0.0, 0.0], V, [0.0, 0.0]) is None  # a vertex


@pytest.mark.parametrize("weights, z, fragment", [
    ([0.5, 0.5, 0.5], [0.5, 0.5], "sum to 1.5"),  # not normalised: z is outside the hull
    ([1.25, -0.25, 0.0], [-0.25, 0.0], "not all finite and >= 0"),  # sums to 1: extrapolates
    ([math.nan, 0.5, 0.5], [0.25, 0.25], "not all finite"),
    ([0.5, 0.25, 0.25], [0.25, 0.25 + 1e-15], "component 1"),  # not a V @ weights
    ([0.5, 0.25, 0.25 + 1e-15], [0.25, 0.25], "not 1"),  # one ulp-ish too much mass
])
def test_a_point_not_certified_says_why(weights: list[float], z: list[float],
                                        fragment: str) -> None:
    why = hull_gap(weights, V, z)
    assert why is not None and fragment in why, why


def test_the_tolerances_are_float64_rounding_bounds() -> None:
    # gamma_n = n u / (1 - n u), u = 2^-53: tiny, and growing with the number of terms
    assert gamma(1) == pytest.approx(2.0 ** -53, rel=1e-15)
    assert gamma(9) < 1e-15
    # tinygpt's own weights: normalised to within gamma_(n+1), outputs within gamma_n
    g = torch.Generator().manual_seed(0)
    for n in (1, 3, 6):
        q, k, v = (torch.randn(n, 4, generator=g, dtype=F64) * 3 for _ in range(3))
        Z, A = attention(q, k, v)
        for z, a in zip(Z.tolist(), A.tolist(), strict=True):
            assert hull_gap(a, v.tolist(), z) is None
            assert abs(sum(Fraction(x) for x in a) - 1) <= Fraction(gamma(n + 1))


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("mask", ["none", "causal"])
@pytest.mark.parametrize("planted, fragment", [
    (lambda q, k, v: (lambda z, a: (z * (1 + 1e-9), a * (1 + 1e-9)))(*attention(q, k, v)),
     "not 1"),  # weights off normalisation by 1e-9: far beyond rounding
    (lambda q, k, v: (lambda z, a: (z + 1e-12, a))(*attention(q, k, v)), "component 0"),
])
def test_the_hull_law_catches_near_misses(mask: str, planted: Any, fragment: str) -> None:
    outcome = search("attention-convex-hull", {"mask": mask}, impl=planted, profile="ci")
    assert outcome.found and fragment in outcome.message, outcome.text


# -- laws run tinygpt's own code ------------------------------------------------------------

def divided_by_d(q: torch.Tensor, k: torch.Tensor, scale: bool = True) -> torch.Tensor:
    s = q @ k.transpose(-2, -1)
    return s / q.shape[-1] if scale else s


def unnormalised(scores: torch.Tensor) -> torch.Tensor:
    return torch.exp(scores - scores.max(dim=-1, keepdim=True).values)


def ffn_trace_always_relu(x, W1, b1, W2, b2, activation):  # noqa: ANN001, ANN202
    return REAL_FFN_TRACE(x, W1, b1, W2, b2, "relu")


REAL_FFN_TRACE = tg_model._ffn_trace


@pytest.mark.usefixtures("first_counterexample")  # tests/conftest.py
@pytest.mark.parametrize("module, attr, planted, law, fragment", [
    (tg_model, "one_hot", lambda i, n: torch.full((n,), 1.0 / n, dtype=F64),
     "onehot-orthogonal", "want 0 and sqrt 2"),
    (tg_bigram, "bigram_logits",
     lambda E, WU, ids, b=None: E[list(ids)] @ WU + torch.eye(E.shape[0], dtype=F64),
     "logit-matrix-rank", "has rank"),
    (tg_model, "scaled_scores", divided_by_d, "dot-product-variance", "not about 1"),
    (tg_model, "scaled_scores", divided_by_d, "attention-scores-are-dot-products", "(Q K^T)_"),
    (tg_model, "softmax", unnormalised, "attention-convex-hull", "not shown to be in the hull"),
    (tg_model, "_ffn_trace", ffn_trace_always_relu, "ffn-linear-collapses", "one matrix"),
])
def test_a_bug_planted_in_tinygpt_is_found_by_the_law(
        monkeypatch: pytest.MonkeyPatch, module: Any, attr: str, planted: Any, law: str,
        fragment: str) -> None:
    """The laws hold tinygpt's code to account, not a stand-in written beside the law."""
    assert search(law, profile="ci").status == "verified"
    monkeypatch.setattr(module, attr, planted)
    outcome = search(law, profile="ci")
    assert outcome.found and fragment in outcome.message, outcome.text
    assert outcome.message.startswith("tinygpt"), outcome.text  # the implementation named


# -- one search per law; the report counts laws and sentences --------------------------------

NOTE = "第 1 章：例子\n1.1 软最大\n给所有分数加上同一个常数，结果不变。\n"


def claim(cid: str, params: str) -> str:
    return textwrap.indent(textwrap.dedent(f"""\
        - id: {cid}
          kind: property
          section: "1.1"
          says: softmax ignores a common shift
          text: 给所有分数加上同一个常数，结果⟦effect⟧。
          property: softmax-shift-invariance
          params: {params}
        """), "  ")


def run_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], claims: str,
              *extra: str) -> tuple[int, str, dict]:
    (tmp_path / "notes").mkdir(exist_ok=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir(exist_ok=True)
    (tmp_path / "claims" / "c.yaml").write_text("note: n.txt\nclaims:\n" + claims,
                                                encoding="utf-8")
    out = tmp_path / "out.json"
    code = main(["check", "--notes", str(tmp_path / "notes"), "--claims",
                 str(tmp_path / "claims"), "--json", str(out), *extra])
    text = capsys.readouterr()
    return code, text.out + text.err, json.loads(out.read_text(encoding="utf-8"))


def test_sentences_stating_one_law_share_one_search(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    searched: list[str] = []
    real = runner.search
    monkeypatch.setattr(runner, "search", lambda *a, **k: searched.append(a[0]) or real(*a, **k))
    claims = (claim("a", "{max_len: 4}") + claim("b", "{max_len: 4}")
              + claim("c", "{max_len: 5}"))
    code, out, data = run_check(tmp_path, capsys, claims, "--no-cache")
    assert code == 0, out
    assert len(searched) == 2  # a and b state the same law; c another one (max_len 5)
    assert "properties: 2 laws searched for 3 sentences" in out
    assert data["properties"] == {"sentences": 3, "laws": 2}
    laws = {c["id"]: c["values"][0]["law"] for c in data["claims"]}
    assert laws["a"] == laws["b"] != laws["c"]
    assert laws["a"] == ("softmax-shift-invariance(bound=50.0, effect=invariant, max_len=4, "
                         "max_shift=1000.0, op=shift)")  # the word 不变 read as its meaning
    # each claim's verdict still names its own sentence and word
    assert [c["values"][0]["start"] for c in data["claims"]] == [{"line": 3, "col": 1}] * 3


def test_the_cached_verdicts_keep_their_law(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    claims = claim("a", "{max_len: 4}") + claim("b", "{max_len: 4}")
    first = run_check(tmp_path, capsys, claims)
    clear_cache()
    second = run_check(tmp_path, capsys, claims)
    assert first[2] == second[2] and second[2]["properties"] == {"sentences": 2, "laws": 1}
    assert "1 law searched for 2 sentences" in second[1]


def test_no_property_claims_no_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, data = run_check(tmp_path, capsys, "  []\n")
    assert "laws searched" not in out and data["properties"] == {"sentences": 0, "laws": 0}

