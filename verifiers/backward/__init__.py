"""Backward rules read from the note and evaluated numerically (issue 13, backward formulas).

``grammar`` evaluates the LaTeX of one formula, ``rules`` finds the rules of a block, and
``judge`` compares each, as printed now, with autograd and with ``tinygpt/backward.py``.
"""
