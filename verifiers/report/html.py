"""The HTML report (issue 6): one self-contained page, readable offline from ``file://``.

``build(result)`` returns the page; ``write(result, path)`` writes it atomically.
The page holds no script and loads nothing: CSS, SVG pictures and MathML are
inline, claim details are ``<details>`` elements that the browser opens when a
link points into them. It shows

* a summary: claims and values per note and per kind by verdict, coverage,
  symbolic steps read vs restated, and the inputs (sha256 of every note and
  claim file, and one digest over them) so two reports can be compared;
* the discrepancies grouped by root cause, each with the suggested text at the
  note's printed precision, then the claims that are stale, unparsed or broken;
* every note as text, each numeric literal and quoted formula marked by its
  verdict and linked to the claim's details (what it says, printed vs expected,
  local and global values, root cause, derivation steps in MathML, the message
  with any counterexample, the claim's YAML file and line); pictures where the
  data allows (see :mod:`verifiers.report.pictures`).

Notes and claims are untrusted: every string is escaped, and MathML produced by
``latex2mathml`` is re-serialised through an element/attribute allow-list.
Output is deterministic: no time stamps, no absolute paths, no set order.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path

from verifiers.coverage.literals import (
    UNCOVERED,
    WAIVED,
    NoteCoverage,
    WaiverProblem,
    strength_json,
)
from verifiers.coverage.literals import coverage as classify
from verifiers.coverage.strength import ORDER as STRENGTHS
from verifiers.files import display_path, read_regular, write_output
from verifiers.notes import Note
from verifiers.report.json import step_counts
from verifiers.report.pictures import Picture, pictures
from verifiers.run import claim_paths
from verifiers.verdicts import (
    DISCREPANCY,
    ERROR,
    FIXED,
    GIVEN,
    KNOWN,
    PASSING,
    STALE,
    STATUSES,
    UNPARSED,
    VERIFIED,
    RunResult,
    ValueVerdict,
    Verdict,
)

__all__ = ["build", "mathml", "write"]

COVERAGE_STATUSES = (UNCOVERED, WAIVED)
UNDERLINED = ("symbolic", "property")  # kinds that read formulas or sentences, not numbers
# Marks: the worst status covering a piece of text decides its colour.
RANK = {ERROR: 0, STALE: 1, UNPARSED: 2, DISCREPANCY: 3, FIXED: 4, UNCOVERED: 5, KNOWN: 6,
        WAIVED: 7, VERIFIED: 8, GIVEN: 9}
LEGEND = {
    VERIFIED: "the printed value is right",
    DISCREPANCY: "the printed value is wrong",
    KNOWN: "a pinned, explained discrepancy (or inherits one)",
    FIXED: "a pinned value now verifies: remove the pin",
    STALE: "the quoted text is no longer in the note",
    UNPARSED: "a formula the LaTeX reader cannot read as printed",
    ERROR: "the claim itself is broken",
    GIVEN: "an input a claim takes as printed",
    UNCOVERED: "a number no claim reads",
    WAIVED: "a number waived with a reason",
}


def esc(text: object) -> str:
    return escape(str(text), quote=True)


def _anchor(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


# --- MathML ---------------------------------------------------------------------------

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_TAGS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle merror "
    "mpadded mphantom menclose munder mover munderover mtable mtr mtd semantics".split())
_ATTRS = frozenset(
    "display mathvariant stretchy fence separator accent accentunder movablelimits largeop "
    "symmetric form lspace rspace minsize maxsize linethickness columnalign rowalign "
    "columnlines rowlines columnspacing rowspacing frame displaystyle scriptlevel width height "
    "depth notation".split())


def _serialise(el: ET.Element, out: list[str]) -> None:
    tag = el.tag.rsplit("}", 1)[-1]
    if tag not in _TAGS:
        out.append(esc(el.tail or ""))
        return
    attrs = "".join(f' {k}="{esc(v)}"' for k, v in el.attrib.items() if k in _ATTRS)
    if tag == "math":
        attrs = f' xmlns="{MATHML_NS}"' + attrs
    out.append(f"<{tag}{attrs}>{esc(el.text or '')}")
    for child in el:
        _serialise(child, out)
    out.append(f"</{tag}>{esc(el.tail or '')}")


def mathml(latex: str) -> str:
    """LaTeX as sanitised MathML, or as escaped code when it cannot be converted."""
    try:
        from latex2mathml.converter import convert

        root = ET.fromstring(convert(latex))
    except Exception:  # any failure of the converter or of its XML: show the source
        return f'<code class="tex">{esc(latex)}</code>'
    out: list[str] = []
    _serialise(root, out)
    return "".join(out)


# --- inputs ---------------------------------------------------------------------------


def input_hashes(result: RunResult) -> list[tuple[str, str, str, int]]:
    """(name relative to its folder, display path, sha256, size) of every note and claim file.

    Files are read as the run read them (:func:`verifiers.files.read_regular`): a link,
    FIFO or device, or a file that became one since, is listed as ``unreadable``.
    """
    rows = []

    def row(name: str, path: Path) -> tuple[str, str, str, int]:
        try:
            data = read_regular(path)
        except (OSError, ValueError):
            return (name, display_path(path), "unreadable", 0)
        return (name, display_path(path), hashlib.sha256(data).hexdigest(), len(data))

    for name in sorted(result.notes):
        rows.append(row(f"notes/{name}", result.notes_dir / name))
    for path in claim_paths(result.claims_dir):
        rows.append(row(f"claims/{path.relative_to(result.claims_dir).as_posix()}", path))
    return rows


def input_digest(rows: list[tuple[str, str, str, int]]) -> str:
    """One sha256 over every input's name and hash: equal digests, equal inputs."""
    text = "".join(f"{digest}  {name}\n" for name, _, digest, _ in rows)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- ids ------------------------------------------------------------------------------


class _Ids:
    """Stable, unique HTML ids for claims (from their ids) and their values."""

    def __init__(self, verdicts: list[Verdict]) -> None:
        self.claim: dict[int, str] = {}
        self.by_id: dict[str, Verdict] = {}
        used: set[str] = set()
        for v in verdicts:
            base = "c-" + _anchor(v.id)
            hid, k = base, 1
            while hid in used:
                k += 1
                hid = f"{base}-{k}"
            used.add(hid)
            self.claim[id(v)] = hid
            self.by_id.setdefault(v.id, v)

    def of(self, v: Verdict) -> str:
        return self.claim[id(v)]

    def value(self, v: Verdict, i: int) -> str:
        return f"v{self.of(v)[1:]}-{i}"

    def link(self, claim_id: str | None) -> str:
        """A link to a claim by id (plain text when no such claim ran)."""
        if not claim_id:
            return ""
        v = self.by_id.get(claim_id)
        if v is None:
            return f"<code>{esc(claim_id)}</code>"
        return f'<a href="#{self.of(v)}"><code>{esc(claim_id)}</code></a>'


def badge(status: str) -> str:
    return f'<span class="b s-{esc(status)}">{esc(status)}</span>'


# --- marks in the note text -----------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    status: str
    formula: bool  # a symbolic claim's formula (underlined) rather than a number (filled)
    target: str | None  # the id the mark links to
    label: str


def _value_offsets(note: Note, x: ValueVerdict) -> tuple[int, int] | None:
    try:
        a, b = note.offset(*x.start), note.offset(*x.end)
    except (ValueError, TypeError):
        return None
    return (a, b) if b > a else None


def _spans(note: Note, verdicts: list[Verdict], cov: NoteCoverage | None,
           ids: _Ids) -> list[_Span]:
    spans: list[_Span] = []
    for v in verdicts:
        for i, x in enumerate(v.values):
            where = _value_offsets(note, x)
            if where is None:
                continue
            label = f"{x.status}: {v.id} {x.name}"
            if x.suggestion is not None and x.status not in (VERIFIED, GIVEN):
                label += f" — printed {x.printed}, expected {x.suggestion}"
            spans.append(_Span(*where, x.status, v.kind in UNDERLINED, ids.value(v, i), label))
    if cov is not None:
        for lit in cov.literals:
            status = cov.status[lit.start]
            if status in COVERAGE_STATUSES:
                label = status + (f": {cov.reasons[lit.start]}" if lit.start in cov.reasons
                                  else ": no claim reads this number")
                spans.append(_Span(lit.start, lit.end, status, False, None, label))
    return spans


def _segments(text: str, spans: list[_Span]) -> Iterable[tuple[int, int, list[_Span]]]:
    """Split [0, len) at every span edge and line end; each piece with the spans covering it."""
    cuts = {0, len(text)}
    for s in spans:
        cuts.update((s.start, s.end))
    cuts.update(m.start() for m in re.finditer("\n", text))
    cuts.update(m.end() for m in re.finditer("\n", text))
    edges = sorted(cuts)
    order = sorted(spans, key=lambda s: (s.start, s.end))
    active: list[_Span] = []
    k = 0
    for a, b in zip(edges, edges[1:], strict=False):
        while k < len(order) and order[k].start <= a:
            active.append(order[k])
            k += 1
        active = [s for s in active if s.end > a]
        yield a, b, [s for s in active if s.start <= a and s.end >= b]


def _mark(piece: str, covering: list[_Span], first: set[int], a: int, prefix: str) -> str:
    if not covering:
        return esc(piece)
    numbers = [s for s in covering if not s.formula]
    formulas = [s for s in covering if s.formula]
    classes = ["mk"]
    if numbers:
        classes.append("n-" + min(numbers, key=lambda s: RANK[s.status]).status)
    if formulas:
        classes.append("f-" + min(formulas, key=lambda s: RANK[s.status]).status)
    main = min(covering, key=lambda s: (RANK[s.status], s.end - s.start, s.label))
    title = "\n".join(sorted({s.label for s in covering}, key=lambda t: (RANK.get(
        t.split(":", 1)[0], 99), t)))
    ident = f' id="{prefix}-{a}"' if a in first else ""
    attrs = f'{ident} class="{" ".join(classes)}" title="{esc(title)}"'
    if main.target is None:
        return f"<span{attrs}>{esc(piece)}</span>"
    return f'<a{attrs} href="#{main.target}">{esc(piece)}</a>'


def _note_text(note: Note, prefix: str, spans: list[_Span], figures: dict[int, list[str]]
               ) -> str:
    first = {s.start for s in spans}
    lines: list[list[str]] = [[]]
    for a, b, covering in _segments(note.text, spans):
        piece = note.text[a:b]
        if piece == "\n":
            lines.append([])
        elif piece:
            lines[-1].append(_mark(piece, covering, first, a, prefix))
    out = ['<div class="src">']
    for n, parts in enumerate(lines, start=1):
        out.append(f'<div class="ln" id="{prefix}-L{n}" data-n="{n}">{"".join(parts)}</div>')
        out.extend(figures.get(n, []))
    out.append("</div>")
    return "".join(out)


# --- claim details --------------------------------------------------------------------


def _place(result: RunResult, v: Verdict, pos: tuple[int, int] | None, prefix: str | None,
           note: Note | None, short: bool = False) -> str:
    """``note:line:col`` (``line:col`` when short), linked to the mark in the note text."""
    if pos is None or not v.note:
        return ""
    text = f"{pos[0]}:{pos[1]}" if short else f"{result.note_path(v.note)}:{pos[0]}:{pos[1]}"
    if note is not None and prefix is not None:
        try:
            return f'<a href="#{prefix}-{note.offset(*pos)}">{esc(text)}</a>'
        except (ValueError, TypeError):
            pass
    return esc(text)


def _local(v: Verdict, x: ValueVerdict, ids: _Ids) -> str:
    """The local check (this step from the note's printed inputs), in words."""
    mark = {"ok": "✓", "wrong": "✗"}.get(x.local or "", esc(x.local or ""))
    if x.status in (DISCREPANCY, KNOWN, FIXED):
        if x.root_cause and x.root_cause != v.id:
            return f"{mark or '✓'} this step is right; inherits from {ids.link(x.root_cause)}"
        return f"{mark or '✗'} the error is in this step"
    return mark or ("✓" if x.status == VERIFIED else "")


def _value_rows(result: RunResult, v: Verdict, ids: _Ids, prefix: str | None,
                note: Note | None) -> str:
    inputs = [(i, x) for i, x in enumerate(v.values) if x.status == GIVEN]
    checked = [(i, x) for i, x in enumerate(v.values) if x.status != GIVEN]
    out = []
    if inputs:
        items = ", ".join(
            f'<span id="{ids.value(v, i)}">{esc(x.name)} = '
            f'{_place_link(x, i, v, ids, prefix, note, x.printed)}</span>' for i, x in inputs)
        out.append(f'<p class="inputs">inputs (taken as printed): {items}</p>')
    if checked:
        out.append('<table class="vals"><tr><th>value</th><th>line:col</th><th>verdict</th>'
                   "<th>printed</th><th>expected (printed precision)</th>"
                   "<th>global (exact inputs)</th><th>local (printed inputs)</th>"
                   "<th>root cause</th></tr>")
        for i, x in checked:
            root = ids.link(x.root_cause) if x.root_cause and x.root_cause != v.id else ""
            note_msg = "" if x.status == VERIFIED else f'<div class="msg">{esc(x.message)}</div>'
            out.append(
                f'<tr id="{ids.value(v, i)}" class="r-{esc(x.status)}"><td><code>{esc(x.name)}'
                f"</code></td><td>{_place(result, v, x.start, prefix, note, True)}</td>"
                f"<td>{badge(x.status)}</td><td><code>{esc(x.printed)}</code></td>"
                f"<td><code>{esc(x.suggestion or '')}</code></td>"
                f'<td><code class="exact">{esc(x.expected)}</code></td>'
                f"<td>{_local(v, x, ids)}</td><td>{root}</td></tr>")
            if note_msg:
                out.append(f'<tr class="r-{esc(x.status)}"><td></td><td colspan="7">{note_msg}'
                           "</td></tr>")
        out.append("</table>")
    return "".join(out)


def _place_link(x: ValueVerdict, i: int, v: Verdict, ids: _Ids, prefix: str | None,
                note: Note | None, text: str) -> str:
    if note is not None and prefix is not None:
        try:
            return f'<a href="#{prefix}-{note.offset(*x.start)}"><code>{esc(text)}</code></a>'
        except (ValueError, TypeError):
            pass
    return f"<code>{esc(text)}</code>"


def _steps(result: RunResult, v: Verdict, ids: _Ids, prefix: str | None,
           note: Note | None) -> str:
    out = ['<ol class="steps">']
    for i, x in enumerate(v.values):
        how = esc(x.expected) if x.status in PASSING else ""
        body = mathml(x.restated if x.restated else x.printed)
        out.append(f'<li id="{ids.value(v, i)}" class="r-{esc(x.status)}">{badge(x.status)} '
                   f'<span class="f">{body}</span> <span class="how">{how}</span> '
                   f'<span class="at">{_place(result, v, x.start, prefix, note, True)}</span>')
        if x.restated:
            out.append(f'<div class="restated">the note prints <code>{esc(x.printed)}</code>; '
                       f"checked as the claim's restatement <code>{esc(x.restated)}</code>"
                       "</div>")
        if x.status != VERIFIED or x.restated:
            out.append(f'<div class="msg">{esc(x.message)}</div>')
        out.append("</li>")
    out.append("</ol>")
    return "".join(out)


def _laws(result: RunResult, v: Verdict, ids: _Ids, prefix: str | None,
          note: Note | None) -> str:
    """A property claim: the law, the note's sentence, the search's outcome or counterexample."""
    out = ['<ul class="laws">']
    for i, x in enumerate(v.values):
        out.append(f'<li id="{ids.value(v, i)}" class="r-{esc(x.status)}">{badge(x.status)} '
                   f"law <code>{esc(x.name)}</code>: {esc(x.expected)} "
                   f'<span class="at">{_place(result, v, x.start, prefix, note, True)}</span>'
                   f'<div class="quote">the note: {esc(x.printed)}</div>')
        if x.status != VERIFIED:
            out.append(f'<div class="msg">{esc(x.message)}</div>')
        out.append("</li>")
    out.append("</ul>")
    return "".join(out)


def _claim(result: RunResult, v: Verdict, ids: _Ids, prefix: str | None,
           note: Note | None) -> str:
    where = _place(result, v, v.where or (v.span[0] if v.span else None), prefix, note)
    section = f" · §{esc(v.section)}" if v.section else ""
    yaml_at = f"{v.file}:{v.line}" + (f":{v.claim_place[1]}" if v.claim_place else "")
    root = (f" · root cause {ids.link(v.root_cause)}"
            if v.root_cause and v.root_cause != v.id else "")
    head = (f'<summary>{badge(v.status)} <code class="id">{esc(v.id)}</code> '
            f'<span class="says">{esc(v.says)}</span></summary>')
    inferred = " · inferred" if any(c.inferred for c in result.claims if c.id == v.id) else ""
    meta = (f'<p class="meta">{esc(v.kind)} claim{inferred} · <code>{esc(yaml_at)}</code>{section}'
            f"{' · ' + where if where else ''}{root}</p>")
    message = f'<p class="msg">{esc(v.message)}</p>' if v.message else ""
    render = {"symbolic": _steps, "property": _laws}.get(v.kind, _value_rows)
    values = render(result, v, ids, prefix, note)
    return (f'<details class="claim c-{esc(v.status)}" id="{ids.of(v)}">{head}'
            f'<div class="body">{meta}{message}{values}</div></details>')


# --- sections of the page -------------------------------------------------------------


def _table(head: list[str], rows: list[list[str]], cls: str = "sum") -> str:
    out = [f'<table class="{cls}"><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for row in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _count_rows(groups: list[tuple[str, list[str]]], statuses: tuple[str, ...]) -> list[list[str]]:
    rows = []
    for label, found in groups:
        counts = [sum(1 for s in found if s == st) for st in statuses]
        rows.append([label] + [str(c) if c else "" for c in counts] + [str(len(found))])
    return rows


def _strength_table(covs: list[NoteCoverage], note_label: Callable[[str], str]) -> list[str]:
    """How the covered numbers are checked (verifiers/coverage/strength.py), one row per note."""
    rows = []
    for cov in covs:
        s = strength_json(cov)
        rows.append([note_label(cov.note), *(str(s[k]) for k in STRENGTHS),
                     f"{s['recomputed_share']:.1%}", str(len(s["orphan_copies"]))])
    return ["<h3>Strength of coverage</h3>",
            _table(["note", *STRENGTHS, "recomputed of derived", "orphan copies"], rows),
            '<p class="note">recomputed: computed from other values; copy: equal to another '
            "printing, recomputed elsewhere; restated: checked through the claim's restatement "
            "of the note's formula; given: an input (or a repeated input). Derived: all but "
            "given.</p>"]


def _summary(result: RunResult, covs: list[NoteCoverage], inputs: list[tuple[str, str, str, int]],
             pics: list[Picture], note_ids: dict[str, str]) -> str:
    vs = result.verdicts
    notes = sorted({v.note for v in vs if v.note} | set(result.notes))
    kinds = sorted({v.kind for v in vs})
    statuses = STATUSES
    head = ["", *[badge(s) for s in statuses], "total"]

    def note_label(n: str) -> str:
        return f'<a href="#{note_ids[n]}">{esc(n)}</a>' if n in note_ids else esc(n)

    claim_groups = [(note_label(n), [v.status for v in vs if v.note == n]) for n in notes]
    if any(not v.note for v in vs):
        claim_groups.append(("(no note)", [v.status for v in vs if not v.note]))
    claim_groups += [(f"kind: {esc(k)}", [v.status for v in vs if v.kind == k]) for k in kinds]
    claim_groups.append(("<b>all</b>", [v.status for v in vs]))
    vstat = (*statuses, GIVEN)
    value_groups = [(note_label(n), [x.status for v in vs if v.note == n for x in v.values])
                    for n in notes]
    value_groups += [(f"kind: {esc(k)}", [x.status for v in vs if v.kind == k for x in v.values])
                     for k in kinds]
    value_groups.append(("<b>all</b>", [x.status for v in vs for x in v.values]))
    out = ['<section id="summary"><h2>Summary</h2>',
           "<h3>Claims by verdict</h3>", _table(head, _count_rows(claim_groups, statuses)),
           "<h3>Values by verdict</h3>",
           _table(["", *[badge(s) for s in vstat], "total"], _count_rows(value_groups, vstat))]
    # coverage
    rows = []
    reasons: dict[str, int] = {}
    for cov in covs:
        total = len(cov.literals)
        waived = cov.count(WAIVED)
        share = f"{waived / total:.1%}" if total else "–"
        excluded = ", ".join(f"{k} {n}" for k, n in cov.excluded.items() if n) or "–"
        rows.append([note_label(cov.note), str(total), str(cov.count("covered")),
                     f"{waived} ({share})", str(cov.count(UNCOVERED)), esc(excluded)])
        for start, reason in cov.reasons.items():
            if cov.status.get(start) == WAIVED:
                reasons[reason] = reasons.get(reason, 0) + 1
    out += ["<h3>Coverage of the notes' numbers</h3>",
            _table(["note", "literals", badge("covered"), badge(WAIVED), badge(UNCOVERED),
                    "not claims (rule: count)"], rows)]
    if reasons:
        out.append("<details><summary>waivers by reason</summary><ul>" + "".join(
            f"<li>{n} × {esc(r)}</li>" for r, n in sorted(reasons.items(),
                                                          key=lambda t: (-t[1], t[0])))
            + "</ul></details>")
    out += _strength_table(covs, note_label)
    steps = step_counts(vs)
    out += ["<h3>Symbolic steps</h3>",
            _table(list(steps), [[str(n) for n in steps.values()]]),
            '<p class="note">read: checked as the note prints them; restated: the claim checks '
            "a restatement (with a reason) the LaTeX reader can read.</p>"]
    if pics:
        out.append("<h3>Pictures</h3><ul>" + "".join(
            f'<li><a href="#pic-{k}">{esc(p.title)}</a> '
            f"({esc(p.note)}, line {p.line})</li>" for k, p in enumerate(pics)) + "</ul>")
    digest = input_digest(inputs)
    out += [f'<h3>Inputs</h3><p>{sum(1 for r in inputs if r[0].startswith("notes/"))} notes, '
            f'{sum(1 for r in inputs if r[0].startswith("claims/"))} claim files; '
            f'digest <code class="digest">{digest}</code> (sha256 over the list below: equal '
            "digests, equal inputs).</p>",
            "<details><summary>sha256 of every input (as <code>sha256sum</code> prints "
            'them)</summary><pre class="hashes">'
            + "".join(f"{esc(h)}  {esc(shown)}  ({n} bytes)\n" for _, shown, h, n in inputs)
            + "</pre></details></section>"]
    return "".join(out)


def _where(v: Verdict, x: ValueVerdict) -> tuple[str, int, int]:
    return (v.note, *x.start)


def _discrepancies(result: RunResult, ids: _Ids, note_ids: dict[str, str]) -> str:
    groups: dict[str, list[tuple[Verdict, ValueVerdict, int]]] = {}
    for v in result.verdicts:
        for i, x in enumerate(v.values):
            if x.status in (DISCREPANCY, KNOWN, FIXED):
                groups.setdefault(x.root_cause or v.id, []).append((v, x, i))
    out = ['<section id="discrepancies"><h2>Discrepancies by root cause</h2>']
    if not groups:
        out.append("<p>None: every printed value verifies.</p></section>")
        return "".join(out)
    open_n = sum(1 for g in groups.values() for _, x, _ in g if x.status not in PASSING)
    out.append(f"<p>{len(groups)} root causes, {sum(map(len, groups.values()))} values "
               f"({open_n} open, the rest pinned as known). Fix a root first: the values it "
               "causes follow.</p>")

    def order(item: tuple[str, list[tuple[Verdict, ValueVerdict, int]]]) -> tuple:
        root, members = item
        is_open = any(x.status not in PASSING for _, x, _ in members)
        rv = ids.by_id.get(root)
        first = min(_where(v, x) for v, x, _ in members)
        return (not is_open, first if rv is None else (rv.note, *(rv.where or (0, 0))), root)

    for root, members in sorted(groups.items(), key=order):
        rv = ids.by_id.get(root)
        own = [x for v, x, _ in members if v.id == root and (x.root_cause in (None, root))]
        why = own[0].message if own else (rv.message if rv else "")
        says = f' — <span class="says">{esc(rv.says)}</span>' if rv and rv.says else ""
        worst = min((x.status for _, x, _ in members), key=lambda s: RANK[s])
        out.append(f'<div class="group g-{esc(worst)}"><h3>{badge(worst)} root cause '
                   f"{ids.link(root)}{says}</h3>")
        if why:
            out.append(f'<p class="msg">{esc(why)}</p>')
        out.append('<table class="disc"><tr><th>where</th><th>claim</th><th>value</th>'
                   "<th>verdict</th><th>replace</th><th></th></tr>")
        for v, x, i in sorted(members, key=lambda t: (_where(t[0], t[1]), t[0].id, t[2])):
            note = result.notes.get(v.note)
            prefix = note_ids.get(v.note)
            where = _place(result, v, x.start, prefix, note)
            if x.suggestion is not None:
                fix = f"<del>{esc(x.printed)}</del> → <ins>{esc(x.suggestion)}</ins>"
            else:
                fix = f'<span class="msg">{esc(x.message)}</span>'
            cause = "own step" if (x.root_cause in (None, v.id)) else "inherited"
            out.append(f"<tr><td>{where}</td><td>{ids.link(v.id)}</td><td><a href="
                       f'"#{ids.value(v, i)}"><code>{esc(x.name)}</code></a>'
                       f"</td><td>{badge(x.status)}</td><td>{fix}</td><td>{cause}</td></tr>")
        out.append("</table></div>")
    out.append("</section>")
    return "".join(out)


def _problems(result: RunResult, ids: _Ids, note_ids: dict[str, str],
              waivers: list[WaiverProblem]) -> str:
    rows = [[badge(ERROR), "waiver", esc(f"{w.waiver.file}:{w.waiver.line}"),
             f'<span class="msg">{esc(w.message)}</span>'] for w in waivers]
    for v in result.verdicts:
        bad = [x for x in v.values if x.status == UNPARSED]
        if v.status in (STALE, ERROR) or bad:
            note = result.notes.get(v.note)
            where = _place(result, v, v.where, note_ids.get(v.note), note) or esc(
                f"{v.file}:{v.line}")
            rows.append([badge(v.status), ids.link(v.id), where, f'<span class="msg">'
                         f"{esc(v.message)}</span>"])
    if not rows:
        return ""
    return ('<section id="problems"><h2>Stale, unparsed and broken claims and waivers</h2>'
            + _table(["verdict", "claim", "where", "message"], rows, "disc") + "</section>")


def _note_section(result: RunResult, name: str, prefix: str, cov: NoteCoverage | None,
                  ids: _Ids, pics: list[tuple[int, Picture]]) -> str:
    note = result.notes[name]
    mine = [v for v in result.verdicts if v.note == name]
    mine.sort(key=lambda v: (v.span[0] if v.span else v.where or (0, 0), v.id))
    figures: dict[int, list[str]] = {}
    for k, p in pics:
        figures.setdefault(p.line, []).append(
            f'<figure class="fig" id="pic-{k}">{p.svg}<figcaption>{esc(p.caption)} '
            f"({ids.link(p.claim)})</figcaption></figure>")
    counts: dict[str, int] = {}
    for v in mine:
        counts[v.status] = counts.get(v.status, 0) + 1
    line = ", ".join(f"{counts[s]} {s}" for s in STATUSES if counts.get(s))
    covered = ""
    if cov is not None:
        covered = (f"; numbers: {len(cov.literals)}, {cov.count('covered')} covered, "
                   f"{cov.count(WAIVED)} waived, {cov.count(UNCOVERED)} uncovered")
    toc = "".join(f'<li class="h{s.level}"><a href="#{prefix}-L{note.position(s.start)[0]}">'
                  f"{esc(s.label)} {esc(s.title[:60])}</a></li>" for s in note.sections)
    out = [f'<section class="note" id="{prefix}"><h2>{esc(result.note_path(name))}</h2>',
           f'<p>{len(mine)} claims ({esc(line or "none")}){esc(covered)}. '
           f'<a href="#{prefix}-claims">claims on this note</a></p>']
    if toc:
        out.append(f'<details class="toc"><summary>sections</summary><ul>{toc}</ul></details>')
    out.append(_note_text(note, prefix, _spans(note, mine, cov, ids), figures))
    out.append(f'<h3 id="{prefix}-claims">Claims on {esc(name)}</h3>')
    out.extend(_claim(result, v, ids, prefix, note) for v in mine)
    out.append("</section>")
    return "".join(out)


CSS = """
:root{--ok:#2e7d32;--bad:#c62828;--known:#a35f00;--fixed:#6a1b9a;--stale:#455a64;
--unparsed:#ad1457;--error:#7f0000;--given:#5c6f91;--unc:#d84315;--waived:#757575}
body{font:14px/1.5 system-ui,"Noto Sans CJK SC","WenQuanYi Micro Hei",sans-serif;margin:0;
color:#1b1b1b;background:#fafafa}
header,main{max-width:1180px;margin:0 auto;padding:0 16px}
header{padding-top:8px}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:6px 16px;
z-index:2}
nav a{margin-right:14px}
h1{font-size:22px;margin:12px 0 4px}h2{font-size:19px;margin:28px 0 8px;
border-bottom:2px solid #ddd}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:4px 0 10px;background:#fff}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
table.sum td:not(:first-child){text-align:right}
code{font:12.5px ui-monospace,"DejaVu Sans Mono",monospace}
code.exact{color:#666;font-size:11.5px;word-break:break-all}
.b{display:inline-block;border-radius:3px;padding:0 5px;font-size:12px;color:#fff;
background:#888}
.s-verified{background:var(--ok)}.s-discrepancy{background:var(--bad)}
.s-known{background:var(--known)}.s-fixed{background:var(--fixed)}
.s-stale{background:var(--stale)}.s-unparsed{background:var(--unparsed)}
.s-error{background:var(--error)}.s-given{background:var(--given)}
.s-uncovered{background:var(--unc)}.s-waived{background:var(--waived)}
.s-covered{background:var(--ok)}
.legend span.b{margin-right:4px}.legend li{display:inline-block;margin:0 14px 4px 0}
.legend ul{padding:0}
.src{background:#fff;border:1px solid #ddd;padding:6px 0;white-space:pre-wrap;
font:13px/1.7 ui-monospace,"DejaVu Sans Mono","Noto Sans Mono CJK SC","WenQuanYi Micro Hei Mono",
monospace;
overflow-wrap:anywhere}
.ln{padding-left:5.2em;text-indent:-4.6em;min-height:1.7em}
.ln::before{content:attr(data-n);display:inline-block;width:3.8em;margin-right:.8em;
text-align:right;color:#aaa;text-indent:0}
.ln:target{background:#fff7c2}
[id]{scroll-margin-top:56px}
.mk{text-decoration:none;color:inherit;border-radius:2px}
a.mk:hover{outline:2px solid #1f5fa8}
.n-verified{background:#d7efd8}.n-discrepancy{background:#ffc9c9;box-shadow:0 0 0 2px var(--bad);
font-weight:bold}.n-known{background:#ffe08a;box-shadow:0 0 0 1px var(--known)}
.n-fixed{background:#e6d3ff;box-shadow:0 0 0 2px var(--fixed)}
.n-stale{background:#cfd8dc}.n-unparsed{background:#f8bbd0}.n-error{background:#ff8a80}
.n-given{background:#e3e9f5}.n-uncovered{outline:2px dashed var(--unc)}
.n-waived{background:#eee;outline:1px dotted var(--waived)}
.f-verified{border-bottom:2px solid var(--ok)}.f-discrepancy{border-bottom:3px solid var(--bad)}
.f-known{border-bottom:3px solid var(--known)}.f-fixed{border-bottom:3px solid var(--fixed)}
.f-unparsed{border-bottom:3px dashed var(--unparsed)}.f-stale{border-bottom:2px solid #999}
.f-error{border-bottom:3px solid var(--error)}
.mk:target{outline:3px solid #1f5fa8}
details.claim{background:#fff;border:1px solid #ddd;border-left:5px solid #bbb;
margin:4px 0;padding:2px 8px}
details.claim>summary{cursor:pointer}
.c-verified{border-left-color:var(--ok)!important}.c-known{border-left-color:var(--known)!important}
.c-discrepancy,.c-fixed,.c-stale,.c-unparsed,.c-error{border-left-color:var(--bad)!important}
details.claim:target{box-shadow:0 0 0 3px #1f5fa8}
.says{color:#333}.id{font-weight:bold}
.meta{color:#555;margin:4px 0}.msg{white-space:pre-wrap;color:#333}
table.vals{width:100%;font-size:13px}table.disc{font-size:13px}
tr:target,li:target{background:#fff7c2;outline:2px solid #1f5fa8}
.r-discrepancy td,.r-fixed td{background:#fff0f0}.r-known td{background:#fff8e1}
.inputs{font-size:13px;color:#333}
ol.steps li{margin:6px 0}ol.steps math{font-size:17px;math-style:normal}
.how{color:#2e7d32;font-size:12px}.at{font-size:12px;color:#777}
.restated{font-size:12.5px;color:#5c6f91}.quote{font-size:13px;color:#444}
ul.laws{padding-left:1.2em}ul.laws li{margin:4px 0}
.group{background:#fff;border:1px solid #ddd;padding:4px 10px;margin:8px 0}
.g-discrepancy,.g-fixed{border-left:5px solid var(--bad)}.g-known{border-left:5px solid
var(--known)}
del{background:#ffd6d6;text-decoration:line-through}ins{background:#d7efd8;
text-decoration:none}
figure.fig{white-space:normal;display:block;margin:6px 0 10px 5.2em;padding:6px;
background:#fff;border:1px solid #cfd8e6;max-width:720px;font:13px/1.4 system-ui,sans-serif}
figure.fig figcaption{color:#444}
svg.pic text{font:12px system-ui,sans-serif}svg.pic text.t{font-weight:bold}
svg.pic text.l{fill:#444}
.toc ul{columns:2;font-size:13px;margin:4px 0}.toc li.h2{margin-left:1.2em}
pre.hashes{font-size:12px;background:#fff;border:1px solid #ddd;padding:6px;overflow-x:auto}
.note{color:#555;font-size:13px}
"""


def build(result: RunResult) -> str:
    """The whole report as one HTML string (deterministic for the same inputs)."""
    covs, waiver_problems = classify(result)
    cov_by_note = {c.note: c for c in covs}
    ids = _Ids(result.verdicts)
    names = sorted(result.notes)
    note_ids = {name: f"n{k + 1}" for k, name in enumerate(names)}
    pics = pictures(result)
    inputs = input_hashes(result)
    vs = result.verdicts
    failing = [v for v in vs if not v.passed]
    n_values = sum(len(v.values) for v in vs)
    counts = ", ".join(f"{sum(1 for v in vs if v.status == s)} {s}" for s in STATUSES
                       if any(v.status == s for v in vs))
    gate = ('<p class="gate">gate: <span class="b s-verified">passes</span> — every claim is '
            "verified or known</p>" if not failing else
            f'<p class="gate">gate: <span class="b s-discrepancy">fails</span> — {len(failing)} '
            "claims are not verified or known</p>")
    legend = "".join(f"<li>{badge(s)}{esc(t)}</li>" for s, t in LEGEND.items())
    nav = "".join(f'<a href="#{note_ids[n]}">{esc(n)}</a>' for n in names)
    parts = [
        "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">",
        "<title>notecheck report</title>",
        f"<style>{CSS}</style></head><body>",
        '<nav><a href="#summary">summary</a><a href="#discrepancies">discrepancies</a>'
        f"{nav}</nav><header><h1>notecheck report</h1>",
        f"<p>{len(vs)} claims, {n_values} values: {esc(counts or 'nothing to check')}. "
        f"Inputs digest <code>{input_digest(inputs)[:16]}</code>.</p>",
        gate,
        f'<div class="legend"><ul>{legend}</ul><p class="note">In the notes, numbers are '
        "filled with their verdict's colour, formulas and stated laws underlined; click one "
        "for the claim that checks it, hover for every claim that reads it. List markers, "
        "step labels and section references are not claims and stay plain.</p></div>"
        "</header><main>",
        _summary(result, covs, inputs, pics, note_ids),
        _discrepancies(result, ids, note_ids),
        _problems(result, ids, note_ids, waiver_problems),
    ]
    numbered = list(enumerate(pics))
    for name in names:
        parts.append(_note_section(result, name, note_ids[name], cov_by_note.get(name), ids,
                                   [(k, p) for k, p in numbered if p.note == name]))
    orphans = [v for v in vs if v.note not in result.notes]
    if orphans:
        parts.append('<section id="other"><h2>Claims without a note</h2>')
        parts.extend(_claim(result, v, ids, None, None) for v in orphans)
        parts.append("</section>")
    parts.append("</main></body></html>\n")
    return "".join(parts)


def write(result: RunResult, path: Path) -> int:
    """Write the report atomically; returns its size in bytes."""
    text = build(result)
    write_output(path, text)
    return len(text.encode("utf-8"))
