"""``python -m posviz export``: every registered figure as PNG, SVG, PDF, HTML, CSV, JSON, GIF or MP4.

    python -m posviz export --list
    python -m posviz export sinusoidal_heatmap --d_model 64 --base 500 -o pe.png --width 1200 --height 675
    python -m posviz export rope_clock --dim 16 -o clock.gif -o clock.mp4

Figure parameters come from the builder's signature, so every figure is exportable with no extra code.
Everything is checked before any rendering: the figure, its parameters (an empty list is refused), each
output's suffix and path (its directory exists and is writable, it is not a directory, a FIFO or a
device), and the export budget. Every failure, then or later, prints one line on stderr and exits 2.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path

from posviz import export
from posviz.figures import FIGURES, FigureSpec, build


def _convert(text: str, annotation: str, default: object) -> object:
    kind = annotation.replace("typing.", "")
    if kind == "bool" or isinstance(default, bool):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError("expected true or false")
    if kind == "int" or (isinstance(default, int) and kind not in ("float",)):
        return int(text)
    if kind == "float" or isinstance(default, float):
        return float(text)
    if kind.startswith("tuple") or isinstance(default, tuple):
        items = [x.strip() for x in text.split(",") if x.strip()]
        elem = int if "int" in kind else float if "float" in kind else str
        return tuple(elem(x) for x in items)
    return text


def parse_figure_params(spec: FigureSpec, tokens: list[str]) -> dict[str, object]:
    """``--name value`` pairs -> typed parameters of ``spec`` (ValueError names the bad one)."""
    defaults, annotations = spec.defaults(), spec.annotations()
    params: dict[str, object] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not token.startswith("--"):
            raise ValueError(f"unexpected argument {token!r}; parameters are given as --name value")
        name = token[2:].replace("-", "_")
        if name not in defaults:
            raise ValueError(f"figure {spec.name!r} has no parameter {name!r}; it has: {', '.join(defaults)}")
        if i + 1 >= len(tokens):
            raise ValueError(f"parameter {name} needs a value")
        try:
            params[name] = _convert(tokens[i + 1], annotations[name], defaults[name])
        except ValueError:
            raise ValueError(f"parameter {name}: cannot read {tokens[i + 1]!r} as {annotations[name]}") from None
        if params[name] == ():
            raise ValueError(f"parameter {name}: {tokens[i + 1]!r} selects nothing; give at least one value")
        i += 2
    return params


def list_figures() -> str:
    """Every figure with its parameters and defaults, one block per figure."""
    lines = []
    for name in sorted(FIGURES):
        spec = FIGURES[name]
        kind = "animated: png svg pdf html csv json gif mp4" if spec.animated else "png svg pdf html csv json"
        lines.append(f"{name}  ({kind})")
        if spec.summary:
            lines.append(f"    {spec.summary}")
        for pname, default in spec.defaults().items():
            lines.append(f"    --{pname} {default!r}  [{spec.annotations()[pname]}]")
    return "\n".join(lines)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m posviz", description="Export posviz figures.")
    sub = p.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="export a figure; the format comes from the output's suffix")
    e.add_argument("name", nargs="?", help="figure name (see --list)")
    e.add_argument("--list", action="store_true", help="list every figure with its parameters")
    e.add_argument("-o", "--output", action="append", default=[], help="output file (repeatable)")
    e.add_argument("--width", type=int, default=1200)
    e.add_argument("--height", type=int, default=675)
    e.add_argument("--scale", type=float, default=1.0)
    e.add_argument("--theme", default="light", choices=["light", "dark", "blog"])
    e.add_argument("--transparent", action="store_true")
    e.add_argument("--presenter", action="store_true", help="bigger fonts, lines and markers")
    e.add_argument("--fps", type=int, default=12, help="frames per second of GIF/MP4")
    return p


class _UsageError(Exception):
    pass


def _fail_parser() -> argparse.ArgumentParser:
    parser = _parser()

    def error(message: str) -> None:
        raise _UsageError(message)

    parser.error = error  # type: ignore[method-assign]
    for action in parser._subparsers._group_actions:
        for sp in action.choices.values():
            sp.error = error  # type: ignore[method-assign]
    return parser


def output_format(out: str, name: str) -> str:
    """The export format chosen by the suffix of ``out`` (ValueError if ``name`` has no such format)."""
    fmt = Path(out).suffix.lstrip(".").lower()
    if fmt not in export.formats_for(name):
        raise ValueError(f"cannot write {out!r}: the suffix chooses the format, and {name} exports to "
                         f"{', '.join(export.formats_for(name))}")
    return fmt


def check_output_path(out: str) -> None:
    """ValueError unless ``out`` can be written as a regular file: an existing writable file, or a new
    one in an existing writable directory. Directories, FIFOs, devices (/dev/full) and sockets are refused
    from their mode alone, never opened (opening a FIFO blocks until someone reads it)."""
    path = Path(out)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise ValueError(f"cannot write {out!r}: {err.strerror}") from None
    if mode is None:
        parent = path.parent
        if not parent.is_dir():
            raise ValueError(f"cannot write {out!r}: directory {str(parent)!r} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise ValueError(f"cannot write {out!r}: directory {str(parent)!r} is not writable")
    elif stat.S_ISDIR(mode):
        raise ValueError(f"cannot write {out!r}: it is a directory; give a file name")
    elif not stat.S_ISREG(mode):
        raise ValueError(f"cannot write {out!r}: it is not a regular file (a FIFO, device or socket)")
    elif not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {out!r}: the file is not writable")


def write_output(out: str, data: bytes) -> None:
    """Write ``data`` to ``out``; a partly written new file is removed if the write fails."""
    existed = os.path.lexists(out)
    try:
        with open(out, "wb") as f:
            f.write(data)
    except OSError as err:
        if not existed:
            Path(out).unlink(missing_ok=True)
        raise ValueError(f"cannot write {out!r}: {err.strerror or err}") from None


def run(args: argparse.Namespace, rest: list[str]) -> None:
    """Check everything that can be checked, then render and write each output (ValueError on failure)."""
    if not args.name:
        raise _UsageError("name a figure (python -m posviz export --list shows them)")
    if args.name not in FIGURES:
        raise _UsageError(f"unknown figure {args.name!r}; python -m posviz export --list shows the names")
    if not args.output:
        raise _UsageError("give an output file with -o FILE (its suffix chooses the format)")
    params = parse_figure_params(FIGURES[args.name], rest)
    opts = export.ExportOptions(width=args.width, height=args.height, scale=args.scale, theme=args.theme,
                                transparent=args.transparent, presenter=args.presenter, fps=args.fps)
    outputs = [(out, output_format(out, args.name)) for out in args.output]
    for out, _ in outputs:
        check_output_path(out)
    n_frames = len(build(args.name, **params).frames)  # the builder validates every parameter
    for _, fmt in outputs:
        export.check_budget(fmt, opts, n_frames)
    for out, fmt in outputs:
        write_output(out, export.export_figure(args.name, params, fmt, opts))
        print(f"wrote {out}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 on any error, reported in one line on stderr)."""
    try:
        args, rest = _fail_parser().parse_known_args(argv)
        if args.list:
            print(list_figures())
            return 0
        run(args, rest)
    except (_UsageError, ValueError) as err:
        _fail(str(err))
        return 2
    except OSError as err:
        where = f": {err.filename}" if getattr(err, "filename", None) else ""
        _fail(f"{err.strerror or err}{where}")
        return 2
    except Exception as err:  # the contract: one line and exit 2, whatever went wrong
        _fail(f"{type(err).__name__}: {err}")
        return 2
    return 0


def _fail(message: str) -> None:
    print(f"posviz: error: {' '.join(message.split())}", file=sys.stderr)
