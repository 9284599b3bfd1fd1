"""A plain-text definition read and compared with tinygpt (verifiers/formulas/holes.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from verifiers.formulas.holes import FormulaError, read_definition

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
MBM = "matrix-by-matrix.txt"
FORMULA = "Attention_Weight[i,j] = exp(score[i,j] / √d_k) / Σ_j exp(score[i,j] / √d_k)"


def test_read_definition() -> None:
    d = read_definition(FORMULA)
    assert d.name == "Attention_Weight" and d.indices == ("i", "j")
    with pytest.raises(FormulaError):
        read_definition("W[i,j] = exp(score[i,j] / √d_k) /")
    with pytest.raises(FormulaError):
        read_definition("W[i,j] = __import__('os')")


def _check(tmp_path: Path, replace: str | None, capsys: pytest.CaptureFixture[str]) -> dict:
    from verifiers.cli import main

    notes = tmp_path / "notes"
    shutil.copytree(REPO / "notes", notes)
    path = notes / MBM
    text = path.read_text(encoding="utf-8")
    assert text.count(FORMULA) == 1
    if replace is not None:
        path.write_text(text.replace(FORMULA, replace), encoding="utf-8")
    report = tmp_path / "r.json"
    main(["check", "--notes", str(notes), "--claims", str(REPO / "claims"), "-k",
          "mbm-fh-4-1-softmax-formula", "--no-cache", "-j", "1", "--json", str(report)])
    capsys.readouterr()
    (claim,) = json.loads(report.read_text(encoding="utf-8"))["claims"]
    return claim


@pytest.mark.parametrize("replace", [
    FORMULA.replace("/ Σ_j exp(score[i,j] / √d_k)", "/ Σ_j exp(score[i,j] / d_k)"),
    FORMULA.replace("exp(score[i,j] / √d_k) /", "exp(score[i,j]) /"),
    FORMULA.replace("Σ_j exp(score[i,j]", "Σ_j exp(score[j,i]"),
    FORMULA.replace("exp(score[i,j] / √d_k) /", "exp(-score[i,j] / √d_k) /"),
])
def test_an_edited_formula_fails_at_it(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       replace: str) -> None:
    assert _check(tmp_path, None, capsys)["status"] == "verified"
    claim = _check(tmp_path / "edited", replace, capsys)
    assert claim["status"] == "discrepancy"
    (value,) = claim["values"]
    text = (REPO / "notes" / MBM).read_text(encoding="utf-8")
    assert value["start"]["line"] == text[:text.index(FORMULA)].count("\n") + 1
    assert "tinygpt.attention" in value["message"]


def test_an_unreadable_formula_is_unparsed(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    claim = _check(tmp_path, FORMULA.replace("exp(score", "exp{score", 1), capsys)
    assert claim["status"] == "unparsed"
