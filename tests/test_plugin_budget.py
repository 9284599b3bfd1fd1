"""The plugin's per-process engine: a long pytest session is not a run out of budget.

Under load the suite took 23 minutes, and every real claim the plugin's engine evaluated
after its first 15 (the run's wall-clock budget, counted from the first claim) became an
``error``: the edit tests comparing with ``real_verdict`` failed on time.
"""

from __future__ import annotations

from pathlib import Path

from verifiers.budget import RUN_SECONDS
from verifiers.plugin import _Settings

NOTE = "第 1 章：例子\n1.1 求和\nsum = 0.25 + 0.5 = 0.75\nmore = 0.5 + 0.5 = 1.0\n"
CLAIMS = """\
note: n.txt
section: "1.1"
claims:
  - id: first-sum
    text: sum = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: later-sum
    text: more = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a + b}
  - id: wrong-sum
    text: more = ⟨a⟩ + ⟨b⟩ = ⟨s⟩
    check: {s: a - b}
"""


def test_a_claim_evaluated_long_after_the_first_keeps_its_verdict(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE, encoding="utf-8")
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "c.yaml").write_text(CLAIMS, encoding="utf-8")
    settings = _Settings(tmp_path, tmp_path / "notes", tmp_path / "claims")
    assert settings.verdict("first-sum").status == "verified"
    settings._engine.budget.started -= 2 * RUN_SECONDS  # the session ran for 30 minutes
    assert settings.verdict("later-sum").status == "verified"
    wrong = settings.verdict("wrong-sum")  # a wrong claim still fails, for its own reason
    assert wrong.status == "discrepancy", wrong.message
