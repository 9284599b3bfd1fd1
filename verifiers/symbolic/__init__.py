"""The symbolic stage: derivations in a note's LaTeX, checked step by step.

``claims`` reads a symbolic claim's formulas from the note and checks them; ``prove`` decides
one step (SymPy in a bounded worker, then numeric evidence); ``indices`` evaluates indexed
formulas on small instances; ``matrixcalc`` checks matrix-calculus rules entry by entry.
Imports flow claims → prove, indices, matrixcalc; this ``__init__`` imports nothing, so
loading one module never loads the others.
"""
