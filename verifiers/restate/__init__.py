"""Restatements in prose: numbers written as words, and what they count.

* :mod:`.countwords` -- count words (三个, 两类, 十二层, 一半, two, six) found in a note, each
  classified: a count, an idiom (两者, 一点), the article reading of 一 (一个向量), an ordinal;
* :mod:`.coverage` -- which count words a claim reads (a hole over the word), waives, or leaves
  uncovered: the ``count_words`` field of ``notecheck coverage``.

A count word inside a claim's hole is read as an exact number (:func:`.countwords.read_count`,
a hook in :mod:`verifiers.holes`), so an edit of the word (三个 -> 四个) is a ``discrepancy`` at
the word with the right word as its suggestion. Imports flow one way: this package imports
only :mod:`verifiers.yamlload` (and coverage the coverage helpers).
"""
