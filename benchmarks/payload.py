"""Bytes of figure JSON each page sends, at defaults and at its largest settings (via AppTest).

    python -m benchmarks.payload
"""

from __future__ import annotations

from testkit.apptest import extreme_query, live_bytes, part_cases, part_query, run_page


def chart_sizes(path: str, query: dict[str, str]) -> list[int]:
    """Bytes per chart: a plotly chart's figure JSON; a live chart's data (its exact figure) plus the states
    sent for it after the part (posviz.ui.live)."""
    at = run_page(path, query)
    sizes: list[int] = []

    def walk(node: object) -> None:
        for child in getattr(node, "children", {}).values():
            kind = getattr(child, "type", None)
            if kind == "plotly_chart":
                sizes.append(len(child.proto.spec))
            elif kind == "bidi_component" and child.proto.component_name == "posviz_live":
                sizes.append(live_bytes(child))  # its exact figure too, when the data names its file
            walk(child)

    walk(at._tree)
    return sizes


def main() -> None:
    print(f"{'page [part]':40s} {'charts':>6s} {'max KB (defaults)':>18s} {'total KB':>9s} "
          f"{'max KB (largest)':>17s} {'total KB':>9s}")
    for lesson, part in part_cases():  # every part of every lesson, as declared
        path = f"pages/{lesson.script.name}"
        d, big = chart_sizes(path, part_query(lesson, part)), chart_sizes(path, extreme_query(lesson, part, True))
        label = f"{path} [{part.key}]"
        print(f"{label:40s} {len(d):6d} {max(d, default=0) / 1e3:18.0f} {sum(d) / 1e3:9.0f} "
              f"{max(big, default=0) / 1e3:17.0f} {sum(big) / 1e3:9.0f}")


if __name__ == "__main__":
    main()
