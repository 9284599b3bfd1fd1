"""tests/bytecode.py: the controller writes the test modules' rewritten .pyc that a worker reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import bytecode


def test_the_controller_writes_the_rewritten_code_a_worker_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc

    (tmp_path / "tests").mkdir()
    source = tmp_path / "tests" / "test_planted.py"
    source.write_text("def check(x):\n    assert x == 2\n", encoding="utf-8")
    (tmp_path / "tests" / "helper.py").write_text("X = 1\n", encoding="utf-8")  # not a test
    monkeypatch.setattr(bytecode, "ROOT", tmp_path)
    assert bytecode.rewrite_tests(request.config) == 1
    pyc = tmp_path / "tests" / "__pycache__" / f"test_planted{PYC_TAIL}"
    code = _read_pyc(source, pyc)
    assert code is not None and not (tmp_path / "tests" / "__pycache__" / f"helper{PYC_TAIL}"
                                     ).exists()
    space: dict[str, object] = {}
    exec(code, space)  # the rewritten assert explains itself; a plain one has no message
    with pytest.raises(AssertionError, match=r"assert 1 == 2"):
        space["check"](1)  # type: ignore[operator]
    assert bytecode.rewrite_tests(request.config) == 0  # current: not written again
    source.write_text("def check(x):\n    assert x == 3\n", encoding="utf-8")
    assert _read_pyc(source, pyc) is None  # an edited source is never read from the old pyc
    assert bytecode.rewrite_tests(request.config) == 1
