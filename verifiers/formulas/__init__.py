"""What symbolic claims (:mod:`verifiers.symbolic.claims`) use beside the reader: plain-text
definitions checked against tinygpt (:mod:`.holes`), printings of one formula compared
(:mod:`.printings`), dot products of printed tuples (:mod:`.vecdot`), primed functions
(:mod:`.fprimes`), fragments the prose names, checked as parts of a formula
(:mod:`.parts`), LaTeX definitions checked against tinygpt (:mod:`.code`, on the instances
of :mod:`.tinygpt_refs`), and two parts of the reader's grammar: runs of terms with an
ellipsis (:mod:`.ellipsis`) and update rules (:mod:`.updates`)."""
