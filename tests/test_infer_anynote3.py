"""Inference on more of what any note shows (verifiers/infer, branch anynote3): table columns
computed by an activation of another column (``Φ``, ``GELU``, ``σ``, ``tanh``, ``x σ(x)``).
Each rule is checked on an invented note: the clean note's inferred claims all verify, and an
edit planted after inference (an author's later slip) is a discrepancy at its line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from verifiers.cli import main


def infer_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, note: str) -> str:
    """``scaffold --infer`` on a one-note project named ``name``; the inferred file's text."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / name).write_text(note, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", name, "--infer"]) == 0
    path = tmp_path / "claims" / Path(name).stem / "90-inferred.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def edit_flagged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, name: str,
                 note: str, old: str, new: str) -> list[str]:
    """Infer on the clean note, plant ``old`` → ``new``, check: the discrepancy lines."""
    infer_note(tmp_path, monkeypatch, name, note)
    capsys.readouterr()
    assert note.count(old) == 1
    (tmp_path / "notes" / name).write_text(note.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    return [ln for ln in capsys.readouterr().out.splitlines() if ": discrepancy: " in ln]


def line_of(note: str, text: str) -> int:
    return note[:note.index(text)].count("\n") + 1


ACTIVATIONS = """# Activations by hand

## 1. Four activations

| $z$ | $\\Phi(z)$ | GELU | $\\sigma(z)$ | $\\tanh z$ | Swish |
|---|---|---|---|---|---|
| -2 | 0.0228 | -0.0455 | 0.1192 | -0.9640 | -0.2384 |
| -1 | 0.1587 | -0.1587 | 0.2689 | -0.7616 | -0.2689 |
| 0.5 | 0.6915 | 0.3457 | 0.6225 | 0.4621 | 0.3112 |
| 1.5 | 0.9332 | 1.3998 | 0.8176 | 0.9051 | 1.2264 |
"""


def test_activation_columns_are_read_and_verify(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, "act.md", ACTIVATIONS)
    for form in ("erf(", "sigmoid(", "tanh(", "* sigmoid("):
        assert form in text, (form, text)
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new", [
    ("| 0.6915 |", "| 0.6951 |"),  # Φ, a transposed digit
    ("| 1.3998 |", "| 1.3989 |"),  # GELU
    ("| 0.2689 | -0.7616 |", "| 0.2698 | -0.7616 |"),  # σ
    ("| 0.9051 |", "| 0.9015 |"),  # tanh
    ("| -0.2384 |", "| -0.2834 |"),  # Swish
])
def test_an_edited_activation_cell_is_flagged_at_its_line(tmp_path, monkeypatch, capsys,
                                                           old, new):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "act.md", ACTIVATIONS, old, new)
    want = f"notes/act.md:{line_of(ACTIVATIONS, old)}:"
    assert any(ln.startswith(want) for ln in flagged), flagged


def test_a_copied_column_is_no_activation(tmp_path, monkeypatch):
    # tanh of small values prints the values themselves: a copy, never a tanh reading
    note = "# t\n\n| x | y |\n|---|---|\n| 0.001 | 0.001 |\n| 0.002 | 0.002 |\n| 0.003 | 0.003 |\n"
    assert "tanh" not in infer_note(tmp_path, monkeypatch, "copy.md", note)


TEMPERATURE = """Temperature by hand

1. The scores
scores = [1.0, 0.2, -0.6]
Each setting divides the scores by the temperature before the softmax.

At T = 0.5 the scores become
divided = [2.0, 0.4, -1.2]
which the softmax turns into a sharper distribution.

At T = 2 the scores become
divided = [0.5, 0.1, -0.3]
which is flatter.

Nothing divided, for comparison: the plain softmax of the scores is
p = [0.6056, 0.2721, 0.1223]
"""


def test_vectors_scaled_by_a_setting_or_far_below_are_read(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, "temp.txt", TEMPERATURE)
    assert "softmax(u" in text, text  # p, eleven lines below the scores
    assert len(re.findall(r'"u\d+ / [uv]\d+"', text)) == 2, text  # scores / T, twice
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, where", [
    ("[0.5, 0.1, -0.3]", "[0.5, 0.2, -0.3]", "[0.5, 0.2, -0.3]"),  # a scaled element
    ("At T = 0.5", "At T = 0.4", "At T = 0.4"),  # the setting: its result no longer fits
    ("[0.6056, 0.2721, 0.1223]", "[0.6056, 0.2712, 0.1223]", "p = ["),  # a softmax far below
])
def test_an_edited_scaled_vector_or_setting_is_flagged(tmp_path, monkeypatch, capsys, old,
                                                       new, where):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "temp.txt", TEMPERATURE, old, new)
    line = line_of(TEMPERATURE.replace(old, new), where)
    assert any(ln.startswith(f"notes/temp.txt:{line}:") for ln in flagged), flagged


def test_a_vector_no_step_reproduces_is_not_read(tmp_path, monkeypatch):
    note = TEMPERATURE.replace("[0.6056, 0.2721, 0.1223]", "[0.5, 0.3, 0.2]")
    assert "softmax(u" not in infer_note(tmp_path, monkeypatch, "temp.txt", note)


PROJECTION = """Projection by hand

1. Inputs
Two tokens, three features each:
X = [[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]]
The projection has two output features:
W = [[0.2, 0.1], [0.4, -0.3], [1.0, 0.5]]

2. The result
Multiplying the token rows by the projection, as every layer does, gives
Q = [[1.5, -0.25], [3.4, 1.2]]
"""


def test_a_product_of_arrays_printed_above_is_read(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, "proj.txt", PROJECTION)
    assert re.search(r'"u\d+ @ u\d+"', text), text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, where", [
    ("[3.4, 1.2]]", "[3.4, 2.1]]", "Q = ["),  # a result entry, transposed digits
    ("[0.4, -0.3]", "[0.4, 0.3]", "Q = ["),  # an input entry: the result no longer fits
])
def test_an_edited_product_or_input_is_flagged(tmp_path, monkeypatch, capsys, old, new, where):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "proj.txt", PROJECTION, old, new)
    lines = {line_of(PROJECTION, where), line_of(PROJECTION, old)}
    assert any(ln.startswith(tuple(f"notes/proj.txt:{n}:" for n in lines))
               for ln in flagged), flagged


def test_an_identity_factor_is_no_product(tmp_path, monkeypatch):
    note = PROJECTION.replace("[[0.2, 0.1], [0.4, -0.3], [1.0, 0.5]]", "[[1, 0], [0, 1]]") \
        .replace("[[1.0, 2.0, 0.5], [0.0, 1.0, 3.0]]", "[[1.5, -0.25], [3.4, 1.2]]")
    assert "@" not in infer_note(tmp_path, monkeypatch, "proj.txt", note)


MEMORY = """Memory of a small layer, plain text

1. Sizes
The layer holds 1024 x 1024 x 4 = 4194304 weights.
Kept in fp32 (4 bytes per value), they take 4194304 x 4 = 16777216 bytes, that is 16 MiB.
Quantised to int8 at 1 byte each, the same weights need 4 MiB.

2. A table by columns of spaces
    z       sigma(z)   tanh(z)
    -1      0.2689     -0.7616
    0.5     0.6225     0.4621
    2       0.8808     0.9640
"""


def test_a_plain_text_note_is_read(tmp_path, monkeypatch, capsys):
    """`x` as a times sign between numbers, `that is` before a unit, a type's bytes and a
    table aligned by spaces, all in a `.txt` note without Markdown."""
    text = infer_note(tmp_path, monkeypatch, "mem.txt", MEMORY)
    for says in ('"v1 * v2 * v3"', "/ 1048576", 'v1: "4"', 'v1: "1"', "sigmoid(", "tanh("):
        assert says in text, (says, text)
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new", [
    ("= 4194304 weights", "= 4194314 weights"),  # a product with plain-text x
    ("that is 16 MiB", "that is 18 MiB"),  # a value in another unit after `that is`
    ("fp32 (4 bytes", "fp32 (2 bytes"),  # a type's size
    ("at 1 byte each", "at 2 byte each"),
    ("0.6225", "0.6252"),  # a cell of a table aligned by spaces
])
def test_an_edit_of_a_plain_text_note_is_flagged(tmp_path, monkeypatch, capsys, old, new):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "mem.txt", MEMORY, old, new)
    assert any(ln.startswith(f"notes/mem.txt:{line_of(MEMORY, old)}:") for ln in flagged), \
        flagged


def test_a_byte_count_that_is_no_types_size_is_not_read(tmp_path, monkeypatch):
    text = infer_note(tmp_path, monkeypatch, "m.txt", "1. Sizes\nfp16 weights with 16 bytes "
                      "of optimiser state each.\n")
    assert "takes" not in text


LAWS = """# Sampling temperature

## 1. The two limits

Dividing the logits by a temperature $T$ before the softmax reshapes the distribution.
As $T \\to 0$ the distribution always becomes one-hot on the largest logit.
As $T \\to \\infty$ it always tends to the uniform distribution.
"""


def test_a_law_sentence_in_its_own_words_becomes_a_property_claim(tmp_path, monkeypatch,
                                                                  capsys):
    text = infer_note(tmp_path, monkeypatch, "laws.md", LAWS)
    for law in ("property: temperature-zero-argmax", "property: temperature-infinity-uniform"):
        assert law in text, text
    assert "⟦limit⟧" in text and "⟦outcome⟧" in text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new", [
    ("As $T \\to 0$ the", "As $T \\to \\infty$ the"),  # the limit word: another, false law
    ("becomes one-hot", "becomes uniform"),  # the outcome word
])
def test_an_edited_law_word_is_a_discrepancy_at_its_line(tmp_path, monkeypatch, capsys, old,
                                                         new):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "laws.md", LAWS, old, new)
    assert any(ln.startswith(f"notes/laws.md:{line_of(LAWS, old)}:") for ln in flagged), \
        flagged


def test_one_law_word_is_not_read_as_a_law(tmp_path, monkeypatch):
    note = "# T\n\nAs $T \\to 0$ nothing is ever sampled twice.\n"
    assert "kind: property" not in infer_note(tmp_path, monkeypatch, "one.md", note)


def test_a_sentence_a_claim_covers_is_not_read_again(tmp_path, monkeypatch):
    (tmp_path / "claims" / "laws").mkdir(parents=True)
    (tmp_path / "claims" / "laws" / "a.yaml").write_text(
        'note: laws.md\nclaims:\n  - id: zero\n    kind: property\n    section: "1"\n'
        '    says: as T -> 0 the distribution is one-hot\n    text: |\n'
        '      As $⟦limit⟧$ the distribution always becomes ⟦outcome⟧ on the largest logit.\n'
        '    property: temperature-zero-argmax\n', encoding="utf-8")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "laws.md").write_text(LAWS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "laws.md", "--infer"]) == 0
    text = (tmp_path / "claims" / "laws" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert "temperature-infinity-uniform" in text and "temperature-zero-argmax" not in text


REUSED = """Weights used again

1. Attention weights
The softmax gave the weights 0.2、0.5、0.3 for the three tokens.
Each token has a value vector v_1, v_2, v_3.
The output mixes them with those weights:
z = 0.2 v_1 + 0.5 v_2 + 0.3 v_3

2. Top-p
Sorted probabilities p = [0.45, 0.30, 0.15, 0.10].
Cumulative: 0.45 → 0.75 → 0.90, so top-p at 0.9 keeps three tokens.
"""


def test_coefficients_and_running_totals_of_a_list_are_read(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, "reuse.txt", REUSED)
    assert "the coefficients are the list printed above" in text, text
    assert "the running totals of the list above" in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new", [
    ("0.5 v_2", "0.6 v_2"),  # a coefficient no longer the weight printed above
    ("0.75 → 0.90", "0.75 → 0.95"),  # a running total
])
def test_an_edited_coefficient_or_total_is_flagged(tmp_path, monkeypatch, capsys, old, new):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "reuse.txt", REUSED, old, new)
    assert any(ln.startswith(f"notes/reuse.txt:{line_of(REUSED, old)}:") for ln in flagged), \
        flagged


def test_coefficients_no_list_prints_are_not_read(tmp_path, monkeypatch):
    note = REUSED.replace("0.2、0.5、0.3", "0.2、0.3、0.5")  # another order: no copy
    assert "coefficients" not in infer_note(tmp_path, monkeypatch, "reuse.txt", note)


TOPK = """Top-k by hand

1. Keep the two largest
The router probabilities are p = [0.1, 0.6, 0.05, 0.25].
Only the two largest experts run; their weights, renormalised over the pair, are
w = [0.7059, 0.2941]
The sorted top three are [0.6, 0.25, 0.1].
Index pairs such as Q[0, 0] or (0, 1) are no weights.
"""


def test_a_top_k_subset_kept_or_renormalised_is_read(tmp_path, monkeypatch, capsys):
    text = infer_note(tmp_path, monkeypatch, "topk.txt", TOPK)
    assert "[0:2] / sum(rsort(" in text and "[0:3]" in text, text
    assert text.count("rsort(") == 3, text  # never the index pairs
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new", [
    ("[0.7059, 0.2941]", "[0.7059, 0.2491]"),  # a renormalised weight
    ("[0.6, 0.25, 0.1]", "[0.6, 0.25, 0.05]"),  # a kept entry: not the third largest
])
def test_an_edited_top_k_subset_is_flagged(tmp_path, monkeypatch, capsys, old, new):
    flagged = edit_flagged(tmp_path, monkeypatch, capsys, "topk.txt", TOPK, old, new)
    assert any(ln.startswith(f"notes/topk.txt:{line_of(TOPK, old)}:") for ln in flagged), \
        flagged
