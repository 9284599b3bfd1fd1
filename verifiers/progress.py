"""Progress of a run on a terminal: claims done of total, and the kind being run.

A cold run takes seconds to minutes; on a terminal ``check`` and ``report`` say how far
they are on one rewritten stderr line. Nothing is written when stderr is not a terminal
(CI logs, pipes) or under ``--format github``, so reports and logs stay byte-identical.
"""

from __future__ import annotations

import time
from typing import TextIO

__all__ = ["Progress", "for_stream"]

INTERVAL = 0.1  # seconds between redraws: a redraw per arithmetic claim would cost more


class Progress:
    """``notecheck: 123/535 claims (symbolic)`` on one line of ``stream``, cleared at the end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.done = 0
        self.kind = ""
        self._shown = 0.0
        self._width = 0

    def begin(self, total: int) -> None:
        self.total, self.done = total, 0
        self._draw(force=True)

    def running(self, kind: str) -> None:
        """A claim of ``kind`` starts here."""
        if kind != self.kind:
            self.kind = kind
            self._draw(force=True)

    def advance(self, count: int = 1) -> None:
        self.done += count
        self._draw(force=self.done >= self.total)

    def end(self) -> None:
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._shown < INTERVAL:
            return
        self._shown = now
        kind = f" ({self.kind})" if self.kind else ""
        line = f"notecheck: {min(self.done, self.total)}/{self.total} claims{kind}"
        pad = " " * max(self._width - len(line), 0)
        self.stream.write("\r" + line + pad)
        self.stream.flush()
        self._width = len(line)


def for_stream(stream: TextIO, enabled: bool = True) -> Progress | None:
    """A :class:`Progress` on ``stream`` when it is a terminal and ``enabled``, else None."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return Progress(stream) if enabled and tty else None
