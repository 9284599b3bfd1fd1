"""Parameter words of procedure steps (issue 12 item 4): what a step selects, the order it
walks, how it compares, along which axis. Each is read from the note (``⟦order⟧`` …) and
checked against what tinygpt's code does (``verifiers/procedures/probe.py``), so a flipped
word is a ``discrepancy`` at that word and an unknown one ``unparsed``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.procedures import params, probe
from verifiers.run import run

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
NOTES, CLAIMS = ROOT / "notes", ROOT / "claims"
L1, MBM = "lesson1-text-to-distribution.txt", "matrix-by-matrix.txt"


def test_vocabulary_words_state_one_value_each() -> None:
    for cls in params.classes():
        for word in params.words_of(cls):
            assert params.value_of(cls, word) is not None
    assert params.value_of("order", "从 高 到 低") == "descending"  # spaces ignored
    assert params.value_of("compare", "超过") == "exceed"
    assert params.value_of("order", "从左到右") is None
    assert params.class_of("order2") == "order" and params.class_of("s2") is None


@pytest.mark.parametrize(("op", "cls", "value"), [
    ("merge", "select", "most"), ("top_k", "select", "most"),
    ("sort", "order", "descending"), ("cumulative", "order", "descending"),
    ("cut", "compare", "reach"), ("stop", "compare", "reach"), ("softmax", "axis", "rows"),
])
def test_probes_observe_tinygpt(op: str, cls: str, value: str) -> None:
    """The value is observed on an input where every value of the class differs."""
    seen = probe.observe(op, cls)
    assert seen is not None and seen[0] == value, seen


def test_a_probe_sees_a_changed_tinygpt(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe is a measurement: a top-p that stops only above P is seen as `exceed`."""
    import torch

    import tinygpt

    def strict(probs, p):  # keeps tokens until the running sum is > p
        sorted_probs, order = torch.sort(probs, descending=True)
        n = int((torch.cumsum(sorted_probs, -1) > p).nonzero()[0]) + 1
        out = torch.zeros_like(probs)
        out[order[:n]] = probs[order[:n]]
        return out / out.sum()

    monkeypatch.setattr(tinygpt, "top_p_filter", strict)
    probe.observe.cache_clear()
    try:
        assert probe.observe("cut", "compare")[0] == "exceed"
    finally:
        probe.observe.cache_clear()


def _run(tmp_path: Path, note: str, claim: str, find: str | None = None,
         replace: str = "") -> dict:
    notes = tmp_path / "notes"
    shutil.copytree(NOTES, notes)
    if find is not None:
        path = notes / note
        text = path.read_text(encoding="utf-8")
        assert text.count(find) == 1, find
        path.write_text(text.replace(find, replace), encoding="utf-8")
    with profiles.default("ci"):
        result = run(notes, CLAIMS, select=lambda c: c.id == claim)
    return {v.id: v for v in result.verdicts}


def _line(note: str, find: str) -> int:
    text = (NOTES / note).read_text(encoding="utf-8")
    return text[:text.index(find)].count("\n") + 1


FLIPS = [  # (note, find, replace, claim, status, hole)
    (L1, "把出现最多的那一对", "把出现最少的那一对", "l1-proc-1-bpe", "discrepancy", "select"),
    (MBM, "将所有 Token 按概率从高到低排序", "将所有 Token 按概率从低到高排序",
     "mbm-proc-9-1-topk", "discrepancy", "order"),
    (MBM, "2. 从高到低累加概率", "2. 从低到高累加概率", "mbm-proc-10-1-topp", "discrepancy",
     "order2"),
    (MBM, "当累积概率首次达到 P 时", "当累积概率首次超过 P 时", "mbm-proc-10-1-topp",
     "discrepancy", "compare"),
    (MBM, "当累积概率首次达到 P 时", "当累积概率首次低于 P 时", "mbm-proc-10-1-topp",
     "discrepancy", "compare"),
    (MBM, "将所有 Token 按概率从高到低排序", "将所有 Token 按概率从左到右排序",
     "mbm-proc-9-1-topk", "unparsed", "order"),
]


@pytest.mark.parametrize(("note", "find", "replace", "claim", "status", "hole"), FLIPS,
                         ids=[f"{f[3]}-{f[5]}-{k}" for k, f in enumerate(FLIPS)])
def test_a_flipped_parameter_word_is_judged_at_the_word(
        tmp_path: Path, note: str, find: str, replace: str, claim: str, status: str,
        hole: str) -> None:
    verdict = _run(tmp_path, note, claim, find, replace)[claim]
    assert verdict.status == status, verdict.message
    bad = {v.name: v for v in verdict.values if v.status == status}
    # an unknown word glued to its step's word may leave the step word unknown too
    assert hole in bad and set(bad) <= {hole, "s1"}, [(v.name, v.message) for v in verdict.values]
    assert bad[hole].start[0] == _line(note, find)
    changed = next(r for w, r in zip(find, replace, strict=False) if w != r)
    assert changed in bad[hole].printed or status == "unparsed"
    if status == "discrepancy":
        assert list(bad) == [hole]


def test_the_parameter_words_verify_and_are_covered(tmp_path: Path) -> None:
    verdicts = _run(tmp_path, MBM, "mbm-proc-10-1-topp")
    values = {v.name: v for v in verdicts["mbm-proc-10-1-topp"].values}
    assert {k: (v.status, v.printed) for k, v in values.items()
            if k in ("order", "order2", "compare")} == {
        "order": ("verified", "从高到低"), "order2": ("verified", "从高到低"),
        "compare": ("verified", "达到")}


AXIS_NOTE = "注意力按三步算：\n\n1. 打分\n2. 对每一行做 Softmax\n3. 汇总\n"
AXIS_CLAIM = """note: axis.txt
claims:
  - id: axis-steps
    kind: procedure
    text: "注意力按三步算：\\n\\n1. ⟦s1⟧\\n2. 对⟦axis⟧做 ⟦s2⟧\\n3. ⟦s3⟧"
    trace:
      run: attention
      omit: [qkv, scale, concat, output_projection]
      why: the steps start from Q and K and stop at the weighted sum
"""


@pytest.mark.parametrize(("word", "status"), [("每一行", "verified"), ("每一列", "discrepancy"),
                                              ("对角线", "unparsed")])
def test_the_axis_of_a_step(tmp_path: Path, word: str, status: str) -> None:
    """A step that normalises along the other axis than tinygpt's softmax is a discrepancy."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "claims" / "axis").mkdir(parents=True)
    (tmp_path / "notes" / "axis.txt").write_text(AXIS_NOTE.replace("每一行", word),
                                                 encoding="utf-8")
    (tmp_path / "claims" / "axis" / "75-procedures.yaml").write_text(AXIS_CLAIM,
                                                                     encoding="utf-8")
    with profiles.default("ci"):
        result = run(tmp_path / "notes", tmp_path / "claims")
    verdict = result.verdicts[0]
    axis = next(v for v in verdict.values if v.name == "axis")
    assert axis.status == status, axis.message
    assert axis.printed == word and axis.start[0] == 4
