"""tinygpt: the reference model the notes' worked examples are checked against.

A small, readable GPT in PyTorch (float64), following the notes' conventions
(row vectors, ``x @ W``). It arrives with the model claims (issue 3); the
arithmetic engine never imports it, so plain arithmetic checks stay fast.
"""
