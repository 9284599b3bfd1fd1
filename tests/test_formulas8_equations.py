"""Sign-only readers replaced by equation readers (branch formulas8).

§5's Jacobian cases (``p_i(1-p_i)\\gt0``, ``-p_ip_j\\lt0``) and §6's gradient components
(``p_y-1\\le0``, ``p_j\\ge0``) were read as inequalities only: an edit that keeps the sign
(``p_i(2-p_i)``, ``p_y-2``) passed. Each is now read as the derivative the words name (a frame
``∂p_i/∂z_i = ⟪JD⟫`` under the definitions S, p_i the claim reads; ``∂(−ln p_y)/∂p_y ·
∂p_y/∂z_y = ⟪F⟫``) and its sign: a wrong expression with the right sign fails at its line, in
the symbolic reader and in the property claims that name it with ``read_by:``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.note_edits import run_edited

L1 = "lesson1-text-to-distribution.txt"
FAILING = ("discrepancy", "unparsed")

# (claim, find, replace): the first edits keep the printed sign true, so only an equation
# reader fails them; the last ones edit formulas that were quoted as text
EDITS = [
    ("l1-c-5-jacobian-from-definition", r"$p_i(1-p_i)\gt0$", r"$p_i(2-p_i)\gt0$"),
    ("l1-c-5-jacobian-from-definition", r"$p_i(1-p_i)\gt0$", r"$p_i\gt0$"),
    ("l1-c-5-jacobian-from-definition", r"$-p_ip_j\lt0$", r"$-p_ip_i\lt0$"),
    ("l1-c-5-jacobian-from-definition", r"$-p_ip_j\lt0$", r"$-p_i(1-p_j)\lt0$"),
    ("l1-p-5-jacobian-signs", r"$p_i(1-p_i)\gt0$", r"$p_i(2-p_i)\gt0$"),
    ("l1-s-6-gradient-sign-correct", r"$p_y-1\le0$", r"$p_y-2\le0$"),
    ("l1-s-6-gradient-sign-correct", r"$p_y-1\le0$", r"$p_y^2-1\le0$"),
    ("l1-s-6-gradient-sign-other", r"$p_j\ge0$", r"$p_j^2\ge0$"),
    ("l1-s-6-gradient-sign-other", r"$p_j\ge0$", r"$1-p_j\ge0$"),
    ("l1-p-6-signs", r"$p_y-1\le0$", r"$p_y-2\le0$"),
    ("l1-p-6-signs", r"$p_j\ge0$", r"$2p_j\ge0$"),
    # the limit p_y → 1 that l1-c-6-loss-at-zero quoted as text
    ("l1-f8-6-loss-at-one", r"$p_y\to1$ 时 $L\to0$", r"$p_y\to1$ 时 $L\to1$"),
    ("l1-f8-6-loss-at-one", r"$p_y\to1$ 时 $L\to0$", r"$p_y\to2$ 时 $L\to0$"),
    # (z_j-z_i)/T → 0 as T → ∞, quoted as text before
    ("l1-c-5-temperature-infinity-limits", r"每个 $(z_j-z_i)/T\to0$", r"每个 $(z_j-z_i)/T\to1$"),
]


@pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
@pytest.mark.parametrize(("cid", "find", "replace"), EDITS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EDITS)])
def test_a_wrong_formula_with_the_right_sign_fails_at_its_line(
        tmp_path: Path, real_verdict, cid: str, find: str, replace: str) -> None:
    clean = real_verdict(cid)
    assert clean.status == "verified", clean.message
    edited, line = run_edited(tmp_path, cid, L1, find, replace)
    assert edited.status in FAILING, (edited.status, edited.message)
    assert any(v.status in FAILING and v.start and v.start[0] == line for v in edited.values), \
        [(v.name, v.status, v.start, v.message) for v in edited.values]


@pytest.mark.usefixtures("real_claims_parsed_once")
@pytest.mark.parametrize(("cid", "find", "replace"), [
    # the printed sign itself still fails, as before
    ("l1-c-5-jacobian-from-definition", r"$-p_ip_j\lt0$", r"$-p_ip_j\gt0$"),
    ("l1-s-6-gradient-sign-correct", r"$p_y-1\le0$", r"$p_y-1\ge0$"),
])
def test_a_wrong_sign_still_fails(tmp_path: Path, real_verdict, cid: str, find: str,
                                  replace: str) -> None:
    edited, line = run_edited(tmp_path, cid, L1, find, replace)
    assert edited.status in FAILING, (edited.status, edited.message)
    assert any(v.status in FAILING and v.start[0] == line for v in edited.values)
