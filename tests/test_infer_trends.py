"""A direction word about the values printed after it (verifiers/infer/trends.py): the word
is a word hole read with ``states: sign`` over every step, so ``fall`` → ``grow`` (or a value
edit that breaks the order) is a discrepancy at the word, and the clean note verifies."""

from __future__ import annotations

import pytest

from tests.test_infer import assert_edit_flagged, infer
from verifiers.cli import main

NOTE = """1.1 Trends
Across the offsets the entries fall as the offset grows: 4.0, 3.5353, 2.5637, 1.9649.

训练中损失逐步下降：2.31、1.87、1.42。

The accuracy rises with width: [0.61, 0.72, 0.80, 0.85].
1.2 Next line
The gaps shrink as the model grows:
$$0.9 > 0.5 > 0.2$$
"""


def test_the_clean_note_verifies(tmp_path, monkeypatch, capsys):
    text = infer(tmp_path, monkeypatch, NOTE)
    for quoted in ("entries ⟦w⟧ as the offset grows", "逐步⟦w⟧：", "accuracy ⟦w⟧ with",
                   "gaps ⟦w⟧ as"):
        assert quoted in text, (quoted, text)
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()


@pytest.mark.parametrize("old, new, line", [
    ("entries fall", "entries grow", 2),  # the word about the values, not the nearest one
    ("逐步下降", "逐步上升", 4),
    ("accuracy rises", "accuracy falls", 6),
    ("、1.87、", "、2.87、", 4),  # a value that breaks the stated order
    ("gaps shrink", "gaps grow", 8),  # the values on the line after the colon
])
def test_an_edit_is_a_discrepancy_at_the_word(tmp_path, monkeypatch, capsys, old, new, line):
    assert_edit_flagged(tmp_path, monkeypatch, capsys, NOTE, old, new, line)


def test_no_order_or_a_comparative_writes_nothing(tmp_path, monkeypatch):
    note = ("1.1\nThe values rise and fall: 1, 3, 2, 4.\n"
            "A larger model: 10, 20, 30 layers.\n")
    assert "⟦w⟧" not in infer(tmp_path, monkeypatch, note)
