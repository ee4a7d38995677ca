"""docs/MODELS.md's tables are generated (``python -m posviz.models docs``) from the manifest and the evidence
curves; this checks the file holds exactly what they compute now, and that the generator fills every block."""

from pathlib import Path

import pytest

from posviz.models import report

DOCS = Path(__file__).parents[1] / "docs" / "MODELS.md"


def test_docs_hold_the_generated_tables():
    text = DOCS.read_text()
    blocks = report.generated()
    assert {m.group("name") for m in report.MARKER.finditer(text)} == set(blocks)
    assert report.fill(text, blocks) == text, "run `python -m posviz.models docs` and commit docs/MODELS.md"


def test_fill_replaces_only_the_marked_blocks():
    text = "a\n<!-- generated: run -->\nold\n<!-- end generated -->\nb"
    assert report.fill(text, {"run": "new"}) == "a\n<!-- generated: run -->\nnew\n<!-- end generated -->\nb"
    with pytest.raises(KeyError):
        report.fill(text, {})
