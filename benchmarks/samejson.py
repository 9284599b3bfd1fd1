"""Do two ``notecheck check --json`` reports say the same? (printed, exit 1 when not)

    python -m benchmarks.samejson BEFORE.json AFTER.json

A speed change must not move a verdict: the reports must be identical byte for byte. The
report holds no timings, so nothing is ignored; where they differ, the claims whose entries
differ are listed (id, then the first differing field) so the change can be read.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'after' if key in b else 'before'}"
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}[{k}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {a!r} vs {b!r}"


def main(argv: list[str] | None = None) -> int:
    before, after = (Path(p) for p in (argv or sys.argv[1:]))
    if before.read_bytes() == after.read_bytes():
        print(f"identical: {before} and {after} ({before.stat().st_size} bytes)")
        return 0
    old, new = (json.loads(p.read_text(encoding="utf-8")) for p in (before, after))
    by_id = {c["id"]: c for c in new.get("claims", [])}
    shown = 0
    for claim in old.get("claims", []):
        other = by_id.pop(claim["id"], None)
        what = "missing after" if other is None else _first_difference(claim, other)
        if what:
            print(f"{claim['id']}: {what}")
            shown += 1
    for claim_id in by_id:
        print(f"{claim_id}: only after")
        shown += 1
    if not shown:
        print(f"differ outside the claims: {_first_difference(old, new)}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
