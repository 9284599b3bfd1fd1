"""notecheck verifiers.

The modules form stages, each importing only itself and earlier ones (README "Code map";
the table and the check are in tests/test_layers.py): shared records and helpers → reading
notes (``parsers/``, ``notes``) → loading claims (``claimtext``, ``schema``, ``holes``) →
checks, one per kind (``arithmetic/``, ``symbolic/``, ``formulas/``, ``properties/``,
``procedures/``) → ``engine`` and ``run`` → outputs (``report/``, ``coverage/``) → the editing
loop (``changes``, ``fix``, ``scaffold``, ``infer/``) → ``cli`` and the pytest ``plugin``.
"""
