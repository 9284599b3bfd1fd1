"""Coverage of a run: which printed numbers a claim checks (:mod:`.literals`), which formulas,
law sentences and procedures (:mod:`.meaning`), and how strongly (:mod:`.strength`)."""
