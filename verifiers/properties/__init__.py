"""Property claims (kind: property): laws the notes state in prose, searched with Hypothesis.

Layout (only :mod:`.catalog` is imported when claim files are loaded; everything else, and
with it torch and Hypothesis, only when a property claim is evaluated):

- :mod:`.catalog`     names, parameters, expectations (light: the schema validates with it);
- :mod:`.strategies`  Hypothesis strategies: score vectors, probabilities, tiny tinygpt models;
- :mod:`.laws`        one check per property, each with an injectable implementation;
- :mod:`.runner`      runs a property under a settings profile and words the verdict.
"""
