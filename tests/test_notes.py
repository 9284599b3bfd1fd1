"""Reading notes: decoding, positions, sections (incl. glued headings) and numeric literals."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

import pytest

from verifiers.notes import Literal, Note, NoteError, read_note

NOTES = Path(__file__).resolve().parent.parent / "notes"
ARCH = "architecture-and-training.txt"
LESSON = "lesson1-text-to-distribution.txt"
MBM = "matrix-by-matrix.txt"


@pytest.fixture(scope="module")
def notes() -> dict[str, Note]:
    return {p.name: read_note(p) for p in sorted(NOTES.glob("*.txt"))}


def on_line(note: Note, line: int) -> list[Literal]:
    return [lit for lit in note.literals if note.position(lit.start)[0] == line]


def texts(note: Note, line: int) -> list[str]:
    return [lit.text for lit in on_line(note, line)]


def find(note: Note, line: int, text: str) -> Literal:
    hits = [lit for lit in on_line(note, line) if lit.text == text]
    assert len(hits) == 1, (line, text, texts(note, line))
    return hits[0]


# --- reading --------------------------------------------------------------------


def test_reads_all_three_notes(notes: dict[str, Note]) -> None:
    assert set(notes) == {ARCH, LESSON, MBM}
    assert notes[MBM].name == MBM and notes[MBM].path.name == MBM
    assert notes[ARCH].line_text(3) == "Transformer架构与训练笔记"


def test_bom_is_stripped(tmp_path: Path) -> None:
    p = tmp_path / "bom.txt"
    p.write_bytes("\ufeffx = 1.5\n".encode())
    note = read_note(p)
    assert note.text == "x = 1.5\n"
    assert [(lit.text, note.position(lit.start)) for lit in note.literals] == [("1.5", (1, 5))]


def test_crlf_and_cr_give_the_same_positions_as_lf(tmp_path: Path) -> None:
    body = ["第1章：开始", "1.1 小节", "值 = 0.25", "1.2 下一节", "−3"]
    (tmp_path / "lf.txt").write_bytes("\n".join(body).encode())
    (tmp_path / "crlf.txt").write_bytes("\r\n".join(body).encode())
    (tmp_path / "cr.txt").write_bytes("\r".join(body).encode())
    lf, crlf, cr = (read_note(tmp_path / n) for n in ("lf.txt", "crlf.txt", "cr.txt"))
    assert lf.text == crlf.text == cr.text
    for note in (crlf, cr):
        assert note.sections == lf.sections
        assert note.literals == lf.literals
    assert [(lf.position(lit.start), lit.text) for lit in lf.literals] == [
        ((3, 5), "0.25"),
        ((5, 1), "−3"),
    ]


def test_invalid_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes("第1章：好\nab".encode() + b"\xff\xfe rest")
    with pytest.raises(NoteError) as info:
        read_note(p)
    offset = len("第1章：好\nab".encode())
    assert info.value.path == str(p)
    assert f"invalid UTF-8 at byte {offset}" in info.value.message
    assert str(info.value).startswith(f"{p}: invalid UTF-8 at byte {offset}")
    assert "\n" not in str(info.value)


def test_invalid_utf8_offset_counts_the_bom(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_bytes(b"\xef\xbb\xbfab\xc3")  # truncated sequence at the end
    with pytest.raises(NoteError, match="invalid UTF-8 at byte 5"):
        read_note(p)


def test_missing_note(tmp_path: Path) -> None:
    p = tmp_path / "nope.txt"
    with pytest.raises(NoteError) as info:
        read_note(p)
    assert str(info.value) == f"{p}: no such note"


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(NoteError) as info:
        read_note(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a directory"


def test_unreadable_path_is_a_note_error(tmp_path: Path) -> None:
    with pytest.raises(NoteError, match="cannot read"):
        read_note(str(tmp_path / "a\x00b.txt"))
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(NoteError, match="cannot read"):
        read_note(blocker / "inside.txt")  # a path below a file


def test_from_text_normalises_line_ends() -> None:
    assert Note.from_text("\ufeffa\r\nb\rc").text == "a\nb\nc"


def test_nul_bytes_make_a_note_unreadable(tmp_path: Path) -> None:
    """A NUL would cut ``0.7\\x006`` to a 0.7 that verifies, in a file review shows as binary."""
    p = tmp_path / "nul.txt"
    p.write_bytes(b"x = 1\na\x00b 7\n")
    with pytest.raises(NoteError, match=r"NUL byte at byte 7 \(line 2\): a note is text"):
        read_note(p)


# --- positions ------------------------------------------------------------------


def test_position_offset_round_trip(notes: dict[str, Note]) -> None:
    note = notes[MBM]
    for off in list(range(0, len(note.text), 97)) + [len(note.text)]:
        line, col = note.position(off)
        assert note.offset(line, col) == off
    # columns are code points, not bytes
    line, col = note.position(note.text.index("55.5%"))
    assert (line, col) == (483, 23)
    assert note.line_text(483)[col - 1 :].startswith("55.5%")


def test_position_edges() -> None:
    note = Note.from_text("ab\n\ncd")
    assert note.position(0) == (1, 1)
    assert note.position(2) == (1, 3)  # the newline itself
    assert note.position(3) == (2, 1)
    assert note.position(6) == (3, 3)  # end of text
    assert [note.line_text(i) for i in (1, 2, 3)] == ["ab", "", "cd"]
    for bad in (-1, 7):
        with pytest.raises(ValueError):
            note.position(bad)
    with pytest.raises(ValueError):
        note.offset(4, 1)
    with pytest.raises(ValueError):
        note.offset(1, 4)


# --- sections -------------------------------------------------------------------


def labels(note: Note) -> list[str]:
    return [s.label for s in note.sections]


def test_architecture_sections(notes: dict[str, Note]) -> None:
    note = notes[ARCH]
    levels = [s.level for s in note.sections]
    assert levels.count(1) == 32  # 16 table-of-contents lines + 16 chapters
    assert levels.count(2) == 115
    assert labels(note)[:3] == ["第1章", "第2章", "第3章"]  # the table of contents
    assert all(note.position(s.start)[1] == 1 for s in note.sections)
    s33 = note.scopes("3.3")
    assert [(note.position(a), note.position(b)) for a, b in s33] == [((278, 1), (334, 1))]
    assert note.scopes("3.3 Softmax 分成两个步骤") == s33
    assert note.scopes("3.31") == []
    assert note.scopes("") == []
    # a chapter: its table-of-contents line (tiny scope) and the chapter itself
    chapter3 = note.scopes("第 3 章")
    assert note.scopes("第3章") == chapter3
    assert [(note.position(a)[0], note.position(b)[0]) for a, b in chapter3] == [
        (17, 18),
        (196, 376),
    ]
    # 5.1 must not match 5.10, 5.11, 5.12
    assert [note.position(a)[0] for a, _ in note.scopes("5.1")] == [762]
    sec = note.section_at(note.offset(300, 1))
    assert sec is not None and (sec.label, sec.title) == ("3.3", "Softmax 分成两个步骤，其实很简单")
    assert note.section_at(0) is None
    # between a chapter heading and its first subsection: the chapter
    sec = note.section_at(note.offset(197, 1))
    assert sec is not None and sec.label == "第3章" and note.position(sec.start) == (196, 1)
    last = note.sections[-1]
    assert note.section_at(len(note.text) - 1) == last and last.end == len(note.text)


def test_lesson1_sections(notes: dict[str, Note]) -> None:
    note = notes[LESSON]
    assert labels(note) == [f"§{i}" for i in range(9)]
    s5 = note.sections[5]
    assert (s5.title, s5.level, note.position(s5.start)) == ("Softmax：把分数变成概率", 1, (137, 1))
    assert [(note.position(a)[0], note.position(b)[0]) for a, b in note.scopes("§5")] == [
        (137, 192)
    ]
    assert note.scopes("§5Softmax") == note.scopes("§ 5 Softmax") == note.scopes("§5")
    assert note.sections[-1].end == len(note.text)


def test_matrix_by_matrix_glued_headings(notes: dict[str, Note]) -> None:
    note = notes[MBM]
    assert [s.label for s in note.sections if s.level == 1] == [f"第{i}章" for i in range(1, 13)]
    assert sum(s.level == 2 for s in note.sections) == 45
    where = {s.label: note.position(s.start) for s in note.sections}
    assert where["1.2"] == (18, 23)  # "d_vocab = 6 # 假设词表大小为61.2 Token 到索引"
    assert where["1.3"] == (32, 7)  # "老鼠 → 11.3 词嵌入（Embedding Lookup）"
    assert where["2.6"] == (162, 34)
    assert where["4.3"] == (236, 35)  # after "= 1.000 ✓"
    assert where["第3章"] == (176, 23)
    assert where["1.1"] == (13, 1)
    sec = note.sections[labels(note).index("1.2")]
    assert sec.title == "Token 到索引"
    assert note.text[sec.start : sec.header_end] == "1.2 Token 到索引"
    a, b = note.scopes("1.2")[0]
    assert (note.position(a), note.position(b)) == ((18, 23), (32, 7))
    # "= 1.975类似地…" is a number, not heading 1.9 or anything else
    assert all(note.position(s.start)[0] != 127 for s in note.sections)
    assert texts(note, 127) == ["1.975", "1", "2"]


def test_glued_literal_before_heading_stops_at_the_heading(notes: dict[str, Note]) -> None:
    note = notes[MBM]
    assert texts(note, 18) == ["6", "6"]
    six = on_line(note, 18)[1]
    assert (note.position(six.start), note.position(six.end)) == ((18, 22), (18, 23))
    assert six.number.value == 6 and six.number.exact
    assert texts(note, 32) == ["1"]  # "老鼠 → 11.3 …": index 1, then heading 1.3
    assert texts(note, 78)[-1] == "0.9999"  # "…, 0.9999]1.5 最终输入"


def test_headings_in_text() -> None:
    text = "\n".join(
        [
            "前言 从第1章顺着读即可。第4章保留推导",  # mentions, not headings (no ：)
            "第1章：开始",
            "1.1 甲",
            "约 1.5 倍的值 1.2 不是标题",  # 1.5 not expected; 1.2 is expected and title-like
            "2.718 + 1 = 3.718",
            "第2章：下一章 共 3 节",
        ]
    )
    note = Note.from_text(text)
    assert [(s.label, s.title) for s in note.sections] == [
        ("第1章", "开始"),
        ("1.1", "甲"),
        ("1.2", "不是标题"),
        ("第2章", "下一章 共 3 节"),
    ]
    assert [s.level for s in note.sections] == [1, 2, 2, 1]
    ch1 = note.sections[0]
    assert ch1.end == note.sections[3].start
    assert note.sections[-1].end == len(text)
    # the heading label is not a literal, numbers of the title are
    assert "3" in [lit.text for lit in note.literals]
    assert "1.1" not in [lit.text for lit in note.literals]
    assert [lit.text for lit in note.literals if note.position(lit.start)[0] == 1] == ["1", "4"]


# --- literals on the real notes ------------------------------------------------------


def test_magnitudes(notes: dict[str, Note]) -> None:
    note = notes[LESSON]
    wan = find(note, 101, "3860 万")
    yi = find(note, 101, "1.24 亿")
    assert note.position(wan.start) == (101, 3) and note.position(wan.end) == (101, 9)
    assert (wan.number.value, wan.number.half_unit) == (38_600_000, 5_000)
    assert note.position(yi.start) == (101, 31)
    assert (yi.number.value, yi.number.half_unit, yi.number.kind) == (
        124_000_000,
        500_000,
        "magnitude",
    )
    assert note.text[yi.start : yi.end] == "1.24 亿"


def test_scientific(notes: dict[str, Note]) -> None:
    arch, lesson = notes[ARCH], notes[LESSON]
    lit = find(arch, 2730, "3 \\times 10^{- 11}")
    assert arch.position(lit.start) == (2730, 40)
    assert (lit.number.value, lit.number.half_unit) == (F(3, 10**11), F(5, 10**12))
    assert find(arch, 2870, "10^{- 5}").number.value == F(1, 10**5)
    assert lesson.position(find(lesson, 196, "4.9\\times10^{-324}").start) == (196, 109)
    assert find(lesson, 157, "1.8\\times10^{308}").number.value == 18 * 10**307
    assert find(lesson, 325, "1.27\\times10^{14}").number.value == 127 * 10**12
    # 0.1^{400}=10^{-400}: base, exponent and a bare power of ten
    assert texts(lesson, 196)[1:4] == ["0.1", "400", "10^{-400}"]
    # no part of a scientific number is a literal of its own
    assert "10" not in texts(lesson, 196) and "324" not in texts(lesson, 196)


def test_thousands_and_lists(notes: dict[str, Note]) -> None:
    arch, lesson = notes[ARCH], notes[LESSON]
    lit = find(arch, 1624, "50,000")
    assert arch.position(lit.start) == (1624, 22) and lit.number.value == 50_000
    assert lit.number.exact
    # "(1000,999,998)": a comma list without spaces is three numbers
    assert texts(lesson, 157)[3:6] == ["1000", "999", "998"]


def test_percentages(notes: dict[str, Note]) -> None:
    note = notes[MBM]
    lit = find(note, 483, "55.5%")
    assert note.position(lit.start) == (483, 23)
    assert (lit.number.value, lit.number.half_unit) == (F(555, 1000), F(5, 10**4))
    assert texts(note, 502) == ["0.06%", "0.01%", "94.3%", "2.4%", "0.6%", "0.02%"]
    assert texts(note, 487) == ["100%"]  # then the glued heading 第8章
    assert find(notes[ARCH], 700, "68%").number.value == F(68, 100)


def test_signs(notes: dict[str, Note]) -> None:
    arch, mbm, lesson = notes[ARCH], notes[MBM], notes[LESSON]
    lit = find(arch, 2681, "−0.133562")  # after CJK "约为"
    assert arch.position(lit.start) == (2681, 14) and lit.number.value == F(-133562, 10**6)
    assert texts(arch, 244) == ["1", "0", "−1"]  # heading title "(1, 0, −1)"
    assert texts(arch, 510) == ["−4", "1", "1", "16"]  # table row; 1/16 is two literals
    assert texts(arch, 2659) == ["0.339660", "- 0.921286", "1.260945"]  # a - (- b)
    assert texts(arch, 290) == ["1", "2.718", "0", "1", "- 1", "0.368"]  # e^{- 1}
    assert texts(arch, 2208)[-4:] == ["0.3", "- 0.2", "- 0.5", "0.1"]  # matrix cells
    assert texts(arch, 2890) == ["0", "1", "0", "1"]  # "d−1": minus after a letter
    lit = find(mbm, 78, "-0.4161")  # "[0.9093,-0.4161, …"
    assert mbm.position(lit.start) == (78, 14)
    assert texts(mbm, 258) == ["0.504", "0.293", "0.203"]  # "V_猫 + 0.293": operator
    assert texts(mbm, 425) == ["2", "2", "4"]  # "- 2个头": a list bullet
    assert texts(mbm, 2) == ["2026", "04", "29", "01", "07"]  # a date: operators
    assert texts(lesson, 161)[8:10] == ["-1", "-2"]  # "(0,-1,-2)"


def test_names_are_not_literals(notes: dict[str, Note]) -> None:
    arch, mbm, lesson = notes[ARCH], notes[MBM], notes[LESSON]
    assert texts(arch, 56) == []  # $x_{1}$, $x_{5}$
    assert texts(arch, 60) == []
    assert texts(arch, 1177) == []  # W_{Q}^{(1)}
    assert texts(arch, 1584) == []  # h_{3} = F_{θ} (x_{1}, …)_{3}
    assert texts(arch, 425) == ["8", "64"]  # d_{k} = d_{v} = \frac{d_{model}}{8} = 64
    assert texts(arch, 3044) == []  # "R1 Vaswani等"
    assert texts(lesson, 78) == ["50257", "50257"]  # GPT-2
    assert texts(mbm, 325) == ["4", "2", "0.1", "0.2", "4", "2", "0.05", "0.15"]  # W_q1, W_k1
    assert texts(mbm, 346) == ["3", "2"]  # Q₁ = X · W_q1 → 3×2
    assert texts(mbm, 312) == []  # Head₁
    # LaTeX commands are not names: \ln50257, \approx10.825
    assert texts(lesson, 232)[2:4] == ["50257", "10.825"]


def test_names_in_text() -> None:
    note = Note.from_text(
        "h2 R1 float64 float32 e_i x_1 x_{12} W_q1 W_{q} GPT-2 Llama-3 Head₁ v3.11.2 "
        "x_{t-1} \\sum_{i=1}^{n} X^{(2)} e^{-1} V^2 n-1 \\gt0 (−2) 0.10-0.42 a - 7 ,+5"
    )
    assert [lit.text for lit in note.literals] == [
        "-1", "2", "1", "0", "−2", "0.10", "0.42", "7", "+5",
    ]  # fmt: skip


def test_literal_spans_and_numbers_agree(notes: dict[str, Note]) -> None:
    for note in notes.values():
        prev_end = 0
        for lit in note.literals:
            assert note.text[lit.start : lit.end] == lit.text == lit.number.text
            assert lit.start >= prev_end
            prev_end = lit.end
        assert len(note.literals) > 250
