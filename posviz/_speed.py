"""Every speed workaround of posviz, in one place, each with the benchmark that justifies it.

A page author needs none of them: the kit, the theme and the math call them. Remove one only with the
benchmark beside it run before and after (``benchmarks/slider_to_chart.py`` for anything on a slider move).
"""

from __future__ import annotations

import copy
import gc
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# 1. One OpenMP thread per op. The app's tensors are small and a classroom shares a few cores: waking a thread
#    pool cost 10-30x the arithmetic per op on a loaded 2-core machine (benchmarks/compute.py, CoPE's part).
#    torch reads this when a page first imports it (lazily), so setting it before any page math runs
#    configures the whole server.
os.environ.setdefault("OMP_NUM_THREADS", "1")

_THREADS_LOCK = threading.Lock()
_THREADS = {"depth": 0, "saved": 1}


@contextmanager
def single_torch_thread() -> Iterator[None]:
    """Run torch on one thread inside the block (for code that may run where OMP_NUM_THREADS was not set
    first, e.g. a notebook). Re-entrant across sessions: the first one in saves the thread count, the last
    one out restores it. Measured by benchmarks/slider_to_chart.py on the CoPE lesson."""
    import torch

    with _THREADS_LOCK:
        if _THREADS["depth"] == 0:
            _THREADS["saved"] = torch.get_num_threads()
            torch.set_num_threads(1)
        _THREADS["depth"] += 1
    try:
        yield
    finally:
        with _THREADS_LOCK:
            _THREADS["depth"] -= 1
            if _THREADS["depth"] == 0:
                torch.set_num_threads(_THREADS["saved"])


# 2. Freezing the long-lived heap. With numpy, plotly, torch and Streamlit loaded, a full gc.collect walks a few
#    hundred thousand objects (~40 ms of a slider move, benchmarks/slider_to_chart.py); .streamlit/config.toml
#    also turns off Streamlit's per-run gc.collect(2) (runner.postScriptGC).
_frozen_at_modules = 0


def freeze_long_lived_heap() -> bool:
    """Put every object alive now into the garbage collector's permanent generation; True if it did.

    Objects frozen here (modules, classes, cached figures) are skipped by later collections. It freezes again
    only when new modules were imported since the last time (a lesson may import torch on its first compute),
    a handful of times per server process, which bounds what can stay frozen after it becomes garbage.
    """
    global _frozen_at_modules
    if len(sys.modules) == _frozen_at_modules:
        return False
    gc.collect()
    gc.freeze()
    _frozen_at_modules = len(sys.modules)
    return True


# 3. The template fast path. Assigning a template through plotly validates and deep-copies it (~7 ms a
#    figure, paid on every slider move, benchmarks/slider_to_chart.py); writing the already-valid plain dict
#    into the layout's properties costs ~0.1 ms.
def set_template_fast(fig: Any, template: dict, name: str) -> None:
    """Put ``template`` (a valid template as a plain dict) on ``fig``; falls back to plotly's public path
    (the registered template ``name``) if plotly's internals change."""
    props = getattr(fig.layout, "_props", None)
    if isinstance(props, dict):
        props["template"] = copy.deepcopy(template)
    else:  # pragma: no cover - other plotly versions
        fig.update_layout(template=name)
