"""Entry point of ``python -m posviz`` (see posviz.cli)."""

import sys

from posviz.cli import main

sys.exit(main())
