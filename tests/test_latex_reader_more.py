"""More constructs of the LaTeX reader (issue 12 item 4): ``\\begin{cases}`` as a Piecewise,
``:=`` as a definition, ``a_{1} + \\dots + a_{n}`` / ``p_{1} p_{2} \\dots p_{n}`` as a Sum /
Product, the conditional sum ``\\sum_{i : t_{i} = w}``, an entry ``LN (x)_{r}`` of a
function's value. Each is read (the tree is what the note prints) and each has an edit
test: a good line verifies and its edited twin fails a step at its line."""

from __future__ import annotations

import pytest
import sympy

from tests.test_engine import check, project
from verifiers.formulas.updates import assigned
from verifiers.latex import LatexError, parse_latex, round_trip_ok, split_chains

i, j, x = (sympy.Symbol(n, real=True) for n in "ijx")

MASK = r"M_{i j} = {\begin{cases} 0, & j \leq i \\ - \infty, & j > i \end{cases}"


def test_cases_read_as_a_piecewise_in_the_printed_order():
    chain = split_chains(MASK)  # the export's unclosed "{" before \begin{cases} is closed
    assert len(chain) == 1 and chain[0][:2] == ["M_{i j}", "="]
    value = parse_latex(chain[0][2])
    assert value.args == ((0, sympy.Le(j, i)), (-sympy.oo, sympy.Gt(j, i)))  # as printed
    assert value.subs({i: 2, j: 3}) == -sympy.oo and value.subs({i: 3, j: 3}) == 0
    assert round_trip_ok(chain[0][2], value)


def test_cases_otherwise_and_errors():
    value = parse_latex(r"\begin{cases} x^{2}, & x \geq 0 \\ - x, & \text{otherwise} \end{cases}")
    assert value.subs(x, -2) == 2 and value.subs(x, 3) == 9
    for bad in (r"\begin{cases} 1, & \text{sometimes} \end{cases}",  # an unread condition
                r"\begin{cases} 1, & x \end{cases}",                  # no relation
                r"\begin{cases} 1, & \text{otherwise} \\ 2, & x > 0 \end{cases}",
                r"\begin{cases} 1, & x > 0 \end{matrix}",
                r"\begin{cases} 1, & x > 0"):
        with pytest.raises(LatexError):
            parse_latex(bad)


def test_an_update_is_an_assignment():
    assert split_chains(r"θ \leftarrow θ - η g") == [["θ", "\\gets", "θ - η g"]]
    assert split_chains(r"w ← w - 0.1 g") == [["w", "\\gets", "w - 0.1 g"]]
    target, value = assigned(parse_latex("θ"), "θ", parse_latex(r"θ - η g"))
    theta = sympy.Symbol("theta", real=True)
    assert target == sympy.Symbol("theta^new", real=True) and value.has(theta)
    with pytest.raises(ValueError):
        assigned(parse_latex("f (x)", functions=["f"]), "f (x)", value)


def test_a_definition_with_colon_equals_is_an_equation():
    assert split_chains(r"y := 2 x + 1") == [["y", "=", "2 x + 1"]]
    assert split_chains(r"a : b = c") == [["a : b", "=", "c"]]  # a colon alone is not :=


def test_an_ellipsis_folds_a_run_of_terms_into_a_sum_or_product():
    n = sympy.Symbol("n", real=True)
    total = parse_latex(r"a_{1} + a_{2} + \dots + a_{n}")
    assert isinstance(total, sympy.Sum) and total.limits[0][1:] == (1, n)
    assert total.subs(n, 3).doit() == sum(sympy.Indexed(sympy.IndexedBase(
        sympy.Symbol("a", real=True)), k) for k in (1, 2, 3))
    product = parse_latex(r"p_{1} p_{2} \dots p_{n}")
    assert isinstance(product, sympy.Product)
    five = parse_latex(r"x + a_{1} v_{1} + \cdots + a_{5} v_{5}")  # the run after x only
    assert five.has(sympy.Sum) and sympy.Symbol("x", real=True) in five.args
    for source in (r"a_{1} + a_{2} + \dots + a_{n}", r"p_{1} p_{2} \dots p_{n}"):
        assert round_trip_ok(source, parse_latex(source))  # prints back as written


@pytest.mark.parametrize("source", [
    r"a_{1} + \dots + b_{n}",             # the last term is another name
    r"a_{1} v_{1} + a_{2} v_{3} + \dots + a_{n} v_{n}",  # a term off the index
    r"a_{1} + a_{2} + a_{3} + \dots + a_{2}",  # ends before the shown terms
    r"(q_{1}, q_{2}, \dots, q_{64})",     # a list: not read
])
def test_an_ellipsis_that_follows_no_index_is_not_read(source):
    with pytest.raises(LatexError):
        parse_latex(source)


def test_a_conditional_sum_keeps_the_terms_whose_condition_holds():
    value = parse_latex(r"\sum_{i : t_{i} = w} x_{i}")
    body = value.function
    assert isinstance(body, sympy.Piecewise) and body.args[1] == (0, True)
    t, xs = (sympy.IndexedBase(sympy.Symbol(n, real=True)) for n in "tx")
    w = sympy.Symbol("w", real=True)
    written = value.subs(value.limits[0][2], 3).doit().subs({t[1]: 1, t[2]: 2, t[3]: 1, w: 1})
    assert written == xs[1] + xs[3]  # t = (1, 2, 1): the positions with t_i = 1
    assert round_trip_ok(r"\sum_{i : t_{i} = w} x_{i}", value)
    with pytest.raises(LatexError):
        parse_latex(r"\prod_{i : t_{i} = w} x_{i}")
    rows = parse_latex(r"\sum_{i : t_{i} = w} {\bar{X}}_{i, :}")  # 12.5: row i of X̄
    assert rows.function.args[0][0] == sympy.Indexed(sympy.IndexedBase(
        sympy.Symbol("Xbar", real=True)), sympy.Symbol("i", real=True))


def test_a_word_as_a_subscript_label():
    assert parse_latex(r"z_{苹果}") == sympy.Symbol("z_苹果", real=True)
    value = parse_latex(r"\sum_{j} a_{苹果, j} v_{j}")  # the word's row of a
    entry = next(iter(value.atoms(sympy.Indexed) - {e for e in value.atoms(sympy.Indexed)
                                                   if e.base.label.name == "v"}))
    assert entry.indices[0] == sympy.Symbol("苹果", real=True)
    assert round_trip_ok(r"x_{苹果} W", parse_latex(r"x_{苹果} W"))
    with pytest.raises(LatexError):
        parse_latex("a + 黑便")  # a word outside a subscript is not a name


def test_call_arguments_with_an_ellipsis_or_an_event():
    heads = parse_latex(r"Concat (Z^{(1)}, \dots, Z^{(H)})", functions=["Concat"])
    assert sympy.Function("ellipsis")() in heads.args
    event = parse_latex(r"P (t_{n + 1} = j)", functions=["P"])
    assert isinstance(event.args[0], sympy.Eq)
    word = parse_latex(r"P (t_{6} = 黑便 ∣ X)", functions=["P"])  # a word as the event's value
    assert word.args[0].args[0].rhs == sympy.Symbol("黑便", real=True)
    with pytest.raises(LatexError):
        parse_latex(r"P (黑便 + 1)", functions=["P"])  # never inside arithmetic
    for source in (r"Concat (Z^{(1)}, \dots, Z^{(H)})", r"P (t_{n + 1} = j)",
                   r"P (黑便 ∣ 前文)",
                   r"P (t_{T + 1} ∣ t_{1}, \dots, t_{T})"):
        assert round_trip_ok(source, parse_latex(source, functions=["Concat", "P"]),
                             functions=["Concat", "P"])


def test_an_indexed_declared_function_applied():
    source = r"\sum_{j} a_{i j} (X) v_{j}"  # the weights as a function of X (7.3)
    value = parse_latex(source, functions=["a"], matrices=["X"])
    entry = next(iter(value.atoms(sympy.Function("entry"))))
    assert entry.args[0].func == sympy.Function("a") and len(entry.args) == 3
    assert round_trip_ok(source, value, functions=["a"], matrices=["X"])


def test_an_entry_of_a_function_value():
    value = parse_latex(r"LN (x)_{r}", functions=["LN"])  # LayerNorm's r-th coordinate
    assert value.func == sympy.Function("entry") and value.args[1] == sympy.Symbol("r", real=True)
    assert round_trip_ok(r"LN (x)_{r}", value, functions=["LN"])
    with pytest.raises(LatexError):  # only where the claim declares LN (functions: [LN])
        parse_latex(r"LN (x)_{r}")
    assert parse_latex(r"G (x)_{2}", functions=["G"]).func == sympy.Function("entry")


# name: (good line, planted wrong line, quote with the hole, extra claim keys)
LINES: dict[str, tuple[str, str, str, str]] = {
    "cases-value": (  # a value of a row edited
        r"$f (x) = {\begin{cases} x^{2}, & x \geq 0 \\ - x, & \text{otherwise} \end{cases}$，"
        r"$f (- 2) = 2$",
        r"$f (x) = {\begin{cases} x^{2}, & x \geq 0 \\ x, & \text{otherwise} \end{cases}$，"
        r"$f (- 2) = 2$",
        "{p}：$⟪F⟫$，$⟪S⟫$", "define: {f: F}\n    functions: [f]"),
    "cases-condition": (  # a condition edited: -2 now takes the first row
        r"$f (x) = {\begin{cases} x^{2}, & x \geq 0 \\ - x, & x < 0 \end{cases}$，$f (- 2) = 2$",
        r"$f (x) = {\begin{cases} x^{2}, & x \leq 0 \\ - x, & x > 0 \end{cases}$，$f (- 2) = 2$",
        "{p}：$⟪F⟫$，$⟪S⟫$", "define: {f: F}\n    functions: [f]"),
    "colon-equals": (  # a definition written with := is read and used
        r"$y := 2 x + 1$，$y - 1 = 2 x$",
        r"$y := 2 x - 1$，$y - 1 = 2 x$",
        "{p}：$⟪Y⟫$，$⟪S⟫$", "define: {y: Y}"),
    "dots-product": (  # checked for n = 1..4; the edited bound fails at n = 1
        r"$- \ln (p_{1} p_{2} \dots p_{n}) = - \sum_{i = 1}^{n} \ln p_{i}$",
        r"$- \ln (p_{1} p_{2} \dots p_{n}) = - \sum_{i = 2}^{n} \ln p_{i}$",
        "{p}：⟪F⟫", "assume: {positive: [p_1, p_2, p_3, p_4]}"),
    "dots-sum": (  # a sum written with dots against its closed form
        r"$1 + 2 + \dots + n = \frac{n (n + 1)}{2}$".replace("1 + 2", "x_{1} + x_{2}")
        .replace("+ n =", "+ x_{n} =").replace(r"\frac{n (n + 1)}{2}", r"\sum_{i = 1}^{n} x_{i}"),
        r"$x_{1} + x_{2} + \dots + x_{n} = \sum_{i = 1}^{n} x_{i} + x_{1}$",
        "{p}：⟪F⟫", ""),
    "function-entry": (  # LN (x)_{r}: an entry of a function's value, defined and used
        r"$LN (x)_{r} = γ_{r} \frac{x_{r} - μ}{\sqrt{v + ε}} + β_{r}$，"
        r"$\frac{LN (x)_{r} - β_{r}}{γ_{r}} = \frac{x_{r} - μ}{\sqrt{v + ε}}$",
        r"$LN (x)_{r} = γ_{r} \frac{x_{r} - μ}{\sqrt{v + ε}} - β_{r}$，"
        r"$\frac{LN (x)_{r} - β_{r}}{γ_{r}} = \frac{x_{r} - μ}{\sqrt{v + ε}}$",
        "{p}：$⟪N⟫$，$⟪S⟫$", "define:\n      LN (x)_{r}: N\n    functions: [LN]"),
    "where-sum": (  # a sum over the i where a condition holds (N = 3, x_i = i: 2 + 3)
        r"$x_{i} = i$，$\sum_{i : x_{i} > 1} x_{i} = 5$",
        r"$x_{i} = i$，$\sum_{i : x_{i} > 2} x_{i} = 5$",
        "{p}：$⟪D⟫$，$⟪S⟫$", "define: {x_i: D}\n    assume: {integer: [i]}"),
    "inequality": (  # a relation ≤ / ≥ read and checked as one (fails at x = 1.5)
        r"$x^{2} + 1 \geq 2 x$", r"$x^{2} + 1 \geq 3 x$", "{p}：⟪F⟫", ""),
    "update-rule": (  # θ ← θ - η g defines θ^{new}; the step after it checks the rule
        r"$θ \leftarrow θ - η g$，$θ^{new} - θ = - η g$",
        r"$θ \leftarrow θ + η g$，$θ^{new} - θ = - η g$",
        "{p}：$⟪H⟫$，$⟪S⟫$", "define: {θ: H}"),
}


def reader_project(tmp_path, lines, names):
    """A note with each construct's line and its edited twin, and a symbolic claim for each."""
    note, claims = [], ["note: n.txt", "claims:"]
    for name in names:
        good, bad, text, extra = lines[name]
        for prefix, line in ((f"{name}-ok", good), (f"{name}-bad", bad)):
            note.append(f"{prefix}：{line}")
            claims += [f"  - id: {prefix}", "    kind: symbolic",
                       f"    text: |\n      {text.format(p=prefix)}"]
            if extra:
                claims.append("    " + extra)
    return project(tmp_path, "\n".join(claims) + "\n", "\n".join(note) + "\n")


@pytest.mark.parametrize("name", sorted(LINES))
def test_the_construct_is_read_and_an_edit_fails_at_its_line(tmp_path, capsys, name):
    _, out, data = check(reader_project(tmp_path, LINES, [name]), capsys)
    by_id = {c["id"]: c for c in data["claims"]}
    ok, bad = by_id[f"{name}-ok"], by_id[f"{name}-bad"]
    assert ok["status"] == "verified", (name, ok["message"], out)
    assert bad["status"] == "discrepancy", (name, bad["message"], out)
    assert "n.txt:2:" in out, out  # the edited twin is line 2 of the note
