"""Issue 13.1 (no vacuous proof): lesson 1's chain rule over indexed names
∂L/∂x_j = Σ_i ∂L/∂z_i ∂z_i/∂x_j, with L and z_i undefined, and broken copies of it."""
from __future__ import annotations

import pytest

from tests.test_engine import check, project

RIGHT = ("\\frac{\\partial L}{\\partial x_j}=\\sum_{i}\\frac{\\partial L}{\\partial z_i}\\,"
         "\\frac{\\partial z_i}{\\partial x_j}")  # lesson 1, line 35
DZ, XZ = "\\frac{\\partial z_i}{\\partial x_j}", "\\frac{\\partial x_j}{\\partial z_i}"
BROKEN = {
    "flipped": RIGHT.replace(DZ, XZ),
    "no-sum": RIGHT.replace("\\sum_{i}", ""),
    "swapped-index": RIGHT.replace(DZ, "\\frac{\\partial z_j}{\\partial x_i}"),
    "extra-term": RIGHT + "+\\frac{\\partial L}{\\partial x_j}",
}
NOTE = "第 1 章\n1.1 链式\n" + "".join(
    f"{label} $${formula}.$$\n" for label, formula in [("对", RIGHT)] + [
        (f"错{k}", v) for k, v in enumerate(BROKEN.values())])


def _claims() -> str:
    labels = [("right", "对")] + [(k, f"错{n}") for n, k in enumerate(BROKEN)]
    return "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {cid}{tag}\n    kind: symbolic\n    text: {label} $$⟪F⟫.$$\n{extra}"
        for cid, label in labels
        for tag, extra in (("", ""), ("-int", "    assume: {integer: [i, j]}\n")))


def _status(tmp_path, capsys):
    _, out, data = check(project(tmp_path, _claims(), NOTE), capsys)
    return {c["id"]: c for c in data["claims"]}, out


@pytest.fixture(name="claims")
def _checked(tmp_path, capsys):
    _, _, data = check(project(tmp_path, _claims(), NOTE), capsys)
    return {c["id"]: c for c in data["claims"]}


@pytest.mark.parametrize("tag", ["", "-int"])
def test_the_chain_rule_over_undefined_names_is_not_proved(claims, tag):
    """L and z_i are named only in words: the rule is not proved by holding z_i and x_j
    independent (∂z_i/∂x_j = 0 made both sides 0); it fails and names them."""
    claim = claims["right" + tag]
    assert claim["status"] == "discrepancy", claim["message"]
    for name in ("∂L/∂x_j: L has no definition", "∂z_i/∂x_j: z_i has no definition",
                 "add define: or the note's own definition"):
        assert name in claim["message"], claim["message"]
    assert "proved" not in claim["message"].replace("not proved", "")


@pytest.mark.parametrize("tag", ["", "-int"])
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_broken_copies_of_the_chain_rule_do_not_verify(claims, broken, tag):
    """Held-out-style planted errors: each was `verified` before (0 = 0 over independent
    entries); none may verify, and each names an undefined name."""
    claim = claims[broken + tag]
    assert claim["status"] == "discrepancy", claim["message"]
    assert "has no definition" in claim["message"], claim["message"]


def test_the_flipped_factor_names_x_j(claims):
    for tag in ("", "-int"):
        assert "∂x_j/∂z_i: x_j has no definition" in claims["flipped" + tag]["message"]


def test_a_defined_index_chain_still_proves(tmp_path, capsys):
    """The guard is not a blanket failure: with z_j = Σ_k x_k W_{kj} given for every
    index, ∂z_j/∂x_k = W_{kj} is written out on the instance and proved; a wrong one fails."""
    note = ("第 1 章\n1.1 x\n定义 z_j = \\sum_{k} x_k W_{kj}\n"
            "对 \\frac{\\partial z_j}{\\partial x_k} = W_{kj}\n"
            "定义 z_j = \\sum_{k} x_k W_{kj}\n错 \\frac{\\partial z_j}{\\partial x_k} = W_{jk}\n")
    claims = "note: n.txt\nclaims:\n" + "".join(
        f"  - id: {cid}\n    kind: symbolic\n    text: |\n      定义 ⟪D⟫\n      {w} ⟪F⟫\n"
        "    define: {z_j: D}\n    assume: {integer: [j, k]}\n"
        for cid, w in (("good", "对"), ("bad", "错")))
    _, out, data = check(project(tmp_path, claims, note), capsys)
    status = {c["id"]: c["status"] for c in data["claims"]}
    assert status == {"good": "verified", "bad": "discrepancy"}, out
