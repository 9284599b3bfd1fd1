"""A printed program whose outputs the note writes as comments (tinygpt/examples/
commented_programs.py, verifiers/infer/fenced.py): run in the jail and compared, so an edit
of an output or of a code line that changes it is a discrepancy at the printed output,
naming the code line when the other outputs confirm the rest; inference proposes the claim
for a fenced program of a Markdown note."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinygpt.examples.commented_programs import commented_outputs, program_comments_findings
from verifiers.cli import main

PROGRAM = """import math
a = 3
b = 4
c = math.sqrt(a * a + b * b)
print(c)
# 5.0
s = a + b
print(s, round(s / c, 4))  # → 7 1.4
print([a, b])
# [3, 4]
"""


def _bad(program: str) -> list[tuple[int, str]]:
    return [(f.line, f.printed) for f in program_comments_findings(program, "", 1)
            if f.status != "verified"]


def test_the_commented_outputs_are_found() -> None:
    assert sorted(commented_outputs(PROGRAM)) == [5, 8, 9]
    assert commented_outputs("x = 1\nprint(x)\n# the value of x\n") == {}  # prose, not output


def test_the_clean_program_verifies() -> None:
    assert _bad(PROGRAM) == []


@pytest.mark.parametrize(("find", "replace", "bad", "names"), [
    ("# 5.0", "# 6.0", [(6, "6.0")], ""),                       # an output edited
    ("→ 7 1.4", "→ 7 1.3", [(8, "1.3")], ""),                   # a same-line output edited
    ("s = a + b", "s = a * b", [(8, "7"), (8, "1.4")], "line 7"),  # a code line: named
    # b = 5: c = √34 = 5.83 and s = 8, but s / c = 1.372 still shows as 1.4
    ("b = 4", "b = 5", [(6, "5.0"), (8, "7"), (10, "4")], ""),
])
def test_a_planted_error_fails_at_the_printed_output(find: str, replace: str, bad: list,
                                                     names: str) -> None:
    edited = PROGRAM.replace(find, replace)
    assert _bad(edited) == bad
    if names:
        failing = [f for f in program_comments_findings(edited, "", 1) if f.status != "verified"]
        assert all(names in f.message for f in failing), failing[0].message


def test_a_program_that_raises_is_an_error_at_its_line() -> None:
    raising = PROGRAM.replace("c = math.sqrt(", "c = math.log(-1) + math.sqrt(")
    (f,) = program_comments_findings(raising, "", 1)
    assert (f.status, f.line) == ("error", 4)


NOTE = """# Routing

## 1. In code

The same routing in code:

```python
import numpy as np
r = np.array([2.0, 1.0, 0.5])
p = np.exp(r) / np.exp(r).sum()
print(np.round(p, 3))
# [0.629 0.231 0.14 ]
print(int(np.argmax(p)))
# 0
```
"""


def test_inference_runs_a_fenced_program_and_an_edit_fails_at_its_output(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for d in ("notes", "claims"):
        (tmp_path / d).mkdir()
    note = tmp_path / "notes" / "n.md"
    note.write_text(NOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "n.md", "--infer"]) == 0
    text = (tmp_path / "claims" / "n" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert "example: program_comments" in text and 'text: "The same routing in code:"' in text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    note.write_text(NOTE.replace("r = np.array([2.0, 1.0, 0.5])", "r = np.array([2.0, 1.0, 1.5])"),
                    encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith("notes/n.md:12:") and "discrepancy" in ln
               for ln in out.splitlines()), out


OUTPUT_NOTE = """# Counting

## 1. Code

Count the words:

```python
words = "a b a c a".split()
print(len(words))
print(words.count("a"), round(words.count("a") / len(words), 2))
```

Output:

```
5
3 0.6
```

So three of the five words are "a".
"""


def test_an_output_block_after_the_program_is_compared_line_by_line() -> None:
    from tinygpt.examples.commented_programs import split_block

    block = OUTPUT_NOTE[OUTPUT_NOTE.index("words ="):OUTPUT_NOTE.index("So three")]
    program, shown = split_block(block)
    assert program.startswith("words =") and "```" not in program
    assert [t for _, t in shown] == ["5", "3 0.6"]
    assert _bad(block) == []
    assert _bad(block.replace("3 0.6", "3 0.5")) == [(10, "0.5")]
    edited = block.replace('"a b a c a"', '"a b a c a a"')
    assert _bad(edited) == [(9, "5"), (10, "3"), (10, "0.6")]


def test_inference_reads_the_output_block_through_the_line_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    for d in ("notes", "claims"):
        (tmp_path / d).mkdir()
    note = tmp_path / "notes" / "n.md"
    note.write_text(OUTPUT_NOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["scaffold", "n.md", "--infer"]) == 0
    text = (tmp_path / "claims" / "n" / "90-inferred.yaml").read_text(encoding="utf-8")
    assert 'to: "So three of the five words are \\"a\\"."' in text, text
    assert main(["check", "--no-cache", "-j", "1"]) == 0
    capsys.readouterr()
    note.write_text(OUTPUT_NOTE.replace("3 0.6", "3 0.8"), encoding="utf-8")
    assert main(["check", "--no-cache", "-j", "1"]) == 1
    out = capsys.readouterr().out
    assert any(ln.startswith("notes/n.md:17:") and "discrepancy" in ln
               for ln in out.splitlines()), out
