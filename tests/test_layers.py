"""Imports flow one way through the stages of ``verifiers/`` (the code map in README.md).

Every module is parsed (``ast``, never imported); an import anywhere in it counts, at module
level or inside a function, since a function-level import is still a dependency that runs.
A module loaded by name (``importlib.import_module``) counts too. Only ``if TYPE_CHECKING:``
blocks are left out: they hold names for annotations and never run. Two rules: no import
cycle, and no module imports one of a later stage (:data:`STAGES`).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "verifiers"

Graph = dict[str, set[str]]

#: The stages, earliest first; a module's stage is the longest prefix that names it (the bare
#: package name ``verifiers`` names only its ``__init__``). A module may import its own stage
#: and earlier ones, never a later one.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("shared records and helpers", (
        "verifiers", "verifiers.errors", "verifiers.files", "verifiers.verdicts",
        "verifiers.textsafe", "verifiers.yamlload", "verifiers.deadline", "verifiers.budget",
        "verifiers.lifecycle", "verifiers.progress", "verifiers.numbers", "verifiers.words",
        "verifiers.unit_words",  # states: unit (a table of unit words; math only)
        "verifiers.magnitude_words",  # 几万, millions: read by holes, written by numbers
        "verifiers.restate", "verifiers.restate.countwords",  # 三个, six: read by holes
        "verifiers.restate.items",  # ⟨items⟩ enumerations: read by holes
    )),
    ("reading notes", ("verifiers.parsers", "verifiers.notes")),
    ("loading claims", (
        "verifiers.claimtext", "verifiers.expr", "verifiers.schema", "verifiers.holes",
        "verifiers.lawsentence",  # holes' last resort: a law sentence rewritten whole
        "verifiers.pins", "verifiers.keywords", "verifiers.profiles",
        # the kinds' own claim rules, which the loader calls
        "verifiers.properties.params", "verifiers.properties.catalog",
        "verifiers.properties.specs_statements", "verifiers.properties.specs_words",
        "verifiers.properties.specs_prose", "verifiers.properties.specs_hedges",
        "verifiers.properties.specs_reading",
        "verifiers.properties.specs_components", "verifiers.properties.specs_necessity",  # laws7
        "verifiers.properties.specs_relations",  # laws8
        "verifiers.properties.slots",
        "verifiers.procedures.validate", "verifiers.procedures.spec", "verifiers.procedures.read",
        "verifiers.procedures.params",  # the parameter vocabulary: light, like .read
        "verifiers.programs", "verifiers.printed_data", "verifiers.formulas.holes",
        "verifiers.formulas.frames",  # frame: a claim rule (re only); symbolic.claims fills it
        "verifiers.formulas.inline_spec",  # computes: a claim's entry (formulas.inline checks)
        "verifiers.formulas.readby_spec",  # read_by: a claim's entry (formulas.readby checks)
        "verifiers.formulas.chains",  # holes' chains (re, math only)
        "verifiers.notation",  # domain: / convention: entries; judged after the run (yaml only)
        "verifiers.arithmetic.routes",  # its Hidden is a claim's field
        "verifiers.restate.counted",  # count words next to items (holes' patterns)
    )),
    ("checks, one folder or module per kind", (
        "verifiers.arithmetic", "verifiers.symbolic", "verifiers.latex", "verifiers.formulas",
        "verifiers.backward", "verifiers.properties", "verifiers.procedures",
        "verifiers.meaning", "verifiers.modelrun",
    )),
    ("engine and run", (
        "verifiers.engine", "verifiers.copies", "verifiers.cache", "verifiers.schedule",
        "verifiers.readers",  # a stale quote located by the claims that read its tokens
        "verifiers.run",
        "verifiers.properties.stated",
        "verifiers.arithmetic.suspects",  # re-evaluates the claims around a suspect input
    )),
    ("outputs", ("verifiers.report", "verifiers.coverage", "verifiers.restate.coverage")),
    ("editing loop", (
        "verifiers.changes", "verifiers.fix", "verifiers.scaffold", "verifiers.infer",
        "verifiers.mutate", "verifiers.init_repo",
        "verifiers.restate.write_counts",  # writes infer/counts' claims
    )),
    ("command line and pytest plugin", (
        "verifiers.cli", "verifiers.plugin", "verifiers.__main__",
    )),
)


def modules(package: Path) -> dict[str, tuple[Path, bool]]:
    """Each module's dotted name, its file, and whether it is a package's ``__init__``."""
    found: dict[str, tuple[Path, bool]] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: all of them except under ``if TYPE_CHECKING:``."""
    out: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.If) and _type_checking(node):
            children = list(node.orelse)  # the else branch runs
        stack.extend(children)
    return out


def imports_of(name: str, source: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports (``from pkg import mod`` names
    the submodule ``pkg.mod`` when there is one, else the package). A module that calls
    ``importlib.import_module`` imports every module a string constant of it names."""

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    here = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(source)
    targets: set[str] = set()
    if "import_module" in source:  # importlib: every string naming a module may be imported
        targets.update(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
                       and isinstance(n.value, str) and n.value in known)
    for node in _import_nodes(tree):
        if isinstance(node, ast.Import):
            targets.update(filter(None, (resolve(a.name) for a in node.names)))
            continue
        base = node.module or ""
        if node.level:
            parts = here.split(".")
            parts = parts[:len(parts) - (node.level - 1)]
            base = ".".join(parts + ([node.module] if node.module else []))
        for alias in node.names:
            full = f"{base}.{alias.name}"
            targets.add(full if full in known else resolve(base))
    targets.discard(None)  # type: ignore[arg-type]
    targets.discard(name)
    return targets


def import_graph(package: Path) -> Graph:
    """Module → the package's modules it imports, for every module under ``package``."""
    found = modules(package)
    known = set(found)
    return {name: imports_of(name, path.read_text(encoding="utf-8"), is_package, known)
            for name, (path, is_package) in found.items()}


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle per strongly connected group of modules (``[a, b, a]``), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(start: str) -> None:  # Tarjan's algorithm, iterative (no recursion limit)
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next((w for w in edges if w not in index or w in on_stack), None)
            if nxt is not None:
                if nxt in index:
                    low[node] = min(low[node], index[nxt])
                else:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    group.add(w)
                    if w == node:
                        break
                if len(group) > 1 or node in graph.get(node, ()):
                    groups.append(group)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(_ring(graph, group) for group in groups)


def _ring(graph: Graph, group: set[str]) -> list[str]:
    """A shortest way round the group from its first module back to it."""
    first = min(group)
    paths = {first: [first]}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for w in sorted(graph.get(node, ())):
                if w == first:
                    return paths[node] + [first]
                if w in group and w not in paths:
                    paths[w] = paths[node] + [w]
                    following.append(w)
        frontier = following
    raise AssertionError(f"not a cycle: {sorted(group)}")


def stage(name: str, stages=STAGES) -> int | None:
    """The index of the module's stage: the longest listed prefix of its dotted name."""
    best: tuple[int, int] | None = None
    for number, (_, prefixes) in enumerate(stages):
        for prefix in prefixes:
            if name == prefix or ("." in prefix and name.startswith(prefix + ".")):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), number)
    return None if best is None else best[1]


def backward_imports(graph: Graph, stages=STAGES) -> list[str]:
    """Each import of a later stage, and each module no stage names."""
    problems = [f"{m}: no stage names it (add it to STAGES)" for m in sorted(graph)
                if stage(m, stages) is None]
    for m in sorted(graph):
        for t in sorted(graph[m]):
            a, b = stage(m, stages), stage(t, stages)
            if a is not None and b is not None and b > a:
                problems.append(f"{m} ({stages[a][0]}) imports {t} ({stages[b][0]})")
    return problems


# -- the package as it is ------------------------------------------------------------------

def test_verifiers_has_no_import_cycle():
    found = cycles(import_graph(PACKAGE))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_imports_follow_the_stage_order():
    problems = backward_imports(import_graph(PACKAGE))
    assert not problems, "\n".join(problems)


# -- the checks can fail ---------------------------------------------------------------------

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "verifiers"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_a_planted_cycle_through_a_function_level_import_is_named(tmp_path):
    root = _package(tmp_path, {
        "a.py": "from verifiers.b import f\n",
        "b.py": "def f():\n    from verifiers.sub import c\n    return c\n",
        "sub/__init__.py": "",
        "sub/c.py": "from .. import a\n",
        "d.py": "from verifiers import a\n",  # imports into the ring, not part of it
    })
    assert cycles(import_graph(root)) == [
        ["verifiers.a", "verifiers.b", "verifiers.sub.c", "verifiers.a"]]


def test_a_module_imported_by_its_name_counts(tmp_path):
    root = _package(tmp_path, {
        "a.py": "import importlib\n\ndef load():\n    return importlib.import_module(NAME)\n"
                "\nNAME = 'verifiers.b'\n",
        "b.py": "from verifiers.a import load\n",
    })
    assert cycles(import_graph(root)) == [["verifiers.a", "verifiers.b", "verifiers.a"]]


def test_a_type_checking_import_is_no_cycle_but_its_else_branch_is(tmp_path):
    guarded = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from verifiers.a import X\n"
    root = _package(tmp_path, {"a.py": "from verifiers import b\n", "b.py": guarded})
    assert cycles(import_graph(root)) == []
    (root / "b.py").write_text(guarded + "else:\n    import verifiers.a\n", encoding="utf-8")
    assert cycles(import_graph(root)) == [["verifiers.a", "verifiers.b", "verifiers.a"]]


def test_a_planted_cycle_in_a_copy_of_the_package_is_caught(tmp_path):
    """The real package with one import added: the verdicts (first stage) import the engine."""
    copy = tmp_path / "verifiers"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert cycles(import_graph(copy)) == []
    verdicts = copy / "verdicts.py"
    verdicts.write_text(verdicts.read_text(encoding="utf-8")
                        + "\n\ndef _late():\n    from verifiers.engine import Engine\n"
                          "    return Engine\n", encoding="utf-8")
    graph = import_graph(copy)
    found = cycles(graph)
    assert found and all(c[0] == c[-1] for c in found)
    assert any("verifiers.verdicts" in c and "verifiers.engine" in c for c in found)
    assert "verifiers.verdicts (shared records and helpers) imports verifiers.engine " \
           "(engine and run)" in backward_imports(graph)


def test_a_backward_import_and_an_unstaged_module_are_named(tmp_path):
    stages = (("low", ("verifiers.low",)), ("high", ("verifiers", "verifiers.high")))
    root = _package(tmp_path, {"low.py": "from verifiers.high import x\n", "high.py": "x = 1\n",
                               "stray.py": ""})
    graph = import_graph(root)
    assert cycles(graph) == []
    assert backward_imports(graph, stages) == [
        "verifiers.stray: no stage names it (add it to STAGES)",
        "verifiers.low (low) imports verifiers.high (high)"]
    assert backward_imports(graph, stages[:1]) == [  # "high" unlisted: only named as such
        "verifiers: no stage names it (add it to STAGES)",
        "verifiers.high: no stage names it (add it to STAGES)",
        "verifiers.stray: no stage names it (add it to STAGES)",
    ]


@pytest.mark.parametrize("name, expected", [
    ("verifiers.properties.slots", "loading claims"),
    ("verifiers.properties.runner", "checks, one folder or module per kind"),
    ("verifiers.properties.stated", "engine and run"),
    ("verifiers.cli", "command line and pytest plugin"),
])
def test_the_longest_prefix_names_the_stage(name, expected):
    number = stage(name)
    assert number is not None and STAGES[number][0] == expected
