"""Claim files: validate located YAML into ``Claim`` objects.

Every problem becomes a ``LoadProblem`` with the claim file's line and column,
so a broken claim is reported like a compiler error instead of a traceback.
Expressions are parsed here (our own grammar, never Python) so that syntax
errors point at the YAML line that holds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from verifiers import expr as ex
from verifiers.arithmetic.routes import Hidden
from verifiers.claimtext import HOLE_RE, NAME, HoleRef, did_you_mean
from verifiers.files import read_regular
from verifiers.yamlload import Node, YamlError, load

_WRITTEN_NAME = re.compile(r"([A-Za-z\u0370-\u03ff]+)_\{([A-Za-z0-9\u0370-\u03ff]+)\}")


def symbol_name(written: str) -> str:
    """The reader's name for a symbol as the note writes it: ``out_{o1}`` -> ``out_o1``
    (``out_o1``, ``w_{5}`` -> ``w_5``); anything else (a given ``E [X]``) is kept."""
    m = _WRITTEN_NAME.fullmatch(written.strip())
    return f"{m[1]}_{m[2]}" if m else written


FILE_KEYS = ("note", "section", "claims", "waivers", "functions", "constants")
CONSTANT_KEYS = ("value", "reason")
ITERATE_KEYS = ("state", "step", "times")
WAIVER_KEYS = ("text", "reason", "section", "waives", "near", "after")
# What a waiver may excuse (``waives:``); numbers when it does not say.
WAIVABLE = ("numbers", "formulas", "statements", "procedures", "count_words")
CLAIM_KEYS = (
    "id", "says", "section", "text", "uses", "where", "check", "widen", "known", "kind", "run",
    "assume", "define", "timeout", "matrices", "functions", "restate", "upstream", "property",
    "params", "near", "after", "inferred", "code", "iterate", "hidden", "states", "printing",
    "reference",
    "parts",  # kind: symbolic (verifiers/formulas/parts.py)
    "frame",  # kind: symbolic (verifiers/formulas/frames.py)
    "trace",  # kind: procedure (verifiers/procedures)
    "computes",  # formula holes of other kinds (verifiers/formulas/inline.py)
    "read_by",  # formula holes another claim checks (verifiers/formulas/readby.py)
    "domain",  # hole -> quantity whose domain it must lie in (verifiers/notation/domains.py)
    "convention",  # word hole -> convention and the values computed with it (notation/)
)
CODE_KEYS = ("from", "to", "as")
RESTATE_KEYS = ("as", "reason")
#: The most SymPy time per step a symbolic claim may ask for (its MAX_STEP_SECONDS in
#: verifiers.symbolic.claims; a claim's steps together also stay within CLAIM_SECONDS).
MAX_STEP_SECONDS = 20
SYMBOLIC_KEYS = ("assume", "define", "timeout", "functions", "matrices", "upstream", "restate",
                 "printing", "reference", "parts", "frame")
ASSUME_KEYS = ("real", "positive", "nonzero", "integer", "sum_to_one", "one_hot", "independent",
               "zero_mean", "unit_variance")
RUN_KEYS = ("example", "inputs", "outputs", "text")
USE_KEYS = ("from", "as")
WIDEN_KEYS = ("abs", "rel", "reason")
PIN_KEYS = ("printed", "expected", "why")
HIDDEN_KEYS = ("digits", "decimals", "why")  # a hidden intermediate's precision (routes.py)
KINDS = ("arithmetic", "model", "symbolic", "property", "given", "procedure")
# kind: given only states inputs: its holes are read and must parse, nothing is computed
GIVEN_FORBIDS = ("uses", "where", "check", "widen", "known", "run", "code", "iterate",
                 "hidden")
CONSTANTS = frozenset({"pi", "e"})

ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]*\Z")
HOLE_KEY_RE = re.compile(
    r"(" + NAME + r")(?:\[\s*(\d+)\s*(?:,\s*(\d+)\s*)?\])?\Z"
    r"|(" + NAME + r")(?:\.\d+)?\.step\d+\Z"  # a step of a formula hole: F.step2, F.1.step3
)
NAME_RE = re.compile(NAME + r"\Z")
REF_RE = re.compile(r"([a-z0-9][a-z0-9._-]*)\.(" + NAME + r")\Z")


@dataclass(frozen=True)
class LoadProblem:
    """A claim-file error at a position: ``claims/x.yaml:12:5: message``."""

    file: str
    line: int
    col: int
    message: str
    claim_id: str | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True)
class Use:
    name: str
    claim_id: str
    hole: str
    as_printed: bool
    line: int


@dataclass(frozen=True)
class Widen:
    abs: Fraction | None
    rel: Fraction | None
    reason: str


@dataclass(frozen=True)
class Pin:
    """A known discrepancy, anchored on both sides: what the note prints and what it should."""

    printed: str
    expected: str | None
    why: str
    line: int


@dataclass(frozen=True)
class Run:
    """A model run (kind: model): a named tinygpt example, its inputs and bound outputs."""

    example: str
    inputs: dict[str, tuple[ex.Expr, int]]
    outputs: dict[str, str]  # name in the claim -> the example's output key
    line: int
    with_text: bool = False  # pass the note text the quote matched (e.g. a printed program)


@dataclass(frozen=True)
class Constant:
    """A value the note shows only in a figure (file-level ``constants:``), with why."""

    name: str
    text: str
    expr: ex.Expr
    reason: str
    line: int


@dataclass(frozen=True)
class Iterate:
    """``iterate: {state, step, times}``: the step applied ``times`` times (simultaneously)."""

    state: dict[str, tuple[ex.Expr, int]]
    step: dict[str, tuple[ex.Expr, int]]
    times: int
    line: int


@dataclass
class Claim:
    """A validated claim; ``problems`` is non-empty when it cannot be evaluated."""

    id: str
    file: str
    line: int
    col: int
    note: str
    kind: str = "arithmetic"
    section: str | None = None
    near: str | None = None  # context text beside the one match meant (an ambiguous quote)
    after: str | None = None  # context text the match meant is the first one after
    says: str = ""
    text: str = ""
    text_line: int = 0
    holes: list[HoleRef] = field(default_factory=list)
    uses: dict[str, Use] = field(default_factory=dict)
    where: dict[str, tuple[ex.Expr, int]] = field(default_factory=dict)
    check: dict[str, tuple[ex.Expr, int]] = field(default_factory=dict)
    widen: dict[str, Widen] = field(default_factory=dict)
    known: dict[str, Pin] = field(default_factory=dict)
    run: Run | None = None
    assume: dict[str, object] = field(default_factory=dict)  # symbolic: what the note assumes
    define: dict[str, str] = field(default_factory=dict)  # symbol -> formula hole "sym = ..."
    timeout: float = 3.0  # symbolic: seconds per step for SymPy
    functions: tuple[str, ...] = ()  # symbolic: names read as functions, σ (B)
    matrices: dict[str, tuple[int, int]] = field(default_factory=dict)  # symbolic: instance sizes
    upstream: str | None = None  # symbolic: the matrix whose loss gradient is given (R̄)
    restate: dict[str, Restatement] = field(default_factory=dict)  # hole -> our LaTeX + reason
    printing: dict[str, str] = field(default_factory=dict)  # hole -> label (formulas/printings.py)
    reference: dict[str, str] = field(default_factory=dict)  # hole -> formulas.holes.REFERENCES
    parts: dict[str, str] = field(default_factory=dict)  # fragment hole -> its formula hole
    frame: dict[str, str] = field(default_factory=dict)  # hole -> LaTeX around it (frames.py)
    domain: dict[str, str] = field(default_factory=dict)  # hole -> notation/domains.yaml id
    # word hole -> (notation/conventions.yaml kind, ["claim-id.hole" computed with it])
    convention: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    property_name: str = ""  # property claims: the law's name in verifiers.properties.catalog
    params: dict[str, object] = field(default_factory=dict)  # property: its parameters
    code: Any = None  # model claims: a CodeRef, the block of the note the example reads
    problems: list[LoadProblem] = field(default_factory=list)
    inferred: bool = False  # written by `scaffold --infer` (the check was read off the note)
    user_functions: dict[str, ex.UserFunction] = field(default_factory=dict)  # file + claim
    constants: dict[str, Constant] = field(default_factory=dict)  # the file's constants:
    iterate: Iterate | None = None
    trace: Any = None  # kind: procedure: which tinygpt run its steps follow (plain data)
    hidden: dict[str, Hidden] = field(default_factory=dict)  # where-names rounded, unprinted
    states: dict[str, Any] = field(default_factory=dict)  # word hole -> printed_data.Statement
    computes: dict[str, Any] = field(default_factory=dict)  # formula hole -> inline.Computes
    read_by: dict[str, Any] = field(default_factory=dict)  # formula hole -> readby_spec.ReadBy

    def constants_read(self) -> list[Constant]:
        """The file constants this claim's expressions read (through its functions too)."""
        trees = [t for t, _ in [*self.where.values(), *self.check.values()]]
        trees += [t for t, _ in (self.run.inputs.values() if self.run else ())]
        if self.iterate:
            trees += [t for t, _ in [*self.iterate.state.values(), *self.iterate.step.values()]]
        trees += [f.body for f in self.user_functions.values()]
        names: set[str] = set()
        for tree in trees:
            names |= ex.free_names(tree)
        return [c for n, c in self.constants.items() if n in names]

    @property
    def hole_names(self) -> list[str]:
        return list(dict.fromkeys(h.name for h in self.holes if not (h.formula or h.word)))

    @property
    def formulas(self) -> list[str]:
        return [h.name for h in self.holes if h.formula]

    @property
    def inputs(self) -> list[str]:
        return [n for n in self.hole_names if n not in self.check]


@dataclass(frozen=True)
class Restatement:
    """A formula the reader cannot read, restated in the subset it reads, with the reason why."""

    text: str
    reason: str
    line: int


@dataclass(frozen=True)
class Waiver:
    """Numbers of a note that are not claims (a date, an illustrative value), with why.

    The quote's holes mark the waived literals; a quote without holes waives
    every literal in it. ``waives`` names what it excuses (:data:`WAIVABLE`): numbers
    unless it says otherwise; a formula, statement or procedure it overlaps when it
    names that kind.
    """

    file: str
    line: int
    note: str
    text: str
    reason: str
    section: str | None = None
    waives: tuple[str, ...] = ("numbers",)
    near: str | None = None  # context text, as for a claim (a quote found more than once)
    after: str | None = None


@dataclass
class ClaimFile:
    path: str
    claims: list[Claim]
    problems: list[LoadProblem]
    waivers: list[Waiver] = field(default_factory=list)


def _expression_text(node: Node) -> str:
    """An expression's source: a YAML number as written (a float would drop digits)."""
    if isinstance(node.value, list):
        return "[" + ", ".join(_expression_text(item) for item in node.value) + "]"
    if isinstance(node.value, float) and node.raw is not None:
        return node.raw
    return str(node.plain())


def load_claim_file(path: Path, display: str, known_notes: set[str]) -> ClaimFile:
    """Read and validate one claim file; never raises for bad content."""
    result = ClaimFile(display, [], [])
    try:
        raw = read_regular(path)  # a regular file of at most 5 MB: no link, FIFO or device
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8", "ignore"))
        result.problems.append(
            LoadProblem(display, line, col + 1, f"invalid UTF-8 at byte {exc.start}")
        )
        return result
    except OSError as exc:
        result.problems.append(LoadProblem(display, 1, 1, f"cannot read: {exc.strerror}"))
        return result
    except ValueError as exc:  # an embedded NUL in the path
        result.problems.append(LoadProblem(display, 1, 1, f"cannot read: {exc}"))
        return result
    try:
        root = load(text)
    except YamlError as exc:
        result.problems.append(LoadProblem(display, exc.line, exc.col, exc.message))
        return result
    _FileValidator(display, known_notes, result).run(root)
    return result


class _FileValidator:
    def __init__(self, display: str, known_notes: set[str], result: ClaimFile) -> None:
        self.file = display
        self.known_notes = known_notes
        self.result = result
        self.constants: dict[str, Constant] = {}
        self.functions: dict[str, ex.UserFunction] = {}

    def file_constants(self, node: Node | None) -> dict[str, Constant]:
        """``constants: {lr: {value: "0.5", reason: "shown only in figure 2"}}``."""
        out: dict[str, Constant] = {}
        if node is None:
            return out
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "'constants' maps names to {value, reason}")
            return out
        for name, item in node.value.items():
            line, col = node.keys[name]
            if not NAME_RE.match(name) or name in CONSTANTS or name in ex.FUNCTIONS:
                self.problem(line, col, f"constants: bad or built-in name {name!r}")
                continue
            if not isinstance(item.value, dict):
                self.problem(item.line, item.col, f"constants: {name}: write {{value: <number "
                             "or expression>, reason: <why the note shows it only there>}")
                continue
            self.unknown_keys(item, CONSTANT_KEYS, None)
            value, reason = item.value.get("value"), item.value.get("reason")
            if reason is None or not isinstance(reason.value, str) or not reason.value.strip():
                self.problem(item.line, item.col, f"constants: {name}: a 'reason' is required "
                             "(where the note shows the value, and why no claim reads it)")
                continue
            if value is None or isinstance(value.value, (bool, dict)) or value.value is None:
                self.problem(item.line, item.col, f"constants: {name}: 'value' is a number or "
                             "an expression")
                continue
            text = _expression_text(value)
            try:
                tree = ex.parse(text)
            except ex.ExprError as err:
                self.problem(value.line, value.col + (err.col - 1 if err.col else 0),
                             f"constants: {name}: {err.message}")
                continue
            for free in sorted(ex.free_names(tree) - CONSTANTS - set(out)):
                self.problem(value.line, value.col, f"constants: {name}: unknown name {free!r} "
                             "(a constant may read pi, e and the constants before it)")
                break
            else:
                out[name] = Constant(name, text, tree, reason.value.strip(), value.line)
        return out

    def function_definitions(self, node: Node | None, claim: Claim | None,
                             inherited: dict[str, ex.UserFunction]) -> dict[str, ex.UserFunction]:
        """``functions: {"sig(x)": "1 / (1 + exp(-x))"}``, in order: a body calls built-ins and
        functions defined before it (never itself or a later one) and reads its parameters,
        pi, e and the file's constants."""
        out = dict(inherited)
        if node is None:
            return out
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "'functions' maps 'name(params)' to a body "
                         "expression (a symbolic claim's list needs kind: symbolic)", claim)
            return out
        signatures = list(node.value)
        names = []
        for sig in signatures:
            try:
                names.append(ex.parse_signature(sig)[0])
            except ex.ExprError:
                names.append(sig)
        for i, (sig, body) in enumerate(node.value.items()):
            line, col = node.keys[sig]
            if isinstance(body.value, (bool, dict, list)) or body.value is None:
                self.problem(body.line, body.col, f"functions: {sig}: the body is an expression",
                             claim)
                continue
            try:
                fn = ex.define_function(sig, _expression_text(body), out, names[i:])
            except ex.ExprError as err:
                at_body = getattr(err, "part", "body") == "body"
                base_line, base_col = (body.line, body.col) if at_body else (line, col)
                self.problem(base_line, base_col + (err.col - 1 if err.col else 0),
                             f"functions: {sig}: {err.message}", claim)
                continue
            allowed = set(fn.params) | CONSTANTS | set(self.constants)
            unknown = sorted(ex.free_names(fn.body) - allowed)
            if unknown:
                self.problem(body.line, body.col, f"functions: {sig}: unknown name "
                             f"{unknown[0]!r} (a body reads its parameters, pi, e and the "
                             f"file's constants){did_you_mean(unknown[0], sorted(allowed))}",
                             claim)
                continue
            out[fn.name] = fn
        return out

    def problem(self, line: int, col: int, message: str, claim: Claim | None = None) -> None:
        p = LoadProblem(self.file, line, col, message, claim.id if claim else None)
        (claim.problems if claim else self.result.problems).append(p)

    def run(self, root: Node | None) -> None:
        if root is None:
            self.problem(1, 1, "empty claim file")
            return
        if not isinstance(root.value, dict):
            self.problem(root.line, root.col, "a claim file is a mapping with 'note' and 'claims'")
            return
        self.unknown_keys(root, FILE_KEYS, None)
        note = self.string(root, "note", None, required=True)
        if note is not None and note not in self.known_notes:
            line, col = root.keys["note"]
            known = sorted(self.known_notes)
            self.problem(line, col, f"unknown note {note!r}{did_you_mean(note, known)}")
            note = None
        section = self.string(root, "section", None)
        self.constants = self.file_constants(root.value.get("constants"))
        self.functions = self.function_definitions(root.value.get("functions"), None, {})
        self.waivers(root.value.get("waivers"), note)
        claims = root.value.get("claims")
        if claims is None:
            if "waivers" not in root.value:
                self.problem(root.line, root.col, "missing key 'claims'")
            return
        if not isinstance(claims.value, list):
            self.problem(claims.line, claims.col, "'claims' must be a list")
            return
        for node in claims.value:
            claim = self.claim(node, note, section)
            if claim is not None:
                self.result.claims.append(claim)

    def waivers(self, node: Node | None, note: str | None) -> None:
        if node is None:
            return
        if not isinstance(node.value, list):
            self.problem(node.line, node.col, "'waivers' must be a list")
            return
        for item in node.value:
            if not isinstance(item.value, dict):
                self.problem(item.line, item.col, "a waiver is {text: <quote>, reason: <why>}")
                continue
            self.unknown_keys(item, WAIVER_KEYS, None)
            text = self.string(item, "text", None, required=True)
            reason = self.string(item, "reason", None, required=True)
            if reason is not None and not reason.strip():
                self.problem(item.line, item.col, "a waiver needs a reason")
            elif text is not None and reason is not None and note is not None:
                waives = self.waives(item.value.get("waives"))
                if waives is not None:
                    self.result.waivers.append(Waiver(
                        self.file, item.line, note, text, reason,
                        self.string(item, "section", None), waives,
                        self.string(item, "near", None) or None,
                        self.string(item, "after", None) or None))

    def waives(self, node: Node | None) -> tuple[str, ...] | None:
        """``waives: formulas`` or ``waives: [numbers, formulas]``; None after a problem."""
        if node is None:
            return ("numbers",)
        items = node.value if isinstance(node.value, list) else [node]
        kinds = []
        for kind in items:
            if not isinstance(kind.value, str) or kind.value not in WAIVABLE:
                self.problem(kind.line, kind.col, f"waives: {kind.value!r} is not one of "
                             f"{', '.join(WAIVABLE)}{did_you_mean(str(kind.value), WAIVABLE)}")
                return None
            kinds.append(kind.value)
        if not kinds:
            self.problem(node.line, node.col, "waives: name at least one of "
                         + ", ".join(WAIVABLE))
            return None
        return tuple(dict.fromkeys(kinds))

    def unknown_keys(self, node: Node, allowed: tuple[str, ...], claim: Claim | None) -> None:
        for key, (line, col) in node.keys.items():
            if key not in allowed:
                self.problem(line, col, f"unknown key {key!r}{did_you_mean(key, allowed)}", claim)

    def string(
        self, node: Node, key: str, claim: Claim | None, required: bool = False
    ) -> str | None:
        value = node.value.get(key)
        if value is None:
            if required:
                self.problem(node.line, node.col, f"missing key {key!r}", claim)
            return None
        if isinstance(value.value, bool) or not isinstance(value.value, (str, int, float)):
            self.problem(value.line, value.col, f"{key!r} must be text", claim)
            return None
        return str(value.value)

    def claim(self, node: Node, note: str | None, section: str | None) -> Claim | None:
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "each claim is a mapping with 'id', 'text', ...")
            return None
        raw_id = node.value.get("id")
        cid = str(raw_id.value) if raw_id is not None else f"{self.file}:{node.line}"
        claim = Claim(id=cid, file=self.file, line=node.line, col=node.col, note=note or "")
        if raw_id is None:
            self.problem(node.line, node.col, "missing key 'id'", claim)
        elif not isinstance(raw_id.value, str) or not ID_RE.match(raw_id.value):
            self.problem(
                raw_id.line, raw_id.col,
                f"bad id {cid!r}: use lowercase letters, digits, '.', '_' and '-'", claim,
            )
        if note is None:
            self.problem(node.line, node.col, "the file names no known note", claim)
        self.unknown_keys(node, CLAIM_KEYS, claim)
        claim.kind = self.string(node, "kind", claim) or "arithmetic"
        if claim.kind not in KINDS:
            line, col = node.keys["kind"]
            self.problem(line, col, f"unknown kind {claim.kind!r}{did_you_mean(claim.kind, KINDS)}",
                         claim)
        claim.section = self.string(node, "section", claim) or section
        claim.near = self.string(node, "near", claim) or None
        claim.after = self.string(node, "after", claim) or None
        claim.says = self.string(node, "says", claim) or ""
        flag = node.value.get("inferred")
        if flag is not None:
            if not isinstance(flag.value, bool):
                self.problem(flag.line, flag.col, "'inferred' must be true or false", claim)
            else:
                claim.inferred = flag.value
        text = self.string(node, "text", claim, required=True)
        if text is not None:
            claim.text = text
            claim.text_line = node.value["text"].line
            self.holes(claim, node.value["text"])
        self.uses(claim, node.value.get("uses"))
        claim.constants = dict(self.constants)
        claim.user_functions = dict(self.functions)
        own = node.value.get("functions")
        if claim.kind != "symbolic" and own is not None:
            claim.user_functions = self.function_definitions(own, claim, self.functions)
        self.definitions(claim, node.value.get("where"), claim.where, "where")
        self.definitions(claim, node.value.get("check"), claim.check, "check")
        self.convention(claim, node.value.get("convention"))  # word holes read after the run
        from verifiers.printed_data import parse as parse_states  # statements on printed data

        claim.states = parse_states(claim, node.value.get("states"),
                                    lambda line, col, msg: self.problem(line, col, msg, claim),
                                    _expression_text)
        self.model_run(claim, node.value.get("run"))
        self.code_block(claim, node.value.get("code"))
        self.iteration(claim, node.value.get("iterate"))
        self.computes(claim, node)
        self.domain(claim, node.value.get("domain"))
        self.symbolic(claim, node)
        self.property_claim(claim, node)
        from verifiers.procedures.validate import procedure_problems

        for line, col, message in procedure_problems(claim, node):
            self.problem(line, col, message, claim)
        self.widen(claim, node.value.get("widen"))
        self.known(claim, node.value.get("known"))
        self.hidden(claim, node.value.get("hidden"))
        self.cross_check(claim, node)
        if claim.kind == "given":
            for key in GIVEN_FORBIDS:
                if key in node.value:
                    line, col = node.keys[key]
                    self.problem(line, col, f"{key!r} computes or checks: a claim of kind: given "
                                 "only states inputs", claim)
        return claim

    def holes(self, claim: Claim, node: Node) -> None:
        seen: set[str] = set()
        for m in HOLE_RE.finditer(claim.text):
            ref = HoleRef.from_match(m)
            if ref.key in seen:
                self.problem(node.line, node.col, f"hole ⟨{ref.key}⟩ is bound twice", claim)
            seen.add(ref.key)
            claim.holes.append(ref)
        stray = HOLE_RE.sub("", claim.text)
        if any(mark in stray for mark in "⟨⟩⟪⟫⟦⟧"):
            self.problem(node.line, node.col, "malformed hole: write ⟨name⟩, ⟨name[i]⟩ or "
                         "⟨name[i,j]⟩", claim)
        names: dict[str, set[tuple[int, ...]]] = {}
        for ref in claim.holes:
            names.setdefault(ref.name, set()).add(ref.index)
        for name, indexes in names.items():
            if () in indexes and len(indexes) > 1:
                self.problem(node.line, node.col,
                             f"hole {name!r} is bound whole and in parts", claim)
            depths = {len(i) for i in indexes if i}
            if len(depths) > 1:
                self.problem(node.line, node.col,
                             f"hole {name!r} mixes rows ⟨{name}[i]⟩ and elements "
                             f"⟨{name}[i,j]⟩", claim)

    def domain(self, claim: Claim, node: Node | None) -> None:
        """``domain: {hole: id}``: the quantity a value hole holds (notation/domains.yaml)."""
        from verifiers.notation.domains import domains

        known = domains()
        for key, value in self.mapping(claim, node, "domain").items():
            if key not in claim.hole_names or value.value not in known:
                self.problem(value.line, value.col, f"domain: {key}: name a value hole of the "
                             f"text and one of {', '.join(sorted(known))}", claim)
            else:
                claim.domain[key] = value.value

    def convention(self, claim: Claim, node: Node | None) -> None:
        """``convention: {word hole: {kind, values: [claim-id.hole, …]}}`` (notation/)."""
        from verifiers.notation.conventions import conventions

        known = conventions()
        words = {h.name for h in claim.holes if h.word}
        for key, value in self.mapping(claim, node, "convention").items():
            spec = value.value if isinstance(value.value, dict) else {}
            kind, refs = spec.get("kind"), spec.get("values")
            kind = getattr(kind, "value", kind)
            refs = [getattr(r, "value", r) for r in getattr(refs, "value", refs) or []]
            if key not in words or kind not in known or not refs \
                    or not all(isinstance(r, str) and "." in r for r in refs):
                self.problem(value.line, value.col, f"convention: {key}: name a word hole of "
                             f"the text, kind: one of {', '.join(sorted(known))}, and values: "
                             "a list of claim-id.hole", claim)
            else:
                claim.convention[key] = (kind, refs)

    def computes(self, claim: Claim, node: Node) -> None:
        """Formula holes of a non-symbolic claim, each read by a ``computes:`` entry."""
        from verifiers.formulas.inline_spec import parse as parse_computes

        spec = node.value.get("computes")
        if spec is not None and claim.kind in ("symbolic", "given", "procedure"):
            self.problem(spec.line, spec.col, f"'computes' is for arithmetic, model and "
                         f"property claims (a {claim.kind} claim)", claim)
        elif spec is not None:
            claim.computes = parse_computes(
                spec, claim.formulas,
                lambda v: ex.parse(_expression_text(v), claim.user_functions),
                lambda line, col, msg: self.problem(line, col, msg, claim))
        from verifiers.formulas.readby_spec import parse as parse_read_by

        claim.read_by = parse_read_by(node.value.get("read_by"), claim.formulas,
                                      lambda line, col, msg: self.problem(line, col, msg, claim))
        unread = [f for f in claim.formulas if f not in claim.computes and f not in claim.read_by]
        if unread and claim.kind != "symbolic":
            text = node.value.get("text", node)
            self.problem(text.line, text.col, "formula holes ⟪name⟫ need kind: symbolic, or a "
                         f"read_by: or computes: entry ({', '.join(unread)})", claim)

    def mapping(self, claim: Claim, node: Node | None, what: str) -> dict[str, Node]:
        if node is None:
            return {}
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, f"{what!r} must be a mapping", claim)
            return {}
        return node.value

    def uses(self, claim: Claim, node: Node | None) -> None:
        for name, value in self.mapping(claim, node, "uses").items():
            line, col = node.keys[name]
            if not NAME_RE.match(name):
                self.problem(line, col, f"bad name {name!r} in 'uses'", claim)
                continue
            ref, as_printed = value.value, False
            if isinstance(value.value, dict):
                self.unknown_keys(value, USE_KEYS, claim)
                ref = self.string(value, "from", claim, required=True)
                mode = self.string(value, "as", claim)
                if mode not in (None, "printed"):
                    self.problem(value.line, value.col, f"'as' must be 'printed', not {mode!r}",
                                 claim)
                as_printed = mode == "printed"
            m = REF_RE.match(ref) if isinstance(ref, str) else None
            if m is None:
                self.problem(value.line, value.col,
                             f"'uses: {name}' must name 'claim-id.hole', got {ref!r}", claim)
                continue
            claim.uses[name] = Use(name, m.group(1), m.group(2), as_printed, value.line)

    def definitions(
        self, claim: Claim, node: Node | None, into: dict[str, tuple[ex.Expr, int]], what: str
    ) -> None:
        for name, value in self.mapping(claim, node, what).items():
            line, col = node.keys[name]
            if not NAME_RE.match(name):
                self.problem(line, col, f"bad name {name!r} in {what!r}", claim)
                continue
            source = value.value
            if isinstance(source, bool) or source is None:
                self.problem(value.line, value.col, f"{what}: {name}: expected an expression",
                             claim)
                continue
            try:
                into[name] = (ex.parse(_expression_text(value), claim.user_functions),
                              value.line)
            except ex.ExprError as err:
                col = value.col + (err.col - 1 if err.col else 0)
                self.problem(value.line, col, f"{what}: {name}: {err.message}", claim)

    def code_block(self, claim: Claim, node: Node | None) -> None:
        """``code: {from, to, as}``: a block of the note read as it is now (docs: code holes)."""
        if node is None:
            return
        from verifiers.programs.codehole import CodeRef

        if claim.kind != "model":
            self.problem(node.line, node.col, "'code' needs kind: model", claim)
            return
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "'code' is {from, to, as}", claim)
            return
        self.unknown_keys(node, CODE_KEYS, claim)
        start = self.string(node, "from", claim, required=True)
        end = self.string(node, "to", claim)
        name = self.string(node, "as", claim) or "program"
        if not NAME_RE.match(name) or name == "text":
            self.problem(node.line, node.col, f"bad 'code.as' name {name!r}", claim)
            return
        if start is not None and start.strip():
            claim.code = CodeRef(start.strip(), end, name, node.line)
        elif start is not None:
            self.problem(node.line, node.col, "'code.from' must not be blank", claim)

    def model_run(self, claim: Claim, node: Node | None) -> None:
        if node is None:
            if claim.kind == "model":
                self.problem(claim.line, claim.col, "a model claim needs 'run'", claim)
            return
        if claim.kind != "model":
            self.problem(node.line, node.col, "'run' needs kind: model", claim)
            return
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "'run' is {example, inputs, outputs}", claim)
            return
        self.unknown_keys(node, RUN_KEYS, claim)
        example = self.string(node, "example", claim, required=True) or ""
        inputs: dict[str, tuple[ex.Expr, int]] = {}
        self.definitions(claim, node.value.get("inputs"), inputs, "run.inputs")
        raw = node.value.get("outputs")
        outputs: dict[str, str] = {}
        if raw is None or not isinstance(raw.value, (list, dict)):
            self.problem(node.line, node.col, "'run.outputs' lists output names, or maps "
                         "names to the example's outputs", claim)
        else:
            pairs = ([(i.value, i) for i in raw.value] if isinstance(raw.value, list)
                     else [(k, v) for k, v in raw.value.items()])
            for alias, item in pairs:
                key = item.value if isinstance(raw.value, dict) else alias
                if not (isinstance(alias, str) and NAME_RE.match(alias) and isinstance(key, str)):
                    self.problem(item.line, item.col, f"bad output name {alias!r}", claim)
                else:
                    outputs[alias] = key
        text_flag = node.value.get("text")
        with_text = bool(text_flag is not None and text_flag.value is True)
        if text_flag is not None and not isinstance(text_flag.value, bool):
            self.problem(text_flag.line, text_flag.col, "'run.text' is true or false", claim)
        claim.run = Run(example, inputs, outputs, node.line, with_text)

    def iteration(self, claim: Claim, node: Node | None) -> None:
        """``iterate: {state: {w: w0}, step: {w: "w - lr*g(w)"}, times: 10}``."""
        if node is None:
            return
        if claim.kind not in ("arithmetic", "model"):
            self.problem(node.line, node.col, "'iterate' needs an arithmetic or model claim",
                         claim)
            return
        if not isinstance(node.value, dict):
            self.problem(node.line, node.col, "'iterate' is {state, step, times}", claim)
            return
        self.unknown_keys(node, ITERATE_KEYS, claim)
        state: dict[str, tuple[ex.Expr, int]] = {}
        step: dict[str, tuple[ex.Expr, int]] = {}
        count = len(claim.problems)
        self.definitions(claim, node.value.get("state"), state, "iterate.state")
        self.definitions(claim, node.value.get("step"), step, "iterate.step")
        times = node.value.get("times")
        for key in ("state", "step", "times"):
            if key not in node.value:
                self.problem(node.line, node.col, f"iterate: missing key {key!r}", claim)
        if len(claim.problems) > count or times is None:
            return
        if set(state) != set(step):
            self.problem(node.line, node.col, "iterate: 'state' and 'step' name the same "
                         f"variables (state: {', '.join(state)}; step: {', '.join(step)})", claim)
            return
        claim.iterate = Iterate(state, step, 0, node.line)  # its names, even when refused
        if type(times.value) is not int or not 0 <= times.value <= ex.MAX_ITERATE_STEPS:
            self.problem(times.line, times.col, f"iterate: times is a whole number from 0 to "
                         f"{ex.MAX_ITERATE_STEPS:,}, got {times.raw or times.value}", claim)
            return
        trees = {name: tree for name, (tree, _) in step.items()}
        cost = ex.iterate_cost(trees, times.value, claim.user_functions)
        if cost > ex.MAX_ITERATE_WORK:
            self.problem(times.line, times.col, f"iterate: {times.value:,} steps of this size "
                         f"(about {cost:,} operations) exceed the work bound "
                         f"({ex.MAX_ITERATE_WORK:,})", claim)
            return
        claim.iterate = Iterate(state, step, times.value, node.line)

    def symbolic(self, claim: Claim, node: Node) -> None:
        assume = node.value.get("assume")
        define = node.value.get("define")
        timeout = node.value.get("timeout")
        if claim.kind != "symbolic":
            for key in SYMBOLIC_KEYS:
                value = node.value.get(key)
                if key == "functions" and value is not None and isinstance(value.value, dict):
                    continue  # user functions of an arithmetic/model claim
                if value is not None:
                    self.problem(value.line, value.col, f"{key!r} needs kind: symbolic", claim)
            return
        self.symbolic_shapes(claim, node)
        self.restatements(claim, node.value.get("restate"))
        for key, value in self.mapping(claim, node.value.get("printing"), "printing").items():
            if key not in claim.formulas or not isinstance(value.value, str) \
                    or not value.value.strip():
                self.problem(value.line, value.col, f"printing: {key}: name a formula hole "
                             "of the text and the formula's label (text)", claim)
            else:
                claim.printing[key] = value.value
        from verifiers.formulas.holes import REFERENCES

        for key, value in self.mapping(claim, node.value.get("reference"), "reference").items():
            known = set(REFERENCES)
            # a LaTeX definition against tinygpt (verifiers/formulas/code.py, a later stage):
            # its name is looked up when the claim is checked, an unknown one an error there
            latex = isinstance(value.value, str) and value.value.startswith("tinygpt-")
            if key not in claim.formulas or not (value.value in known or latex):
                self.problem(value.line, value.col, f"reference: {key}: name a formula hole of "
                             f"the text and one of {', '.join(sorted(known))} or tinygpt-…",
                             claim)
            else:
                claim.reference[key] = value.value
        for key, value in self.mapping(claim, node.value.get("parts"), "parts").items():
            if key not in claim.formulas or value.value not in claim.formulas \
                    or value.value == key:
                self.problem(value.line, value.col, f"parts: {key}: name a formula hole of the "
                             "text and another formula hole it is a part of", claim)
            else:
                claim.parts[key] = value.value
        if not claim.formulas:
            self.problem(claim.line, claim.col, "a symbolic claim needs a formula hole ⟪name⟫",
                         claim)
        for key, value in self.mapping(claim, assume, "assume").items():
            line, col = assume.keys[key]
            if key not in ASSUME_KEYS:
                self.problem(line, col, f"unknown assumption {key!r}"
                             f"{did_you_mean(key, ASSUME_KEYS)}", claim)
            elif key == "real" and isinstance(value.value, bool):
                claim.assume[key] = value.value
            else:
                names = value.plain()
                if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                    hint = " (or true/false for every symbol)" if key == "real" else ""
                    self.problem(value.line, value.col, f"{key!r} lists symbol names{hint}",
                                 claim)
                elif key == "real":
                    # every symbol is real unless 'real: false'; naming some keeps that
                    claim.assume[key] = True
                else:
                    claim.assume[key] = tuple(symbol_name(n) for n in names)
        for key, value in self.mapping(claim, define, "define").items():
            if not isinstance(value.value, str) or value.value not in claim.formulas:
                self.problem(value.line, value.col, f"define: {key}: name a formula hole of the "
                             f"text{did_you_mean(str(value.value), claim.formulas)}", claim)
            else:
                claim.define[symbol_name(key)] = value.value
        from verifiers.formulas.frames import problem as frame_problem

        taken = set(claim.define.values()) | set(claim.restate) | set(claim.reference) \
            | set(claim.printing) | set(claim.parts)
        for key, value in self.mapping(claim, node.value.get("frame"), "frame").items():
            if (why := frame_problem(key, value.value, claim.formulas, taken)) is not None:
                self.problem(value.line, value.col, why, claim)
            else:
                claim.frame[key] = value.value
        if timeout is not None:
            if isinstance(timeout.value, bool) or not isinstance(timeout.value, (int, float)) \
                    or not 0 < timeout.value <= MAX_STEP_SECONDS:
                self.problem(timeout.line, timeout.col,
                             f"'timeout' is seconds in (0, {MAX_STEP_SECONDS:g}]", claim)
            else:
                claim.timeout = float(timeout.value)

    def symbolic_shapes(self, claim: Claim, node: Node) -> None:
        """``functions: [σ]``, ``matrices: {X: [2, 3]}``, ``upstream: R``."""
        functions = node.value.get("functions")
        if functions is not None:
            names = functions.plain()
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                self.problem(functions.line, functions.col, "'functions' lists names", claim)
            else:
                claim.functions = tuple(names)
        for name, value in self.mapping(claim, node.value.get("matrices"), "matrices").items():
            size = value.plain()
            if not (isinstance(size, list) and len(size) == 2
                    and all(type(n) is int and 1 <= n <= 6 for n in size)):
                self.problem(value.line, value.col, f"matrices: {name}: [rows, columns], "
                             "each 1 to 6 (a small instance)", claim)
            else:
                claim.matrices[name] = (size[0], size[1])
        upstream = node.value.get("upstream")
        if upstream is not None:
            if not isinstance(upstream.value, str) or not claim.matrices:
                self.problem(upstream.line, upstream.col, "'upstream' names the matrix whose "
                             "gradient is given, and needs 'matrices'", claim)
            else:
                claim.upstream = upstream.value

    def restatements(self, claim: Claim, node: Node | None) -> None:
        for name, value in self.mapping(claim, node, "restate").items():
            line, col = node.keys[name]  # type: ignore[union-attr]
            if name not in claim.formulas:
                self.problem(line, col, f"restate: {name}: not a formula hole of the text"
                             f"{did_you_mean(name, claim.formulas)}", claim)
                continue
            if not isinstance(value.value, dict):
                self.problem(value.line, value.col, "restate: {as: <LaTeX>, reason: <why>}", claim)
                continue
            self.unknown_keys(value, RESTATE_KEYS, claim)
            text, reason = value.value.get("as"), value.value.get("reason")
            if text is None or not isinstance(text.value, str) or not text.value.strip():
                self.problem(value.line, value.col, f"restate: {name}: 'as' is the formula "
                             "restated", claim)
            elif reason is None or not isinstance(reason.value, str) or not reason.value.strip():
                self.problem(value.line, value.col, f"restate: {name}: a 'reason' is required "
                             "(why the note's formula cannot be read)", claim)
            else:
                claim.restate[name] = Restatement(text.value, reason.value, text.line)

    def property_claim(self, claim: Claim, node: Node) -> None:
        """kind: property: a known property name and parameters it declares (issue 5)."""
        name_node, params = node.value.get("property"), node.value.get("params")
        if claim.kind != "property":
            for key, value in (("property", name_node), ("params", params)):
                if value is not None:
                    self.problem(value.line, value.col, f"{key!r} needs kind: property", claim)
            return
        from verifiers.properties.catalog import CATALOG, NAMES
        from verifiers.properties.params import ParamError

        for key in ("uses", "where", "check", "widen", "known", "run"):
            if key in node.value:
                line, col = node.keys[key]
                self.problem(line, col, f"{key!r} does not apply to a property claim", claim)
        if any(not (h.word or h.formula) for h in claim.holes):  # formulas: computes/read_by
            self.problem(claim.text_line or claim.line, 1, "a property claim quotes the note "
                         "without holes (only word holes ⟦slot⟧ and formula holes ⟪F⟫)", claim)
        name = self.string(node, "property", claim, required=True)
        if name is None:
            return
        if name not in CATALOG:
            self.problem(name_node.line, name_node.col, f"unknown property {name!r}"
                         f"{did_you_mean(name, NAMES)}", claim)
            return
        claim.property_name = name
        spec = CATALOG[name]
        from verifiers.properties.slots import slot_problems

        for problem in slot_problems(claim, spec):
            self.problem(claim.text_line or claim.line, 1, problem, claim)
        entries = self.mapping(claim, params, "params")
        for key, value in entries.items():
            line, col = params.keys[key]
            param = spec.param(key)
            if param is None:
                known = [p.name for p in spec.params]
                listed = ", ".join(known) if known else "none"
                self.problem(line, col, f"unknown parameter {key!r} for property {name!r}"
                             f"{did_you_mean(key, known)} (it takes: {listed})", claim)
                continue
            try:
                param.parse(value.plain())
            except ParamError as err:
                self.problem(value.line, value.col, f"params: {err}", claim)
                continue
            claim.params[key] = value.plain()
        if spec.check_params is not None and len(claim.params) == len(entries):
            full = {**spec.defaults(), **{k: spec.param(k).parse(v)
                                          for k, v in claim.params.items()}}
            problem = spec.check_params(full)
            if problem:
                where = params if params is not None else name_node
                self.problem(where.line, where.col, f"params: {problem}", claim)

    def widen(self, claim: Claim, node: Node | None) -> None:
        for name, value in self.mapping(claim, node, "widen").items():
            if not isinstance(value.value, dict):
                self.problem(value.line, value.col, "widen entries are {abs|rel, reason}", claim)
                continue
            self.unknown_keys(value, WIDEN_KEYS, claim)
            reason = self.string(value, "reason", claim)
            if not reason:
                self.problem(value.line, value.col,
                             f"widen: {name}: a wider tolerance needs a 'reason'", claim)
            amounts = {}
            for key in ("abs", "rel"):
                raw = value.value.get(key)
                if raw is None:
                    continue
                try:
                    amount = Fraction(str(raw.value))
                    if amount < 0:
                        raise ValueError
                    amounts[key] = amount
                except (ValueError, ZeroDivisionError):
                    self.problem(raw.line, raw.col, f"widen: {name}: {key} must be a number >= 0",
                                 claim)
            if not amounts:
                self.problem(value.line, value.col, f"widen: {name}: give 'abs' or 'rel'", claim)
            claim.widen[name] = Widen(amounts.get("abs"), amounts.get("rel"), reason or "")

    def known(self, claim: Claim, node: Node | None) -> None:
        for key, value in self.mapping(claim, node, "known").items():
            line, col = node.keys[key]
            if not HOLE_KEY_RE.match(key):
                self.problem(line, col, f"known: {key!r} is not a hole name", claim)
                continue
            if not isinstance(value.value, dict):
                self.problem(value.line, value.col, "known entries are {printed, why}", claim)
                continue
            self.unknown_keys(value, PIN_KEYS, claim)
            printed = self.string(value, "printed", claim, required=True)
            expected = self.string(value, "expected", claim)
            why = self.string(value, "why", claim, required=True)
            claim.known[key.replace(" ", "")] = Pin(printed or "", expected, why or "", value.line)

    def hidden(self, claim: Claim, node: Node | None) -> None:
        """``hidden: {NAME: {digits: n} | {decimals: n}}``: a ``where`` intermediate the
        author rounded but never printed; one more honest route, not a tolerance."""
        for name, value in self.mapping(claim, node, "hidden").items():
            line, col = node.keys[name]
            if name not in claim.where:
                self.problem(line, col, f"hidden: {name!r} is not a 'where' name"
                             f"{did_you_mean(name, sorted(claim.where))}", claim)
                continue
            spec = value.value if isinstance(value.value, dict) else {}
            if spec:
                self.unknown_keys(value, HIDDEN_KEYS, claim)
            given = {k: spec[k].value for k in ("digits", "decimals") if k in spec}
            if len(given) != 1 or not all(type(n) is int and 0 <= n <= 30
                                          for n in given.values()):
                self.problem(value.line, value.col, f"hidden: {name}: give one of digits or "
                             "decimals, an integer 0..30", claim)
                continue
            claim.hidden[name] = Hidden(name, given.get("digits"), given.get("decimals"),
                                        value.line)

    def cross_check(self, claim: Claim, node: Node) -> None:
        holes = set(claim.hole_names)
        keys = {h.key for h in claim.holes}
        for name, (_, line) in claim.check.items():
            if name not in holes:
                self.problem(line, 1, f"check: {name!r} has no hole ⟨{name}⟩ in the text"
                             f"{did_you_mean(name, sorted(holes))}", claim)
        for name, use in claim.uses.items():
            if name in holes or name in claim.where:
                self.problem(use.line, 1, f"name {name!r} is bound twice (uses and "
                             f"{'text' if name in holes else 'where'})", claim)
        for name, (_, line) in claim.where.items():
            if name in holes:
                self.problem(line, 1, f"name {name!r} is bound twice (where and text)", claim)
        for name in claim.widen:
            if name not in claim.check:
                self.problem(node.line, node.col, f"widen: {name!r} is not a checked hole", claim)
        for key, pin in claim.known.items():
            if key not in keys and key.split(".", 1)[0] not in claim.formulas:
                self.problem(pin.line, 1, f"known: {key!r} is not a hole of the text"
                             f"{did_you_mean(key, sorted(keys))}", claim)
        outputs = set(claim.run.outputs) if claim.run else set()
        for name in sorted(outputs & (holes | set(claim.uses) | set(claim.where))):
            self.problem(claim.run.line, 1, f"name {name!r} is bound twice (run output)", claim)
        results = set(claim.iterate.state) if claim.iterate else set()
        for name in sorted(results & (holes | set(claim.uses) | set(claim.where) | outputs)):
            self.problem(claim.iterate.line, 1, f"name {name!r} is bound twice (iterate)",
                         claim)
        bound = holes | set(claim.uses) | set(claim.where) | outputs | results
        for name in sorted(bound & set(claim.constants)):
            self.problem(claim.line, claim.col, f"name {name!r} is bound twice (the file's "
                         "constants and this claim)", claim)
        defined = bound | set(claim.constants)
        run_inputs = claim.run.inputs if claim.run else {}
        expressions = [*claim.where.items(), *claim.check.items(), *run_inputs.items()]
        for hole, spec in claim.computes.items():  # formulas/inline.py
            expressions += [(f"computes.{hole}", e) for e in (spec.value, *spec.names.values())]
        if claim.iterate:
            expressions += [*claim.iterate.state.items(), *claim.iterate.step.items()]
        for name, (tree, line) in expressions:
            for free in sorted(ex.free_names(tree) - defined - CONSTANTS):
                self.problem(line, 1, f"unknown name {free!r} in {name!r}"
                             f"{did_you_mean(free, sorted(defined))}", claim)
