"""docs/model-examples.md is generated from the registry (docstrings, signatures and the
keys of each example's returned dict); this test fails when it lists a different set.

Regenerate: ``python -m tests.test_model_examples_doc > docs/model-examples.md``.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "model-examples.md"


def _outputs(fn) -> list[str]:
    """String keys of the dicts the example returns (read from its source; our own code)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, SyntaxError):
        return []
    keys: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            for sub in ast.walk(node.value):
                if isinstance(sub, ast.Dict):
                    keys += [k.value for k in sub.keys
                             if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return list(dict.fromkeys(keys))


def _claimed_outputs() -> dict[str, list[str]]:
    """Output keys the repository's model claims read, per example (for helper-built dicts)."""
    from verifiers.schema import load_claim_file

    root = DOC.parent.parent
    notes = {p.name for p in (root / "notes").iterdir()}
    found: dict[str, list[str]] = {}
    for path in sorted((root / "claims").rglob("*.yaml")):
        for claim in load_claim_file(path, str(path), notes).claims:
            if claim.run is not None:
                found.setdefault(claim.run.example, []).extend(claim.run.outputs.values())
    return {k: sorted(set(v)) for k, v in found.items()}


def _summary(fn) -> str:
    doc = inspect.getdoc(fn) or ""
    first = doc.split("\n\n", 1)[0]
    return re.sub(r"\s+", " ", first).replace("|", "\\|").strip()


def render() -> str:
    from tinygpt.examples import load_all

    lines = [
        "# Model examples (`kind: model`)",
        "",
        "Generated from `tinygpt/examples/` (docstrings, signatures, returned keys) by",
        "`python -m tests.test_model_examples_doc > docs/model-examples.md`;",
        "`tests/test_model_examples_doc.py` fails when an example is missing here.",
        "A model claim names one in `run: {example: NAME, inputs: {...}, outputs: {...}}`",
        "(docs/claim-format.md). Inputs are keyword arguments (float64 tensors; `text` is the",
        "quoted note text, `run.text: true`). Outputs are the keys of the returned dict; where",
        "a helper builds it, the keys the repository's claims read, else \"see source\".",
        "",
        "| example | module | what it computes | inputs | outputs |",
        "|---|---|---|---|---|",
    ]
    claimed = _claimed_outputs()
    for name, fn in sorted(load_all().items()):
        params = ", ".join(f"`{p}`" for p in inspect.signature(fn).parameters)
        outputs = ", ".join(f"`{k}`" for k in _outputs(fn))
        if not outputs and claimed.get(name):
            outputs = ", ".join(f"`{k}`" for k in claimed[name]) + " (as read by claims)"
        outputs = outputs or "see source"
        module = fn.__module__.rsplit(".", 1)[-1]
        lines.append(f"| `{name}` | {module} | {_summary(fn)} | {params} | {outputs} |")
    return "\n".join(lines) + "\n"


def test_catalogue_lists_every_registered_example() -> None:
    from tinygpt.examples import load_all

    text = DOC.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
    assert listed == set(load_all()), "regenerate docs/model-examples.md (see module docstring)"
    assert text == render(), "docs/model-examples.md is stale: regenerate it"


if __name__ == "__main__":
    print(render(), end="")
