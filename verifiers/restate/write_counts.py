"""``python -m verifiers.restate.write_counts NOTE …``: write the inferred count claims.

Each note's claims (:func:`verifiers.infer.counts.count_claims`, every one verified on the note
as it is) replace ``claims/<stem>/89-counts-inferred.yaml``; a note with none has no file.
"""

from __future__ import annotations

import sys

from verifiers.infer.counts import FILE_NAME, count_claims

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Write the count claims of the given notes (their own file, replaced)."""
    from verifiers.infer.write import write_own_files

    return write_own_files(argv, "verifiers.restate.write_counts", FILE_NAME,
                           "Count words checked against the items they count", count_claims,
                           "count")


if __name__ == "__main__":
    sys.exit(main())
