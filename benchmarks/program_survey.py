"""Exhaustive program survey: every code line of every program a claim reads, one edit each.

``python -m benchmarks.program_survey [--list] [--progress] [--dump FILE] [--edits FILE]``

The programs are the code holes of the claims of the three notes (``code:`` with a run
example that reads the whole block, :func:`verifiers.programs.codehole.reads_block`) whose
block compiles as Python. Every line of code (not blank, not only a comment) gets one
author edit, drawn with ``random.Random(SEED)``: a kind among those its tokens allow, then
one edit of that kind:

* ``constant``: a number changed (an integer counted up, a float's last digit moved);
* ``operator``: ``+``/``-``, ``*``/``/`` or ``@``/``*`` swapped (an augmented one too);
* ``index``: a slice or subscript changed (``[:-1]`` → ``[1:]``, ``axis=1`` → ``axis=0``);
* ``swap``: the line swapped with the next line of the same indentation.

Comments are never edited (a printed output there is the note's claim about the run). The
edits run through the planted-error runner (:func:`benchmarks.planted.survey.survey`): a
real verdict at the edited line names the line; ``elsewhere`` is an edit caught at another
place (usually the printed output), ``missed`` one whose outputs still match (some edits do
not change them: an index of a symmetric operation, a line order that does not matter).
"""

from __future__ import annotations

import ast
import io
import random
import tokenize
from pathlib import Path

from benchmarks.planted.survey import Edit, edits_main

ROOT = Path(__file__).resolve().parents[1]
NOTES = ("architecture-and-training.txt", "lesson1-text-to-distribution.txt",
         "matrix-by-matrix.txt")
SEED = 20261202
_SWAP_OPS = {"+": "-", "-": "+", "*": "/", "/": "*", "@": "*", "+=": "-=", "-=": "+=",
             "*=": "/=", "/=": "*="}


def _blocks(name: str, text: str) -> list[tuple[int, list[str]]]:
    """(first 0-based note line, the block's note lines) of each program claims read."""
    from verifiers.programs.codehole import reads_block
    from verifiers.programs.extract import locate_block
    from verifiers.run import load_claims

    claims, _ = load_claims(ROOT / "claims", {name})
    lines = text.split("\n")
    out: dict[int, list[str]] = {}
    for claim in claims:
        if claim.note != name or not reads_block(claim):
            continue
        try:
            block = locate_block(text, 0, len(text), claim.code.start, claim.code.end)
            ast.parse(block.text)
        except (ValueError, SyntaxError):
            continue
        first = block.first_line - 1
        out.setdefault(first, lines[first:first + len(block.line_offsets)])
    return sorted(out.items())


def _tokens(line: str) -> list[tokenize.TokenInfo]:
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
                if t.type in (tokenize.NUMBER, tokenize.OP)]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []


def _constant(tok: tokenize.TokenInfo) -> str:
    s = tok.string
    if "." in s or "e" in s.lower():
        digits = [k for k, c in enumerate(s) if c.isdigit()]
        k = digits[-1]
        return s[:k] + str((int(s[k]) + 1) % 10) + s[k + 1:]
    return str(int(s) + 1)


def _mutations(line: str) -> list[tuple[str, str, str]]:
    """(kind, new line, why) of each edit the line's tokens allow."""
    indent = len(line) - len(line.lstrip())
    out = []
    for tok in _tokens(line):
        a, b = indent + tok.start[1], indent + tok.end[1]
        if tok.type == tokenize.NUMBER:
            new = _constant(tok)
            inside = "[" in line[:a] and "]" in line[b:] or line[:a].rstrip().endswith("axis=")
            kind = "index" if inside else "constant"
            out.append((kind, line[:a] + new + line[b:], f"{tok.string} -> {new}"))
        elif tok.string in _SWAP_OPS:
            new = _SWAP_OPS[tok.string]
            if tok.string == "-" and line[:a].rstrip()[-1:] in "([,=:":
                continue  # a sign, not an operator
            out.append(("operator", line[:a] + new + line[b:], f"{tok.string} -> {new}"))
        elif tok.string == ":" and "[" in line[:a]:
            left, right = line[:a].rstrip()[-1:], line[b:].lstrip()[:1]
            if left == "[" and right not in "]":  # [:k] -> [k:]
                end = line.find("]", b)
                if end > 0:
                    body = line[b:end]
                    out.append(("index", line[:a] + body + ":" + line[end:],
                                f"[:{body}] -> [{body}:]"))
    return out


def _code(line: str) -> bool:
    body = line.strip()
    return bool(body) and not body.startswith("#")


def edits() -> list[Edit]:
    """The survey's edits, the same on every run (seeded)."""
    out: list[Edit] = []
    for name in NOTES:
        text = (ROOT / "notes" / name).read_text(encoding="utf-8")
        rng = random.Random(f"{SEED}:{name}")
        for first, block in _blocks(name, text):
            for k, line in enumerate(block):
                if not _code(line):
                    continue
                options = _mutations(line)
                indent = len(line) - len(line.lstrip())
                nxt = next((j for j in range(k + 1, len(block)) if _code(block[j])), None)
                if nxt == k + 1 and len(block[nxt]) - len(block[nxt].lstrip()) == indent \
                        and block[nxt].strip() != line.strip():
                    options.append(("swap", block[nxt] + "\n" + line,
                                    f"lines {first + k + 1} and {first + k + 2} swapped"))
                if not options:
                    continue
                kinds = sorted({o[0] for o in options})  # a kind first, then one of its edits
                pick = kinds[rng.randrange(len(kinds))]
                same = [o for o in options if o[0] == pick]
                kind, new, why = same[rng.randrange(len(same))]
                find = line + ("\n" + block[k + 1] if kind == "swap" else "")
                out.append(Edit(f"ps-{name[:4]}-{first + k + 1}-{kind}", "program", name, find,
                                new, why, line=first + k + 1, source="program-survey"))
    return out


def main(argv: list[str] | None = None) -> int:
    result = edits_main("python -m benchmarks.program_survey", argv, edits)
    if result is None:
        return 0
    kinds: dict[str, list[str]] = {}
    for o in result.outcomes:
        kinds.setdefault(o.edit.id.rsplit("-", 1)[1], []).append(o.outcome)
    for kind, got in sorted(kinds.items()):
        share = {x: got.count(x) for x in ("real", "elsewhere", "stale", "missed")}
        print(f"{kind:9} {share['real']}/{len(got)} real at the edited line, "
              f"{share['elsewhere']} caught elsewhere (the output), {share['stale']} stale, "
              f"{share['missed']} missed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
