"""What an export can be asked for, and what it may cost: the format names, the size presets, ``ExportOptions``
(pixel size, scale, theme, background, frames per second) and the budget every rendered export is checked against
before any work starts (pixels per image and per animation; ``benchmarks/export_budget.py`` measures the largest
allowed export of each kind)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from posviz._validate import check_choice, check_int
from posviz.theme import THEMES

IMAGE_FORMATS = ("png", "svg", "pdf")
DATA_FORMATS = ("csv", "json")
ANIMATION_FORMATS = ("gif", "mp4")
FORMATS = IMAGE_FORMATS + ("html",) + DATA_FORMATS + ANIMATION_FORMATS
RENDERED = IMAGE_FORMATS + ANIMATION_FORMATS  # the formats that go through the browser
SIZE_PRESETS: dict[str, tuple[int, int]] = {
    "blog": (1200, 675),
    "square": (1080, 1080),
    "slide": (1920, 1080),
}
MIME = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html",
        "csv": "text/csv", "json": "application/json", "gif": "image/gif", "mp4": "video/mp4"}

MAX_IMAGE_PIXELS = 36_000_000  # one PNG/SVG/PDF page or animation frame: (width·scale)·(height·scale)
MAX_ANIMATION_PIXELS = 260_000_000  # frames × pixels of a frame: the 72-frame clock at blog ×2 is 233 M

SIZE_RANGE = (100, 4000)  # width and height in pixels, before the scale factor
SCALE_RANGE = (0.25, 4.0)
FPS_RANGE = (1, 60)


@dataclass(frozen=True)
class ExportOptions:
    """How to render: pixel size, scale factor, theme and background."""

    width: int = 1200
    height: int = 675
    scale: float = 1.0
    theme: str = "light"
    transparent: bool = False
    presenter: bool = False
    fps: int = 12

    def __post_init__(self) -> None:
        lo, hi = SIZE_RANGE
        for name, value in (("width", self.width), ("height", self.height)):
            if not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"{name} must be an integer in [{lo}, {hi}]; got {value!r}")
        if not SCALE_RANGE[0] <= float(self.scale) <= SCALE_RANGE[1]:
            raise ValueError(f"scale must be a number in [{SCALE_RANGE[0]:g}, {SCALE_RANGE[1]:g}]; got {self.scale!r}")
        if self.theme not in THEMES:
            raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {self.theme!r}")
        if not FPS_RANGE[0] <= self.fps <= FPS_RANGE[1]:
            raise ValueError(f"fps must be an integer in [{FPS_RANGE[0]}, {FPS_RANGE[1]}]; got {self.fps!r}")


def render_options(fmt: str, opts: ExportOptions) -> ExportOptions:
    """The options a format really renders with: MP4 (H.264) takes sizes divisible by 16 at scale 1."""
    if fmt != "mp4":
        return opts
    return replace(opts, width=max(112, opts.width // 16 * 16), height=max(112, opts.height // 16 * 16), scale=1.0)


def raster_size(opts: ExportOptions) -> tuple[int, int]:
    """Pixel width and height of one rendered image: (round(width·scale), round(height·scale))."""
    return round(opts.width * opts.scale), round(opts.height * opts.scale)


def check_budget(fmt: str, opts: ExportOptions, n_frames: int = 1) -> None:
    """Raise ValueError, naming the cap, if exporting ``n_frames`` frames as ``fmt`` costs too much: one image
    (PNG; SVG and PDF are laid out on a page of the same size) may have at most MAX_IMAGE_PIXELS =
    (width·scale)·(height·scale), an animation at most MAX_ANIMATION_PIXELS over all its frames. Checked before
    any rendering; data formats (HTML, CSV, JSON) cost no pixels."""
    fmt = check_choice("fmt", fmt, FORMATS)
    n_frames = check_int("n_frames", n_frames, 0)
    if fmt not in RENDERED:
        return
    w, h = raster_size(render_options(fmt, opts))
    if w * h > MAX_IMAGE_PIXELS:
        raise ValueError(f"image size {w}×{h} px ({w * h / 1e6:.1f} megapixels: width × height × scale²) is "
                         f"above the cap of {MAX_IMAGE_PIXELS / 1e6:g} megapixels per image; lower the size "
                         "or the scale")
    frames = max(1, n_frames) if fmt in ANIMATION_FORMATS else 1
    if frames * w * h > MAX_ANIMATION_PIXELS:
        most = MAX_ANIMATION_PIXELS // (w * h)
        raise ValueError(f"{fmt.upper()} of {frames} frames at {w}×{h} px is {frames * w * h / 1e6:.0f} "
                         f"megapixels, above the cap of {MAX_ANIMATION_PIXELS / 1e6:g} megapixels per "
                         f"animation (frames × width × height × scale²); at this size at most {most} frames, "
                         "or lower the size or the scale")
