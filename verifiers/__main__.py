"""``python -m verifiers`` is the ``notecheck`` command."""

import sys

from verifiers.cli import main

sys.exit(main())
