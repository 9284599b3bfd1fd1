"""A content-addressed verdict cache: a re-run re-evaluates only what an edit touched.

A claim's key hashes everything its verdict can depend on:

* the engine's version -- the source of ``verifiers`` and ``tinygpt``, so any
  code change starts afresh, and the Python and library releases (LIBRARIES) it runs on;
* the claim's own file (its text, all of it: an edit anywhere in the file
  re-checks that file's claims);
* the note text the claim can read -- its section, or the whole note -- and
  the line and column where that text starts (verdicts carry positions);
* the keys of the claims it ``uses`` (so an upstream edit propagates);
* the Hypothesis profile (property claims search according to it).

An entry is the verdict as JSON, written atomically. The cache folder is outside
the checkout but still only a folder of files, so an entry is never trusted: it is
read as a regular file of at most 1 MB (:func:`verifiers.files.read_regular`: no
link, FIFO or device), checked for nesting before it is parsed, and accepted only
when its shape is exactly a verdict's (known statuses and kinds, positions as
bounded ints, bounded strings and lists, no other keys) and it is consistent with
the claim it is for (its id, file and note; the claim's status is the worst of its
values'; ``known``/``fixed`` only where the claim, or the root it inherits from,
pins a value; every hole of a passing claim has a value; only the claim's own value
names). Anything else is a miss, never an error. Verdicts that a clock decided
(``depends_on_time``, or a message that says a step was cut off or timed out) are
never stored. The cache cannot change a verdict: the tests compare cached and
uncached runs byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import asdict, fields
from functools import cache
from pathlib import Path
from typing import Any

from verifiers.files import CACHE_CAP, cache_home, read_regular, write_output
from verifiers.notes import Note
from verifiers.schema import KINDS, Claim
from verifiers.verdicts import (
    FIXED,
    GIVEN,
    KNOWN,
    PASSING,
    STATUSES,
    ValueVerdict,
    Verdict,
    worst,
)

__all__ = ["VerdictCache", "engine_version"]

FORMAT = 2  # 2: depends_on_time, validated entries
PACKAGES = ("verifiers", "tinygpt")
ENGINE_SUFFIXES = (".py", ".yaml")  # code, and data that gives words their meaning
# The libraries whose release can change a verdict: a proof (sympy), a search's examples and
# so its counterexample (hypothesis), a model's numbers (torch, numpy), a printed bound (mpmath).
LIBRARIES = ("sympy", "hypothesis", "torch", "numpy", "mpmath", "PyYAML")


@cache
def engine_version() -> str:
    """A hash of every source and data file of the engine and the reference model.

    Data files count: a vocabulary (``*.yaml``) decides what a word hole means, so editing
    one must invalidate the verdicts it gave.
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    digest.update(f"\0python {sys.version}\0{_library_versions()}".encode())
    for package in PACKAGES:
        files = [p for suffix in ENGINE_SUFFIXES for p in (root / package).rglob(f"*{suffix}")]
        for path in sorted(files):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _library_versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in LIBRARIES:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} absent")
    return "\0".join(found)


# --- reading an entry: anything unexpected is a miss ---------------------------------

MAX_DEPTH = 8  # a verdict nests 4 levels deep (span -> position)
MAX_TEXT = 200_000  # characters in one string (messages quote formulas and matrices)
MAX_VALUES = 100_000
MAX_POSITION = 10**9
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_TIME_WORDS = re.compile(r"cut off|timed? ?out|did not finish within|took longer|deadline|"
                         r"time limit", re.I)


class BadEntry(ValueError):
    """An entry that is not exactly a verdict for this claim."""


def _too_deep(text: str) -> bool:
    """Whether the JSON text nests deeper than MAX_DEPTH (checked before json.loads recurses)."""
    depth = 0
    for bracket in re.findall(r"[\[\]{}]", _STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            return True
    return False


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 12:
        raise BadEntry("integer too long")
    return int(text)


def _no_constant(name: str) -> Any:
    raise BadEntry(f"{name} is not JSON")


def _parse(raw: bytes) -> Any:
    text = raw.decode("utf-8")
    if _too_deep(text):
        raise BadEntry("nested too deeply")
    return json.loads(text, parse_int=_int, parse_constant=_no_constant)


def _str(x: Any, optional: bool = False, limit: int = MAX_TEXT) -> str | None:
    if x is None and optional:
        return None
    if not isinstance(x, str) or len(x) > limit:
        raise BadEntry("not a bounded string")
    return x


def _position(p: Any, optional: bool = False) -> tuple[int, int] | None:
    if p is None and optional:
        return None
    if not (isinstance(p, list) and len(p) == 2 and all(
            type(n) is int and 0 <= n <= MAX_POSITION for n in p)):
        raise BadEntry("not a position")
    return (p[0], p[1])


def _record(x: Any, cls: type) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    if not isinstance(x, dict) or set(x) != names:
        raise BadEntry(f"not a {cls.__name__}")
    return x


def _value(x: Any) -> ValueVerdict:
    d = _record(x, ValueVerdict)
    if d["status"] not in (*STATUSES, GIVEN) or d["local"] not in (None, "ok", "wrong"):
        raise BadEntry("unknown value status")
    if d["depends_on_time"] is not False:
        raise BadEntry("a value of the clock")
    if type(d["approximate"]) is not bool:
        raise BadEntry("approximate is not true or false")
    return ValueVerdict(
        name=_str(d["name"], limit=1000), printed=_str(d["printed"]),
        expected=_str(d["expected"]), status=d["status"], start=_position(d["start"]),
        end=_position(d["end"]), message=_str(d["message"]),
        suggestion=_str(d["suggestion"], True), local=d["local"],
        root_cause=_str(d["root_cause"], True, 1000), restated=_str(d["restated"], True),
        approximate=d["approximate"], law=_str(d["law"], True, 1000),
        route=_str(d["route"], True, 1000))


def _verdict(x: Any) -> Verdict:
    d = _record(x, Verdict)
    if d["status"] not in STATUSES or d["kind"] not in KINDS or d["depends_on_time"] is not False:
        raise BadEntry("unknown status or kind, or a verdict of the clock")
    if type(d["line"]) is not int or not 0 <= d["line"] <= MAX_POSITION:
        raise BadEntry("not a line")
    if not isinstance(d["values"], list) or len(d["values"]) > MAX_VALUES:
        raise BadEntry("values is not a bounded list")
    span = d["span"]
    if span is not None and not (isinstance(span, list) and len(span) == 2):
        raise BadEntry("not a span")
    return Verdict(
        id=_str(d["id"], limit=1000), file=_str(d["file"], limit=4096), line=d["line"],
        note=_str(d["note"], limit=4096), kind=d["kind"], says=_str(d["says"]),
        status=d["status"], message=_str(d["message"]),
        root_cause=_str(d["root_cause"], True, 1000),
        span=None if span is None else (_position(span[0]), _position(span[1])),
        where=_position(d["where"], True), section=_str(d["section"], True, 1000),
        values=[_value(v) for v in d["values"]], claim_place=_position(d["claim_place"], True))


def _base(name: str) -> str:
    return re.split(r"[.\[]", name, maxsplit=1)[0]


def depends_on_time(verdict: Verdict) -> bool:
    """Whether a clock may have decided this verdict: then it is never cached.

    ``depends_on_time`` is the engine's own word; a message that says a step was cut
    off or timed out (SymPy's deadlines, the sandbox's time limit) counts too.
    """
    if verdict.depends_on_time or any(x.depends_on_time for x in verdict.values):
        return True
    texts = [verdict.message] + [t for x in verdict.values for t in (x.message, x.expected)]
    return any(_TIME_WORDS.search(t) for t in texts)


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
        self._pins: frozenset[str] | None = None

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
        readers = [r.claim_id for _, r in sorted(getattr(claim, "read_by", {}).items())]
        return [u.claim_id for u in sorted(claim.uses.values(), key=lambda u: u.name)] + readers

    def _file_hash(self, file: str) -> str:
        if file not in self._files:
            try:
                self._files[file] = hashlib.sha256(read_regular(file)).hexdigest()
            except (OSError, ValueError):
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
        """The cached verdict of ``claim_id``, or None (a miss) for anything unexpected."""
        try:
            verdict = _verdict(_parse(read_regular(self._path(claim_id), CACHE_CAP)))
            self._consistent(verdict, claim_id)
        except (OSError, ValueError, TypeError, KeyError, IndexError, RecursionError,
                OverflowError, MemoryError):
            self.misses += 1
            return None
        self.hits += 1
        return verdict

    def _pinned(self) -> frozenset[str]:
        """The claims that pin a value (a root others may inherit ``known`` from)."""
        if self._pins is None:
            self._pins = frozenset(c for c, claim in self.claims.items() if claim.known)
        return self._pins

    def _consistent(self, verdict: Verdict, claim_id: str) -> None:
        """Raise BadEntry unless ``verdict`` could be the engine's verdict of the claim."""
        claim = self.claims.get(claim_id)
        if claim is None or (verdict.id, verdict.file, verdict.note) != (
                claim_id, claim.file, claim.note):
            raise BadEntry("another claim's verdict")
        if depends_on_time(verdict):
            raise BadEntry("a verdict of the clock")
        statuses = [x.status for x in verdict.values if x.status != GIVEN]
        if verdict.values and verdict.status != worst(statuses):
            raise BadEntry("the claim's status is not the worst of its values'")
        if not verdict.values and verdict.status in (KNOWN, FIXED):
            raise BadEntry("known without a value")
        names = set(claim.hole_names) | set(claim.formulas)
        if claim.run is not None:
            names |= set(claim.run.outputs)
        if claim.kind == "property":
            names.add(claim.property_name)
        # Procedure steps, findings in a code block and statements about printed data are
        # named by their checker, not by the claim's holes: no list to hold them to.
        named_by_checker = (claim.kind == "procedure" or claim.code is not None
                            or bool(claim.states))
        for x in verdict.values:
            if not named_by_checker and _base(x.name) not in names:
                raise BadEntry(f"value {x.name!r} is not the claim's")
            if x.status == FIXED and x.name not in claim.known:
                raise BadEntry("fixed without a pin")
            if (x.status == KNOWN and x.name not in claim.known
                    and x.root_cause not in self._pinned()):
                raise BadEntry("known without a pin")
        if verdict.status in PASSING and not {*claim.hole_names} <= {
                _base(x.name) for x in verdict.values}:
            raise BadEntry("a hole without its value")

    def put(self, verdict: Verdict) -> None:
        if depends_on_time(verdict):
            return  # a timeout under load must not outlive the load
        try:
            write_output(self._path(verdict.id), json.dumps(asdict(verdict), ensure_ascii=False),
                         streams=False)  # never into a FIFO or device put in its place
        except OSError:
            pass  # a cache that cannot be written is only slower

    @staticmethod
    def default_folder() -> Path:
        """``$NOTECHECK_CACHE``, else the user's cache folder (:func:`files.cache_home`)."""
        return cache_home()
