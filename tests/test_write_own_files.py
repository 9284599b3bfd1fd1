"""verifiers.infer.write.write_own_files: the command line that rewrites one kind of inferred
claims (orders, counts) into each note's own file: replaced whole, and gone when the note
has none (a claim file needs a list of claims)."""

from __future__ import annotations

from types import SimpleNamespace

from verifiers.infer.write import write_own_files


def test_a_note_with_claims_gets_its_file_and_one_without_loses_it(tmp_path):
    (tmp_path / "notes").mkdir()
    for name in ("a.txt", "b.txt"):
        (tmp_path / "notes" / name).write_text("x = 1\n", encoding="utf-8")
    stale = tmp_path / "claims" / "b" / "99-k.yaml"
    stale.parent.mkdir(parents=True)
    stale.write_text("old\n", encoding="utf-8")

    def find(notes, name, stem, existing):
        assert set(notes) == {"a.txt", "b.txt"} and existing == set()
        return [SimpleNamespace(yaml="  - id: one\n")] if name == "a.txt" else []

    argv = ["a.txt", "b.txt", "--notes", str(tmp_path / "notes"), "--claims",
            str(tmp_path / "claims")]
    assert write_own_files(argv, "m.k", "99-k.yaml", "Things", find, "thing") == 0
    assert (tmp_path / "claims" / "a" / "99-k.yaml").read_text(encoding="utf-8") == (
        "# Things (written by python -m m.k a.txt).\nnote: \"a.txt\"\nclaims:\n  - id: one\n")
    assert not stale.exists()
