"""Procedures opened into their steps (issue 12 item 4, the coverage lists of the three notes):
softmax as exp then normalise (3.3, matrix-by-matrix 8.2), generation's three steps (10.3).
A step moved, dropped or replaced is a ``discrepancy`` (or an unknown word ``unparsed``) at
the step, for each kind of run a procedure is checked against."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.procedures.spec import parse_trace
from verifiers.procedures.trace import expected
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
NOTES, CLAIMS = ROOT / "notes", ROOT / "claims"
AAT, L1, MBM = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
                "matrix-by-matrix.txt")


def _verdicts(tmp_path: Path, note: str, find: str | None = None, replace: str = "") -> list:
    notes = tmp_path / "notes"
    shutil.copytree(NOTES, notes)
    if find is not None:
        path = notes / note
        text = path.read_text(encoding="utf-8")
        assert text.count(find) == 1, find
        path.write_text(text.replace(find, replace), encoding="utf-8")
    with profiles.default("ci"):
        result = run(notes, CLAIMS, select=lambda c: c.kind == "procedure" and c.note == note)
    return result.verdicts


def test_softmax_is_recorded_as_its_two_steps() -> None:
    spec, problems = parse_trace({"run": "attention", "expand": ["softmax"],
                                  "omit": ["qkv", "scores", "scale", "weighted_sum", "concat",
                                           "output_projection"], "why": "test"})
    assert spec is not None and not problems
    assert expected(spec) == ["exp", "normalize"]
    closed, _ = parse_trace({"run": "attention"})
    assert closed is not None and "exp" not in expected(closed) and "softmax" in expected(closed)


def test_the_new_procedure_claims_verify(tmp_path: Path) -> None:
    verdicts = {v.id: v for v in _verdicts(tmp_path, AAT) + _verdicts(tmp_path / "m", MBM)}
    for cid in ("aat-proc-3-3-softmax-steps", "aat-proc-12-generation",
                "mbm-proc-8-2-temperature-steps"):
        assert verdicts[cid].status == "verified", (cid, verdicts[cid].message)


# (note, find, replace, claim, status, what the message names): per kind of run,
# a step moved, dropped and replaced
EDITS = [
    # attention (softmax opened): replaced, moved
    (AAT, "第一步：每个分数取指数", "第一步：每个分数取对数",
     "aat-proc-3-3-softmax-steps", "unparsed", "'取对数' is not an operation word"),
    (AAT, "第一步：每个分数取指数", "第一步：每个分数除以总和",
     "aat-proc-3-3-softmax-steps", "discrepancy", "normalize"),
    # decoding (softmax opened): moved, dropped, replaced
    (MBM, "Step 1：除以 T\nStep 2：exp", "Step 1：exp\nStep 2：除以 T",
     "mbm-proc-8-2-temperature-steps", "discrepancy", "exp"),
    (MBM, "Step 1：除以 T\nStep 2：exp\nStep 3：归一化", "Step 1：除以 T\nStep 2：归一化",
     "mbm-proc-8-2-temperature-steps", "discrepancy", "missing step exp"),
    (MBM, "Step 2：exp\nStep 3：归一化", "Step 2：exp\nStep 3：采样",
     "mbm-proc-8-2-temperature-steps", "discrepancy", "sample"),
    # decoding (a flowchart box): the operator belongs to the step (÷ Temperature, not ×)
    (MBM, "（可选）÷ Temperature", "（可选）× Temperature",
     "mbm-proc-11-3-decoding-box", "unparsed", "'× Temperature' is not an operation word"),
    # decoding (a generation loop): replaced, moved
    (AAT, "第二步：预测下一个 Token", "第二步：计算损失并更新参数",
     "aat-proc-12-generation", "unparsed", "is not an operation word"),
    (AAT, "第二步：预测下一个 Token", "第二步：放回输入序列",
     "aat-proc-12-generation", "discrepancy", "append"),
    # forward: moved, replaced
    (MBM, "<EOS>\" │ │\n│ │ │ │\n│ │ Forward Pass： │ │\n│ │ X_input → MultiHead → FFN",
     "<EOS>\" │ │\n│ │ │ │\n│ │ Forward Pass： │ │\n│ │ X_input → FFN → MultiHead",
     "mbm-proc-12-train-forward", "discrepancy", "ffn"),
    # training: dropped
    (MBM, "Loss → 反向传播梯度 → 更新 W_q", "Loss → 更新 W_q", "mbm-proc-12-backward",
     "discrepancy", "missing step backward"),
    # bpe: replaced (its parameter word 最多 then sets a step no probe reads: unparsed too)
    (L1, "3. 把出现最多的那一对合并成一个新单位", "3. 把出现最多的那一对拆成一个新单位",
     "l1-proc-1-bpe", "unparsed", "s3: read split ('拆成'), tinygpt's bpe"),
]


@pytest.mark.parametrize(("note", "find", "replace", "claim", "status", "names"), EDITS,
                         ids=[f"{e[3]}-{k}" for k, e in enumerate(EDITS)])
def test_a_step_edit_is_judged_at_the_step(tmp_path: Path, note: str, find: str, replace: str,
                                           claim: str, status: str, names: str) -> None:
    verdicts = {v.id: v for v in _verdicts(tmp_path, note, find, replace)}
    verdict = verdicts[claim]
    assert verdict.status == status, verdict.message
    assert names in verdict.message, verdict.message
    text = (NOTES / note).read_text(encoding="utf-8")
    first = text[:text.index(find)].count("\n") + 1
    edited = range(first, first + max(find.count("\n"), replace.count("\n")) + 1)
    assert verdict.where[0] in edited, (verdict.where, list(edited))
