"""BPE training exactly as lesson 1 §1 describes it, with a trace of every merge.

The note's procedure:

1. start from the smallest units (single characters), each word split into them;
2. count every adjacent pair of units over the corpus, each word weighted by how
   often it occurs ("每个词出现几次，就按几次算");
3. merge the most frequent pair into a new unit and add it to the vocabulary;
4. repeat 2–3 until the vocabulary reaches a target size or no pair is left.

The corpus is *data* (words with counts) so that claims can read it from the
note's text and re-check when the author edits the example.

Conventions, where the note is silent:

* **Ties.** The note's example never has a tie (each round's maximum is unique,
  see ``Merge.tied``), so its merge order does not depend on a rule. We break
  ties by the pair *first seen* when scanning the corpus in its given order,
  word by word, left to right — what ``max(pairs, key=pairs.get)`` does over an
  insertion-ordered dict in Sennrich et al.'s reference BPE code. ``Merge.tied``
  lists the other pairs that had the same count, so a claim can notice when a
  note's order rests on the tie rule.
* **Pair count** is the number of adjacent occurrences (weighted), as in step 2.
  Merging replaces non-overlapping occurrences left to right, so for overlapping
  pairs (``a a a`` with pair ``(a, a)``) the token total drops by less than the
  count; the note's "每次少 1 个 token" is the non-overlapping case.
* **Vocabulary** is a set of unit strings: the starting characters plus each
  merged string. It grows by one per merge unless the merged string already
  exists (two different pairs can spell the same string).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .steps import step

__all__ = ["BPETrace", "Merge", "train_bpe"]

Pair = tuple[str, str]


@dataclass(frozen=True)
class Merge:
    """One round of BPE: what the note prints per round, plus tie information."""

    pair: Pair
    count: int  # weighted adjacent occurrences of ``pair`` before merging
    tokens: int  # token total of the corpus after this merge
    vocab_size: int  # vocabulary size after this merge
    tied: tuple[Pair, ...] = ()  # other pairs with the same (maximal) count

    @property
    def unit(self) -> str:
        """The new unit's string, e.g. ``学习`` for ``("学", "习")``."""
        return self.pair[0] + self.pair[1]


@dataclass(frozen=True)
class BPETrace:
    """The starting point and every merge, in order."""

    initial_vocab: tuple[str, ...]  # characters in first-seen order
    initial_tokens: int
    merges: tuple[Merge, ...]
    words: tuple[tuple[tuple[str, ...], int], ...]  # final segmentation with counts

    @property
    def final_tokens(self) -> int:
        return self.merges[-1].tokens if self.merges else self.initial_tokens

    @property
    def final_vocab_size(self) -> int:
        return self.merges[-1].vocab_size if self.merges else len(self.initial_vocab)


def _normalise(
    corpus: Mapping[str, int] | Iterable[tuple[str | Sequence[str], int]],
) -> list[tuple[tuple[str, ...], int]]:
    """Words as unit tuples with integer counts; repeated words are summed.

    A word given as a string is split into characters (the note's starting
    units); a sequence of strings is taken as already-split units.
    """
    items = corpus.items() if isinstance(corpus, Mapping) else corpus
    merged: dict[tuple[str, ...], int] = {}
    for word, count in items:
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"count of {word!r} must be a non-negative integer, got {count!r}")
        units = tuple(word) if isinstance(word, str) else tuple(word)
        if any(not isinstance(u, str) or not u for u in units):
            raise ValueError(f"units of {word!r} must be non-empty strings")
        if units and count:
            merged[units] = merged.get(units, 0) + count
    return list(merged.items())


def _pair_counts(words: Sequence[tuple[tuple[str, ...], int]]) -> dict[Pair, int]:
    """Weighted adjacent-pair counts, keys in first-seen order (the tie rule)."""
    counts: dict[Pair, int] = {}
    for units, n in words:
        for pair in zip(units, units[1:], strict=False):
            counts[pair] = counts.get(pair, 0) + n
    return counts


def _apply(units: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    """Replace non-overlapping occurrences of ``pair``, scanning left to right."""
    out: list[str] = []
    i = 0
    while i < len(units):
        if i + 1 < len(units) and (units[i], units[i + 1]) == pair:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(units[i])
            i += 1
    return tuple(out)


def train_bpe(
    corpus: Mapping[str, int] | Iterable[tuple[str | Sequence[str], int]],
    target_vocab: int | None = None,
    max_merges: int | None = None,
) -> BPETrace:
    """Learn BPE merges from ``corpus`` (word → count, or ``(word, count)`` pairs).

    Stops when the vocabulary reaches ``target_vocab``, after ``max_merges``
    merges, or when no adjacent pair is left (every word one unit) — whichever
    comes first; with neither limit it runs to the end, as the note's example does.
    """
    words = _normalise(corpus)
    step("split")
    initial: dict[str, None] = {}
    for units, _ in words:
        initial.update(dict.fromkeys(units))
    vocab = set(initial)
    tokens = sum(len(units) * n for units, n in words)
    initial_tokens = tokens
    merges: list[Merge] = []
    while True:
        if target_vocab is not None and len(vocab) >= target_vocab:
            break
        if max_merges is not None and len(merges) >= max_merges:
            break
        counts = _pair_counts(words)
        step("count")
        if not counts:
            break
        best = max(counts, key=counts.__getitem__)  # first maximal key = first seen
        top = counts[best]
        words = [(_apply(units, best), n) for units, n in words]
        tokens = sum(len(units) * n for units, n in words)
        vocab.add(best[0] + best[1])
        step("merge")
        merges.append(
            Merge(
                pair=best,
                count=top,
                tokens=tokens,
                vocab_size=len(vocab),
                tied=tuple(p for p, c in counts.items() if c == top and p != best),
            )
        )
    step("stop")
    return BPETrace(
        initial_vocab=tuple(initial),
        initial_tokens=initial_tokens,
        merges=tuple(merges),
        words=tuple(words),
    )
