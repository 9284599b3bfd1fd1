"""Pattern family: the mean, sum, product, maximum or minimum of a list printed in prose.

Notes state aggregates of a few printed numbers in words far more often than as a formula::

    三个数 2、4、9 的平均是 5，最大是 9，和为 15。
    概率 0.2、0.3、0.5 求和为 1。
    The scores are [2, 4, 9], their mean is 5 and their maximum is 9.
    The mean of 2, 4 and 9 is 5.   The largest logit is max(1.5, 3.2, 0.7) = 3.2.

A list is two or more printed numbers separated only by ``、``, commas or a last ``和``/``and``
(brackets and ``$`` allowed around it). Each aggregate word after it in the same sentence,
joined to it (or to the previous aggregate's result) only by connecting words (``的``, ``，``,
``their``, ``and``...), and followed by ``是``/``为``/``is``/``=`` and a number, gives a check of
that number over the list's holes; so does ``<word> of <list> is N`` and a call ``max(…) = N``.
Words can be misread (``和`` is also "and"), so every check is *ambiguous*: kept only when the
engine verifies it, never pinned; an edited entry or result is then a ``discrepancy``.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, VAL, Token

__all__ = ["list_word_candidates"]

MIN_ITEMS = 2
MAX_ITEMS = 32
_SEP = re.compile(r"[ \t$]*(?:、|,|，|\s(?:and|&)|和|与|及|,\s*and)[ \t$]*")
_WORDS = {
    "平均值": "mean", "平均数": "mean", "平均": "mean", "均值": "mean", "mean": "mean",
    "average": "mean", "avg": "mean",
    "总和": "sum", "之和": "sum", "求和": "sum", "和": "sum", "sum": "sum", "total": "sum",
    "合计": "sum", "总计": "sum", "共计": "sum", "一共": "sum", "总共": "sum", "加起来": "sum",
    "相加": "sum", "in all": "sum", "altogether": "sum",
    "乘积": "prod", "积": "prod", "product": "prod",
    "最大值": "max", "最大": "max", "max": "max", "maximum": "max", "largest": "max",
    "最小值": "min", "最小": "min", "min": "min", "minimum": "min", "smallest": "min",
}
_WORD = "|".join(sorted(_WORDS, key=len, reverse=True))
# between the list (or the last result) and an aggregate word: only connecting words
_JOIN = re.compile(r"(?:[\s$\]\)）】]|,|，|;|；|的|其|且|并且|它们的|这些数的|\band\b|\bwhile\b|"
                   r"\bwith\b|\bwhose\b|\btheir\b|\bits\b|\bthe\b|\ba\b|\bis\b)*?"
                   rf"(?P<w>{_WORD})(?:\s*(?:value|值|数))?"
                   r"(?P<c>(?:\s*(?:is|was|of|equals|=|:|：|为|是|等于|约为|约|≈|得|得到|\\approx)"
                   r"\s*)*)"
                   r"[\s$]*", re.IGNORECASE)
_PREFIX = re.compile(rf"(?P<w>{_WORD})\s+of\s+(?:the\s+)?(?:(?:numbers|values|entries|scores|"
                     r"probabilities)\s+)?[\s$\[(]*\Z", re.IGNORECASE)
_AFTER_PREFIX = re.compile(r"[\s$\])]*(?:is|equals|=|:|≈|\\approx)\s*[\s$]*", re.IGNORECASE)
_CALL = re.compile(r"(?<![A-Za-z])\\?(?P<w>max|min|mean|avg|sum|prod)\s*(?:\\left)?[({]?\s*\Z")
_AFTER_CALL = re.compile(r"\s*(?:\\right)?[)}]?[\s$]*(?:=|≈|\\approx)[\s$]*")
_STOP = re.compile(r"[。\n]|\.(?:\s|$)|[；;](?!\s*\d)")


def _runs(text: str, nums: list[Token]) -> list[list[Token]]:
    """Maximal runs of printed numbers separated only by a list separator."""
    runs: list[list[Token]] = []
    run: list[Token] = []
    for t in nums:
        if run and _SEP.fullmatch(text, run[-1].end, t.start):
            run.append(t)
            continue
        if len(run) >= MIN_ITEMS:
            runs.append(run)
        run = [t]
    if len(run) >= MIN_ITEMS:
        runs.append(run)
    return [r for r in runs if len(r) <= MAX_ITEMS]


def _expr(func: str, names: list[str]) -> str:
    if func == "mean":
        return f"({' + '.join(names)}) / {len(names)}"
    if func == "sum":
        return " + ".join(names)
    if func == "prod":
        return " * ".join(names)
    return f"{func}({', '.join(names)})"


def _candidate(func: str, items: list[Token], result: Token) -> Candidate:
    if len(items) == 1:  # a printed vector `[2, 4, 9]`: one hole, read whole
        expr = f"{func}(v)" if func != "mean" else "mean(v)"
        return Candidate("aggregate", f"inferred: the {func} of the printed list",
                         {"v": items[0], "r": result}, [Check("r", expr, False)])
    holes = {f"v{k}": t for k, t in enumerate(items)}
    return Candidate("aggregate", f"inferred: the {func} of the printed list",
                     {**holes, "r": result}, [Check("r", _expr(func, list(holes)), False)])


def list_word_candidates(text: str, tokens: list[Token], uncovered: set[int]
                         ) -> list[Candidate]:
    """Aggregates in words (after or before the list) and calls ``max(…) = N``."""
    nums = [t for t in tokens if t.kind == NUM]
    by_start = {t.start: t for t in nums}
    vectors = [[t] for t in tokens if t.kind == VAL and t.shape == "vector"]
    out: list[Candidate] = []
    for run in _runs(text, nums) + vectors:
        if any(t.text.rstrip().endswith(("%", "％")) for t in run):
            continue
        stop = _STOP.search(text, run[-1].end)
        end = stop.start() if stop else len(text)
        at = run[-1].end
        while at < end:  # after the list: `的平均是 5，最大是 9，和为 15`
            m = _JOIN.match(text, at, end)
            if m is None:
                break
            result = by_start.get(m.end())
            if result is None or (m.group("w") == "和" and not m.group("c").strip()):
                break  # `和 15` with no `为`/`是`: as likely "and" as "the sum"
            if result.start in uncovered:
                out.append(_candidate(_WORDS[m.group("w").lower()], run, result))
            at = result.end
        line_start = text.rfind("\n", 0, run[0].start) + 1
        head = text[line_start:run[0].start]
        for pattern, after in ((_PREFIX, _AFTER_PREFIX), (_CALL, _AFTER_CALL)):
            m = pattern.search(head)
            if m is None:
                continue
            a = after.match(text, run[-1].end)
            result = by_start.get(a.end()) if a else None
            if result is not None and result.start in uncovered:
                out.append(_candidate(_WORDS[m.group("w").lower()], run, result))
    return out
