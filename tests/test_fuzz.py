"""Fuzzing (issue 7): arbitrary text into every reader of untrusted input.

Notes and claims arrive in pull requests, so each reader is fed arbitrary text (and
text built from the notation it reads) and may answer only with a value or its own
declared error -- never another exception:

========================================  =====================================
reader                                    declared errors
========================================  =====================================
note text -> literals, sections           (none: any text is a note)
note file -> ``read_note``                ``NoteError``
one printed number -> ``parse_printed``   ``ValueError``
quote in a note -> ``holes.find``         ``ResolveError``
expression -> ``expr.parse``/``evaluate`` ``ExprError``
formula -> ``latex.parse_latex``,         ``LatexError`` (``round_trip_ok`` is a bool)
``split_chains``
claim YAML -> ``yamlload.load``           ``YamlError``
claim file -> ``schema.load_claim_file``  (none: problems are data, never raised)
========================================  =====================================

and where a module prints what it read, printing and reading again is stable:
``parse(to_text(e)) == e`` for expressions, ``to_latex_text`` is a fixpoint of
print -> parse -> print for formulas, ``parse_printed(n.text) == n`` for numbers.

Budget: the Hypothesis profile in force (``tests/conftest.py``, ``verifiers/profiles.py``)
sets the examples per property: ``ci`` (CI=true, derandomized: the same examples on
every run) and ``dev`` 100, ``thorough`` 5,000. Cheap properties run a multiple of that
(``budget(k)``); each docstring states its count under ``ci``. A hang is caught by a
``faulthandler`` watchdog per test (a stack dump, then exit), never by a timing assertion.
"""

from __future__ import annotations

import faulthandler
import string
import sys
import tempfile
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifiers import expr as ex
from verifiers import holes, latex, profiles, schema
from verifiers.notes import Note, NoteError, read_note
from verifiers.numbers import parse_printed
from verifiers.yamlload import YamlError
from verifiers.yamlload import load as load_yaml

WATCHDOG = 900  # seconds per property before the session is aborted with a stack dump
PROFILE_EXAMPLES = profiles.EXAMPLES[profiles.name()]


def budget(factor: int = 1) -> settings:
    """``factor`` times the profile's examples per property (ci: 100 x factor)."""
    return settings(max_examples=PROFILE_EXAMPLES * factor,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@pytest.fixture(autouse=True)
def _watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG, exit=True, file=sys.__stderr__)
    yield
    faulthandler.cancel_dump_traceback_later()


# --------------------------------------------------------------------------- strategies

# Pieces of the notes' own notation: numbers in every printed form, headings, LaTeX.
NOTE_PIECES = [
    "0.25", "-0.4161", "−1", "55.5%", "55.5 ％", "50,257", "1,000,000.5", "(1000,999,998)",
    "3 \\times 10^{- 11}", "4.9\\times10^{-324}", "1e-5", "2.5E3", "10^{-5}", "3860 万",
    "1.24 亿", "０.５", ".5", "3.11.2", "GPT-2", "h2", "x_1", "x_{t-1}", "^{(1)}", "V^2",
    "0.1^{400}", "\\gt0", "\\ln50257", "e^{- 1}", "[0.9093,-0.4161]", "[[1, 2], [3, 4]]",
    "\\frac{1}{3}", "1/16", "\\begin{pmatrix} 1 & 0 \\\\ 0 & 1 \\end{pmatrix}", "约为−0.133562",
    "第 1 章：", "第3章：", "1.1 ", "1.2 标题", "2.1 节", "§5 ", "§7", "\n", "\n\n", " ", "\t",
    "\r\n", "\ufeff", "= ", " + ", " × ", "≈ ", "，", "：", "- ", "+ ", "(1) ", "1. ", "。",
    "a", "Q", "σ", "中文", "_{", "}", "{", "\\", "^", "%", ",", ".", "-", "0", "9", "１２",
]
NOTE_TEXT = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(NOTE_PIECES), max_size=40).map("".join),
)

QUOTE_PIECES = ["⟨a⟩", "⟨b⟩", "⟨Q[1]⟩", "⟨Q[0,2]⟩", "⟪F⟫", "⟪G⟫", "⟨", "⟩", "⟪", "⟫", "= ", " ",
                "\n", "x", "sum", "a_1", "≈", "+", "0.5", "[", "]", "(", ")", "\\frac{1}{2}"]
QUOTE_TEXT = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(QUOTE_PIECES + NOTE_PIECES), max_size=12).map("".join),
)

EXPR_PIECES = [
    "a", "b", "v", "M", "x", "pi", "e", "0", "1", "2", "0.5", "1e3", "1e-400", "10", "(", ")",
    "[", "]", ",", ":", "+", "-", "*", "/", "^", "**", "@", " ", "exp(", "ln(", "log(",
    "sqrt(", "sum(", "softmax(", "topk(", "topp(", "range(", "factorial(", "comb(", "max(",
    "mean(", "transpose(", "concat(", "sort(", "round(", "abs(", "argmax(", "cumsum(",
    "len(", "count(", "__x", "lambda", ".", "'", ";", "if", "for", "999999999999",
]
EXPR_ATOMS = st.sampled_from(["a", "b", "v", "M", "x", "pi", "e", "0", "1", "2", "0.5", "1e3",
                              "3", "10", "[1, 2, 3]", "[[1, 0], [0, 1]]", "-1"])


def _expr_grammar(kids: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(kids, st.sampled_from(["+", "-", "*", "/", "^", "**", "@"]), kids)
        .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        kids.map(lambda k: f"({k})"), kids.map(lambda k: f"-{k}"),
        st.tuples(st.sampled_from(["exp", "ln", "sqrt", "sum", "softmax", "max", "mean", "abs",
                                   "sort", "cumsum", "transpose", "len", "round", "floor"]),
                  kids).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(st.sampled_from(["log", "topk", "topp", "range", "comb", "concat", "max"]),
                  kids, kids).map(lambda t: f"{t[0]}({t[1]}, {t[2]})"),
        st.lists(kids, min_size=1, max_size=3).map(lambda ks: "[" + ", ".join(ks) + "]"),
        st.tuples(kids, st.sampled_from(["0", "1", "-1", "0, 1", ":, 0", "1:", ":2", "a"]))
        .map(lambda t: f"{t[0]}[{t[1]}]"),
    )


def _mutated(source: st.SearchStrategy[str], alphabet: str) -> st.SearchStrategy[str]:
    """Well-formed text, sometimes with one character inserted or deleted."""
    def mutate(args: tuple[str, int, str, bool]) -> str:
        text, at, ch, delete = args
        at = at % (len(text) + 1)
        return text[:at] + text[at + 1:] if delete else text[:at] + ch + text[at:]
    return st.one_of(source, st.tuples(source, st.integers(0, 500), st.sampled_from(alphabet),
                                       st.booleans()).map(mutate))


EXPR_TEXT = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(EXPR_PIECES), max_size=25).map("".join),
    _mutated(st.recursive(EXPR_ATOMS, _expr_grammar, max_leaves=10), "()[],:+-*/^@.e1 "),
)
ENV = {
    "a": ex.parse("0.25"), "b": ex.parse("0.5"), "v": ex.parse("[0.1, 0.2, 0.7]"),
    "M": ex.parse("[[1, 2], [3, 4]]"), "x": ex.parse("-2"),
}

LATEX_PIECES = [
    "x", "y", "p", "w", "L", "e", "N", "i", "j", "1", "2", "0.5", "10", "α", "\\alpha", "\\sigma",
    "=", "\\approx", "\\le", "<", "\\ne", "\\to", "+", "-", "−", "\\times", "\\cdot", "/", "^",
    "_", "{", "}", "(", ")", "[", "]", "|", ",", " ", "\\frac", "\\dfrac", "\\sqrt", "\\sum",
    "\\prod", "\\ln", "\\log", "\\exp", "\\sin", "\\partial", "\\infty", "\\lim", "\\left(",
    "\\right)", "\\bar", "\\hat", "\\mathbf", "\\mathrm{softmax}", "\\operatorname{Var}",
    "\\top", "\\odot", "\\delta", "\\dots", "\\begin{aligned}", "\\end{aligned}", "&", "\\\\",
    "\\def", "\\input", "$", "d", "'", "!", "%", "\\quad", "\\,", "E [", "Var (", "\\lVert",
    "\\rVert", "\\in", "\\underbrace", "\\mathsf{T}",
]
LATEX_ATOMS = st.sampled_from(["x", "y", "w", "p_{1}", "x_{i}", "2", "0.5", "10", "\\alpha",
                               "\\sigma", "N", "e", "\\pi", "\\infty", "1"])


def _latex_grammar(kids: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(kids, st.sampled_from(["+", "-", "\\times", "\\cdot", " ", "/"]), kids)
        .map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(kids, kids).map(lambda t: f"\\frac{{{t[0]}}}{{{t[1]}}}"),
        st.tuples(kids, kids).map(lambda t: f"{{{t[0]}}}^{{{t[1]}}}"),
        kids.map(lambda k: f"\\left( {k} \\right)"), kids.map(lambda k: f"\\sqrt{{{k}}}"),
        kids.map(lambda k: f"e^{{{k}}}"), kids.map(lambda k: f"\\ln ({k})"),
        kids.map(lambda k: f"\\sum_{{i = 1}}^{{3}} {k}"),
        kids.map(lambda k: f"\\frac{{\\partial {k}}}{{\\partial x}}"),
        kids.map(lambda k: f"\\bar{{{k}}}"), kids.map(lambda k: f"|{k}|"),
    )


LATEX_FORMULA = st.recursive(LATEX_ATOMS, _latex_grammar, max_leaves=8)
LATEX_CHAIN = st.lists(LATEX_FORMULA, min_size=1, max_size=3).flatmap(
    lambda sides: st.lists(st.sampled_from(["=", "\\approx", "\\le", "<", "\\to"]),
                           min_size=len(sides) - 1, max_size=len(sides) - 1).map(
        lambda rels: sides[0] + "".join(f" {r} {x}" for r, x in zip(rels, sides[1:],
                                                                        strict=True))))
LATEX_TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(LATEX_PIECES), max_size=20).map("".join),
    _mutated(LATEX_FORMULA, "{}()^_\\ +-=x1&"),
)


# --------------------------------------------------------------------------- notes


def _check_note(note: Note) -> None:
    end = 0
    for lit in note.literals:
        assert note.text[lit.start:lit.end] == lit.text
        assert lit.start >= end and lit.end > lit.start
        end = lit.end
        assert parse_printed(lit.text) == lit.number  # what was read reads the same again
        line, col = note.position(lit.start)
        assert note.offset(line, col) == lit.start
    for s in note.sections:
        assert 0 <= s.start < s.header_end <= s.end <= len(note.text) and s.label
        assert note.scopes(s.label)  # a section is found by its own label


@budget(5)
@given(NOTE_TEXT)
def test_note_reader_takes_any_text(text: str) -> None:
    """Any text is a note: literals, sections and positions are consistent (ci: 500 examples)."""
    _check_note(Note.from_text(text))


@budget(2)
@given(st.one_of(st.binary(max_size=300),
                 NOTE_TEXT.map(lambda s: s.encode("utf-8", "surrogatepass"))))
def test_read_note_takes_any_bytes(raw: bytes) -> None:
    """Any file: a Note or one NoteError naming the line (ci: 200 examples)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "n.txt"
        path.write_bytes(raw)
        try:
            note = read_note(path)
        except NoteError as err:
            assert str(err).startswith(str(path)) and "(line " in str(err)
            assert "\n" not in str(err)
            return
        assert b"\0" not in raw
        _check_note(note)


# --------------------------------------------------------------------------- printed numbers

DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=12)


@budget(5)
@given(st.one_of(st.text(max_size=30), st.lists(st.sampled_from(NOTE_PIECES), max_size=4)
                 .map("".join)))
def test_printed_number_reader(text: str) -> None:
    """One printed number or ValueError; reading its text again gives it back (ci: 500)."""
    try:
        pn = parse_printed(text)
    except ValueError:
        return
    assert parse_printed(pn.text) == pn
    assert pn.half_unit > 0 and isinstance(pn.value, Fraction)


@budget(5)
@given(st.sampled_from(["", "-", "−", "+"]), DIGITS, st.none() | DIGITS,
       st.sampled_from(["", "%", "e-7", "E3", " \\times 10^{-3}", " 万", " 亿"]))
def test_printed_number_value_is_exact(sign: str, whole: str, frac: str | None,
                                       suffix: str) -> None:
    """Print a number, read it: the exact value and half a unit of its last digit (ci: 500)."""
    text = sign + whole + ("." + frac if frac is not None else "") + suffix
    pn = parse_printed(text)
    decimals = len(frac) if frac is not None else 0
    value = Fraction(int(whole + (frac or "")), 10**decimals)
    scale = {"": 1, "%": Fraction(1, 100), "e-7": Fraction(1, 10**7), "E3": 1000,
             " \\times 10^{-3}": Fraction(1, 1000), " 万": 10**4, " 亿": 10**8}[suffix]
    assert pn.value == (-1 if sign in "-−" and sign else 1) * value * scale
    assert pn.half_unit == Fraction(1, 2 * 10**decimals) * scale


# --------------------------------------------------------------------------- the hole matcher


@budget(5)
@given(NOTE_TEXT, QUOTE_TEXT)
def test_hole_matcher_takes_any_quote(text: str, quote: str) -> None:
    """find(): a Match whose spans are the printed values, or ResolveError (ci: 500)."""
    note = Note.from_text(text)
    try:
        match = holes.find(note.text, quote, [(0, len(note.text))])
    except holes.ResolveError as err:
        assert err.message
        return
    assert 0 <= match.start <= match.end <= len(note.text)
    for printed in [*match.values.values(), *match.formulas.values()]:
        assert note.text[printed.start:printed.end] == printed.text
        assert match.start <= printed.start <= printed.end <= match.end


NUMBER = st.builds(lambda s, w, f: s + w + ("." + f if f else ""), st.sampled_from(["", "-"]),
                   DIGITS, st.none() | DIGITS)


@budget(3)
@given(st.lists(NUMBER, min_size=1, max_size=8), st.data())
def test_hole_reads_the_printed_number(numbers: list[str], data: st.DataObject) -> None:
    """A quote "k3 = ⟨v⟩" finds line k3 of a note and reads its number exactly (ci: 300)."""
    text = "".join(f"k{i} = {n}\n" for i, n in enumerate(numbers))
    k = data.draw(st.integers(0, len(numbers) - 1))
    match = holes.find(text, f"k{k} = ⟨v⟩", [(0, len(text))])
    assert match.values["v"].text == numbers[k]
    assert match.values["v"].numbers[0].value == parse_printed(numbers[k]).value


# --------------------------------------------------------------------------- expressions


def _env(mode: str) -> dict[str, Any]:
    return {k: ex.evaluate(v, {}, mode) for k, v in ENV.items()}


@budget(5)
@given(EXPR_TEXT)
def test_expression_parser_takes_any_text(source: str) -> None:
    """parse(): an Expr or ExprError; parse(to_text(e)) == e; evaluation in both modes gives
    a value or ExprError (ci: 500 examples)."""
    try:
        tree = ex.parse(source)
    except ex.ExprError as err:
        assert err.message
        return
    assert ex.parse(ex.to_text(tree)) == tree
    for mode in ("point", "interval"):
        try:
            ex.evaluate(tree, _env(mode), mode)
        except ex.ExprError:
            pass


# --------------------------------------------------------------------------- LaTeX formulas


@budget(3)
@given(LATEX_TEXT)
def test_latex_reader_takes_any_text(source: str) -> None:
    """parse_latex(): a SymPy tree or LatexError; print -> parse -> print is a fixpoint
    (ci: 300 examples).

    Where the reader cannot read the printer's output -- SymPy prints a second
    derivative as ``\\frac{d^{2}}{d x^{2}}``, which the reader refuses -- the formula must
    fail ``round_trip_ok`` (it is reported ``unparsed``, never passed).
    """
    try:
        tree = latex.parse_latex(source)
    except latex.LatexError as err:
        assert err.message
        return
    printed = latex.to_latex_text(tree)
    try:
        again = latex.parse_latex(printed)
    except latex.LatexError:
        assert latex.round_trip_ok(source, tree) is False
        return
    assert latex.to_latex_text(again) == printed
    assert latex.round_trip_ok(source, tree) in (True, False)


RELATIONS = {"=", "\\approx", "\\le", "\\ge", "<", ">", "\\ne", "\\to", "\\equiv", "\\in"}


@budget(5)
@given(st.one_of(LATEX_TEXT, _mutated(LATEX_CHAIN, "{}()=,\\&<")))
def test_chain_splitter_takes_any_text(source: str) -> None:
    """split_chains(): statements [side, rel, side, ...] or LatexError (ci: 500 examples)."""
    try:
        chains = latex.split_chains(source)
    except latex.LatexError as err:
        assert err.message
        return
    assert chains
    for chain in chains:
        assert len(chain) % 2 == 1 and all(side.strip() for side in chain[::2])
        assert set(chain[1::2]) <= RELATIONS


# --------------------------------------------------------------------------- claim files

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                    st.text(max_size=20), st.sampled_from(["a + b", "⟨s⟩", "n.txt", "sum = ⟨s⟩",
                                                           "[1, 2]", "x.s", "printed"]))
KEYS = st.sampled_from([*schema.FILE_KEYS, *schema.CLAIM_KEYS, *schema.WIDEN_KEYS,
                        *schema.PIN_KEYS, *schema.USE_KEYS, *schema.RUN_KEYS,
                        *schema.ASSUME_KEYS, "s", "a", "x", "s[0]", "chek"])
DOCUMENTS = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4)
                         | st.dictionaries(KEYS, kids, max_size=5), max_leaves=25)
CLAIM_LIKE = st.fixed_dictionaries(
    {"note": st.sampled_from(["n.txt", "m.txt"]) | SCALARS},
    optional={"claims": st.lists(st.dictionaries(KEYS, DOCUMENTS, max_size=8), max_size=3)
              | DOCUMENTS, "section": SCALARS, "waivers": DOCUMENTS},
)


@budget(5)
@given(st.one_of(st.text(max_size=200), st.lists(st.sampled_from(
    ["a", ":", " ", "\n", "- ", "  ", "\t", "[", "]", "{", "}", ",", "&x", "*x", "!!str",
     "!!python/object:os.system", "'", '"', "#", "---", "? ", "|", ">", "1", "1.5", "~",
     "<<: ", "%YAML 1.1", "\ufeff", "\x00"]), max_size=40).map("".join)))
def test_yaml_loader_takes_any_text(text: str) -> None:
    """yamlload.load(): located nodes, None, or YamlError with a position (ci: 500)."""
    try:
        load_yaml(text)
    except YamlError as err:
        assert err.message and err.line >= 1 and err.col >= 1


@budget(3)
@given(CLAIM_LIKE)
def test_claim_files_of_any_shape_are_problems_not_exceptions(document: dict[str, Any]) -> None:
    """Any YAML document as a claim file: claims and located problems, never an exception
    (ci: 300 examples)."""
    text = yaml.safe_dump(document, allow_unicode=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.yaml"
        path.write_text(text, encoding="utf-8")
        loaded = schema.load_claim_file(path, "c.yaml", {"n.txt"})
    lines = text.count("\n") + 1
    for problem in [*loaded.problems, *(p for c in loaded.claims for p in c.problems)]:
        assert 1 <= problem.line <= lines and problem.col >= 1 and problem.message


def test_budget_follows_the_profile() -> None:
    assert PROFILE_EXAMPLES == settings.default.max_examples
    assert set(string.digits) <= set("".join(NOTE_PIECES))
