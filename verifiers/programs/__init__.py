"""Programs printed in notes: cut out of the note (:mod:`.extract`), run in a jail (:mod:`.jail`).

A note's program is untrusted text from a pull request, so running it is split from
reading it: extraction only parses; running happens in a bubblewrap jail, or not at
all (:class:`JailUnavailable`) unless the user trusts the notes explicitly.
"""

from verifiers.programs.capture import quote_output
from verifiers.programs.extract import PrintedLoss, extract_program, printed_losses
from verifiers.programs.jail import JailUnavailable, ProgramResult, jail_problem, run_program

__all__ = [
    "JailUnavailable",
    "PrintedLoss",
    "ProgramResult",
    "extract_program",
    "jail_problem",
    "printed_losses",
    "quote_output",
    "run_program",
]
