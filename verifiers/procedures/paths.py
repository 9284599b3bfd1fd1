"""Gradient paths stated in a sentence: "梯度从 L 经过 Z、A 传回 W_Q", "∂L/∂W_Q 要经过 …".

A note says which quantities a gradient passes through on its way from the loss to a
parameter. A sentence with a gradient cue (梯度, 反向传播, ∂, gradient, backprop …) and a path
cue (从…到, 经过, 传回, through, from … to) is read as a path: its symbols in printed order
(for ``∂L/∂W`` the numerator first and the denominator last). This module only finds the
symbols (light: no torch); :mod:`verifiers.procedures.orders` maps them to tinygpt's
quantities and checks the path against autograd: each quantity on it is computed from the
next one, so a swapped or foreign quantity is a discrepancy at its symbol.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from verifiers.procedures.sequences import Item, Sequence
from verifiers.yamlload import load

__all__ = ["gradient_paths"]

_SENTENCE = re.compile(r"[^。；;！？!?\n]+")
_GRADIENT = re.compile(r"梯度|反向传播|反传|导数|偏导|∂|\\partial|gradient|backprop|derivative",
                       re.IGNORECASE)
_PATH = re.compile(r"从.{0,40}?(?:到|传回|传到|回到|流向|传向|流回)|经过|经由|沿着|途经|"
                   r"\bthrough\b|\bvia\b|\bfrom\b.{0,60}?\bto\b", re.IGNORECASE)
_START = re.compile(r"从|\bfrom\b", re.IGNORECASE)
_FRACTION = re.compile(r"∂\s*(?P<a>[^\s/∂]+?)\s*/\s*∂\s*(?P<b>[A-Za-zα-ωℓℒ]\w*(?:_\{?\w+\}?)?)|"
                       r"\\frac\s*\{\s*\\partial\s*(?P<c>[^{}]+?)\s*\}\s*"
                       r"\{\s*\\partial\s*(?P<d>[^{}]+(?:\{[^{}]*\}[^{}]*)?)\}")
# a symbol: a letter with an optional subscript or superscript (W_Q, W_{Q}, h_5, W^O)
_SYMBOL = re.compile(r"(?<![A-Za-z0-9_\\])[A-Za-zα-ωΑ-Ωℓℒ]"
                     r"(?:_\{?[A-Za-z0-9]+\}?|\^\{?[A-Za-z]+\}?)?(?![A-Za-z0-9])")
QUANTITIES = Path(__file__).resolve().parent / "quantities.yaml"


@functools.cache
def _names() -> tuple[str, ...]:
    """The Chinese names of quantities.yaml (注意力输出), longest first."""
    root = load(QUANTITIES.read_text(encoding="utf-8"))
    data = (root.plain() if root is not None else None) or {}
    words = {str(w) for ws in (data.get("quantities") or {}).values() for w in ws}
    return tuple(sorted((w for w in words if re.search(r"[\u4e00-\u9fff]", w)),
                        key=len, reverse=True))
_WORD = re.compile(r"[A-Za-z]{2,}")
_ARTICLES = frozenset({"the", "The", "an", "An"})  # "A" may be the attention weights
_ARTICLE = re.compile(r"\b(?:[Tt]he|[Aa]n|a)\b")


def _symbols(line: str, a: int, b: int, prose: bool) -> list[Item]:
    """Symbol-like tokens of ``line[a:b]``, as items (line number filled in by the caller).
    In English prose a lowercase single letter is an article or a pronoun, not a symbol."""
    out = []
    for m in _SYMBOL.finditer(line, a, b):
        text = m.group()
        if prose and len(text) == 1 and text.islower() and text.isascii():
            continue
        out.append(Item(text, 0, m.start(), m.end()))
    for m in _WORD.finditer(line, a, b):  # English words that name a quantity (loss, logits)
        if not any(it.col <= m.start() < it.end for it in out):
            out.append(Item(m.group(), 0, m.start(), m.end()))
    for name in _names():  # Chinese names, longest first, not overlapping
        k = line.find(name, a, b)
        while k >= 0:
            if not any(it.col < k + len(name) and k < it.end for it in out):
                out.append(Item(name, 0, k, k + len(name)))
            k = line.find(name, k + 1, b)
    return sorted(out, key=lambda it: it.col)


def gradient_paths(block: str) -> list[Sequence]:
    """Every gradient path the block's sentences state (shape ``path``): its candidate
    symbols in printed order; the caller keeps those that name a quantity."""
    out: list[Sequence] = []
    for k, line in enumerate(block.split("\n")):
        for sentence in _SENTENCE.finditer(line):
            lo, hi = sentence.start(), sentence.end()
            text = line[lo:hi]
            if not _GRADIENT.search(text) or not _PATH.search(text):
                continue
            prose = not re.search(r"[\u4e00-\u9fff]", text)
            frac = _FRACTION.search(line, lo, hi)
            if frac is not None:
                a_name = "a" if frac.group("a") else "c"
                b_name = "b" if frac.group("b") else "d"
                first = Item(frac.group(a_name).strip(), k, frac.start(a_name), frac.end(a_name))
                last = Item(frac.group(b_name).strip(), k, frac.start(b_name), frac.end(b_name))
                inner = _symbols(line, frac.end(), hi, prose)
                items = [first, *inner, last]
            else:
                start = _START.search(line, lo, hi)
                if start is None:
                    continue
                items = _symbols(line, start.end(), hi, prose)
                items = [it for it in items if it.text not in _ARTICLES]
                lead = _ARTICLE.sub("", line[start.end():items[0].col]) if items else "x"
                if lead.strip(" $"):
                    continue  # the path starts right after 从 / from, or it is no path
            items = [Item(it.text, k, it.col, it.end) for it in items]
            if len(items) >= 2:
                out.append(Sequence("path", tuple(items)))
    return out
