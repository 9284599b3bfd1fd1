"""What symbolic claims (:mod:`verifiers.symclaims`) use beside the reader: plain-text
definitions checked against tinygpt (:mod:`.holes`), printings of one formula compared
(:mod:`.printings`), dot products of printed tuples (:mod:`.vecdot`) and primed functions
(:mod:`.fprimes`)."""
