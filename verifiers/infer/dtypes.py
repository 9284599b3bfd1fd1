"""Pattern family: the bytes a number type takes, ``in bf16 (2 bytes per weight)``.

Memory arithmetic in study notes starts from the size of one value -- ``fp16 (2 bytes
each)``, ``每个 fp32 数占 4 字节``, ``int8: 1 byte`` -- and then multiplies it out
(:mod:`.chains`, :mod:`.units` read the rest). The size is a fact of the type, so it is
checked against a small fixed table (:data:`BYTES`): a byte count printed within
:data:`MAX_GAP` characters of a type's name on its line, the nearest name taken. Only a count
that agrees is proposed (a reading of words: kept only when the engine verifies it, never
pinned); an edit of it afterwards is then a discrepancy.
"""

from __future__ import annotations

import re
from fractions import Fraction

from verifiers.infer.candidate import Candidate, Check
from verifiers.infer.tokens import NUM, Token, printed_value

__all__ = ["BYTES", "dtype_candidates"]

#: bytes per value of each number type (names matched case-insensitively, as whole words)
BYTES: dict[str, Fraction] = {
    **dict.fromkeys(("fp64", "float64", "double", "int64", "uint64"), Fraction(8)),
    **dict.fromkeys(("fp32", "float32", "tf32", "int32", "uint32"), Fraction(4)),
    **dict.fromkeys(("fp16", "float16", "bf16", "bfloat16", "half", "int16", "uint16"),
                    Fraction(2)),
    **dict.fromkeys(("fp8", "int8", "uint8"), Fraction(1)),
    **dict.fromkeys(("int4", "fp4", "nf4"), Fraction(1, 2)),
}
MAX_GAP = 40  # characters between the type's name and the byte count
_TYPE_RE = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(BYTES, key=len, reverse=True))
                      + r")(?![A-Za-z0-9_])", re.IGNORECASE)
_BYTES_RE = re.compile(r"[ \t$]*(?:bytes?|字节|个字节)(?![A-Za-z])")


def dtype_candidates(text: str, tokens: list[Token], uncovered: set[int]) -> list[Candidate]:
    """``v = BYTES[type]`` for a byte count printed near a number type's name."""
    out = []
    for tok in tokens:
        if tok.kind != NUM or tok.start not in uncovered or not _BYTES_RE.match(text, tok.end):
            continue
        a = text.rfind("\n", 0, tok.start) + 1
        b = text.find("\n", tok.end)
        b = len(text) if b < 0 else b
        names = [m for m in _TYPE_RE.finditer(text, max(a, tok.start - MAX_GAP),
                                              min(b, tok.end + MAX_GAP))]
        if not names:
            continue
        near = min(names, key=lambda m: min(abs(m.start() - tok.end), abs(tok.start - m.end())))
        size = BYTES[near.group(1).lower()]
        printed = printed_value(tok)
        if printed is None or printed[0] != float(size):
            continue
        value = str(size.numerator) if size.denominator == 1 else \
            f"{size.numerator} / {size.denominator}"
        out.append(Candidate("dtype", f"inferred: a {near.group(1)} value takes {value} "
                             "bytes", {"v": tok}, [Check("v", value, False)]))
    return out
