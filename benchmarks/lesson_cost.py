"""What each lesson costs CI: the test time of a run, from its JUnit reports, split by lesson.

    bash .ci/run                                  # prints this table at its end
    python -m benchmarks.lesson_cost REPORT_DIR   # JUnit XML files, one per tier (pytest --junitxml)

A test belongs to a lesson when its parameters name the lesson (``[rope-clock-all-max]``), one of the lesson's
figures (``[rope_clock]``) or its page (``RoPE``), or when its file is the lesson's (``test_page_rope.py``,
``test_rope_math.py``, ``browser/test_rope.py``); every other test is the kit's, shared by all lessons. A new
lesson costs about what an existing one does: the mean of the lesson rows is the marginal cost of a lesson.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from testkit.apptest import course

# the words a test's file or parameters use for a lesson, beyond its slug, page name and figures' prefixes
TOPICS = {
    "intro": ("intro",),
    "sinusoidal": ("sinusoidal",),
    "rope": ("rope",),
    "context_extension": ("context_extension", "scaling", "config", "models", "presets", "real_configs"),
    "2d": ("2d", "twod", "patch", "rope2d", "flux", "mae"),
    "bias": ("bias",),
    "gaussian_kernel_rope": ("gaussian",),
    "cope": ("cope",),
}


def lesson_words() -> dict[str, tuple[str, ...]]:
    """For each lesson slug, the lower-case words that mark a test as the lesson's, most specific first."""
    words = {}
    for ls in course():
        extra = TOPICS.get(ls.slug, (ls.slug,))
        words[ls.slug] = tuple(dict.fromkeys((ls.slug, ls.url_path.lower(), *extra)))
    return words


def lesson_of(classname: str, name: str, words: dict[str, tuple[str, ...]]) -> str | None:
    """The lesson a test belongs to (None: the kit's)."""
    params = name.partition("[")[2].lower()
    module = classname.rsplit(".", 1)[-1].removeprefix("test_").lower()
    for text in (params, module):
        tokens = re.split(r"[^a-z0-9]+", text)
        for slug, marks in sorted(words.items(), key=lambda kv: -max(len(w) for w in kv[1])):
            if any(w in tokens or text.startswith((w + "_", w + "-")) for w in marks):
                return slug
    return None


def costs(report_dir: Path) -> tuple[dict[str, float], float, dict[str, float]]:
    """Seconds of test time per lesson, the kit's seconds, and each tier's seconds."""
    words = lesson_words()
    per_lesson: dict[str, float] = defaultdict(float)
    shared, tiers = 0.0, {}
    for report in sorted(report_dir.glob("*.xml")):
        total = 0.0
        for case in ET.parse(report).getroot().iter("testcase"):
            seconds = float(case.get("time", 0))
            total += seconds
            slug = lesson_of(case.get("classname", ""), case.get("name", ""), words)
            if slug is None:
                shared += seconds
            else:
                per_lesson[slug] += seconds
        tiers[report.stem] = total
    return dict(per_lesson), shared, tiers


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print(__doc__, file=sys.stderr)
        return 2
    from posviz.ui.course import quiet_outside_a_server

    quiet_outside_a_server()
    per_lesson, shared, tiers = costs(Path(argv[0]))
    print("test time per tier:  " + ", ".join(f"{t} {s / 60:.1f} min" for t, s in tiers.items()))
    print(f"{'lesson':24s} {'minutes':>8s}")
    for ls in course():
        print(f"{ls.slug:24s} {per_lesson.get(ls.slug, 0.0) / 60:8.2f}")
    mean = sum(per_lesson.values()) / max(len(course()), 1)
    print(f"{'kit (shared)':24s} {shared / 60:8.2f}")
    print(f"a lesson's marginal CI cost (mean of the lessons): {mean / 60:.2f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
