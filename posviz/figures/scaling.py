"""Figure builders for this lesson (filled in by its issue)."""

__all__: list[str] = []
