"""Safe file I/O: only regular files are read, and outputs never clobber what they must not.

Notes, claim files and cache entries arrive from pull requests or from a shared
folder, so they are read with :func:`read_regular`:

* the file is opened with ``O_NOFOLLOW | O_NONBLOCK``: a symbolic link is refused
  (a note linked to ``/etc/passwd`` or ``.git/config`` is never read), and opening a
  FIFO does not wait for a writer;
* ``lstat`` before and ``fstat`` after opening must both say *regular file*: FIFOs,
  devices, sockets and directories are refused (``/dev/zero`` never fills memory);
* the size must be within a cap, and at most cap + 1 bytes are ever read.

Only the last component of the path is checked: a folder given on the command line
(``--notes``, ``--claims``) may itself be a symbolic link -- it is the user's own
argument -- but the walk of that folder (:func:`walk_files`) reports every symbolic
link inside it instead of following it.

A refusal is a :class:`FileRefused` (an ``OSError``), whose ``str()`` is one line
``"<path>: <reason>"``.

Outputs (``--json``, ``--out``, ``fix --write``, the verdict cache) go through
:func:`write_output`:

* a regular file (or a new one) is replaced atomically: a temporary file in the same
  folder, fsync, ``os.replace``; an existing file keeps its mode, a new one gets the
  umask's; on any failure the temporary file is removed and the old file is intact;
* ``-`` is standard output; a FIFO or a character device (``/dev/null``, a pipe from
  ``>(...)``) is opened and written as a stream, never replaced by a regular file;
* a symbolic link is refused (never followed, never replaced by a file): write to
  its target instead;
* every ``OSError`` (a full disk, no permission) becomes an :class:`OutputError`
  whose ``str()`` is one line naming the file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CACHE_CAP", "INPUT_CAP", "FileRefused", "OutputError", "Snapshot", "read_regular",
           "snapshot", "walk_files", "write_output"]

INPUT_CAP = 5 * 1024 * 1024  # notes and claim files: the largest real note is 113 KB
CACHE_CAP = 1024 * 1024  # one verdict cache entry


def cache_home() -> Path:
    """``$NOTECHECK_CACHE``, else the user's cache folder (``$XDG_CACHE_HOME/notecheck``):
    where notecheck keeps state between runs -- never the checkout, where a pull request
    could add entries that claim a verdict, nor the user's working directory."""
    if os.environ.get("NOTECHECK_CACHE"):
        return Path(os.environ["NOTECHECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "notecheck"


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB"


class FileRefused(OSError):
    """An input that is not read: not a regular file, or too large. ``str()``: one line."""

    def __init__(self, path: str | Path, reason: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, reason, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class OutputError(OSError):
    """An output that could not be written; ``str()`` is one line naming the file."""

    def __init__(self, path: str | Path, reason: str, code: int = errno.EIO) -> None:
        super().__init__(code, reason, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def refusal(path: str | Path, mode: int) -> FileRefused | None:
    """The refusal for a file of this mode (from ``lstat``), or None for a regular file."""
    kind = _kind(mode)
    if kind is None:
        return None
    code = errno.EISDIR if kind == "a directory" else errno.ELOOP if kind == (
        "a symbolic link") else errno.EINVAL
    return FileRefused(path, f"is {kind}, not a regular file (refused)", code)


def read_regular(path: str | Path, cap: int = INPUT_CAP) -> bytes:
    """The bytes of ``path`` if it is a regular file, not a link, of at most ``cap`` bytes.

    Raises :class:`FileRefused` for anything else and ``OSError`` (e.g.
    ``FileNotFoundError``) when it cannot be opened.
    """
    info = os.lstat(path)
    refused = refusal(path, info.st_mode)
    if refused is not None:  # before opening: a device is never even opened
        raise refused
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # swapped for a link after the lstat
            raise FileRefused(path, "is a symbolic link, not a regular file (refused)",
                              errno.ELOOP) from None
        raise
    try:
        info = os.fstat(fd)
        refused = refusal(path, info.st_mode)
        if refused is not None:  # swapped after the lstat
            raise refused
        if info.st_size > cap:
            raise FileRefused(path, f"larger than {_megabytes(cap)} ({info.st_size} bytes; "
                                    "refused)", errno.EFBIG)
        chunks: list[bytes] = []
        size = 0
        while size <= cap:
            chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:  # it grew while we read
            raise FileRefused(path, f"larger than {_megabytes(cap)} (refused)", errno.EFBIG)
        return b"".join(chunks)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Snapshot:
    """What a file was when it was read: compared again just before it is replaced."""

    device: int
    inode: int
    size: int
    mtime_ns: int
    sha256: str


def snapshot(path: str | Path, data: bytes) -> Snapshot:
    """The identity of ``path`` whose content was ``data`` (just read)."""
    info = os.lstat(path)
    return Snapshot(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns,
                    hashlib.sha256(data).hexdigest())


def _unchanged(path: Path, before: Snapshot, cap: int) -> bool:
    try:
        data = read_regular(path, cap)
        now = snapshot(path, data)
    except OSError:
        return False
    return now == before


def walk_files(folder: Path, suffixes: tuple[str, ...]) -> Iterator[tuple[Path, bool]]:
    """Every entry under ``folder`` named with one of ``suffixes``, sorted, as (path, ok).

    Folders are walked without following symbolic links. ``ok`` is False for an entry
    that would not be read as a regular file: a symbolic link (to a file or to a folder,
    whatever its name, since a linked folder may hold claim files), a FIFO, a device, a
    socket. Regular files with other suffixes are skipped.
    """
    found: list[tuple[Path, bool]] = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        base = Path(top)
        for name in dirs:
            if os.path.islink(base / name):
                found.append((base / name, False))
        for name in files:
            path = base / name
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                found.append((path, False))
                continue
            if stat.S_ISREG(mode):
                if path.suffix in suffixes:
                    found.append((path, True))
            elif stat.S_ISLNK(mode) or path.suffix in suffixes:
                found.append((path, False))
        dirs.sort()
    return iter(sorted(found))


def _stream(path: Path, data: bytes) -> None:
    """Write to a FIFO or a character device as a stream (blocks until a FIFO has a reader)."""
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | getattr(os, "O_NOCTTY", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
            raise OutputError(path, "changed while it was opened; not written")
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def _replace_atomically(path: Path, data: bytes, mode: int | None,
                        unchanged: Snapshot | None, cap: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if mode is None:  # a new file: what the umask gives, not mkstemp's private 0600
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if unchanged is not None and not _unchanged(path, unchanged, cap):
            raise OutputError(path, "changed since it was read; not rewritten (run again)",
                              errno.EAGAIN)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_output(path: str | Path, text: str | bytes, *, unchanged: Snapshot | None = None,
                 cap: int = INPUT_CAP, streams: bool = True) -> None:
    """Write ``text`` (str as UTF-8 with LF, or bytes as they are) to ``path`` by the rules above.

    With ``unchanged`` (for a file being rewritten in place), the file is compared with
    that snapshot just before it is replaced, and left alone if it changed. With
    ``streams=False`` (the verdict cache) only regular files are written: ``-``, a FIFO
    or a device is refused like a link.
    """
    if not streams and str(path) == "-":
        raise OutputError(path, "not a file")
    data = text.encode("utf-8") if isinstance(text, str) else text
    if str(path) == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    path = Path(path)
    try:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        if info is None:
            if unchanged is not None:
                raise OutputError(path, "removed since it was read; not rewritten",
                                  errno.ENOENT)
            _replace_atomically(path, data, None, None, cap)
        elif stat.S_ISLNK(info.st_mode):
            raise OutputError(path, "is a symbolic link; not replaced (write to its target)",
                              errno.ELOOP)
        elif stat.S_ISDIR(info.st_mode):
            raise OutputError(path, os.strerror(errno.EISDIR), errno.EISDIR)
        elif streams and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
            _stream(path, data)
        elif stat.S_ISREG(info.st_mode):
            _replace_atomically(path, data, stat.S_IMODE(info.st_mode), unchanged, cap)
        else:
            raise OutputError(path, f"is {_kind(info.st_mode)}; not written")
    except OutputError:
        raise
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OutputError(path, f"cannot write: {reason}", exc.errno or errno.EIO) from None


def display_path(path: Path) -> str:
    """A path relative to the working directory when possible, with forward slashes."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = str(path)
    if rel.startswith(".."):
        rel = str(path)
    return rel.replace(os.sep, "/")
