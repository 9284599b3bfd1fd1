"""verifiers.files: only regular files are read; outputs never clobber what they must not.

Every case that could hang on a wrong implementation (a FIFO opened for reading, a
device read to the end) runs under a ``faulthandler`` watchdog that aborts the session
with a stack dump instead of letting CI hang.
"""

from __future__ import annotations

import errno
import faulthandler
import json
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import verifiers.files as files
from tests.test_corpus import BASE, Case, build
from verifiers.cli import main
from verifiers.files import (
    FileRefused,
    OutputError,
    read_regular,
    snapshot,
    walk_files,
    write_output,
)
from verifiers.notes import NoteError, read_note

WATCHDOG = 60


@pytest.fixture(autouse=True)
def _watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


# --------------------------------------------------------------------------- reading


def test_a_regular_file_is_read(tmp_path: Path) -> None:
    p = tmp_path / "n.txt"
    p.write_bytes(b"a = 1\n")
    assert read_regular(p) == b"a = 1\n"
    assert read_regular(p, cap=6) == b"a = 1\n"


@pytest.mark.parametrize("target", ["/etc/passwd", "outside.txt", "/dev/zero"])
def test_a_symlinked_note_is_refused_and_never_read(tmp_path: Path, target: str) -> None:
    (tmp_path / "outside.txt").write_text("第 1 章：x\nsecret = 0.5\n", encoding="utf-8")
    link = tmp_path / "notes" / "n.txt"
    link.parent.mkdir()
    link.symlink_to(target if target.startswith("/") else tmp_path / target)
    with pytest.raises(FileRefused) as info:
        read_regular(link)
    assert str(info.value) == f"{link}: is a symbolic link, not a regular file (refused)"
    with pytest.raises(NoteError) as note_info:
        read_note(link)
    message = str(note_info.value)
    assert message.startswith(f"{link}: is a symbolic link") and "\n" not in message
    assert "secret" not in message and "root:" not in message


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "n.txt"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match=r"n\.txt: is a FIFO, not a regular file"):
        read_regular(fifo)
    with pytest.raises(NoteError, match="is a FIFO"):
        read_note(fifo)


def test_devices_and_directories_are_refused(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="/dev/zero: is a character device"):
        read_regular("/dev/zero")  # refused from lstat: never even opened
    with pytest.raises(FileRefused) as info:
        read_regular(tmp_path)
    assert info.value.errno == errno.EISDIR


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "n.txt"
    with open(big, "wb") as fh:
        fh.truncate(6 * 1024 * 1024)  # 6 MB (sparse)
    with pytest.raises(FileRefused, match=r"n\.txt: larger than 5 MB \(6291456 bytes; refused\)"):
        read_regular(big)
    with pytest.raises(NoteError, match="larger than 5 MB"):
        read_note(big)


def test_a_file_that_grows_while_read_is_refused(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "n.txt"
    p.write_bytes(b"x" * 10)
    real = os.read

    def growing(fd: int, n: int) -> bytes:
        return real(fd, n) + b"y" * 5  # more than fstat said
    monkeypatch.setattr(files.os, "read", growing)
    with pytest.raises(FileRefused, match="larger than"):
        read_regular(p, cap=12)


def test_the_walk_reports_links_and_special_files_and_does_not_follow(tmp_path: Path) -> None:
    claims = tmp_path / "claims"
    (claims / "n").mkdir(parents=True)
    (claims / "n" / "a.yaml").write_text("x", encoding="utf-8")
    (claims / "n" / "notes.txt").write_text("x", encoding="utf-8")  # another suffix: skipped
    os.mkfifo(claims / "n" / "f.yaml")
    (claims / "n" / "l.yml").symlink_to("/etc/passwd")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.yaml").write_text("x", encoding="utf-8")
    (claims / "linked").symlink_to(outside)
    found = [(p.relative_to(claims).as_posix(), ok) for p, ok in walk_files(claims, (".yaml",
                                                                                      ".yml"))]
    assert found == [("linked", False), ("n/a.yaml", True), ("n/f.yaml", False),
                     ("n/l.yml", False)]


def test_a_symlinked_folder_given_on_the_command_line_is_read(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    """The user's own argument may be a link; links inside it may not (the corpus)."""
    root = build(Case("base", "base", BASE, {"what": "base", "exit": 0}), tmp_path / "real")
    (tmp_path / "notes-link").symlink_to(root / "notes")
    monkeypatch.chdir(root)
    assert main(["check", "--no-cache", "--notes", str(tmp_path / "notes-link")]) == 0


# --------------------------------------------------------------------------- writing


def test_a_new_file_gets_the_umask_mode_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        new = tmp_path / "sub" / "new.json"
        write_output(new, "{}\n")
        assert new.read_text(encoding="utf-8") == "{}\n"
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        private = tmp_path / "private.json"
        private.write_text("old", encoding="utf-8")
        private.chmod(0o600)
        write_output(private, "new")
        assert private.read_text(encoding="utf-8") == "new"
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
    finally:
        os.umask(umask)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private.json", "sub"]


def _reader(fifo: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(fifo, "rb") as fh:
            into.append(fh.read())
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_fifo_is_written_as_a_stream_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _reader(fifo, got)
    write_output(fifo, '{"version": 1}\n' * 10_000)  # more than a pipe buffer
    thread.join(10)
    assert got == [b'{"version": 1}\n' * 10_000]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_dev_null_is_written_as_a_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """/dev/null stays a character device. Guarded: the replace path is disabled first, so
    a wrong implementation fails here instead of replacing the real /dev/null."""

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("/dev/null must be streamed, never replaced")
    monkeypatch.setattr(files, "_replace_atomically", never)
    monkeypatch.setattr(files.os, "replace", never)
    monkeypatch.setattr(files.tempfile, "mkstemp", never)
    write_output("/dev/null", "{}\n")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_dash_is_standard_output(capfd: pytest.CaptureFixture[str]) -> None:
    write_output("-", "{}\n")
    assert capfd.readouterr().out == "{}\n"


def test_a_symlink_is_refused_and_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "target.json"
    target.write_text("keep", encoding="utf-8")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    with pytest.raises(OutputError) as info:
        write_output(link, "new")
    assert str(info.value) == f"{link}: is a symbolic link; not replaced (write to its target)"
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"),
                                   PermissionError(errno.EACCES, "Permission denied")])
def test_a_failed_write_names_the_file_and_leaves_nothing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          error: OSError) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous", encoding="utf-8")
    real = os.fdopen

    def failing(fd: int, *args: Any, **kwargs: Any) -> Any:
        fh = real(fd, *args, **kwargs)

        def write(data: bytes) -> int:
            raise error
        fh.write = write
        return fh
    monkeypatch.setattr(files.os, "fdopen", failing)
    with pytest.raises(OutputError) as info:
        write_output(out, "new" * 1000)
    assert str(info.value) == f"{out}: cannot write: {error.strerror}"
    assert out.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left


# --------------------------------------------------------------------------- through the command


@pytest.fixture
def base_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = build(Case("base", "base", BASE, {"what": "base", "exit": 0}), tmp_path / "project")
    monkeypatch.chdir(root)
    return root


def test_check_json_into_a_fifo(base_project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = base_project / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    thread = _reader(fifo, got)
    assert main(["check", "--no-cache", "--json", str(fifo)]) == 0
    thread.join(10)
    assert json.loads(got[0])["summary"]["verified"] == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_check_json_into_a_symlink_is_refused(base_project: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    (base_project / "elsewhere.json").write_text("keep", encoding="utf-8")
    (base_project / "report.json").symlink_to("elsewhere.json")
    assert main(["check", "--no-cache", "--json", "report.json"]) == 2
    err = capsys.readouterr().err
    assert err == ("notecheck: error: report.json: is a symbolic link; not replaced (write to "
                   "its target)\n")
    assert (base_project / "report.json").is_symlink()
    assert (base_project / "elsewhere.json").read_text(encoding="utf-8") == "keep"


def test_report_out_on_a_full_disk_names_the_file(base_project: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(files.os, "fsync", full)
    assert main(["report", "--out", "out/index.html"]) == 2
    err = capsys.readouterr().err
    assert err == "notecheck: error: out/index.html: cannot write: No space left on device\n"
    assert list((base_project / "out").iterdir()) == []


def test_snapshot_changes_with_the_content(tmp_path: Path) -> None:
    p = tmp_path / "n.txt"
    p.write_bytes(b"a")
    before = snapshot(p, read_regular(p))
    p.write_bytes(b"b")
    assert snapshot(p, read_regular(p)) != before
