"""Coverage searches each quote once (verifiers/coverage/quotes.py): same answers as a search
of its own, told apart by everything the search reads, and no memo outside a classification."""

from __future__ import annotations

from pathlib import Path

import pytest

from verifiers.coverage import quotes
from verifiers.coverage.quotes import find_in, shared_finds
from verifiers.holes import ResolveError, find
from verifiers.notes import Note

TEXT = """1.1 一

总和是 3。总和是 5。

1.2 二

总和是 7。

1.3 三

总和是 9。
"""


def note(text: str = TEXT) -> Note:
    return Note(Path("n.txt"), text)


def plain(n: Note, quote: str, scopes: list[tuple[int, int]], **context: str) -> str:
    """The value a search of its own reads (the answer the memo must give)."""
    return find(n.text, quote, scopes, displays=n.displays, **context).values["s"].text


def read(n: Note, quote: str, scopes: list[tuple[int, int]], **context: str) -> str:
    return find_in(n, quote, scopes, **context).values["s"].text


def test_the_same_quote_in_another_context_is_searched_again() -> None:
    """A memo keyed by less than the note, quote, scopes, near and after would give one of
    these the answer of another."""
    n = note()
    whole = [(0, len(n.text))]
    asks = [("总和是 ⟨s⟩。", whole, {"near": "总和是 3"}),
            ("总和是 ⟨s⟩。", whole, {"near": "5。"}),
            ("总和是 ⟨s⟩。", whole, {"after": "1.2"}),
            ("总和是 ⟨s⟩。", whole, {"after": "1.3"}),
            ("总和是 ⟨s⟩。", n.scopes("1.2"), {}),
            ("总和是 ⟨s⟩。", n.scopes("1.3"), {}),
            ("总和是 ⟨s⟩。", n.scopes("1.1"), {"after": "总和是 3"})]
    with shared_finds():
        got = [read(n, q, s, **c) for q, s, c in asks]
        again = [read(n, q, s, **c) for q, s, c in asks]  # from the memo
    assert got == again == [plain(n, q, s, **c) for q, s, c in asks]
    assert got == ["3", "5", "7", "9", "7", "9", "5"]


def test_another_note_with_the_same_quote_is_searched_again() -> None:
    with shared_finds():
        first, second = note(), note(TEXT.replace("总和是 7", "总和是 8"))
        assert read(first, "总和是 ⟨s⟩。", first.scopes("1.2")) == "7"
        assert read(second, "总和是 ⟨s⟩。", second.scopes("1.2")) == "8"


def test_a_quote_not_found_raises_each_time_with_its_message() -> None:
    n = note()
    with pytest.raises(ResolveError) as alone:
        find(n.text, "总和是 ⟨s⟩ 个", [(0, len(n.text))], displays=n.displays)
    with shared_finds():
        for _ in range(2):
            with pytest.raises(ResolveError) as memo:
                find_in(n, "总和是 ⟨s⟩ 个", [(0, len(n.text))])
            assert memo.value.message == alone.value.message


def test_nothing_is_kept_outside_a_classification(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[str] = []

    def counting(text: str, quote: str, *args: object, **kwargs: object) -> object:
        searched.append(quote)
        return find(text, quote, *args, **kwargs)

    monkeypatch.setattr(quotes, "find", counting)
    n = note()
    for _ in range(2):
        find_in(n, "总和是 ⟨s⟩。", n.scopes("1.2"))
    assert len(searched) == 2
    with shared_finds():
        with shared_finds():  # nested: one memo
            find_in(n, "总和是 ⟨s⟩。", n.scopes("1.2"))
        find_in(n, "总和是 ⟨s⟩。", n.scopes("1.2"))
    assert len(searched) == 3
    find_in(n, "总和是 ⟨s⟩。", n.scopes("1.2"))
    assert len(searched) == 4
