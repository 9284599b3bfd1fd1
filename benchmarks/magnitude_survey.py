"""Magnitude survey: every magnitude word of the notes replaced by its neighbours in the scale.

    python -m benchmarks.magnitude_survey            # run every edit
    python -m benchmarks.magnitude_survey --list     # only list the edits

Two kinds of words are edited, wherever the notes print them: a magnitude word
(:mod:`verifiers.magnitude_words`: 几万 → 几千 and 几十万, 数十亿 → 数亿 and 数百亿, millions →
hundreds of thousands and tens of millions), and the unit word of a number (``3860 万`` →
``3860 亿``, ``1.24 亿`` → ``1.24 万`` and ``1.24 万亿``). Each edit makes the note false by a
factor of ten or more. The edits run through the planted-error runner
(:mod:`benchmarks.planted.survey`); "real verdict at line" is the goal. Figures are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.planted.survey import CorpusError, Edit, survey, table  # noqa: E402
from verifiers.magnitude_words import PLACES, UNITS, VAGUE_PATTERN  # noqa: E402
from verifiers.notes import Note  # noqa: E402

_SCALE = ["", *PLACES]  # 几, 几十, 几百, 几千 (then the next unit)
_UNIT_NEIGHBOURS = {"万": ("亿",), "亿": ("万", "万亿"), "万亿": ("亿",)}
_ENGLISH = ["thousands", "tens of thousands", "hundreds of thousands", "millions",
            "tens of millions", "hundreds of millions", "billions", "tens of billions",
            "hundreds of billions", "trillions"]
_NUMBER_UNIT = re.compile(r"(?<![0-9.])([0-9]+(?:\.[0-9]+)?\$?[^\S\n]*)(万亿|亿|万)")


def _ladder() -> list[str]:
    """Chinese magnitude words in order: 几, 几十, 几百, 几千, 几万, 几十万, … 几千万亿."""
    out = []
    for unit in ["", *sorted(UNITS, key=UNITS.get)]:
        for place in _SCALE:
            if place or unit:
                out.append(place + unit)
    return out


def neighbours(word: str) -> list[str]:
    """The words one step down and one step up the scale from ``word``."""
    if word in _ENGLISH:
        i = _ENGLISH.index(word)
        return [_ENGLISH[j] for j in (i - 1, i + 1) if 0 <= j < len(_ENGLISH)]
    ladder = _ladder()
    body = word[1:]
    if body not in ladder:
        return []
    i = ladder.index(body)
    return [word[0] + ladder[j] for j in (i - 1, i + 1) if 0 <= j < len(ladder)]


def edits(notes_dir: Path = ROOT / "notes") -> list[Edit]:
    out = []
    for path in sorted(notes_dir.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        note = Note(path, text, path.name)
        found = [(m.start(), m.group(0), [n for n in neighbours(m.group(0))])
                 for m in re.finditer(VAGUE_PATTERN, text)]
        found += [(m.start(), m.group(0), [m.group(1) + u for u in _UNIT_NEIGHBOURS[m.group(2)]])
                  for m in _NUMBER_UNIT.finditer(text)]
        for start, word, news in sorted(found):
            line = note.text.count("\n", 0, start) + 1
            for k, new in enumerate(news):
                edit = Edit(f"mw-{path.stem[:4]}-{line}-{start}-{k}", "unit-scale", path.name,
                            word, new,
                            why=f"{word} → {new}", line=line)
                try:
                    edit.offset(text)
                except CorpusError:  # printed twice on its line: not located
                    continue
                out.append(edit)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.magnitude_survey",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the edits, run nothing")
    args = parser.parse_args(argv)
    found = edits()
    if args.list:
        for e in found:
            print(f"{e.note}:{e.line} {e.id}: {e.find!r} -> {e.replace!r}")
        print(f"{len(found)} edits")
        return 0

    def progress(i, n, outcome):
        print(f"[{i}/{n}] {outcome.edit.id} ({outcome.edit.why}): {outcome.outcome} "
              f"{outcome.detail}", file=sys.stderr, flush=True)

    print(table(survey(found, progress=progress)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
