"""Where a printed program's token ids start (0 or 1), read from its code (a code hole).

* ``program_id_base`` — the note's program (``code: {from: FIRST LINE}``, read as it is now)
  is parsed (``ast``; nothing is run) for the table that numbers the vocabulary: a dict
  comprehension ``{c: i for i, c in enumerate(vocab)}`` (the start of ``enumerate``, plus a
  constant added to ``i``), or ``dict(zip(vocab, range(a, …)))``. ``base`` is the first id
  it assigns. A note sentence that says where ids start ("id 从 0 开始，和代码一致") reads
  its number with a hole checked against ``base``, so an edit of either is judged.

A program with no such table is an error (the claim never passes without reading one).
"""

from __future__ import annotations

import ast

import torch

from tinygpt.examples import example

__all__ = ["id_base", "program_id_base"]


def _const(node: ast.expr | None, default: int = 0) -> int | None:
    if node is None:
        return default
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    return None


def _enumerate_start(call: ast.Call) -> int | None:
    start = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "start"), None)
    return _const(start)


def _offset(value: ast.expr, index: str) -> int | None:
    """``i`` → 0, ``i + k`` / ``k + i`` → k, anything else → None."""
    if isinstance(value, ast.Name) and value.id == index:
        return 0
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
        for a, b in ((value.left, value.right), (value.right, value.left)):
            if isinstance(a, ast.Name) and a.id == index and _const(b, -1) not in (None, -1):
                return _const(b)
    return None


def id_base(program: str) -> int | None:
    """The first id the program's vocabulary table assigns, or None when it builds none."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.DictComp) and len(node.generators) == 1:
            gen = node.generators[0]
            it = gen.iter
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
                    it.func.id == "enumerate" and isinstance(gen.target, ast.Tuple) and \
                    gen.target.elts and isinstance(gen.target.elts[0], ast.Name):
                start = _enumerate_start(it)
                off = _offset(node.value, gen.target.elts[0].id)
                if start is not None and off is not None:
                    return start + off
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "dict" and node.args and isinstance(node.args[0], ast.Call):
            z = node.args[0]
            if isinstance(z.func, ast.Name) and z.func.id == "zip" and len(z.args) == 2 and \
                    isinstance(z.args[1], ast.Call) and isinstance(z.args[1].func, ast.Name) \
                    and z.args[1].func.id == "range":
                r = z.args[1].args
                return _const(r[0]) if len(r) > 1 else 0
    return None


@example("program_id_base")
def program_id_base(program: str, text: str = "") -> dict[str, torch.Tensor]:
    """``base``: the first token id the note's program assigns (its vocabulary table)."""
    base = id_base(program)
    if base is None:
        raise ValueError("the program builds no token → id table ({c: i for i, c in "
                         "enumerate(…)} or dict(zip(…, range(…))))")
    return {"base": torch.tensor(float(base), dtype=torch.float64)}
