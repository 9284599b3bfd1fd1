"""A shape stated in words, read as the shape formula it means.

Prose states shapes without ``\\in``: 「输入嵌入E为N×d，输出U为d×N」, 「E 的形状是 (V, d)」,
"W_U has shape d×V", a code comment ``# 嵌入矩阵 E:   V×d``. A formula hole over such a
phrase (the name, the word, the sizes) is rewritten to ``E \\in R^{N \\times d}`` before a
``reference:`` reads it (verifiers/formulas/code.py), so the sizes are checked against the
matrix the reference computes: an edit that swaps or replaces a size is a ``discrepancy`` at
the phrase, a phrase that is not a shape stays unread (``unparsed``), never a pass.

The words (data, :data:`SHAPE_WORDS`): 为, 是, 的形状是, 的形状为, 形状为, 形状是, 的大小是,
大小为, 的维度是, 维度为, ``:``, ``：``, ``is``, ``has shape``, ``of shape``, ``with shape``.
Sizes: ``a×b``, ``a × b``, ``a\\times b``, ``a x b`` (spaced), ``(a, b)``, or one size
``d`` for a vector (``R^{d}``; 维, 向量 may follow); each size a name (``d_model``, ``N``)
or a number.
"""

from __future__ import annotations

import re

__all__ = ["SHAPE_WORDS", "read_shape_words"]

SHAPE_WORDS = ("的形状是", "的形状为", "形状为", "形状是", "的大小是", "大小为", "的维度是",
               "维度为", "为", "是", "：", ":", "has shape", "of shape", "with shape", "is")
_SIZE = r"[A-Za-z0-9](?:[A-Za-z0-9_]*|_\{[^{}]*\})"
_WORD = "|".join(re.escape(w) for w in SHAPE_WORDS)
_PHRASE = re.compile(
    rf"^\s*(?P<name>[A-Za-z](?:_\{{[^{{}}]*\}}|_[A-Za-z0-9]+)?(?:\^\{{?[A-Za-z]\}}?)?)\s*"
    rf"(?:{_WORD})\s*(?:(?P<a>{_SIZE})\s*(?:×|\\times|\s[xX]\s)\s*(?P<b>{_SIZE})"
    rf"|\(\s*(?P<pa>{_SIZE})\s*,\s*(?P<pb>{_SIZE})\s*\)|(?P<one>{_SIZE}))\s*"
    rf"(?:维向量|维|矩阵|向量|matrix|vector)?\s*$")


def _latex(size: str) -> str:
    """``d_model`` stays one name for the LaTeX reader (``d_{model}``)."""
    head, sep, tail = size.partition("_")
    return f"{head}_{{{tail}}}" if sep and not tail.startswith("{") else size


def read_shape_words(text: str) -> str | None:
    """``E \\in R^{N \\times d}`` for a shape in words (``E为N×d``); None for anything else."""
    m = _PHRASE.match(text)
    if m is None:
        return None
    sizes = ([m["a"], m["b"]] if m["a"] else [m["pa"], m["pb"]] if m["pa"] else [m["one"]])
    if any(s is None for s in sizes):
        return None
    space = " \\times ".join(_latex(s) for s in sizes)
    return f"{m['name']} \\in R^{{{space}}}"
