"""Pattern family: a formula followed by a worked instance of it, ``f(x) = …`` then ``f(2) = 7.39``.

A new note defines a function and evaluates it a few lines later::

    The growth curve is $g(t) = 3 e^{t/2} + 1$ ...
    At the second step, $g(2) = 9.15$.

    θ_i = 10000^{-i/4} ... θ_1 = 0.1

Without a claim, an edit of the formula (``t/2`` → ``t/3``, ``cos`` → ``sin``) is a change
of text nothing reads. Here the definition's right side is a formula hole ``⟪F⟫`` read with
``computes:`` (:mod:`verifiers.formulas.inline`): evaluated on the instance's inputs (the
call's printed arguments, or the printed index of ``θ_1``) it must equal the instance's
printed result, to half a unit of its last digit (``rounded:``). So the formula is read, never
restated, and an edit of it is a ``discrepancy`` at the formula.

Two shapes: a call ``name(a, b) = rhs`` with names as parameters, and a subscripted name
``θ_i = rhs`` with a one-letter index. The instance is the same call with numbers
(``g(2)``, ``θ_1``, ``θ_{1}``) followed, on its line, by ``=``/``≈`` and a lone result (the last
one of a chain ``g(2) = 3e + 1 = 9.15``), or a row of a Markdown table under the definition
whose header names each parameter and the defined name (``| i | θ_i |``). A reading, so kept
only when the engine verifies it, never pinned.
"""

from __future__ import annotations

import re

from verifiers.infer.candidate import Candidate
from verifiers.infer.tokens import NUM, Token

__all__ = ["instance_candidates"]

MAX_LINES = 8  # lines from the definition to an instance
MAX_INSTANCES = 2  # instances checked per definition
MAX_FORMULA = 160  # characters of a right side

_GREEK = (r"\\(?:alpha|beta|gamma|delta|epsilon|zeta|eta|theta|kappa|lambda|mu|nu|xi|rho|"
          r"sigma|tau|phi|varphi|chi|psi|omega)(?![A-Za-z])|[α-ωΑ-Ω]")
_FUNC = rf"(?:[A-Za-z]{{1,4}}|{_GREEK})"
_PARAM = r"(?:[A-Za-z]{1,6}(?:_\{?[A-Za-z]{1,6}\}?)?)"
# a definition: `f(x) =`, `PE(pos, i) =`, `g(t) :=`
_CALL_DEF = re.compile(rf"(?<![A-Za-z\\])(?P<f>{_FUNC})\s*\((?P<args>\s*{_PARAM}(?:\s*,\s*"
                       rf"{_PARAM})*\s*)\)\s*:?=(?!=)")
# `θ_i =`, `\theta_{i} =`, `w_k =`
_SUB_DEF = re.compile(rf"(?<![A-Za-z\\])(?P<f>[A-Za-z]|{_GREEK})_(?:\{{(?P<i1>[a-z])\}}|"
                      rf"(?P<i2>[a-z])(?![A-Za-z0-9]))\s*:?=(?!=)")
_NUMBER = r"-?\d+(?:\.\d+)?"
_RHS_END = re.compile(r"\$|[，。；;、\u4e00-\u9fff]|,\s+(?=[A-Za-z\u4e00-\u9fff]{2,})|\.\s|\.$|"
                      r"\s(?:for|where|with|so|and|when|if)\s|=|≈|\\approx|\\quad|\\\\|\n")
_FUNCTIONS = ("sin", "cos", "tan", "exp", "ln", "log")
_RESERVED = {"sin", "cos", "tan", "exp", "ln", "log", "max", "min", "sum", "softmax", "sqrt",
             "mean", "frac", "cdot", "times", "left", "right", "mathrm", "text", "Var", "E"}


def instance_candidates(text: str, tokens: list[Token], uncovered: set[int]
                        ) -> list[Candidate]:
    """One candidate per (definition, instance) pair a few lines apart."""
    nums = {t.start: t for t in tokens if t.kind == NUM}
    out: list[Candidate] = []
    for m in list(_CALL_DEF.finditer(text)) + list(_SUB_DEF.finditer(text)):
        f = m.group("f")
        if f in _RESERVED:
            continue
        params = [p.strip() for p in m.group("args").split(",")] if "args" in m.groupdict() \
            and m.group("args") else [m.group("i1") or m.group("i2")]
        rhs = _rhs(text, m.end(), params)
        if rhs is None or not any(_mentions(text[rhs[0]:rhs[1]], p) for p in params):
            continue
        if any(p in _RESERVED for p in params):
            continue
        found = 0
        call = "args" in m.groupdict()
        insts = [(spans, _result(text, nums, at))
                 for spans, at in _instances(text, m, f, len(params), call)]
        insts += _table_rows(text, nums, m, params)
        for spans, result in insts:
            if result is None or result.start not in uncovered or len(spans) != len(params):
                continue
            cand = _candidate(text, nums, rhs, params, spans, result)
            if cand is not None:
                out.append(cand)
                found += 1
            if found == MAX_INSTANCES:
                break
    return out


def _rhs(text: str, at: int, params: list[str]) -> tuple[int, int] | None:
    """Span of a definition's right side: to the end of its math or clause. A chain of
    printings (``10000^{-2i/8} = 10000^{-i/4}``) is read whole while each side past ``=``
    still uses a parameter: every side is then evaluated on the instance."""
    end = _RHS_END.search(text, at)
    while end is not None and end.group() in ("=", "≈", "\\approx"):
        nxt = _RHS_END.search(text, end.end())
        side = text[end.end():nxt.start() if nxt else len(text)]
        if not any(_mentions(side, p) for p in params):
            break
        end = nxt
    stop = end.start() if end else len(text)
    a = at
    while a < stop and text[a] in " \t":
        a += 1
    b = stop
    while b > a and text[b - 1] in " \t,":
        b -= 1
    body = text[a:b]
    if not body or b - a > MAX_FORMULA or not re.search(r"[A-Za-z\\α-ω]", body):
        return None
    if body.count("(") != body.count(")") or body.count("{") != body.count("}"):
        return None
    return a, b


def _mentions(body: str, name: str) -> bool:
    """Does the right side use parameter ``name`` (a whole name, not part of a word)?"""
    return re.search(rf"(?<![A-Za-z\\]){re.escape(name)}(?![A-Za-z])", body) is not None


def _instances(text: str, m: re.Match[str], f: str, arity: int, call: bool
               ) -> list[tuple[list[tuple[int, int]], int]]:
    """(argument spans, offset after the call) of each instance within MAX_LINES lines."""
    limit = m.end()
    for _ in range(MAX_LINES + 1):
        nxt = text.find("\n", limit + 1)
        limit = len(text) if nxt < 0 else nxt
    if call:
        arg = rf"\s*({_NUMBER})\s*"
        pat = re.compile(rf"(?<![A-Za-z\\]){re.escape(f)}\s*\(" + ",".join([arg] * arity) + r"\)")
    else:
        pat = re.compile(rf"(?<![A-Za-z\\]){re.escape(f)}_(?:\{{\s*(\d+)\s*\}}|(\d+)(?![\d.]))")
    out = []
    for inst in pat.finditer(text, m.end(), limit):
        spans = [inst.span(g) for g in range(1, (pat.groups or 0) + 1) if inst.group(g)]
        out.append((spans, inst.end()))
    return out


def _plain(cell: str) -> str:
    """A header cell as a name: no ``$``, braces or spaces (``$\\omega_{i}$`` → ``\\omega_i``)."""
    return re.sub(r"[\s${}]", "", cell)


def _table_rows(text: str, nums: dict[int, Token], m: re.Match[str], params: list[str]
                ) -> list[tuple[list[tuple[int, int]], Token | None]]:
    """Rows of a Markdown table within MAX_LINES lines after the definition whose header has
    a column for each parameter and one for the defined name (``| i | θ_i |``, ``| t |
    g(t) |``): each row is an instance (its cells the arguments and the result)."""
    lhs = _plain(text[m.start():m.end()].rstrip("=:").rstrip())
    lines = text[m.end():].split("\n")[1:MAX_LINES + 1]
    pos = text.find("\n", m.end()) + 1
    out: list[tuple[list[tuple[int, int]], Token | None]] = []
    header: list[str] | None = None
    for line in lines:
        start, pos = pos, pos + len(line) + 1
        body = line.strip()
        if not (body.startswith("|") and body.count("|") >= 3):
            if header is not None:
                break
            continue
        bars = [start + k for k, ch in enumerate(line) if ch == "|"]
        cells = [(a + 1, b) for a, b in zip(bars, bars[1:], strict=False)]
        if header is None:
            header = [_plain(text[a:b]) for a, b in cells]
            if lhs not in header or not all(p in header for p in params):
                return []
            continue
        if set(body) <= set("|-: "):
            continue
        if len(cells) != len(header):
            continue
        spans = [_lone(text, nums, cells[header.index(p)]) for p in params]
        result = _lone(text, nums, cells[header.index(lhs)])
        if result is not None and all(spans):
            out.append(([sp for sp in spans if sp is not None], nums[result[0]]))
    return out


def _lone(text: str, nums: dict[int, Token], cell: tuple[int, int]) -> tuple[int, int] | None:
    """The span of the one number a table cell holds, or None."""
    inside = [t for t in nums.values() if cell[0] <= t.start and t.end <= cell[1]]
    if len(inside) != 1 or text[cell[0]:cell[1]].strip() != inside[0].text:
        return None
    return inside[0].start, inside[0].end


_RESULT_STOP = re.compile(r"\$|[，。；;、\n]|\s(?:and|so|for|where)\s")


def _result(text: str, nums: dict[int, Token], at: int) -> Token | None:
    """The lone number after the last ``=``/``≈`` of the instance's chain."""
    stop = _RESULT_STOP.search(text, at)
    end = stop.start() if stop else len(text)
    rels = list(re.finditer(r"=|≈|\\approx", text[at:end]))
    if not rels or not text[at:at + rels[0].start()].strip() == "":
        return None
    after = at + rels[-1].end()
    while after < end and text[after] in " \t":
        after += 1
    tok = nums.get(after)
    if tok is None:
        return None
    rest = text[tok.end:end].strip()
    if rest and rest[0] in "+-*/^×·−" or rest.startswith(("\\times", "\\cdot")):
        return None
    return tok


def _candidate(text: str, nums: dict[int, Token], rhs: tuple[int, int], params: list[str],
               spans: list[tuple[int, int]], result: Token) -> Candidate | None:
    holes: dict[str, Token] = {"r": result}
    names: dict[str, str] = {}
    for k, ((a, b), param) in enumerate(zip(spans, params, strict=True), start=1):
        tok = nums.get(a)  # an index (`θ_1`) is no literal of coverage, but is read all the same
        holes[f"a{k}"] = tok if tok is not None and tok.end == b else Token(NUM, text[a:b], a, b)
        names[param] = f"a{k}"
    body = text[rhs[0]:rhs[1]]
    # plain text (no LaTeX command) reads every function, so `cos` edited to `sin` is still read
    functions = list(_FUNCTIONS) if "\\" not in body and any(
        re.search(rf"(?<![A-Za-z]){f}\s*\(", body) for f in _FUNCTIONS) else []
    bound = ", ".join(f"{_key(k)}: {v}" for k, v in names.items())
    spec = [f"value: r, rounded: r, names: {{{bound}}}"]
    if functions:
        spec.append(f"functions: [{', '.join(functions)}]")
    cand = Candidate("instance", "inferred: the formula, evaluated on the worked instance "
                     "after it, gives the printed result", holes, [], {},
                     ["    computes:", f"      F: {{{', '.join(spec)}}}"])
    cand.formulas = {"F": rhs}
    return cand


def _key(name: str) -> str:
    """A ``names:`` key as YAML (a LaTeX name such as ``\\theta`` needs quotes)."""
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else f"'{name}'"
