"""Property claims (issue 5): every law can fail, the claims verify, errors are located.

The heart of this file is ``MUTANTS``: for every property in the catalog, a deliberately
broken implementation and a fragment its counterexample message must contain. A law that
the note says *holds* must find a counterexample against its mutant; a law the note says
*fails* gets a mutant for which it holds, so the search must come back empty-handed (and
the claim would be a discrepancy). A property no mutant can break would be a defect.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import torch

import tinygpt.model as tg_model
from tests.test_laws_components import COMPONENT_MUTANTS
from tests.test_laws_hedges import HEDGE_MUTANTS
from tests.test_laws_prose import PROSE_MUTANTS
from tests.test_laws_reading import READING_MUTANTS
from tests.test_laws_relations import RELATION_MUTANTS
from tests.test_laws_statements import STATEMENT_MUTANTS
from tinygpt import KVCache, TinyGPT, attention, ffn, rope, softmax, top_k_filter, top_p_filter
from tinygpt.backward import softmax_cross_entropy_grad
from verifiers import profiles
from verifiers.cli import main
from verifiers.properties import laws_model, laws_softmax
from verifiers.properties.catalog import CATALOG, NAMES, LawKey, complete, law_key, law_label
from verifiers.properties.laws import LAWS
from verifiers.properties.params import FAILS
from verifiers.properties.runner import clear_cache, search
from verifiers.properties.stated import stated_laws
from verifiers.run import load_claims, run
from verifiers.schema import load_claim_file
from verifiers.verdicts import DISCREPANCY, ERROR, VERIFIED

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
F64 = torch.float64
NOTES = {"architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt"}


@pytest.fixture(autouse=True)
def _fresh_verdict_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CLI runs here must search, not replay a cached verdict of an earlier run."""
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "verdict-cache"))


# -- mutants ------------------------------------------------------------------------------------

def scaled_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    return q @ k.T / math.sqrt(q.shape[-1])


def leaky_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    """The causal mask off by one: position i also sees i + 1."""
    i = torch.arange(q.shape[0])[:, None]
    j = torch.arange(k.shape[0])[None, :]
    a = torch.softmax(scaled_scores(q, k).masked_fill(j > i + 1, float("-inf")), dim=-1)
    return a @ v, a


def leaky_forward(layer: int):
    """TinyGPT whose causal mask lets position i read i + 1 in one layer only."""
    real = tg_model.causal_mask

    def leaky(n_q: int, n_k: int) -> torch.Tensor:
        i = torch.arange(n_q)[:, None] + (n_k - n_q)
        return real(n_q, n_k) | (torch.arange(n_k)[None, :] == i + 1)

    def forward(model: TinyGPT, tokens: list[int]) -> dict[str, Any]:
        if layer < len(model.blocks):
            block, original = model.blocks[layer], model.blocks[layer].forward_trace

            def patched(*args: Any, **kw: Any) -> dict[str, Any]:
                tg_model.causal_mask = leaky
                try:
                    return original(*args, **kw)
                finally:
                    tg_model.causal_mask = real
            block.forward_trace = patched
        return model.forward_trace(tokens)
    return forward


class ForgetfulCache(KVCache):
    """A KV cache that forgets the positional offset: every new token sits at position 0."""

    @property
    def length(self) -> int:
        return 0


def forgetful_generate(model: TinyGPT, prompt: list[int], steps: int):
    cache = ForgetfulCache(model.config.n_layers, model.config.n_heads)
    tokens, new, rows = list(prompt), list(prompt), []
    with torch.no_grad():
        for _ in range(steps):
            logits = model.forward_trace(new, cache)["logits"][-1]
            rows.append(logits)
            token = int(torch.argmax(logits))
            tokens.append(token)
            new = [token]
    return tokens, torch.stack(rows)


def rebuilt(model: TinyGPT, **changes: Any) -> TinyGPT:
    from dataclasses import replace

    params = {k: v.detach() for k, v in model.params().items()}
    return TinyGPT.from_params(replace(model.config, **changes), **params)


def untied_output_grad(model: TinyGPT, tokens: list[int], targets: list[int]) -> torch.Tensor:
    """Tied weights whose output path is detached: only the input path reaches E."""
    trace = model.forward_trace(tokens)
    logits = trace["h"] @ model.E.detach().T
    (g,) = torch.autograd.grad(tg_model.cross_entropy(logits, targets), [model.E])
    return g


def overwriting_embedding_grads(model: TinyGPT, tokens: list[int], targets: list[int]):
    gE, gX = laws_model.tinygpt_embedding_grads(model, tokens, targets)
    wrong = torch.zeros_like(gE)
    for i, t in enumerate(tokens):
        wrong[t] = gX[i]
    return wrong, gX


def whole_matrix_norm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    mu, var = x.mean(), ((x - x.mean()) ** 2).mean()
    return gamma * (x - mu) / torch.sqrt(var + 1e-5) + beta


def rms_norm(x: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    return gamma * x / torch.sqrt((x ** 2).mean(dim=-1, keepdim=True) + 1e-5) + beta


def residual_without_skip_gradient(block: Any, x: torch.Tensor) -> torch.Tensor:
    pos = torch.arange(x.shape[0])
    return x.detach() + block.attend(block._ln(x, 1), pos)["attn_out"]


def uphill_step(params, grads, lr):
    return {k: p + lr * grads[k] for k, p in params.items()}


def tiny_step(params, grads, lr):
    norm = math.sqrt(sum(float((g ** 2).sum()) for g in grads.values())) or 1.0
    return {k: p - 1e-8 * grads[k] / norm for k, p in params.items()}


def one_fewer_top_p(p: torch.Tensor, mass: float) -> torch.Tensor:
    out = top_p_filter(p, mass)
    kept = [i for i in range(len(out)) if out[i] != 0]
    if len(kept) > 1:
        out = out.clone()
        out[min(kept, key=lambda i: float(p[i]))] = 0
        out = out / out.sum()
    return out


def best_sequence(model: TinyGPT, prompt: list[int], steps: int) -> list[int]:
    V = model.config.vocab_size
    best, best_lp = None, -math.inf
    with torch.no_grad():
        for code in range(V ** steps):
            cont = [(code // V ** k) % V for k in range(steps)]
            logp = torch.log_softmax(model(list(prompt) + cont), dim=-1)
            lp = sum(float(logp[len(prompt) - 1 + k, t]) for k, t in enumerate(cont))
            if lp > best_lp:
                best, best_lp = cont, lp
    return list(prompt) + best


def clamped_attention(q, k, v):
    a = torch.softmax(scaled_scores(q, k), dim=-1).clamp(min=1e-300)
    a = a / a.sum(dim=-1, keepdim=True)
    return a @ v, a


def attention_output_only(block: Any, x: torch.Tensor):
    t = block.forward_trace(x, torch.arange(x.shape[0]))
    return t["z"], t["v"][0]


def rope_on_q_only(block: Any, x: torch.Tensor) -> list[torch.Tensor]:
    t = block.attend(x, torch.arange(x.shape[0]))
    pos = torch.arange(x.shape[0]) + 1
    return [rope(q, pos) @ k.T / math.sqrt(q.shape[-1]) for q, k in zip(t["q"], t["k"],
                                                                        strict=True)]


def transposed_scores(block: Any, x: torch.Tensor) -> dict[str, Any]:
    t = dict(block.attend(x, torch.arange(x.shape[0])))
    t["scores"] = [s.T for s in t["scores"]]
    return t


def onehot(y: int, n: int) -> torch.Tensor:
    return torch.nn.functional.one_hot(torch.tensor(y), n).to(F64)


MUTANTS: dict[str, tuple[dict[str, Any], Any, str]] = {
    # property: (params, mutant implementation, fragment of the counterexample message)
    "softmax-positive": ({}, lambda s: s / s.sum(), "is not > 0"),
    "softmax-sums-to-one": ({}, lambda s: torch.exp(s - s.max()), "not 1"),
    "softmax-keeps-order": ({}, lambda s: torch.softmax(-s, -1), "but p["),
    "softmax-shift-invariance": (
        {}, lambda s: torch.exp(s) / (1 + torch.exp(s).sum()), "shifted by c"),
    "softmax-ratio": ({}, lambda s: 2 ** s / (2 ** s).sum(), "but e^(s["),
    "softmax-equal-scores-uniform": (
        {}, lambda s: torch.exp(s) / (1 + torch.exp(s).sum()), "equal scores"),
    "softmax-stable-form": ({}, laws_softmax.plain_softmax, "is not finite"),
    "softmax-plain-form-overflows": ({}, softmax, ""),
    "temperature-entropy-monotone": ({}, lambda s, T: softmax(s * T), "larger T"),
    "temperature-zero-argmax": ({}, lambda s, T: softmax(s * T), "arg-max"),
    "temperature-infinity-uniform": ({}, lambda s, T: softmax(s * T), "not near 1/"),
    "softmax-jacobian": ({}, lambda s: torch.diag(softmax(s)), "sums to"),
    "softmax-jacobian-signs": ({}, lambda s: -laws_softmax.lesson1_jacobian(s), "is not"),
    "softmax-jacobian-saturation": ({}, lambda s: torch.diag(softmax(s)), "1 - max p"),
    "ce-gradient-autograd": (
        {}, lambda z, y: -softmax_cross_entropy_grad(z, y), "autograd gives"),
    "ce-gradient-bounded": ({}, lambda z, y: z - onehot(y, len(z)), "dL/dz = "),
    "ce-gradient-signs": ({}, lambda z, y: -softmax_cross_entropy_grad(z, y), "is not"),
    "ce-onehot-equals-neg-log": (
        {}, lambda z, y: -float(torch.log_softmax(z, -1)[y]) / math.log(2), "-ln p_"),
    "ce-decreases-with-target-prob": (
        {}, lambda z, y: float(torch.log_softmax(z, -1)[y]), "the loss goes from"),
    "uniform-guess-loss-ln-v": (
        {}, lambda z, y: -float(torch.log_softmax(z, -1)[y]) / math.log(2), "not ln"),
    "bigram-gradients": ({}, laws_model.fancy_index_grads, "occurs 2 times"),
    "embedding-fancy-index-loses-repeats": ({}, laws_model.tinygpt_bigram_grads, ""),
    "attention-rows-simplex": (
        {}, lambda q, k, v: (scaled_scores(q, k) @ v, scaled_scores(q, k)), "attention row"),
    "attention-convex-hull": (
        {}, lambda q, k, v: (torch.exp(scaled_scores(q, k)) @ v, torch.exp(scaled_scores(q, k))),
        "not shown to be in the hull"),
    "attention-matrix-equals-loop": (
        {}, lambda q, k, v: attention(k, q, v), "the loop"),
    "attention-scores-are-dot-products": ({}, transposed_scores, "(Q K^T)_"),
    "attention-not-linear": (
        {}, lambda X, WQ, WK, WV: (X @ WV).mean(dim=0, keepdim=True).expand(X.shape[0], -1),
        ""),
    "attention-weights-underflow": ({}, clamped_attention, ""),
    "causal-weights": ({}, leaky_attention, "not exactly 0"),
    "block-output-outside-value-hull": ({}, attention_output_only, ""),
    "qk-tied-symmetric-psd": ({}, rope_on_q_only, "not symmetric positive semi-definite"),
    "rope-relative-position": (
        {}, lambda x, pos: rope(x, [p ** 2 for p in pos]), "same n - m"),
    "causal-no-future-dependence": ({}, leaky_forward(0), "reads a later token"),
    "permutation-equivariance": (
        {}, lambda m, t: rebuilt(m, positions="sinusoidal").forward_trace(t), "reordered"),
    "permutation-breaks-with-order": (
        {"mask": "causal"},
        lambda m, t: rebuilt(m, causal=False, positions="none").forward_trace(t), ""),
    "kv-cache-equals-recompute": ({}, forgetful_generate, "from the cache"),
    "train-inference-same-distribution": (
        {}, lambda m, t: rebuilt(m, causal=False).forward_trace(t)["p"], "inference"),
    "next-token-distribution": (
        {}, lambda m, t: m.forward_trace(t)["logits"], "not a probability distribution"),
    "tied-gradient-sum": ({}, untied_output_grad, "output path"),
    "embedding-gradient-rows": ({}, overwriting_embedding_grads, "the sum of their gradients"),
    "onehot-lookup": (
        {}, lambda m, t: m.E[(torch.as_tensor(t) + 1) % m.config.vocab_size], "one-hot row"),
    "projection-rows-independent": (
        {}, lambda b, x: b.attend(x - x.mean(dim=0), torch.arange(x.shape[0]))["q"],
        "on its own"),
    "layernorm-per-position": ({}, whole_matrix_norm, "normalises to"),
    "layernorm-shift-invariance": ({}, rms_norm, "changes its LayerNorm"),
    "ffn-linear-collapses": (
        {}, lambda x, W1, b1, W2, b2: ffn(x, W1, b1, W2, b2), "one matrix"),
    "ffn-nonlinear-does-not-collapse": ({}, laws_model.linear_ffn, ""),
    "residual-jacobian": ({}, residual_without_skip_gradient, "I + J_F"),
    "small-step-lowers-loss": ({}, uphill_step, "no step size lowers it"),
    "large-step-can-raise-loss": ({}, tiny_step, ""),
    "greedy-is-argmax": ({}, lambda z: int(torch.argmin(z)), "greedy picks"),
    "top-k-keeps-k": ({}, lambda p, k: top_k_filter(p, k + 1), "keeps"),
    "top-p-smallest-prefix": ({}, one_fewer_top_p, "does not reach P"),
    "top-k-1-is-greedy": ({}, lambda p, k: top_k_filter(p, k + 1), "greedy picks"),
    "sampling-frequencies": (
        {}, lambda z, T, n, g: torch.randint(0, len(z), (n,), generator=g).tolist(),
        "chi-square"),
    "greedy-not-sequence-optimal": ({}, best_sequence, ""),
    "dot-product-variance": (
        {}, lambda q, k: (q * k).sum(dim=1) / q.shape[1], "not about 1"),
    "cosine-in-range": ({}, lambda a, b: float(a @ b / (a @ a)), "outside [-1, 1]"),
    "onehot-orthogonal": ({}, lambda i, V: 0.9 * onehot(i, V) + 0.1 / V, "want 0 and sqrt 2"),
    "logit-matrix-rank": (
        {}, lambda E, WU: E @ WU + torch.eye(E.shape[0], dtype=F64), "has rank"),
}
MUTANTS.update(STATEMENT_MUTANTS)  # laws of law-stating sentences (issue 12 item 4)
MUTANTS.update(HEDGE_MUTANTS)  # laws of sentences once waived as hedges
MUTANTS.update(PROSE_MUTANTS)  # comparatives and scope words (issue 12, second pass)
MUTANTS.update(READING_MUTANTS)  # words no slot read before (laws6)
MUTANTS.update(COMPONENT_MUTANTS)  # a trait searched on the component named (laws7)
MUTANTS.update(RELATION_MUTANTS)  # comparison, count, condition words (laws8)


def test_every_property_has_a_law_and_a_mutant() -> None:
    assert set(NAMES) == set(LAWS) == set(MUTANTS)
    for name, spec in CATALOG.items():
        assert spec.says and spec.expect in ("holds", "fails"), name
        complete(name)  # the declared defaults are valid values


#: Every law the claims in claims/ state (property + complete parameters, the sentence's
#: words included), with the claims stating it: the searches ``notecheck check`` runs.
CLAIMED = stated_laws(ROOT / "notes", ROOT / "claims")
#: Each mutant runs at the parameters of every claim using its law, and at its own (the
#: catalog's defaults) for the laws no claim states, or states otherwise.
LAWS_TO_BREAK = sorted(set(CLAIMED) | {law_key(name, MUTANTS[name][0]) for name in NAMES},
                       key=repr)


def as_params(key: LawKey) -> dict[str, Any]:
    """A law key's parameters as a claim file writes them (lists, not tuples)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in key[1]}


def test_the_mutants_run_where_the_claims_search() -> None:
    assert sum(len(ids) for ids in CLAIMED.values()) >= 100
    assert len(CLAIMED) >= 60 and set(CLAIMED) <= set(LAWS_TO_BREAK)
    assert {name for name, _ in LAWS_TO_BREAK} == set(NAMES)
    assert len({name for name, _ in CLAIMED}) >= 55  # nearly every law is stated somewhere


@pytest.mark.parametrize("key", LAWS_TO_BREAK, ids=law_label)
def test_each_law_catches_its_mutant_at_the_parameters_claims_use(key: LawKey) -> None:
    name, params = key[0], as_params(key)
    _, mutant, fragment = MUTANTS[name]
    outcome = search(name, params, impl=mutant)
    assert not outcome.error, outcome.text
    if CATALOG[name].expectation(dict(key[1])) == FAILS:
        # The law the note warns about holds for this implementation: no counterexample,
        # so a claim binding it would be a discrepancy.
        assert not outcome.found and outcome.status == DISCREPANCY, outcome.text
        assert "but the note says this law fails" in outcome.text
    else:
        assert outcome.found and outcome.status == DISCREPANCY, outcome.text
        assert fragment in outcome.message, outcome.text
        assert outcome.message.startswith("injected: ")


@pytest.mark.parametrize("layer", [1, 2])
def test_a_leak_planted_in_one_layer_of_three_is_found_and_named(layer: int) -> None:
    outcome = search("causal-no-future-dependence", {"max_layers": 3}, impl=leaky_forward(layer))
    assert outcome.found, outcome.text
    assert f"layer {layer}'s hidden state" in outcome.message  # the first layer that leaks
    assert "layers=" in outcome.message and "tokens" in outcome.message


def test_ties_are_split_not_given_to_the_first_maximum() -> None:
    def first_max_one_hot(s: torch.Tensor, T: float) -> torch.Tensor:
        return onehot(int(torch.argmax(s)), len(s))
    outcome = search("temperature-zero-argmax", impl=first_max_one_hot)
    assert outcome.found and "tied between" in outcome.message, outcome.text


def test_stable_form_is_held_to_the_note_s_example() -> None:
    outcome = search("softmax-stable-form", impl=laws_softmax.plain_softmax)
    assert "at scores [1000, 999, 998]" in outcome.message, outcome.text


def test_real_implementations_pass_and_fails_laws_find_their_counterexample() -> None:
    for name in ("softmax-shift-invariance", "kv-cache-equals-recompute", "top-p-smallest-prefix"):
        outcome = search(name)
        assert outcome.status == VERIFIED and not outcome.found, outcome.text
        assert outcome.text.endswith(f"no counterexample in {outcome.examples} examples")
    outcome = search("permutation-breaks-with-order", {"mask": "causal"})
    assert outcome.found and outcome.status == VERIFIED, outcome.text
    assert "counterexample found, as the note says" in outcome.text


def test_searches_are_deterministic_under_the_ci_profile() -> None:
    for name, impl in (("kv-cache-equals-recompute", forgetful_generate),
                       ("softmax-ratio", None), ("attention-not-linear", None)):
        first = search(name, impl=impl, profile="ci")
        second = search(name, impl=impl, profile="ci")
        assert first == second


def test_searches_do_not_depend_on_the_hash_seed() -> None:
    code = ("from verifiers.properties.runner import search\n"
            "for name in ('attention-not-linear', 'permutation-breaks-with-order'):\n"
            "    print(search(name, profile='ci'))\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed}
                           ).stdout for seed in ("1", "2")}
    assert len(outs) == 1 and "found=True" in outs.pop()


def test_a_check_that_raises_is_an_error_with_a_message() -> None:
    def broken(s: torch.Tensor) -> torch.Tensor:
        raise ValueError("no softmax today")
    outcome = search("softmax-positive", impl=broken)
    assert outcome.error and outcome.status == ERROR
    assert "the check raised ValueError: no softmax today" in outcome.text


# -- the claims --------------------------------------------------------------------------------

def property_claims(tmp_path: Path) -> Path:
    """The property claim files, and the files of the claims their formula holes are read by
    (read_by:, verifiers/formulas/readby.py)."""
    target = tmp_path / "claims"
    files = set(ROOT.glob("claims/*/5*-properties*.yaml"))
    readers = {r.claim_id for path in files
               for c in load_claim_file(path, path.name, set()).claims for r in c.read_by.values()}
    for path in ROOT.glob("claims/*/*.yaml"):
        if any(re.search(rf"id: {re.escape(r)}$", line) for line in path.read_text("utf-8")
               .splitlines() for r in readers):
            files.add(path)
    for path in files:
        dest = target / path.relative_to(ROOT / "claims")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
    return target


def test_the_property_claims_verify_on_the_notes(tmp_path: Path) -> None:
    result = run(ROOT / "notes", property_claims(tmp_path))
    verdicts = [v for v in result.verdicts if v.kind == "property"]  # and their readers
    assert len(verdicts) >= 100
    bad = [f"{v.id}: {v.status}: {v.message}" for v in result.verdicts if not v.passed]
    assert not bad, "\n".join(bad)
    assert all(v.span is not None for v in verdicts)
    used = {v.values[0].name for v in verdicts}
    assert len(used) >= 55  # nearly every law of the catalog is bound to a sentence


NOTE = "第 1 章：例子\n1.1 软最大\n给所有分数加上同一个常数，结果不变。\n"


def project(tmp_path: Path, claims: str) -> Path:
    (tmp_path / "notes").mkdir(parents=True)
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(textwrap.dedent(claims), encoding="utf-8")
    return tmp_path


def check(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict]:
    out = root / "out.json"
    code = main(["check", "--notes", str(root / "notes"), "--claims", str(root / "claims"),
                 "--json", str(out)])
    text = capsys.readouterr()
    return code, text.out + text.err, json.loads(out.read_text(encoding="utf-8"))


SHIFT = """\
note: n.txt
claims:
  - id: shift
    kind: property
    section: "1.1"
    says: softmax ignores a common shift
    text: 给所有分数加上同一个常数，结果不变。
    property: softmax-shift-invariance
    params: {max_len: 4}
"""


def test_a_property_claim_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clear_cache()
    code, out, data = check(project(tmp_path, SHIFT), capsys)
    assert code == 0, out
    profile = os.environ.get("HYPOTHESIS_PROFILE") or "ci"  # the CLI's default
    n = round(profiles.settings_for(profile).max_examples * CATALOG[
        "softmax-shift-invariance"].cost)
    claim = data["claims"][0]
    assert claim["kind"] == "property" and claim["status"] == "verified"
    assert claim["message"] == f"softmax-shift-invariance: no counterexample in {n} examples"
    value = claim["values"][0]
    assert value["name"] == "softmax-shift-invariance"
    assert value["printed"] == "给所有分数加上同一个常数，结果不变。"
    assert value["expected"] == f"no counterexample in {n} examples"
    assert value["start"] == {"line": 3, "col": 1}


def test_cli_json_is_byte_identical_run_after_run(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, SHIFT)
    reports = []
    for run_no in range(2):
        clear_cache()  # a real second search, not the first one's memo
        os.environ["NOTECHECK_CACHE"] = str(tmp_path / f"cache-{run_no}")
        check(root, capsys)
        reports.append((root / "out.json").read_bytes())
    assert reports[0] == reports[1]


def test_a_counterexample_reaches_console_json_and_pytest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        pytester: pytest.Pytester) -> None:
    real = LAWS["softmax-shift-invariance"]

    def broken(params: Any) -> Any:
        law = real(params)
        return type(law)(law.strategy, law.check,
                         {"softmax1": lambda s: torch.exp(s) / (1 + torch.exp(s).sum())})
    monkeypatch.setitem(LAWS, "softmax-shift-invariance", broken)
    clear_cache()
    root = project(tmp_path / "p", SHIFT)
    code, out, data = check(root, capsys)
    assert code == 1
    message = data["claims"][0]["message"]
    assert data["claims"][0]["status"] == "discrepancy"
    assert message.startswith("softmax-shift-invariance: counterexample: softmax1: scores [")
    assert "n.txt:3:1: discrepancy: shift in " in out and message in out
    assert "Traceback" not in out

    clear_cache()
    pytester.makefile(".toml", pyproject='[tool.notecheck]\nnotes = "notes"\nclaims = "claims"\n')
    shutil.copytree(root / "notes", pytester.path / "notes")
    shutil.copytree(root / "claims", pytester.path / "claims")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "counterexample: softmax1: scores [" in text and "Traceback" not in text
    clear_cache()


def test_a_property_that_raises_is_an_error_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = LAWS["softmax-shift-invariance"]

    def raising(params: Any) -> Any:
        law = real(params)

        def check_fn(example: Any, f: Any) -> None:
            raise RuntimeError("tensor sizes do not match")
        return type(law)(law.strategy, check_fn, law.impls)
    monkeypatch.setitem(LAWS, "softmax-shift-invariance", raising)
    clear_cache()
    code, out, data = check(project(tmp_path, SHIFT), capsys)
    clear_cache()
    assert code == 1 and data["claims"][0]["status"] == "error"
    assert "the check raised RuntimeError: tensor sizes do not match" in out
    assert "Traceback" not in out


def test_without_hypothesis_a_property_claim_is_an_error_not_a_crash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "verifiers.properties.runner", None)  # import fails
    code, out, data = check(project(tmp_path, SHIFT), capsys)
    assert code == 1 and data["claims"][0]["status"] == "error"
    assert "property claims need Hypothesis and torch (pip install hypothesis)" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("body, line, fragment", [
    ("property: softmax-shift-invarience", 8, "unknown property 'softmax-shift-invarience' "
     "(did you mean 'softmax-shift-invariance'?)"),
    ("property: softmax-shift-invariance\n    params: {max_le: 4}", 9,
     "unknown parameter 'max_le' for property 'softmax-shift-invariance' (did you mean "
     "'max_len'?)"),
    ("property: softmax-shift-invariance\n    params: {max_len: 99}", 9,
     "params: max_len: 99 is outside [1, 16]"),
    ("property: permutation-breaks-with-order\n    params: {mask: none, positions: none}", 9,
     "nothing breaks the symmetry"),
    ("property: dot-product-variance\n    params: {entries: signs}", 9,
     "'signs' is not one of normal, sign (did you mean 'sign'?)"),
])
def test_bad_property_or_params_is_a_located_load_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, line: int, fragment: str
) -> None:
    claims = SHIFT.replace("property: softmax-shift-invariance\n    params: {max_len: 4}",
                           body)
    code, out, data = check(project(tmp_path, claims), capsys)
    assert code == 1
    assert data["claims"][0]["status"] == "error"
    assert fragment in out, out
    assert f"claims/c.yaml:{line}:" in out, out


def test_property_keys_need_kind_property_and_no_holes(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(textwrap.dedent("""\
        note: n.txt
        claims:
          - id: a
            text: x = ⟨x⟩
            property: softmax-positive
          - id: b
            kind: property
            text: x = ⟨x⟩
            property: softmax-positive
            check: {x: 1}
        """), encoding="utf-8")
    from verifiers.schema import load_claim_file

    loaded = load_claim_file(tmp_path / "c.yaml", "c.yaml", {"n.txt"})
    a, b = (" | ".join(str(p) for p in c.problems) for c in loaded.claims)
    assert "c.yaml:5:15: 'property' needs kind: property" in a
    assert "a property claim quotes the note without holes" in b
    assert "'check' does not apply to a property claim" in b


# -- profiles and laziness -------------------------------------------------------------------

def test_profile_selection() -> None:
    assert profiles.name({}) == "dev"
    assert profiles.name({"CI": "true"}) == "ci"
    assert profiles.name({"CI": "true", "HYPOTHESIS_PROFILE": "thorough"}) == "thorough"
    with profiles.default("ci"):
        assert profiles.name({}) == "ci"
        assert profiles.name({"HYPOTHESIS_PROFILE": "dev"}) == "dev"
    with pytest.raises(profiles.ProfileError, match="did you mean 'thorough'"):
        profiles.name({"HYPOTHESIS_PROFILE": "thorogh"})
    ci = profiles.settings_for("ci")
    assert ci.derandomize and ci.database is None and ci.deadline is None


def test_the_cli_runs_under_the_ci_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    import verifiers.cli as cli

    seen = []
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setitem(cli.COMMANDS, "check", lambda args: seen.append(profiles.name()) or 0)
    assert main(["check"]) == 0 and seen == ["ci"]
    assert profiles.name() == "dev"  # only for the command's duration


def test_loading_property_claims_and_arithmetic_runs_stay_light(tmp_path: Path) -> None:
    """Claim files load (and arithmetic claims run) without torch or Hypothesis."""
    code = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from verifiers.run import load_claims, run
        claims, problems = load_claims(Path({str(ROOT / "claims")!r}), {sorted(NOTES)!r})
        assert not problems and sum(c.kind == "property" for c in claims) >= 100
        result = run(Path({str(ROOT / "notes")!r}), Path({str(ROOT / "claims")!r}),
                     lambda c: c.file.endswith("01-input.yaml") and not c.computes)
        assert result.verdicts and all(v.passed for v in result.verdicts)
        print(",".join(m for m in ("torch", "hypothesis", "sympy") if m in sys.modules))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


def test_claim_files_name_known_properties() -> None:
    claims, problems = load_claims(ROOT / "claims", NOTES)
    assert not problems
    props = [c for c in claims if c.kind == "property"]
    assert props and all(not c.problems for c in props)
    # 5x-properties-*.yaml, or the statement files of issue 12 item 4 (7x/8x-*statements*.yaml)
    assert all((Path(c.file).name.startswith("5") and "properties" in c.file)
               or (Path(c.file).name[:1] in "78" and "statements" in Path(c.file).name)
               for c in props)


def test_the_claim_format_lists_every_property() -> None:
    text = (ROOT / "docs" / "claim-format.md").read_text(encoding="utf-8")
    missing = [name for name in NAMES if f"| `{name}` |" not in text]
    assert not missing, f"document these properties in docs/claim-format.md: {missing}"
