"""``-k EXPR`` selection, as in pytest: words, ``and``, ``or``, ``not``, parentheses.

A word matches a claim when it is a case-insensitive substring of the claim's
id, file, note or section.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from verifiers.schema import Claim

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordError(ValueError):
    pass


def compile_keywords(expression: str) -> Callable[[Claim], bool]:
    tokens = [t for t in _TOKEN.findall(expression) if t]
    if not tokens:
        raise KeywordError("-k: empty expression")
    pos = 0

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def disjunction() -> Callable[[str], bool]:
        left = conjunction()
        while peek() == "or":
            take()
            a, b = left, conjunction()
            left = lambda s, a=a, b=b: a(s) or b(s)  # noqa: E731
        return left

    def conjunction() -> Callable[[str], bool]:
        left = negation()
        while peek() == "and":
            take()
            a, b = left, negation()
            left = lambda s, a=a, b=b: a(s) and b(s)  # noqa: E731
        return left

    def negation() -> Callable[[str], bool]:
        if peek() == "not":
            take()
            inner = negation()
            return lambda s: not inner(s)
        return atom()

    def atom() -> Callable[[str], bool]:
        token = peek()
        if token is None:
            raise KeywordError(f"-k: unexpected end of {expression!r}")
        take()
        if token == "(":
            inner = disjunction()
            if peek() != ")":
                raise KeywordError(f"-k: missing ')' in {expression!r}")
            take()
            return inner
        if token in (")", "and", "or"):
            raise KeywordError(f"-k: unexpected {token!r} in {expression!r}")
        word = token.lower()
        return lambda s: word in s

    matcher = disjunction()
    if peek() is not None:
        raise KeywordError(f"-k: unexpected {peek()!r} in {expression!r}")

    def select(claim: Claim) -> bool:
        haystack = " ".join([claim.id, claim.file, claim.note, claim.section or ""]).lower()
        return matcher(haystack)

    return select
