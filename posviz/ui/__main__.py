"""``python -m posviz.ui``: rewrite README.md's lesson table from the lessons' declarations."""

from posviz.ui.course import write_readme

print(f"wrote the lesson table of {write_readme()}")
