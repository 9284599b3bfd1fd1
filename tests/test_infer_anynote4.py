"""General inference rules of branch anynote4, each shown catching planted errors in invented
notes, plain text and Markdown:

* unit words of a restated size read as word holes (verifiers/infer/unitwords.py,
  verifiers/unit_words.py);
* a named formula evaluated on its worked instance, with names bound to values the note
  defines, and table columns computed by a formula printed nearby or in the header
  (verifiers/infer/named.py);
* a monotone law in prose (``X 越大，Y 越小``, ``Y decreases as X grows``) checked against the
  note's own table (verifiers/infer/monotone.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from verifiers.cli import main
from verifiers.unit_words import decide, nearest


def _infer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, note: str, suffix: str) -> str:
    """``scaffold --infer`` on a one-note project (``n.txt`` or ``n.md``); the inferred YAML."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / f"n{suffix}").write_text(note, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", f"n{suffix}", "--infer"]) == 0
    path = tmp_path / "claims" / "n" / "90-inferred.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _clean_verifies(capsys: Any) -> None:
    assert main(["check", "--no-cache", "-j", "1"]) == 0, capsys.readouterr().out
    capsys.readouterr()


def _flagged(tmp_path: Path, capsys: Any, note: str, suffix: str, old: str, new: str,
             line: int) -> None:
    """Edit ``old`` → ``new`` in the note the claims were inferred from: a discrepancy (or an
    unparsed word) on ``line``."""
    assert note.count(old) == 1, old
    (tmp_path / "notes" / f"n{suffix}").write_text(note.replace(old, new), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith(f"notes/n{suffix}:{line}:") and
               (": discrepancy: " in ln or ": unparsed: " in ln)
               for ln in out.splitlines()), out


# --- unit words -------------------------------------------------------------------------

def test_the_nearest_unit_decides_binary_and_decimal_prefixes():
    assert nearest("bytes", 1646821376 / 1.53) == "GiB"
    assert nearest("bytes", 1646821376 / 1.65) == "GB"
    assert nearest("bytes", 201326592 / 192) == "MiB"
    assert nearest("count", 124e6 / 124) == "M"
    assert nearest("bytes", 5e7) is None  # between MB and GB: no unit fits
    assert decide(2 ** 30, "GB")[1] == "GiB"
    assert decide(2 ** 30, "GiB")[:2] == ("GiB", "GiB")
    assert decide(1.0, "parsecs")[0] is None


UNITS_TXT = """1.1 显存
一个 8192 × 50257 的 float32 矩阵：
8192 × 50257 × 4 字节 = 1646821376 字节 ≈ 1.65 GB（十进制），约 1.53 GiB。
1.2 参数
嵌入表有 50257 × 768 = 38597376 个参数，约 38.6 M 参数。
"""

UNITS_MD = """# Memory

## 1.1 Cache

The cache holds 2 × 24 × 2048 × 2048 × 2 = 402653184 bytes, about 384 MiB (0.40 GB).

## 1.2 Weights

A layer stores 201326592 bytes = 192 MiB of weights.
"""


@pytest.mark.parametrize("old, new, line", [
    ("约 1.53 GiB", "约 1.53 GB", 3),  # binary for decimal
    ("≈ 1.65 GB", "≈ 1.65 GiB", 3),
    ("约 38.6 M", "约 38.6 B", 5),  # a count's prefix
])
def test_an_edited_unit_word_is_flagged_txt(tmp_path, monkeypatch, capsys, old, new, line):
    text = _infer(tmp_path, monkeypatch, UNITS_TXT, ".txt")
    assert "⟦u⟧" in text and "unit:" in text, text
    _clean_verifies(capsys)
    _flagged(tmp_path, capsys, UNITS_TXT, ".txt", old, new, line)


@pytest.mark.parametrize("old, new, line", [
    ("about 384 MiB", "about 384 MB", 5),
    ("= 192 MiB", "= 192 Mbit", 9),  # bits for bytes
])
def test_an_edited_unit_word_is_flagged_md(tmp_path, monkeypatch, capsys, old, new, line):
    text = _infer(tmp_path, monkeypatch, UNITS_MD, ".md")
    assert "⟦u⟧" in text, text
    _clean_verifies(capsys)
    _flagged(tmp_path, capsys, UNITS_MD, ".md", old, new, line)
