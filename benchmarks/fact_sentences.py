"""The fact-sentence survey (laws8, issue 12 item 4): every sentence of the three notes that
names two or more vocabulary items and a relation word but holds no cue word, with its status
(read / quoted / waived / uncovered), per note and per relation word.

Exhaustive (every sentence, no sample, so no seed): the rules are in
``verifiers/coverage/facts.py``, and ``tests/test_fact_sentences.py`` holds the unread count.

    python -m benchmarks.fact_sentences [--list]
"""

from __future__ import annotations

import sys
from pathlib import Path

from verifiers.coverage.facts import main as facts_main

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return facts_main([str(ROOT / "notes"), str(ROOT / "claims"), *args])


if __name__ == "__main__":
    raise SystemExit(main())
