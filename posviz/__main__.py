"""Entry point of ``python -m posviz``: the same commands as ``posviz`` (see posviz.command)."""

import sys

from posviz.command import main

sys.exit(main())
