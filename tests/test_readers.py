"""One reader per token (verifiers/readers.py): a quote that holds a token another claim reads
with a hole still locates when only that token was edited, and the reader judges the edit;
a change that nothing reads stays stale. Invented notes, planted edits."""

from __future__ import annotations

import json
from pathlib import Path

from tests.note_edits import check_project
from verifiers.cli import main
from verifiers.readers import relaxed_quote

NOTE = """第 1 章
1.1 比例
两个比例：a约0.7311，c约0.2689，而且 a + c = 1。
1.2 平方
边长 3 的正方形，面积是 9 。
"""

READER = """  - id: ratios
    says: the two Softmax ratios
    section: "1.1"
    text: |
      比例：a约⟨a⟩，c约⟨c⟩
    check:
      a: e / (e + 1)
      c: 1 / (e + 1)
"""

QUOTER = """  - id: sum
    says: the ratios add up to 1 (the ratios themselves are read by ratios)
    section: "1.1"
    text: |
      两个比例：a约0.7311，c约0.2689，而且 a + c = ⟨one⟩。
    check:
      one: e / (e + 1) + 1 / (e + 1)
  - id: square
    says: the area of the square
    section: "1.2"
    text: |
      边长 ⟨s⟩ 的正方形，面积是 ⟨area⟩ 。
    check:
      area: s ** 2
"""

CLAIMS = "note: n.txt\nclaims:\n" + READER + QUOTER
ALONE = "note: n.txt\nclaims:\n" + QUOTER  # nobody reads the ratios


def _statuses(by_id: dict[str, dict]) -> dict[str, str]:
    return {k: v["status"] for k, v in by_id.items()}


def test_the_unedited_note_verifies(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE, CLAIMS, monkeypatch, capsys)
    assert code == 0, _statuses(by_id)


def test_an_edited_token_another_claim_reads_is_judged_by_that_reader(
        tmp_path, capsys, monkeypatch):
    """0.7311 → 0.7411: the quoting claim still locates (and checks its own hole), the reader
    flags the edited number at its line and column."""
    code, by_id = check_project(tmp_path, NOTE.replace("0.7311", "0.7411"), CLAIMS,
                                monkeypatch, capsys)
    assert code == 1
    assert by_id["sum"]["status"] == "verified", by_id["sum"]
    a = next(v for v in by_id["ratios"]["values"] if v["name"] == "a")
    assert a["status"] == "discrepancy" and a["start"] == {"line": 3, "col": 8}


def test_the_located_quote_still_checks_its_own_holes(tmp_path, capsys, monkeypatch):
    """Both the read token and the quote's own hole edited: the quote's hole is still judged."""
    note = NOTE.replace("0.2689", "0.2789").replace("a + c = 1。", "a + c = 2。")
    code, by_id = check_project(tmp_path, note, CLAIMS, monkeypatch, capsys)
    assert code == 1
    assert by_id["sum"]["status"] == "discrepancy", by_id["sum"]
    assert by_id["ratios"]["status"] == "discrepancy"


def test_an_edited_token_nobody_reads_stays_stale(tmp_path, capsys, monkeypatch):
    code, by_id = check_project(tmp_path, NOTE.replace("0.7311", "0.7411"), ALONE,
                                monkeypatch, capsys)
    assert code == 1 and by_id["sum"]["status"] == "stale"


def test_an_edited_word_outside_every_reader_stays_stale(tmp_path, capsys, monkeypatch):
    """两个 → 三个 is in no reader's hole: the quote is stale (a read token edited as well
    changes nothing about that)."""
    for k, note in enumerate((NOTE.replace("两个比例", "三个比例"),
                              NOTE.replace("两个比例", "三个比例").replace("0.7311", "0.7411"))):
        (tmp_path / str(k)).mkdir()
        code, by_id = check_project(tmp_path / str(k), note, CLAIMS, monkeypatch, capsys)
        assert code == 1 and by_id["sum"]["status"] == "stale", by_id["sum"]


def test_a_claim_of_inputs_nobody_uses_is_no_reader(tmp_path, capsys, monkeypatch):
    """A ``given`` claim whose holes no checking claim uses judges nothing: no reader."""
    given = READER.replace("    check:\n      a: e / (e + 1)\n      c: 1 / (e + 1)\n",
                           "    kind: given\n")
    claims = "note: n.txt\nclaims:\n" + given + QUOTER
    code, by_id = check_project(tmp_path, NOTE.replace("0.7311", "0.7411"), claims,
                                monkeypatch, capsys)
    assert by_id["sum"]["status"] == "stale", by_id["sum"]


def test_a_verdict_located_by_readers_is_never_cached(tmp_path, capsys, monkeypatch):
    """The relaxed verdict depends on another claim's quote, which the cache key does not
    hash: with the reader removed, the same cache must give stale, not the cached pass."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "n.txt").write_text(NOTE.replace("0.7311", "0.7411"),
                                              encoding="utf-8")
    (tmp_path / "claims" / "n").mkdir(parents=True)
    (tmp_path / "claims" / "n" / "q.yaml").write_text("note: n.txt\nclaims:\n" + QUOTER,
                                                      encoding="utf-8")
    reader = tmp_path / "claims" / "n" / "r.yaml"
    reader.write_text("note: n.txt\nclaims:\n" + READER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NOTECHECK_CACHE", str(tmp_path / "cache"))

    def status() -> str:
        main(["check", "-j", "1", "--json", "out.json"])
        capsys.readouterr()
        claims = json.loads(Path("out.json").read_text(encoding="utf-8"))["claims"]
        return next(c["status"] for c in claims if c["id"] == "sum")

    assert status() == "verified"
    reader.unlink()
    assert status() == "stale"
    reader.write_text("note: n.txt\nclaims:\n" + READER, encoding="utf-8")
    assert status() == "verified"  # and a stale verdict was not cached either


def _spans(text: str, *tokens: str) -> list[tuple[int, int]]:
    return [(text.index(t), text.index(t) + len(t)) for t in tokens]


def test_relaxed_quote_takes_the_note_text_only_inside_readers():
    text = "甲\n两个比例：a约0.7411，c约0.2689，而且 a + c = 1。\n乙\n"
    quote = "两个比例：a约0.7311，c约0.2689，而且 a + c = ⟨one⟩。"
    scopes = [(0, len(text))]
    assert relaxed_quote(text, quote, scopes, _spans(text, "0.7411")) == \
        "两个比例：a约0.7411，c约0.2689，而且 a + c = ⟨one⟩。"
    assert relaxed_quote(text, quote, scopes, _spans(text, "0.2689")) is None
    assert relaxed_quote(text, quote, scopes, []) is None


def test_relaxed_quote_trims_a_number_at_a_readers_edge_but_not_a_word():
    text = "x\n比例是 0.731，也就是 a。\n"
    scopes = [(0, len(text))]
    spans = _spans(text, "0.731")
    trimmed = relaxed_quote(text, "比例是 0.7310，也就是 a。", scopes, spans)
    assert trimmed == "比例是 0.731，也就是 a。"
    assert relaxed_quote(text, "比例是 0.731的，也就是 a。", scopes, spans) is None


def test_relaxed_quote_never_moves_a_hole_of_the_claim():
    """The claim's own hole gone from the line: a changed structure, whatever readers read."""
    text = "x\n比例是 0.75 倍。\n"
    quote = "比例是 0.5 和 ⟨b⟩ 倍。"
    assert relaxed_quote(text, quote, [(0, len(text))], [(0, len(text))]) is None


# ---------------------------------------------------------------- literal numbers in quotes

def _unread(note_text: str, claims_text: str, tmp_path: Path) -> list[tuple[str, int, str]]:
    from verifiers.coverage.quoted import unread_literals
    from verifiers.notes import Note
    from verifiers.schema import load_claim_file

    path = tmp_path / "c.yaml"
    path.write_text(claims_text, encoding="utf-8")
    claims = load_claim_file(path, "c.yaml", {"n.txt"}).claims
    return unread_literals(Note(tmp_path / "n.txt", note_text, "n.txt"), claims, [])


def test_a_literal_number_nobody_reads_is_listed(tmp_path):
    """The quoting claim holds 0.7311 and 0.2689 literally: read by ``ratios`` they are not
    listed; with no reader, both are (an edit of them could only make the quote stale)."""
    assert _unread(NOTE, CLAIMS, tmp_path) == []
    listed = _unread(NOTE, ALONE, tmp_path)
    assert [(cid, text) for cid, _, text in listed] == [("sum", "0.7311"), ("sum", "0.2689")]
    assert listed[0][1] == NOTE.index("0.7311")


def test_claims_quote_no_number_that_no_other_claim_reads():
    """Over claims/: every number a quote holds as literal text is read by another claim (so
    an edit of it is located and judged, verifiers/readers.py), waived, or a label."""
    from verifiers.coverage.literals import _waived_spans
    from verifiers.coverage.quoted import unread_literals
    from verifiers.run import load_claims, load_notes

    root = Path(__file__).resolve().parent.parent
    notes = load_notes(root / "notes")
    waivers: list = []
    claims, _ = load_claims(root / "claims", set(notes), waivers)
    found = []
    for name, note in notes.items():
        waived = [s for w in waivers if w.note == name for s in _waived_spans(note, w)]
        found += [f"{cid}: {name}:{':'.join(map(str, note.position(at)))} {text}"
                  for cid, at, text in unread_literals(note, claims, waived)]
    assert not found, "quotes hold numbers no other claim reads (make them holes):\n" + \
        "\n".join(found)


# ---------------------------------------------------------------- numbers read as holes

def _numbers_read(text: str, quote: str, spans: list[tuple[int, int]]):
    from verifiers.notes import Note
    from verifiers.readers import relocate
    from verifiers.schema import Claim

    note = Note(Path("n.txt"), text, "n.txt")
    claim = Claim(id="q", file="c.yaml", line=1, col=1, note="n.txt", text=quote)
    scopes = [(0, len(text))]
    return relocate(note, claim, scopes, [], {k: spans for k in range(len(text) + 1)})


def test_numbers_of_a_quote_read_as_holes_where_readers_read_them():
    """A display line the quote is only a part of: the edited exponent (2 → 3) lies in a
    reader's span, so the quote is found; its own hole is read as usual."""
    text = ("x\n\\begin{aligned} Var (X) & = E [X^{2}] \\\\ = 0.5 (1)^{3} + 0.5 (- 1)^{2} "
            "\\\\ = ⟨v⟩ \\end{aligned}\n").replace("⟨v⟩", "1")
    quote = "\\\\ = 0.5 (1)^{2} + 0.5 (- 1)^{2} \\\\ = ⟨var⟩ \\end{aligned}"
    reader = _spans(text, "0.5 (1)^{3} + 0.5 (- 1)^{2}")
    match = _numbers_read(text, quote, reader)
    assert match is not None and set(match.values) == {"var"}
    assert match.values["var"].text == "1"
    assert _numbers_read(text, quote, []) is None  # nobody reads the edited 3


def test_a_located_quote_never_moves_to_another_line():
    """The quote's own line lost a word (面积是 → 面积为); loosened, its numbers would fit the
    next line (the same words), whose numbers are read: it stays stale."""
    for quote in ("边长 4 的正方形，面积是 16 。", "的正方形，面积是 16 。"):
        text = "x\n边长 4 的正方形，面积为 16 。\n边长 5 的正方形，面积是 25 。\n"
        assert _numbers_read(text, quote, [(0, len(text))]) is None, quote
        text = "x\n边长 4 的正方形，面积是 17 。\n边长 5 的正方形，面积是 25 。\n"
        assert _numbers_read(text, quote, [(0, len(text))]) is not None, quote


def test_a_printed_orders_block_is_no_reader_of_its_shapes(tmp_path, monkeypatch):
    """A printed_order claim reads a diagram's operation words, not the shapes in it: an edit
    of a shape another claim quotes (d_vocab -> d_model in 11.3's box) must not be taken as
    read by the order claim, which would locate the quote and let it pass."""
    from tests.note_edits import run_edited
    from verifiers.programs import codehole

    edit = ("mbm-11-3-logit-row", "matrix-by-matrix.txt",
            "5. Linear 投影 → Logits (1 × d_vocab)", "5. Linear 投影 → Logits (1 × d_model)")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    verdict, _ = run_edited(tmp_path / "a", *edit)
    assert verdict.status != "verified"
    monkeypatch.setattr(codehole, "WORDS_ONLY", frozenset())  # the planted error
    verdict, _ = run_edited(tmp_path / "b", *edit)
    assert verdict.status == "verified"
