"""Bytes of figure JSON each page sends, at defaults and at its largest settings (via AppTest).

    python benchmarks/payload.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.apptest_utils import live_bytes, page_paths, run_page  # noqa: E402
from tests.test_pages_all import extreme, page_params, parts  # noqa: E402


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
            elif kind == "bidi_component" and child.proto.component_name == "posviz_live_states":
                sizes[-1] += len(child.proto.json)  # sent right after its chart's part
            walk(child)

    walk(at._tree)
    return sizes


def main() -> None:
    print(f"{'page [part]':40s} {'charts':>6s} {'max KB (defaults)':>18s} {'total KB':>9s} "
          f"{'max KB (largest)':>17s} {'total KB':>9s}")
    for path in page_paths()[1:]:
        for part in parts(path):  # pages drawn one lesson part at a time: every part
            params = page_params(path, part)
            largest = {n: v for n, p in params.items() if (v := extreme(p, True)) is not None and n != "part"}
            d, big = chart_sizes(path, dict(part)), chart_sizes(path, {**largest, **part})
            label = path + (f" [{part['part']}]" if part else "")
            print(f"{label:40s} {len(d):6d} {max(d, default=0) / 1e3:18.0f} {sum(d) / 1e3:9.0f} "
                  f"{max(big, default=0) / 1e3:17.0f} {sum(big) / 1e3:9.0f}")


if __name__ == "__main__":
    main()
