"""Figure export: PNG, SVG, PDF (kaleido), self-contained HTML, CSV and JSON of the plotted numbers, and GIF/MP4 of
animated figures, with no streamlit; the app's export buttons and ``python -m posviz export`` both call
``export_figure`` or ``export_file``. The public API is gathered here from the modules that do the work:
``formats`` (what a figure becomes, and the one path every export takes), ``scheduler`` (the render slots, the
shared browser and its event-loop thread, the time limits), ``animation`` (GIF/MP4 encoders), ``options`` (the
format names, ``ExportOptions`` and the budget) and ``availability`` (what this installation can make)."""

from posviz.export.animation import FRAMES_IN_FLIGHT, PALETTE_SAMPLES, Progress, frame_dicts, write_animation
from posviz.export.availability import (
    BROWSER,
    BROWSER_ENV,
    DISTRIBUTIONS,
    FORMAT_NEEDS,
    MAC_APPS,
    PATH_NAMES,
    WINDOWS_APPS,
    WINDOWS_ROOTS,
    ExportUnavailableError,
    browser_candidates,
    find_browser,
    how_to_enable,
    missing_for,
    require,
    unavailable,
)
from posviz.export.formats import (
    atomic_write,
    csv_bytes,
    export_figure,
    export_file,
    formats_for,
    html_bytes,
    image_bytes,
    json_bytes,
    render,
    render_into,
    traces_table,
)
from posviz.export.options import (
    ANIMATION_FORMATS,
    DATA_FORMATS,
    FORMATS,
    FPS_RANGE,
    IMAGE_FORMATS,
    MAX_ANIMATION_PIXELS,
    MAX_IMAGE_PIXELS,
    MIME,
    RENDERED,
    SCALE_RANGE,
    SIZE_PRESETS,
    SIZE_RANGE,
    ExportOptions,
    check_budget,
    raster_size,
    render_options,
)
from posviz.export.scheduler import (
    BROWSER_TABS,
    DOWNLOAD_TIME_LIMIT_S,
    EXPORT_SLOTS,
    FRAME_S,
    ExportBusyError,
    export_priority,
    export_status,
)

__all__ = [
    "FRAMES_IN_FLIGHT", "ANIMATION_FORMATS", "BROWSER", "BROWSER_ENV", "BROWSER_TABS", "DATA_FORMATS", "DISTRIBUTIONS",
    "DOWNLOAD_TIME_LIMIT_S", "EXPORT_SLOTS", "FORMATS", "FORMAT_NEEDS", "FPS_RANGE", "FRAME_S", "IMAGE_FORMATS",
    "MAC_APPS", "MAX_ANIMATION_PIXELS", "MAX_IMAGE_PIXELS", "MIME", "PALETTE_SAMPLES", "PATH_NAMES", "RENDERED",
    "SCALE_RANGE", "SIZE_PRESETS", "SIZE_RANGE", "WINDOWS_APPS", "WINDOWS_ROOTS", "ExportBusyError",
    "ExportOptions", "ExportUnavailableError", "Progress", "atomic_write", "browser_candidates", "check_budget",
    "csv_bytes", "export_figure", "export_file", "export_priority", "export_status", "find_browser",
    "formats_for", "frame_dicts", "how_to_enable", "html_bytes", "image_bytes", "json_bytes", "missing_for",
    "raster_size", "render", "render_into", "render_options", "require", "traces_table", "unavailable",
    "write_animation",
]
