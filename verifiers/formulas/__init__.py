"""What symbolic claims (:mod:`verifiers.symclaims`) use beside the reader: plain-text
definitions checked against tinygpt (:mod:`.holes`), printings of one formula compared
(:mod:`.printings`), dot products of printed tuples (:mod:`.vecdot`), primed functions
(:mod:`.fprimes`) and fragments the prose names, checked as parts of a formula (:mod:`.parts`)."""
