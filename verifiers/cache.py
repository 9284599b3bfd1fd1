"""A content-addressed verdict cache: a re-run re-evaluates only what an edit touched.

A claim's key hashes everything its verdict can depend on:

* the engine's version -- the source of ``verifiers`` and ``tinygpt``, so any
  code change starts afresh;
* the claim's own file (its text, all of it: an edit anywhere in the file
  re-checks that file's claims);
* the note text the claim can read -- its section, or the whole note -- and
  the line and column where that text starts (verdicts carry positions);
* the keys of the claims it ``uses`` (so an upstream edit propagates);
* the Hypothesis profile (property claims search according to it).

An entry is the verdict as JSON, written atomically; a missing, unreadable or
foreign entry is a miss, never an error. The cache cannot change a verdict:
the tests compare cached and uncached runs byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict
from functools import cache
from pathlib import Path
from typing import Any

from verifiers.notes import Note
from verifiers.schema import Claim
from verifiers.verdicts import ValueVerdict, Verdict

__all__ = ["VerdictCache", "engine_version"]

FORMAT = 1
PACKAGES = ("verifiers", "tinygpt")


@cache
def engine_version() -> str:
    """A hash of every source file of the engine and the reference model."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _position(p: Any) -> tuple[int, int] | None:
    return None if p is None else (int(p[0]), int(p[1]))


def _rebuild(data: dict[str, Any], values: list[ValueVerdict], span: Any) -> Verdict:
    fields = dict(data)
    for key in ("where", "claim_place"):
        fields[key] = _position(fields.get(key))
    fields["span"] = None if span is None else (_position(span[0]), _position(span[1]))
    return Verdict(**fields, values=values)


class VerdictCache:
    """Verdicts by content key, one small JSON file each, under ``folder``."""

    def __init__(self, folder: Path, notes: dict[str, Note], claims: dict[str, Claim],
                 profile: str | None = None) -> None:
        from verifiers import profiles

        self.folder = folder
        self.notes = notes
        self.claims = claims
        self.profile = profiles.name() if profile is None else profile
        self._keys: dict[str, str] = {}
        self._files: dict[str, str] = {}
        self.hits = self.misses = 0

    def key(self, claim_id: str) -> str:
        """The claim's content key; the keys of the claims it uses go into it.

        The ``uses`` graph is walked with an explicit stack, so a chain of any depth
        needs no recursion; a claim met again on its own path (a cycle, whose verdict is
        an error) contributes a fixed "circular" marker instead of its key.
        """
        if claim_id in self._keys:
            return self._keys[claim_id]
        on_path: set[str] = set()
        stack = [(claim_id, False)]
        while stack:
            cid, expanded = stack.pop()
            if cid in self._keys or (not expanded and cid in on_path):
                continue
            ups = self._uses(cid)
            if not expanded:
                on_path.add(cid)
                stack.append((cid, True))
                stack.extend((up, False) for up in reversed(ups)
                             if up not in self._keys and up not in on_path)
                continue
            on_path.discard(cid)
            claim = self.claims.get(cid)
            digest = hashlib.sha256(engine_version().encode())
            digest.update(f"\0{self.profile}\0{cid}\0".encode())
            if claim is None:
                digest.update(b"missing or circular")
            else:
                # where the claim and its note are (verdicts name them), then what they say
                digest.update(f"{claim.file}\0{claim.line}\0{claim.note}\0".encode())
                digest.update(self._file_hash(claim.file).encode())
                digest.update(self._scope_text(claim).encode())
                for up in ups:
                    digest.update(self._keys.get(up, "missing or circular").encode())
            self._keys[cid] = digest.hexdigest()
        return self._keys[claim_id]

    def _uses(self, claim_id: str) -> list[str]:
        claim = self.claims.get(claim_id)
        if claim is None:
            return []
        return [u.claim_id for u in sorted(claim.uses.values(), key=lambda u: u.name)]

    def _file_hash(self, file: str) -> str:
        if file not in self._files:
            try:
                self._files[file] = hashlib.sha256(Path(file).read_bytes()).hexdigest()
            except OSError:
                self._files[file] = "unreadable"
        return self._files[file]

    def _scope_text(self, claim: Claim) -> str:
        note = self.notes.get(claim.note)
        if note is None:
            return f"no note {claim.note!r}"
        scopes = note.scopes(claim.section) if claim.section else [(0, len(note.text))]
        return "\0".join(f"{note.position(a)}:{note.text[a:b]}" for a, b in scopes) or "none"

    def _path(self, claim_id: str) -> Path:
        key = self.key(claim_id)
        return self.folder / key[:2] / f"{key}.json"

    def get(self, claim_id: str) -> Verdict | None:
        try:
            data = json.loads(self._path(claim_id).read_text(encoding="utf-8"))
            values = [ValueVerdict(**{**x, "start": _position(x["start"]),
                                      "end": _position(x["end"])}) for x in data.pop("values")]
            verdict = _rebuild(data, values, data.pop("span"))
        except (OSError, ValueError, TypeError, KeyError, IndexError):
            self.misses += 1
            return None
        if verdict.id != claim_id:
            self.misses += 1
            return None
        self.hits += 1
        return verdict

    def put(self, verdict: Verdict) -> None:
        from verifiers.report_json import write_atomic

        try:
            write_atomic(self._path(verdict.id), json.dumps(asdict(verdict), ensure_ascii=False))
        except OSError:
            pass  # a cache that cannot be written is only slower

    @staticmethod
    def default_folder() -> Path:
        """``$NOTECHECK_CACHE``, else the user's cache folder -- never the checkout, where a
        pull request could add entries that claim a verdict."""
        if os.environ.get("NOTECHECK_CACHE"):
            return Path(os.environ["NOTECHECK_CACHE"])
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "notecheck"
