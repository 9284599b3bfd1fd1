"""Issue 14, the claim-file vocabulary: sigmoid/relu, user ``functions:``, file
``constants:``, bounded ``iterate:``. Each feature: a verified use and a planted error caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_engine import check, project
from verifiers import expr as ex
from verifiers.schema import load_claim_file

NOTE = """1 训练
一个神经元：x = 1, y = 1, 初始 w = 0.5, b = 0 (学习率见图 2)
10 步之后 w ≈ 0.8241, b ≈ 0.3241, 损失 ≈ 0.0290
"""

CLAIMS = """note: n.txt
constants:
  lr: {value: "0.5", reason: "the learning rate is shown only in figure 2"}
functions:
  "sig(z)": "1 / (1 + exp(-z))"
  "mse(a, t)": "(a - t)^2 / 2"
  "delta(w, b, x, y)": "(sig(w*x + b) - y) * sig(w*x + b) * (1 - sig(w*x + b))"
claims:
  - id: train10
    says: ten gradient steps of a one-neuron sigmoid model
    text: |
      一个神经元：x = ⟨x⟩, y = ⟨y⟩, 初始 w = ⟨w0⟩, b = ⟨b0⟩ (学习率见图 2)
      10 步之后 w ≈ ⟨w10⟩, b ≈ ⟨b10⟩, 损失 ≈ ⟨loss⟩
    iterate:
      state: {w: w0, b: b0}
      step:
        w: w - lr * delta(w, b, x, y) * x
        b: b - lr * delta(w, b, x, y)
      times: 10
    check:
      w10: w
      b10: b
      loss: mse(sigmoid(w*x + b), y)
"""


def _load(tmp_path: Path, claims: str):
    path = tmp_path / "c.yaml"
    path.write_text(claims, encoding="utf-8")
    return load_claim_file(path, "claims/n/c.yaml", {"n.txt"})


def _problems(loaded) -> list[str]:
    return [str(p) for p in loaded.problems] + [str(p) for c in loaded.claims for p in c.problems]


# -- the grammar ---------------------------------------------------------------------


def test_sigmoid_relu_tanh_are_builtins():
    value = ex.evaluate(ex.parse("sigmoid(0) + relu(-2) + relu(3) + tanh(0)"), {})
    assert value == 3.5
    enclosure = ex.evaluate(ex.parse("sigmoid(x)"), {"x": 0.5}, "interval")
    assert ex.evaluate(ex.parse("1/(1+exp(-0.5))"), {}) in enclosure
    assert enclosure.delta < 1e-35


def test_user_functions_parse_to_an_ast_and_check_arity():
    sig = ex.define_function("sig(x)", "1 / (1 + exp(-x))", {}, ["sig", "mse"])
    mse = ex.define_function("mse(a, b)", "(a - b)^2 / 2", {"sig": sig}, ["mse"])
    fns = {"sig": sig, "mse": mse}
    assert ex.evaluate(ex.parse("mse(3, 1) + sig(0)", fns), {}, "point", fns) == 2.5
    with pytest.raises(ex.ExprError, match=r"mse\(a, b\) takes 2 arguments, got 1"):
        ex.parse("mse(3)", fns)
    with pytest.raises(ex.ExprError, match="unknown function 'sig'"):
        ex.parse("sig(1)")  # not without the claim's functions
    bare = ex.define_function("σ", "1/(1+exp(-x))", {})
    assert bare.params == ("x",)


@pytest.mark.parametrize(("signature", "body", "later", "message"), [
    ("f(x)", "f(x - 1)", ["f"], "recursion is not allowed: the body calls itself"),
    ("g(x)", "h(x) + 1", ["g", "h"], "calls 'h', defined after it"),
    ("exp(x)", "x", [], "built-in name"),
    ("f(x, x)", "x", [], "named twice"),
])
def test_bad_definitions_are_refused(signature, body, later, message):
    with pytest.raises(ex.ExprError, match=message):
        ex.define_function(signature, body, {}, later)


def test_iterate_is_bounded():
    step = {"w": ex.parse("w / 2")}
    assert ex.iterate({"w": ex.parse("1")}, step, 3, {}) == {"w": 0.125}
    with pytest.raises(ex.ExprError, match="times must be 0 to 100,000"):
        ex.iterate({"w": ex.parse("1")}, step, 10**9, {})
    big = {"w": ex.parse("sum(range(1000)) + w")}
    with pytest.raises(ex.ExprError, match="too expensive|work bound"):
        ex.iterate({"w": ex.parse("1")}, big, 10_000, {})


# -- claims end to end -----------------------------------------------------------------


def test_ten_training_steps_verify_and_json_lists_the_constant(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE), capsys)
    assert code == 0, out
    claim = data["claims"][0]
    assert claim["status"] == "verified"
    assert claim["constants"] == [{"name": "lr", "value": "0.5", "reason":
                                   "the learning rate is shown only in figure 2", "line": 3}]


def test_wrong_value_after_ten_steps_is_caught(tmp_path, capsys):
    code, out, data = check(project(tmp_path, CLAIMS, NOTE.replace("0.8241", "0.8242")), capsys)
    assert code == 1
    assert "w10: printed 0.8242, expected 0.8241" in out


def test_wrong_constant_is_caught(tmp_path, capsys):
    claims = CLAIMS.replace('value: "0.5"', 'value: "0.05"')
    code, out, _ = check(project(tmp_path, claims, NOTE), capsys)
    assert code == 1 and "discrepancy" in out and "w10" in out


def test_constant_needs_a_reason_and_never_clashes(tmp_path):
    loaded = _load(tmp_path, CLAIMS.replace(', reason: "the learning rate is shown only in '
                                            'figure 2"', ""))
    assert any(p.startswith("claims/n/c.yaml:3:") and "'reason' is required" in p
               for p in _problems(loaded))
    clash = CLAIMS.replace("lr: {", "x: {").replace("lr *", "x *")
    assert any("'x' is bound twice (the file's constants" in p for p in _problems(_load(tmp_path,
                                                                                       clash)))


def test_recursive_function_is_refused_at_its_line(tmp_path):
    claims = CLAIMS.replace('"mse(a, t)": "(a - t)^2 / 2"', '"mse(a, t)": "mse(a, t) + 1"')
    problems = _problems(_load(tmp_path, claims))
    assert any(p.startswith("claims/n/c.yaml:6:") and "recursion is not allowed" in p
               for p in problems), problems
    later = CLAIMS.replace('"(a - t)^2 / 2"', '"delta(a, t, 1, 1)"')
    assert any(p.startswith("claims/n/c.yaml:6:") and "defined after it" in p
               for p in _problems(_load(tmp_path, later)))


def test_function_body_reads_only_params_and_constants(tmp_path):
    claims = CLAIMS.replace('"(a - t)^2 / 2"', '"(a - t)^2 / 2 + q"')
    assert any(p.startswith("claims/n/c.yaml:6:") and "unknown name 'q'" in p
               for p in _problems(_load(tmp_path, claims)))


@pytest.mark.parametrize("times", ["10**9", "1000000000", "-1", "2.5"])
def test_unbounded_times_is_refused_at_its_line(tmp_path, times):
    problems = _problems(_load(tmp_path, CLAIMS.replace("times: 10", f"times: {times}")))
    assert [p for p in problems if "iterate" in p or "unknown name" in p] == [
        f"claims/n/c.yaml:19:14: iterate: times is a whole number from 0 to 100,000, got {times}"]


def test_work_bound_is_refused_at_load(tmp_path):
    claims = CLAIMS.replace("times: 10", "times: 100000")
    problems = _problems(_load(tmp_path, claims))
    assert any("exceed the work bound" in p for p in problems), problems


def test_claim_level_functions_and_a_symbolic_list_elsewhere(tmp_path, capsys):
    claims = CLAIMS.replace("      loss: mse(sigmoid(w*x + b), y)\n",
                            "      loss: half(sigmoid(w*x + b) - y)\n"
                            '    functions: {"half(d)": "d^2 / 2"}\n')
    code, out, _ = check(project(tmp_path, claims, NOTE), capsys)
    assert code == 0, out
    listed = CLAIMS.replace("    check:\n", "    functions: [sig]\n    check:\n", 1)
    assert any("'functions' maps 'name(params)'" in p for p in _problems(_load(tmp_path, listed)))


def test_a_constant_never_covers_a_literal_of_the_note(tmp_path, capsys, monkeypatch):
    from verifiers.cli import main

    note = NOTE + "图 2 旁的文字：学习率 0.5\n"
    root = project(tmp_path, CLAIMS, note)
    monkeypatch.chdir(root)
    assert main(["coverage"]) == 1
    out = capsys.readouterr().out
    assert "notes/n.txt:4:" in out and "uncovered: 0.5" in out  # the figure value stays uncovered
