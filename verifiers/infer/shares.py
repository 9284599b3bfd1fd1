"""Pattern family: a percentage just after a printed sum is one term's share of it.

``E_total = 0.251995 + 0.020326 = 0.272321. Most of the error (about 92.5%) comes from
o_1``; ``N = 301989888 + 51463168 = 353453056 …, of which the embedding is about 14.6%``.
Which term the words mean is not read: the percentage is checked against the one term
whose share it is to its printed digits, and only when exactly one term fits. A reading,
so kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, OP, OTHER, REL, Token, printed_value

__all__ = ["share_candidates"]

MAX_LINES = 2  # lines between the sum and the percentage


def _sums(tokens: list[Token]) -> list[tuple[list[Token], Token]]:
    """``a + b (+ c …) = s``: the terms and the sum, all printed numbers."""
    out = []
    k = 0
    while k < len(tokens):
        terms = [tokens[k]] if tokens[k].kind == NUM else []
        j = k + 1
        while terms and j + 1 < len(tokens) and tokens[j].kind == OP and tokens[j].text == "+" \
                and tokens[j + 1].kind == NUM:
            terms.append(tokens[j + 1])
            j += 2
        if len(terms) >= 2 and j + 1 < len(tokens) and tokens[j].kind == REL \
                and tokens[j].text == "=" and tokens[j + 1].kind == NUM:
            out.append((terms, tokens[j + 1]))
            k = j + 2
        else:
            k += 1
    return out


def share_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    out = []
    seq = [t for t in tokens if not (t.kind == OTHER and t.text == "$")]
    # a percentage that is itself the result of a step (`= 6.1%`) is read by that step
    percents = [t for k, t in enumerate(seq) if t.kind == NUM and t.text.rstrip().endswith("%")
                and not (k and seq[k - 1].kind == REL)]
    for terms, total in _sums(seq):
        s = printed_value(total)
        if s is None or s[0] == 0:
            continue
        for pct in percents:
            if pct.start < total.end or pct.start not in uncovered:
                continue
            if text.count("\n", total.end, pct.start) > MAX_LINES:
                break
            p = printed_value(pct)
            if p is None:
                continue
            fits = []
            for term in terms:
                v = printed_value(term)
                if v is not None and abs(v[0] / s[0] - p[0]) <= p[1] + 1e-12:
                    fits.append(term)
            if len(fits) == 1:
                out.append(Candidate("share", "inferred: a term's share of the printed sum",
                                     {"a": fits[0], "s": total, "p": pct},
                                     [Check("p", "a / s", False)]))
    return out
