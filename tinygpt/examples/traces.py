"""Printed step-by-step traces of selection algorithms, judged entry by entry (code holes).

* ``mbm_topp_trace`` — matrix-by-matrix §10.2's top-p walk: "从高到低累加：" and one line
  per token, ``- "猫"：0.555 → 累计0.555，不够0.9，继续``. The block is read from the note as
  it is now (``code: {from: "从高到低累加：", to: "候选集合", as: trace}``); the threshold P is
  read from the claim's quote (``TopP = 0.9（累积90%）：``).

Each entry is recomputed from the trace's own inputs: its probability (in descending
order), the previous cumulative value as printed and the threshold. An edited entry fails
at that entry: the running sum at the sum, a wrong comparison or decision at its words.
"""

from __future__ import annotations

import re

import torch

from tinygpt.examples import example
from verifiers.programs.codehole import Finding, locator

_NUM = r"\d+(?:\.\d+)?"
_ENTRY = re.compile(
    r"[-•]\s*[\"“「]?(?P<tok>[^\"”」：:]+?)[\"”」]?\s*[：:]\s*(?P<p>" + _NUM + r")\s*→\s*累计\s*"
    r"(?P<c>" + _NUM + r")\s*[，,]\s*(?P<cmp>不够|未到|超过|达到|刚好达到)\s*(?P<t>" + _NUM
    + r")\s*[，,]\s*(?P<act>继续|停止)[！!]?")
_BELOW = ("不够", "未到")


def _half_ulp(text: str) -> float:
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals


@example("mbm_topp_trace")
def topp_trace(text: str, trace: str) -> dict[str, torch.Tensor]:
    """The number of entries of the printed walk (the locator judges each)."""
    return {"entries": torch.tensor(float(len(_ENTRY.findall(trace))), dtype=torch.float64)}


@locator("mbm_topp_trace")
def topp_trace_findings(block: str, quote: str, first_line: int) -> list[Finding]:
    """Each line of the walk: descending probability, running sum, threshold, decision.

    The sum is the previous printed cumulative plus this printed probability (within the
    rounding of the three printed numbers); the comparison word says whether it is below
    P (不够/未到, then 继续) or at least P (超过/达到, then 停止); the walk stops at the
    first entry at least P and has no entry after it.
    """
    out: list[Finding] = []
    m = re.search(r"TopP\s*=\s*(" + _NUM + ")", quote)
    lines = block.splitlines()
    if m is None:
        return [Finding(1, 0, len(lines[0]) if lines else 0, "error", "trace", "", "",
                        "the quote prints no threshold (TopP = …)")]
    P = float(m.group(1))
    prev_c: str | None = None
    prev_p: str | None = None
    stopped_at: int | None = None
    entries = 0
    for i, line in enumerate(lines, start=1):
        e = _ENTRY.search(line)
        if e is None:
            continue
        entries += 1
        name = f"entry {entries}"

        def at(group: str, status: str, expected: str, message: str, _e=e, _i=i,
               _name=name) -> None:  # group: "p" probability, "c" sum, "t" threshold
            out.append(Finding(_i, _e.start(group), _e.end(group), status, f"{_name} {group}",
                               _e.group(group), expected, message))

        tok, p, c, t = e.group("tok"), e.group("p"), e.group("c"), e.group("t")
        if stopped_at is not None:
            out.append(Finding(i, e.start(), e.end(), "discrepancy", name, e.group(), "",
                               f"the walk stopped at entry {stopped_at}; 「{tok}」 comes after it"))
            continue
        if prev_p is not None and float(p) > float(prev_p):
            at("p", "discrepancy", prev_p, f"「{tok}」 {p} is larger than the entry before it "
               f"({prev_p}): the walk goes from high to low")
        base = float(prev_c) if prev_c is not None else 0.0
        slack = _half_ulp(c) + _half_ulp(p) + (_half_ulp(prev_c) if prev_c else 0.0)
        want = base + float(p)
        decimals = len(c.split(".")[1]) if "." in c else 0
        if abs(float(c) - want) > slack + 1e-12:
            at("c", "discrepancy", f"{want:.{decimals}f}",
               f"the running sum is {prev_c or '0'} + {p} = {want:.{decimals}f}")
        else:
            at("c", "verified", c, f"{prev_c or '0'} + {p}")
        if float(t) != P:
            at("t", "discrepancy", m.group(1), f"the threshold is TopP = {m.group(1)}")
        below = float(c) < P
        said_below = e.group("cmp") in _BELOW
        said_go = e.group("act") == "继续"
        if below != said_below or below != said_go:
            words = "不够…继续" if below else "超过…停止"
            out.append(Finding(i, e.start("cmp"), e.end("act"), "discrepancy", f"{name} decision",
                               line[e.start("cmp"):e.end("act")], words,
                               f"{c} is {'below' if below else 'at least'} P = {m.group(1)}: "
                               f"the walk should say {words}"))
        else:
            out.append(Finding(i, e.start("cmp"), e.end("act"), "verified", f"{name} decision",
                               line[e.start("cmp"):e.end("act")],
                               line[e.start("cmp"):e.end("act")],
                               f"{c} {'<' if below else '≥'} {m.group(1)}"))
        if not below or not said_go:
            stopped_at = entries
        prev_c, prev_p = c, p
    if entries and stopped_at is None:
        last = max(i for i, ln in enumerate(lines, start=1) if _ENTRY.search(ln))
        out.append(Finding(last, 0, len(lines[last - 1]), "discrepancy", "trace",
                           lines[last - 1], "", "the walk ends without reaching P"))
    if not entries:
        out.append(Finding(1, 0, len(lines[0]) if lines else 0, "error", "trace", "", "",
                           "no entry - \"token\"：p → 累计c，… in the block"))
    return out
