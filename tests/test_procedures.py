"""Procedure claims (issue 12 item 4): a note's steps are read and checked against the order
tinygpt records when it runs, so a step moved, dropped, duplicated or replaced is a
``discrepancy`` at its line and an unknown word is ``unparsed``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from verifiers import profiles
from verifiers.procedures import read
from verifiers.procedures.spec import parse_trace
from verifiers.procedures.trace import compress, expected, recorded, view
from verifiers.run import run
from verifiers.schema import load_claim_file

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.usefixtures("real_claims_parsed_once")  # tests/conftest.py
NOTES, CLAIMS = ROOT / "notes", ROOT / "claims"


# ----------------------------------------------------------------------------- the trace


def test_every_recorded_operation_has_words() -> None:
    """What tinygpt records can be said in a note: each name is in the vocabulary."""
    runs = [{"run": "forward", "positions": "sinusoidal", "layers": 2},
            {"run": "training"}, {"run": "attention", "causal": True},
            {"run": "decoding", "strategy": "sample", "top_k": 3, "top_p": 0.9},
            {"run": "decoding"}, {"run": "bpe"}]
    names = set()
    for data in runs:
        spec, problems = parse_trace(data)
        assert not problems
        names |= {name for name, _ in recorded(spec)}
    assert names - read.operations() == set()


def test_the_order_comes_from_running_tinygpt() -> None:
    """Pre- and post-LN blocks record LayerNorm on different sides of the residual."""
    pre, _ = parse_trace({"run": "forward", "expand": ["block"], "arrangement": "pre"})
    post, _ = parse_trace({"run": "forward", "expand": ["block"], "arrangement": "post"})
    a, b = expected(pre), expected(post)
    assert a[a.index("attention") - 1] == "layernorm"
    assert b[b.index("attention") + 1:b.index("attention") + 3] == ["residual", "layernorm"]


def test_repeats_fold_and_scopes_open() -> None:
    assert compress(list("abcbcbcbd")) == ["a", "b", "c", "repeat", "d"]
    assert compress(["x", "y"]) == ["x", "y"]
    events = [("block", ()), ("ffn", ("block",)), ("block", ()), ("ffn", ("block",))]
    assert view(events) == ["block", "repeat"]
    assert view(events, expand=("block",)) == ["ffn", "repeat"]
    assert view(events, expand=("block",), omit=("block.ffn",)) == []


def test_recording_changes_no_number() -> None:
    import torch

    from tinygpt import GPTConfig, TinyGPT
    from tinygpt.steps import recording

    model = TinyGPT(GPTConfig(vocab_size=6, d_model=4, n_heads=2, d_k=2, d_v=2, n_layers=2))
    plain = model.forward_trace([1, 2, 3])["logits"]
    with recording() as events:
        traced = model.forward_trace([1, 2, 3])["logits"]
    assert torch.equal(plain, traced) and events
    loss, grads = model.loss_and_grads([1, 2, 3], [2, 3, 4])
    assert torch.isclose(loss, model.loss([1, 2, 3], [2, 3, 4]))


# ----------------------------------------------------------------------------- the schema


def _load(tmp_path: Path, claim: str) -> list[str]:
    path = tmp_path / "c.yaml"
    path.write_text("note: architecture-and-training.txt\nclaims:\n" + claim, encoding="utf-8")
    loaded = load_claim_file(path, "c.yaml", {"architecture-and-training.txt"})
    return [p.message for p in loaded.problems] + [
        p.message for c in loaded.claims for p in c.problems]


@pytest.mark.parametrize(("trace", "problem"), [
    ("", "missing key 'trace'"),
    ("    trace: {run: forwards}\n", "run must be one of"),
    ("    trace: {run: forward, beam: 3}\n", "unknown option 'beam'"),
    ("    trace: {run: forward, omit: [softmax]}\n", "needs a 'why'"),
    ("    trace: {run: forward, omit: [teleport], why: x}\n", "'teleport' is not an operation"),
    ("    trace: {run: decoding, top_p: yes}\n", "top_p: a number"),
])
def test_bad_trace_is_a_load_problem(tmp_path: Path, trace: str, problem: str) -> None:
    claim = ("  - id: p\n    kind: procedure\n    text: \"训练再接“⟦s1⟧ → ⟦s2⟧”\"\n" + trace)
    assert any(problem in m for m in _load(tmp_path, claim))


def test_procedure_claims_read_only_word_holes(tmp_path: Path) -> None:
    claim = ("  - id: p\n    kind: procedure\n    text: \"训练 ⟨x⟩ 再接“⟦s1⟧ → ⟦s2⟧”\"\n"
             "    trace: {run: training}\n")
    assert any("only word holes" in m for m in _load(tmp_path, claim))
    other = "  - id: q\n    text: \"训练\"\n    trace: {run: training}\n"
    assert any("'trace' needs kind: procedure" in m for m in _load(tmp_path, other))


# ----------------------------------------------------------------------------- planted edits


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


def _line(note: str, find: str) -> int:
    text = (NOTES / note).read_text(encoding="utf-8")
    return text[:text.index(find)].count("\n") + 1


AAT, L1, MBM = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
                "matrix-by-matrix.txt")


@pytest.mark.parametrize("note", [AAT, L1, MBM])
def test_unedited_notes_verify(tmp_path: Path, note: str) -> None:
    verdicts = _verdicts(tmp_path, note)
    assert verdicts and all(v.status == "verified" for v in verdicts), \
        [(v.id, v.message) for v in verdicts if v.status != "verified"]


EDITS = [  # (note, find, replace, claim, status, what the message names)
    (AAT, "输入文字 → Token向量 → 多层Transformer", "输入文字 → 多层Transformer → Token向量",
     "aat-proc-1-5-forward", "discrepancy", "embedding"),  # two steps swapped
    (AAT, "算损失 → 求梯度 → 更新参数", "算损失 → 更新参数",
     "aat-proc-1-5-training", "discrepancy", "missing step backward"),  # a step dropped
    (AAT, "算损失 → 求梯度 → 更新参数", "算损失 → 求梯度 → 求梯度 → 更新参数",
     "aat-proc-1-5-training", "discrepancy", "backward"),  # a step duplicated
    (AAT, "注意力 → 残差 → 输出 → 损失", "注意力 → 残差 → 归一化 → 损失",
     "aat-proc-13-1-main-line", "discrepancy", "replaced"),  # a word replaced
    (AAT, "注意力 → 残差 → 输出 → 损失", "注意力 → 残差 → 魔法 → 损失",
     "aat-proc-13-1-main-line", "unparsed", "'魔法' is not an operation word"),
    (L1, "2. 统计语料中所有相邻单位对出现的次数（每个词出现几次，就按几次算）。\n"
         "3. 把出现最多的那一对合并成一个新单位，加入词表。",
     "2. 把出现最多的那一对合并成一个新单位，加入词表。\n"
     "3. 统计语料中所有相邻单位对出现的次数（每个词出现几次，就按几次算）。",
     "l1-proc-1-bpe", "discrepancy", "merge"),  # two numbered lines swapped, renumbered
    (L1, "2. 归一：", "2. 汇总：", "l1-proc-8-attention", "discrepancy", "softmax"),
    (L1, "4. 重复第 2、3 步，直到", "4. 直到", "l1-proc-1-bpe", "discrepancy",
     "missing step repeat"),  # a step dropped inside a line
    (MBM, "3. 当累积概率首次达到 P 时，停止\n4. 只从这些 Token 中采样",
     "3. 只从这些 Token 中采样", "mbm-proc-10-1-topp", "discrepancy", "missing step cut"),
    (MBM, "→ Softmax → TopP → 采样 → Token", "→ Softmax → TopP → 贪心 → Token",
     "mbm-proc-12-decoding", "discrepancy", "argmax"),
]


@pytest.mark.parametrize(("note", "find", "replace", "claim", "status", "names"), EDITS,
                         ids=[f"{e[3]}-{k}" for k, e in enumerate(EDITS)])
def test_planted_edit_is_judged_at_its_line(tmp_path: Path, note: str, find: str,
                                             replace: str, claim: str, status: str,
                                             names: str) -> None:
    verdicts = {v.id: v for v in _verdicts(tmp_path, note, find, replace)}
    verdict = verdicts[claim]
    assert verdict.status == status, verdict.message
    assert names in verdict.message
    first = _line(note, find)
    edited = range(first, first + max(find.count("\n"), replace.count("\n")) + 1)
    assert verdict.where[0] in edited, (verdict.where, list(edited))
    others = [v for v in verdicts.values() if v.id != claim and v.status != "verified"]
    assert not others, [(v.id, v.message) for v in others]


def test_an_edit_that_keeps_the_order_verifies(tmp_path: Path) -> None:
    """Rewording a step's explanation (not its operation) leaves the procedure true."""
    verdicts = _verdicts(tmp_path, L1, "直到词表达到目标大小", "直到词表达到目标数量")
    assert all(v.status == "verified" for v in verdicts), \
        [(v.id, v.message) for v in verdicts if v.status != "verified"]


def test_coverage_counts_the_words_read_not_the_lines_skipped() -> None:
    """A procedure claim covers procedures through its words; a formula in a skipped rest
    of line (``⟦_1⟧``) is not covered by it."""
    from verifiers.notes import read_note
    from verifiers.procedures.locate import quote_spans

    note = read_note(NOTES / L1)
    path = CLAIMS / "lesson1-text-to-distribution" / "75-procedures.yaml"
    loaded = load_claim_file(path, str(path), {L1})
    claim = next(c for c in loaded.claims if c.id == "l1-proc-8-attention")
    spans = quote_spans(note, claim)
    assert [note.text[a:b] for a, b in spans] == ["打分", "归一", "汇总"]
    formula = note.text.index(r"$s_j=q\cdot k_j$")
    assert not any(a <= formula < b for a, b in spans)


# ----------------------------------------------------------------------------- the corpus

PLANTED = ROOT / "benchmarks" / "planted"


def _procedure_edits():  # type: ignore[no-untyped-def]
    """The corpus's procedure edits (ids ``pr-…``, in prose-law.yaml and program.yaml)."""
    from benchmarks.planted.survey import load_corpus

    return [e for e in load_corpus(PLANTED) if e.id.startswith("pr-")]


def test_procedure_corpus_is_well_formed() -> None:
    from benchmarks.planted.survey import KINDS

    edits = _procedure_edits()
    assert len(edits) >= 6 and len({e.id for e in edits}) == len(edits)
    for edit in edits:
        assert edit.kind in KINDS
        text = (NOTES / edit.note).read_text(encoding="utf-8")
        edited, lines = edit.apply(text)
        assert edited != text and lines


def test_procedure_corpus_gets_real_verdicts_at_the_line(tmp_path: Path) -> None:
    """The corpus runs through the survey, with only the procedure claims (fast): each edit is
    a real verdict at its line (with every claim: 6 of 6, in the report of this change)."""
    from benchmarks.planted.survey import REAL, survey

    for folder in CLAIMS.iterdir():
        if (folder / "75-procedures.yaml").is_file():
            (tmp_path / folder.name).mkdir()
            shutil.copy(folder / "75-procedures.yaml", tmp_path / folder.name)
    edits = _procedure_edits()
    result = survey(edits, claims_dir=tmp_path)
    assert result.outcomes and all(o.outcome == REAL for o in result.outcomes), \
        [(o.edit.id, o.outcome, o.detail) for o in result.outcomes]
