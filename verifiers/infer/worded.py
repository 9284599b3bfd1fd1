"""Pattern family: a sum whose terms carry words, ``newest 6 次 + widest 3 次 = 9``.

Counting notes label each term (``low 5 次 + lower 2 次 = 7``, ``3 apples + 4 apples = 7``);
the words break a chain (:mod:`.chains` never reads through a word), so each term here is
the words and the *one* printed number between two ``+`` (or the line's punctuation), and
the lone number after ``=`` is their sum. At least one term past the first carries a word
(else it is a plain chain). Words may name other things, so the check is ambiguous: kept
only when the engine verifies it, never pinned.
"""

from __future__ import annotations

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, OP, OTHER, REL, Token

__all__ = ["worded_sum_candidates"]


def _word(tok: Token) -> bool:
    return tok.kind == OTHER and tok.text.isalpha()


def worded_sum_candidates(text: str, tokens: list[Token], uncovered: set[int]
                          ) -> list[Candidate]:
    out = []
    for k in range(1, len(tokens) - 1):
        rel, res = tokens[k], tokens[k + 1]
        if rel.kind != REL or rel.text != "=" or res.kind != NUM or res.start not in uncovered:
            continue
        after = tokens[k + 2] if k + 2 < len(tokens) else None
        if after is not None and after.kind in (OP, REL):
            continue  # `= 9 × 2`: the result is part of something larger
        line_start = text.rfind("\n", 0, rel.start) + 1
        terms: list[list[Token]] = [[]]
        j = k - 1
        while j >= 0 and tokens[j].start >= line_start:
            t = tokens[j]
            if t.kind == OP and t.text == "+":
                terms.append([])
            elif t.kind == NUM or _word(t):
                terms[-1].append(t)
            else:
                break
            j -= 1
        terms.reverse()
        nums = [[t for t in term if t.kind == NUM] for term in terms]
        if len(terms) < 2 or any(len(n) != 1 for n in nums) \
                or not any(_word(t) for term in terms[1:] for t in term):
            continue
        holes = {f"s{i}": n[0] for i, n in enumerate(nums)}
        out.append(Candidate("chain", "inferred: a sum of worded terms",
                             {**holes, "r": res}, [Check("r", " + ".join(holes), False)]))
    return out
