"""Pattern families said in words: sums and means of printed lists, shares of a total.

* ``[2.31, 1.87, 1.42] 的总和为 5.60`` / ``平均`` / ``mean`` / ``方差`` / ``标准差`` ->
  ``r = sum(v)`` / ``mean(v)`` / ``var(v)`` / ``sqrt(var(v))``;
* ``一共 1200 个参数，其中 … 480 个，占 40%`` -> ``p = part / total``;
* ``e² = 7.3891，e¹ = 2.7183，和为 10.1074`` -> ``r = s0 + s1`` (the listed results).

Words can be misread (``和`` is also "and"), so every check of these families
is *ambiguous*: kept only when the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token

__all__ = ["aggregate_candidates", "listed_total_candidates", "percent_candidates"]

_AGG_RE = re.compile(
    r"[\s$]*(?:[,，]\s*)?(?:它的|其|的|with\s+(?:a\s+)?|has\s+(?:a\s+)?|whose\s+|of\s+)?\s*"
    r"(总和|之和|合计|sum|total|平均值|平均数|平均|均值|mean|average|方差|variance|标准差|"
    r"standard deviation|std)\s*"
    r"(?:为|是|=|：|:|约为|≈|is|of)?[\s$]*")
_TOTAL_RE = re.compile(r"(?:一共|总共|共计|合计|总计|总数|共)(?:有|是|为)?[\s$]*")
_SHARE_RE = re.compile(r"占(?:比)?(?:了|约)?[\s$]*")

#: The word -> the aggregate (population variance, as ``var`` computes; a note meaning the
#: sample variance is not verified, so nothing is written).
_FUNCS = {"总和": "sum", "之和": "sum", "合计": "sum", "sum": "sum", "total": "sum",
          "方差": "var", "variance": "var", "标准差": "std", "standard deviation": "std",
          "std": "std"}


def aggregate_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``<vector> 的总和为 <number>`` and its mean, ``sum``, ``mean`` spellings."""
    values = {t.start: t for t in tokens if t.kind in (NUM, VAL)}
    out = []
    for t in tokens:
        if t.kind != VAL or t.shape != "vector":
            continue
        m = _AGG_RE.match(text, t.end)
        if not m:
            continue
        r = values.get(m.end())
        if r is None or r.kind != NUM or r.start not in uncovered:
            continue
        func = _FUNCS.get(m.group(1), "mean")
        expr = "sqrt(var(v))" if func == "std" else f"{func}(v)"
        out.append(Candidate("aggregate", f"inferred: {func} of the printed list",
                             {"v": t, "r": r}, [Check("r", expr, False)]))
    return out


def percent_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``一共 N …，M …，占 P%``: each share of a printed total, within one line."""
    nums = [t for t in tokens if t.kind == NUM]
    by_start = {t.start: t for t in nums}
    out = []
    for m in _TOTAL_RE.finditer(text):
        total = by_start.get(m.end())
        if total is None or total.text.rstrip().endswith(("%", "％")):
            continue
        line_end = text.find("\n", total.end)
        line_end = len(text) if line_end < 0 else line_end
        after = [t for t in nums if total.end <= t.start < line_end]
        previous_share = total.end
        for s in _SHARE_RE.finditer(text, total.end, line_end):
            pct = by_start.get(s.end())
            if pct is None or not pct.text.rstrip().endswith(("%", "％")):
                continue
            parts = [t for t in after if previous_share <= t.start < s.start()
                     and not t.text.rstrip().endswith(("%", "％"))]
            previous_share = pct.end
            if len(parts) != 1 or pct.start not in uncovered:
                continue  # none, or several numbers: which one is the part is a guess
            out.append(Candidate("percent", "inferred: a share of the printed total",
                                 {"n": total, "m": parts[0], "p": pct},
                                 [Check("p", "m / n", False)]))
    return out


_LISTED_RE = re.compile(r"(?:总和|之和|合计|总计|和|total|sum|in all|altogether)"
                        r"(?:为|是|等于|is|of|:|：|=)?[\s$]*\Z", re.IGNORECASE)
MIN_LISTED = 2  # results a total adds up


def listed_total_candidates(text: str, tokens: list[Token], uncovered: set[int]
                            ) -> list[Candidate]:
    """``e² = 7.3891，e¹ = 2.7183，e^0.1 = 1.1052，和为 11.2125`` / ``…, total $8.1304$``: a
    total after a list of results printed on its line is their sum. Which results it adds is a
    reading (the line may start with an input, ``T = 1：``): the longest run of the last
    results whose sum is the total at the printed digits; kept only when verified."""
    from verifiers.infer.tokens import REL, printed_value

    out = []
    for k, tok in enumerate(tokens):
        if tok.kind != NUM or tok.start not in uncovered:
            continue
        line_start = text.rfind("\n", 0, tok.start) + 1
        m = _LISTED_RE.search(text, line_start, tok.start)
        if m is None or not re.search(r"[，,;；]\s*$", text[line_start:m.start()]):
            continue
        total = printed_value(tok)
        if total is None:
            continue
        results = [t for j, t in enumerate(tokens[:k]) if t.start >= line_start and t.kind == NUM
                   and _prev(tokens, j) == REL and _next(tokens, j) != "op"]
        values = [printed_value(t) for t in results]
        for n in range(len(results), MIN_LISTED - 1, -1):
            last = values[-n:]
            if any(v is None for v in last):
                break
            slack = total[1] + sum(v[1] for v in last if v is not None) + 1e-12
            if abs(sum(v[0] for v in last if v is not None) - total[0]) <= slack:
                names = {f"s{j}": t for j, t in enumerate(results[-n:])}
                out.append(Candidate("aggregate", "inferred: the total of the listed results",
                                     {**names, "r": tok}, [Check("r", " + ".join(names), False)]))
                break
    return out


def _prev(tokens: list[Token], j: int) -> str | None:
    """The kind of the token before ``j``, ``$`` skipped."""
    while j > 0:
        j -= 1
        if tokens[j].text != "$":
            return tokens[j].kind
    return None


def _next(tokens: list[Token], j: int) -> str | None:
    while j + 1 < len(tokens):
        j += 1
        if tokens[j].text != "$":
            return tokens[j].kind
    return None
