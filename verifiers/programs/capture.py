"""Read a jailed program's output without letting it fill the gate's memory or log.

A note's program decides how much it prints: a gigabyte, or one line of 256 MB. The
gate keeps at most :data:`STREAM_LIMIT` bytes per stream (the rest is read and thrown
away, so the program never blocks on a full pipe) and cuts lines longer than
:data:`LINE_LIMIT`; either marks the capture ``truncated``. Messages that quote the
output go through :func:`quote_output`, which keeps a few short, escaped lines.
"""

from __future__ import annotations

import os
import selectors
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["LINE_LIMIT", "STREAM_LIMIT", "Capture", "drain", "quote_output"]

STREAM_LIMIT = 1 << 20  # bytes kept per stream
LINE_LIMIT = 64 << 10  # bytes kept per line (the lesson1 probe line is a few kB)
_CHUNK = 1 << 16


@dataclass
class Capture:
    """The kept head of one stream, and how much was thrown away."""

    kept: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def feed(self, chunk: bytes) -> None:
        room = STREAM_LIMIT - len(self.kept)
        self.kept += chunk[:max(room, 0)]
        self.dropped += max(len(chunk) - max(room, 0), 0)

    def text(self) -> tuple[str, bool]:
        """Decoded text with over-long lines cut; ``True`` if anything was cut or dropped."""
        cut = False
        lines = bytes(self.kept).split(b"\n")
        for i, line in enumerate(lines):
            if len(line) > LINE_LIMIT:
                lines[i] = line[:LINE_LIMIT] + b" [line cut]"
                cut = True
        text = b"\n".join(lines).decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[output truncated: {self.dropped} more bytes discarded]\n"
        return text, cut or self.dropped > 0


def drain(streams: dict[str, int], deadline: float, kill: Callable[[], None],
          finished: Callable[[], bool], grace: float = 3.0) -> tuple[dict[str, Capture], bool]:
    """Read the named file descriptors until EOF, keeping a bounded head of each.

    At ``deadline`` ``kill`` is called (it kills the whole jail) and reading goes on
    for at most ``grace`` seconds more; pipes still open ``grace`` seconds after
    ``finished()`` turns true (a detached child holds them) are killed the same way.
    So this returns within ``deadline + grace`` whatever the program does. The flag
    says whether the deadline was hit.
    """
    captures = {name: Capture() for name in streams}
    sel = selectors.DefaultSelector()
    for name, fd in streams.items():
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, name)
    stop_at: float | None = None
    killed = False
    try:
        while sel.get_map():
            now = time.monotonic()
            if not killed and now >= deadline:
                killed = True
                kill()
                stop_at = now + grace
            if stop_at is None and finished():
                stop_at = now + grace
            if stop_at is not None and now >= stop_at:
                kill()  # the holder of the pipes is killed too, then we stop reading
                break
            limit = deadline if stop_at is None else stop_at
            for key, _ in sel.select(timeout=max(0.0, min(limit - now, 0.2))):
                try:
                    chunk = os.read(key.fd, _CHUNK)
                except BlockingIOError:
                    continue
                if chunk:
                    captures[key.data].feed(chunk)
                else:
                    sel.unregister(key.fd)
    finally:
        sel.close()
    return captures, killed


def _escape(line: str) -> str:
    """Control characters (ANSI escapes, NUL, CR) shown as ``\\xNN``: they never reach a log raw."""
    return "".join(c if c.isprintable() or c == "\t" else f"\\x{ord(c):02x}"
                   if ord(c) < 256 else f"\\u{ord(c):04x}" for c in line)


def quote_output(text: str, lines: int = 5, chars: int = 500) -> str:
    """The last ``lines`` non-blank lines of untrusted output, escaped, at most ``chars`` long.

    Whatever a note's program prints may end up in a claim's message, the console, the
    JSON report and the CI log; only this short, inert tail of it does.
    """
    tail = [_escape(ln) for ln in text.splitlines() if ln.strip()][-lines:]
    quoted = " | ".join(tail)
    if len(quoted) > chars:
        quoted = "…" + quoted[-(chars - 1):]
    return quoted or "(no output)"
