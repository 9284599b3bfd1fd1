"""Find the host's live processes that carry a test's token, and wait for them to go.

Shared by the jail tests (a token in the jailed program's command line) and the
lifecycle tests (a token in the gate's environment, inherited by its workers).
"""

from __future__ import annotations

import time
from pathlib import Path


def tagged(token: str, where: str = "cmdline") -> list[int]:
    """Live (not zombie) pids whose ``/proc/<pid>/<where>`` holds ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / where).read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in text and state != "Z":
            found.append(int(entry.name))
    return found


def gone(token: str, where: str = "cmdline", within: float = 10.0) -> bool:
    """Whether every process carrying ``token`` has ended within ``within`` seconds."""
    end = time.monotonic() + within
    while tagged(token, where):
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True
