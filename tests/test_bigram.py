"""Tests of tinygpt.bigram against the NumPy program printed in lesson 1 §7.

The note's program is run in the jail with two additions, so that it reports
full-precision numbers instead of its 4-decimal prints:

* a prelude shadows the builtin ``round`` with ``repr`` — the program's
  ``print(step, round(float(loss), 4))`` then prints the exact float loss;
* a postlude prints the final ``E`` and ``WU`` as JSON.

The program's constants (text, d, lr, seed, steps, init scales) are read from its
source with ``ast``, not retyped here, so an edit of the note re-runs the check.
"""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tinygpt.bigram import (
    counting_bound,
    encode_first_occurrence,
    fit_bigram,
    numpy_init,
    train_bigram,
)
from verifiers.programs import extract_program, printed_losses, run_program

NOTE = Path(__file__).resolve().parents[1] / "notes" / "lesson1-text-to-distribution.txt"
PRELUDE = "def round(x, n=None):\n    return repr(x)\n\n"
POSTLUDE = "\nimport json\nprint('PARAMS', json.dumps({'E': E.tolist(), 'WU': WU.tolist()}))\n"


def _constants(source: str) -> dict[str, Any]:
    """The literal settings of the note's program, found by walking its AST."""
    found: dict[str, Any] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                pairs = list(zip(target.elts, value.elts, strict=True))
            else:
                pairs = [(target, value)]
            for t, v in pairs:
                if not isinstance(t, ast.Name):
                    continue
                if isinstance(v, ast.Constant):
                    found[t.id] = v.value
                elif isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute):
                    try:
                        found[f"{t.id}.{v.func.attr}"] = [ast.literal_eval(a) for a in v.args[:2]]
                    except ValueError:  # not a literal call such as default_rng(0)
                        pass
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
            if getattr(node.iter.func, "id", None) == "range":
                found["steps"] = ast.literal_eval(node.iter.args[0])
    return found


@pytest.fixture(scope="module")
def program() -> str:
    return extract_program(NOTE.read_text(encoding="utf-8"), "import numpy as np")


@pytest.fixture(scope="module")
def setup(program: str) -> dict[str, Any]:
    c = _constants(program)
    vocab, ids = encode_first_occurrence(c["text"])
    (seed,) = c["rng.default_rng"]
    assert c["E.normal"][0] == 0.0 and c["WU.normal"][0] == 0.0  # zero-mean draws
    init = numpy_init(len(vocab), c["d"], seed, e_std=c["E.normal"][1], u_std=c["WU.normal"][1])
    return {
        "ids": ids,
        "V": len(vocab),
        "d": c["d"],
        "lr": c["lr"],
        "steps": c["steps"],
        "init": init,
    }


@pytest.fixture(scope="module")
def numpy_run(program: str) -> tuple[dict[int, float], dict[str, np.ndarray]]:
    """Full-precision losses (every 100th step) and final parameters of the note's program."""
    result = run_program(PRELUDE + program + POSTLUDE, timeout=30)
    assert result.returncode == 0 and not result.timed_out, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("PARAMS ")
    params = {k: np.array(v) for k, v in json.loads(lines[-1][len("PARAMS ") :]).items()}
    losses = {int(s): float(v) for s, v in (ln.split() for ln in lines[:-1])}
    return losses, params


def test_torch_matches_numpy_program(setup: dict[str, Any], numpy_run: Any) -> None:
    losses, params = numpy_run
    run = fit_bigram(
        setup["ids"], setup["V"], setup["d"], setup["lr"], setup["steps"], setup["init"]
    )
    assert len(run.losses) == setup["steps"]
    for step, loss in losses.items():
        assert abs(run.losses[step] - loss) <= 1e-10, step
    # the final parameters pin the whole trajectory, not only the printed steps
    assert np.max(np.abs(run.E - params["E"])) <= 1e-10
    assert np.max(np.abs(run.WU - params["WU"])) <= 1e-10


def test_comment_losses_are_true_at_printed_precision(program: str, numpy_run: Any) -> None:
    """``# 0 2.732 … 500 0.6557``: each value is the true loss rounded to its decimals."""
    losses, _ = numpy_run
    claims = printed_losses(program)
    assert claims, "the note's program comments no longer print losses"
    for c in claims:
        half = Decimal(5) * Decimal(10) ** -(c.decimals + 1)
        assert abs(Decimal(repr(losses[c.step])) - c.value) <= half, (c, losses[c.step])


def test_shape_comment(program: str, setup: dict[str, Any]) -> None:
    """``V, d, B = len(vocab), 8, len(cur)  # 15, 8, 36``."""
    line = next(ln for ln in program.splitlines() if ln.startswith("V, d, B"))
    printed = [int(x) for x in line.split("#", 1)[1].split(",")]
    assert printed == [setup["V"], setup["d"], len(setup["ids"]) - 1]


def test_loss_stays_above_counting_bound(setup: dict[str, Any]) -> None:
    losses = train_bigram(
        setup["ids"], setup["V"], setup["d"], setup["lr"], setup["steps"], setup["init"]
    )
    bound = counting_bound(setup["ids"])
    assert min(losses) >= bound
    assert abs(losses[0] - np.log(setup["V"])) < 0.05  # starts near ln V (small logits)


def test_counting_bound_small_case() -> None:
    # 0→1 twice, 0→2 once, 1→0, 2→0: only token 0 is uncertain (2/3, 1/3).
    ids = [0, 1, 0, 2, 0, 1, 0]
    expected = -(2 * np.log(2 / 3) + np.log(1 / 3)) / 6
    assert counting_bound(ids) == pytest.approx(expected, abs=1e-15)


def test_batches_and_bias() -> None:
    """A mini-batch schedule and a bias are used when given; runs are deterministic."""
    ids = [0, 1, 2, 0, 1, 2, 0, 2]
    init = numpy_init(3, 2, seed=1)
    rng = np.random.default_rng(5)
    sched = [rng.integers(0, len(ids) - 1, 4) for _ in range(20)]
    a = train_bigram(ids, 3, 2, 0.5, 20, init, batches=sched)
    b = train_bigram(ids, 3, 2, 0.5, 20, init, batches=sched)
    full = train_bigram(ids, 3, 2, 0.5, 20, init)
    assert a == b and a != full
    with_b = fit_bigram(ids, 3, 2, 0.5, 20, {**init, "b": np.zeros(3)})
    assert with_b.b is not None and np.any(with_b.b != 0)
    assert with_b.losses[0] == full[0]  # a zero bias changes nothing before the first update
    with pytest.raises(ValueError, match="schedule ended"):
        train_bigram(ids, 3, 2, 0.5, 21, init, batches=sched)


def test_single_step_matches_hand_gradient() -> None:
    """One full-batch step equals the note's formulas: dWU = XᵀG, dE[i] += G W_Uᵀ."""
    ids = [0, 1, 1, 2, 0]
    init = numpy_init(3, 2, seed=3)
    run = fit_bigram(ids, 3, 2, 0.7, 1, init)
    E, WU = init["E"], init["WU"]
    cur, nxt = np.array(ids[:-1]), np.array(ids[1:])
    X = E[cur]
    Z = X @ WU
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    G = P.copy()
    G[np.arange(len(cur)), nxt] -= 1
    G /= len(cur)
    dE = np.zeros_like(E)
    np.add.at(dE, cur, G @ WU.T)
    np.testing.assert_allclose(run.WU, WU - 0.7 * X.T @ G, rtol=0, atol=1e-14)
    np.testing.assert_allclose(run.E, E - 0.7 * dE, rtol=0, atol=1e-14)
