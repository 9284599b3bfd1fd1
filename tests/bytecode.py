"""Compile once in the xdist controller what every worker would otherwise compile again.

Where ``PYTHONDONTWRITEBYTECODE`` is set (this workplace sets it), no interpreter writes a
``.pyc``: each xdist worker rewrote the 150 test modules' asserts from source (3.7 CPU s a
worker) and compiled Hypothesis, xdist and ``benchmarks`` from source (2.2 CPU s a worker;
the install left them uncompiled), and so did every child process that imports Hypothesis.
The controller, idle while the workers start, writes them once before it starts them:
plain ``.pyc`` files by :mod:`compileall` (as ``.ci/run`` does for ``verifiers``), and the
test modules' rewritten ``.pyc`` files by pytest's own rewriter, which a worker reads only
when its source hash matches. What a test runs is the same code either way; if pytest's
private rewriter is not there, the workers rewrite as before.
"""

from __future__ import annotations

import compileall
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("hypothesis", "xdist")  # imported by every worker, left uncompiled by the install


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def compile_plain() -> None:
    """``.pyc`` files for the packages the workers import and the install did not compile."""
    folders = [_package_dir(name) for name in PACKAGES] + [ROOT / "benchmarks", ROOT / "tests"]
    for folder in folders:
        if folder is not None and folder.is_dir():
            compileall.compile_dir(str(folder), quiet=2)


def rewrite_tests(config: pytest.Config) -> int:
    """The rewritten ``.pyc`` of each test module and conftest, as the workers' import hook
    writes it when it may; returns how many were written (0 without pytest's rewriter)."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )
    except ImportError:
        return 0
    state = config.stash.get(assertstate_key, None)
    if state is None:  # asserts not rewritten (--assert=plain): nothing to write
        return 0
    written = 0
    for source in sorted((ROOT / "tests").glob("*.py")):
        if not (source.name.startswith("test_") or source.name == "conftest.py"):
            continue
        folder = get_cache_dir(source)
        folder.mkdir(exist_ok=True)
        pyc = folder / (source.name[:-3] + PYC_TAIL)
        if _read_pyc(source, pyc) is not None:
            continue
        source_hash, code = _rewrite_test(source, config)
        written += bool(_write_pyc(state, code, source_hash, pyc))
    return written


def compile_for_workers(config: pytest.Config) -> None:
    """In the controller of an xdist run, where no interpreter writes bytecode by itself."""
    workers = config.getoption("numprocesses", None)
    if not sys.dont_write_bytecode or hasattr(config, "workerinput") or not workers:
        return
    compile_plain()
    rewrite_tests(config)
