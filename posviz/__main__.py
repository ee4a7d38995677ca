"""Entry point of ``python -m posviz``: the same commands as ``posviz`` (see posviz.cli)."""

import sys

from posviz.cli import main

sys.exit(main())
