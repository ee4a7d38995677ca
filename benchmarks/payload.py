"""Bytes of figure JSON each page sends, at defaults and at its largest settings (via AppTest).

    python benchmarks/payload.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.apptest_utils import page_paths, run_page  # noqa: E402
from tests.test_pages_all import extreme, page_params, parts  # noqa: E402


def chart_sizes(path: str, query: dict[str, str]) -> list[int]:
    at = run_page(path, query)
    return [len(c.proto.spec) for c in at.get("plotly_chart")]


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
