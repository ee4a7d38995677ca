"""What a shipped model file may be, without torch: the position schemes the network implements (``SCHEMES``) and
the error for a file that cannot be used (``WeightsError``). posviz.models, which imports the network
(posviz.models.net, and with it torch) only when a model is used, and the network both read them here, so
neither needs the other to know them.
"""

from __future__ import annotations

from pathlib import Path

SCHEMES = ("nope", "learned", "sinusoidal", "rope", "alibi")
RESTORE = "restore it: reinstall posviz, or rebuild the weights with `python -m posviz.models train`"


class WeightsError(ValueError):
    """A weights file or the manifest that cannot be used (missing, empty, damaged, not posviz's). ``file`` is
    its path and ``problem`` what is wrong; the message is one line that also says how to restore it, and
    never carries torch's own advice (such as turning ``weights_only`` off)."""

    def __init__(self, file: Path | str, problem: str) -> None:
        self.file = str(file)
        self.problem = problem
        super().__init__(f"{self.file} {problem}; {RESTORE}")
