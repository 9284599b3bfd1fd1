"""A hypothesis the note states in words is restated and used (issue 12 item 2).

Lesson 1 §5 says "对 $i\\ne k$：分母里 $j=k$ 那一项的指数 $(z_k-z_i)/T\\to+\\infty$": the limit
holds because k is the unique largest logit, said in words. A define hole over those words,
restated as ``z_{i} - z_{k} \\lt 0``, is read as the hypothesis it states (like a printed
``z_j-z_k\\lt0``), so the printed limit is checked, and an edited one fails.
"""

from __future__ import annotations

from tests.test_engine import check, project

NOTE = r"""§5 温度
• $T\to0^+$。对 $i\ne k$：分母里 $j=k$ 那一项的指数 $(z_k-z_i)/T\to+\infty$，分母趋于无穷。
"""

CLAIMS = r"""note: n.txt
claims:
  - id: lim
    kind: symbolic
    text: |
      • $⟪V⟫$。⟪CI⟫的指数 $⟪X⟫$，分母趋于无穷。
    define: {T: V, z_i: CI}
    restate:
      CI: {as: 'z_{i} - z_{k} \lt 0', reason: 'k is the unique largest logit (in words)'}
"""

NO_HYPOTHESIS = r"""note: n.txt
claims:
  - id: lim
    kind: symbolic
    text: |
      • $⟪V⟫$。对 $i\ne k$：分母里 $j=k$ 那一项的指数 $⟪X⟫$，分母趋于无穷。
    define: {T: V}
"""


def _lim(tmp_path, capsys, note: str, claims: str = CLAIMS) -> dict:
    code, out, data = check(project(tmp_path, claims, note), capsys)
    return data["claims"][0]


def test_the_restated_hypothesis_decides_the_limit(tmp_path, capsys):
    lim = _lim(tmp_path, capsys, NOTE)
    assert lim["status"] == "verified", lim["message"]
    assert "z_{i} - z_{k} \\lt 0 (restated:" in lim["values"][0]["message"]


def test_an_edited_limit_fails_under_the_hypothesis(tmp_path, capsys):
    lim = _lim(tmp_path, capsys, NOTE.replace("(z_k-z_i)/T", "(z_i-z_k)/T"))
    assert lim["status"] == "discrepancy", lim["message"]
    assert "the limit is -oo" in lim["message"]


def test_without_the_hypothesis_the_limit_is_not_proved(tmp_path, capsys):
    lim = _lim(tmp_path, capsys, NOTE, NO_HYPOTHESIS)
    assert lim["status"] != "verified", lim["message"]
