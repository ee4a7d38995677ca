"""``posviz export``: every registered figure as PNG, SVG, PDF, HTML, CSV, JSON, GIF or MP4.

    posviz export --list                      # every figure, its parameters and their defaults
    posviz export --list 'rope_*'             # only the figures matching a glob (or containing a text)
    posviz export --names                     # one name per line
    posviz export rope_clock --help           # that figure's parameters
    posviz export sinusoidal_heatmap --d_model 64 --base 500 -o pe.png --width 1200 --height 675
    posviz export rope_clock --dim 16 -o clock.gif -o clock.mp4
    posviz export rope_clock --lang zh -o clock_zh.svg   # the figure's text in Chinese

Figure parameters come from the builder's signature, so every figure is exportable with no extra code; one
named like an export option (``width``, ``scale``...) is given as ``--figure-width``. Everything is checked
before any rendering: the figure, its parameters (an empty list is refused), each output's suffix, whether this
installation can make that format (the ``[export]`` extra and a browser), each path (its directory exists and is
writable, it is not a directory, a FIFO or a device), and the export budget. Every failure, then or later,
prints one line on stderr and exits 2. Each file is written beside its target and moved over it once complete,
so a failed export leaves an existing file as it was. An animation reports "frame i of n" on a terminal.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import functools
import os
import re
import stat
import sys
from pathlib import Path
from typing import TextIO

from posviz import export, i18n
from posviz.figures import FIGURES, FigureSpec, build
from posviz.i18n import _

FIGURE_PREFIX = "figure_"  # --figure-width: a figure parameter named like an export option
# how each parameter type is written on the command line: (metavar, what it reads)
KINDS = {"int": ("INT", "an integer"), "float": ("NUMBER", "a number"), "str": ("TEXT", "text"),
         "bool": ("BOOL", "true or false"), "tuple[int, ...]": ("INT,...", "integers separated by commas")}


def prog_name(argv0: str | None = None) -> str:
    """How the command was started, for usage lines and hints: "python -m posviz" when run as a module
    (``sys.argv[0]`` is then posviz/__main__.py), else "posviz" (the console script, wherever it is installed)."""
    path = Path(sys.argv[0] if argv0 is None else argv0)
    return "python -m posviz" if (path.name, path.parent.name) == ("__main__.py", "posviz") else "posviz"


def _typed_value(text: str, annotation: str, default: object) -> object:
    """``text`` read as the parameter's type: its annotation, else the type of its default."""
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


def _suggest(word: str, names: list[str] | dict[str, object]) -> str:
    """" did you mean a or b?" for the names closest to ``word`` (difflib, then names holding it), else ""."""
    close = difflib.get_close_matches(word, list(names), n=3, cutoff=0.75)
    close += [n for n in names if word and word.lower() in n.lower() and n not in close][:3 - len(close)]
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _parameter_name(spec: FigureSpec, token: str) -> str:
    """The parameter of ``spec`` that ``--token`` names (dashes or underscores, or ``--figure-NAME``)."""
    if not token.startswith("--"):
        raise ValueError(f"unexpected argument {token!r}; parameters are given as --name value")
    name = token[2:].replace("-", "_")
    defaults = spec.defaults()
    if name not in defaults and name.removeprefix(FIGURE_PREFIX) in defaults:
        name = name.removeprefix(FIGURE_PREFIX)
    if name not in defaults:
        raise ValueError(f"figure {spec.name!r} has no parameter {name!r}{_suggest(name, defaults) or '.'} "
                         f"It has: {', '.join(defaults)}")
    return name


def parse_figure_params(spec: FigureSpec, tokens: list[str]) -> dict[str, object]:
    """``--name value`` pairs -> typed parameters of ``spec`` (ValueError names the bad one)."""
    defaults, annotations = spec.defaults(), spec.annotations()
    params: dict[str, object] = {}
    for i in range(0, len(tokens), 2):
        name = _parameter_name(spec, tokens[i])
        if i + 1 >= len(tokens):
            raise ValueError(f"parameter {name} needs a value")
        try:
            params[name] = _typed_value(tokens[i + 1], annotations[name], defaults[name])
        except ValueError:
            raise ValueError(f"parameter {name}: cannot read {tokens[i + 1]!r} as {annotations[name]}") from None
        if params[name] == ():
            raise ValueError(f"parameter {name}: {tokens[i + 1]!r} selects nothing; give at least one value")
    return params


def _parameter_option(name: str) -> str:
    """The option a figure parameter is given with (``--figure-NAME`` if an export option has its name)."""
    return f"--figure-{name}" if name in _export_option_names() else f"--{name}"


def _as_typed(value: object) -> str:
    """A default as it would be typed on the command line."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value) if value != "" else "''"


def parameter_lines(spec: FigureSpec, ranges: bool = False) -> list[str]:
    """One line per parameter of ``spec``: its option, type and default, and with ``ranges`` the values the
    figure accepts (``accepted``; the figure checks them whichever way it is called)."""
    lines = []
    for name, default in spec.defaults().items():
        metavar, reads = KINDS.get(spec.annotations()[name], ("VALUE", spec.annotations()[name]))
        accepts = accepted(spec, name) if ranges else None
        what = f"{accepts}, default {_as_typed(default)}" if accepts else f"{reads}, default {_as_typed(default)}"
        lines.append(f"    {_parameter_option(name) + ' ' + metavar:<28} {what}")
    return lines


class _NoValue:
    """A value no parameter accepts: the figure's own check then says what it does accept."""

    def __repr__(self) -> str:
        return "(nothing)"


def accepted(spec: FigureSpec, name: str) -> str | None:
    """What parameter ``name`` of ``spec`` accepts, in the words of the figure's own check ("an integer in [2,
    4096]", "one of 'interleaved', 'half'"), at the other parameters' defaults; None if the check does not say."""
    try:
        spec.builder(**{name: _NoValue()})
    except ValueError as err:
        said = re.match(rf"{re.escape(name)} must be (.+?); got ", str(err))
        return said.group(1) if said else None
    except Exception:  # a check that is not a posviz one: say nothing rather than guess
        return None
    return None


def figure_block(spec: FigureSpec, ranges: bool = False) -> str:
    """A figure's name, formats, summary and parameters (what --list prints for each; NAME --help adds the
    values each parameter accepts)."""
    head = f"{spec.name}  ({'animated: ' if spec.animated else ''}{' '.join(export.formats_for(spec.name))})"
    return "\n".join([head, *([f"    {spec.summary}"] if spec.summary else []), *parameter_lines(spec, ranges)])


def matching(pattern: str) -> list[str]:
    """The figure names matching ``pattern``, sorted: a glob if it has ``*?[``, else every name containing it
    (ignoring case); every name for an empty pattern."""
    if any(c in pattern for c in "*?["):
        return sorted(n for n in FIGURES if fnmatch.fnmatchcase(n, pattern))
    return sorted(n for n in FIGURES if pattern.lower() in n.lower())


def _export_parser(prog: str) -> argparse.ArgumentParser:
    """The options of ``posviz export``; figure parameters are left over (parse_known_args) for the figure."""
    defaults = export.ExportOptions()
    size, scale, fps = export.SIZE_RANGE, export.SCALE_RANGE, export.FPS_RANGE
    # no abbreviations: --p (sinusoidal_shift's p) would otherwise be taken for --presenter
    p = argparse.ArgumentParser(prog=f"{prog} export", add_help=False, allow_abbrev=False,
                                usage=f"{prog} export NAME [--PARAMETER VALUE ...] -o FILE [-o FILE ...] [options]\n"
                                      f"       {prog} export --list [PATTERN] | --names [PATTERN] | NAME --help",
                                description=_("Export a posviz figure; each output's suffix chooses its format."))
    p.add_argument("name", nargs="?", metavar="NAME",
                   help=_("figure name (--names lists them; NAME --help shows its parameters)"))
    p.add_argument("-h", "--help", action="store_true", help=_("show this help (with NAME: and its parameters)"))
    p.add_argument("--list", nargs="?", const="", metavar="PATTERN",
                   help=_("list the figures (matching a glob such as 'rope_*', or containing PATTERN) and parameters"))
    p.add_argument("--names", nargs="?", const="", metavar="PATTERN", help=_("print figure names, one a line"))
    p.add_argument("-o", "--output", action="append", default=[], metavar="FILE",
                   help=_("output file, its suffix the format: png svg pdf html csv json gif mp4 (repeatable)"))
    p.add_argument("--width", type=int, default=defaults.width, metavar="PIXELS",
                   help=_("image width in pixels before --scale, {lo} to {hi} (default: {default})", lo=size[0],
                          hi=size[1], default=defaults.width))
    p.add_argument("--height", type=int, default=defaults.height, metavar="PIXELS",
                   help=_("image height in pixels before --scale, {lo} to {hi} (default: {default})", lo=size[0],
                          hi=size[1], default=defaults.height))
    p.add_argument("--scale", type=float, default=defaults.scale, metavar="FACTOR",
                   help=_("pixel density: the PNG is width·scale × height·scale pixels, {lo:g} to {hi:g} (default: "
                          "{default:g})", lo=scale[0], hi=scale[1], default=defaults.scale))
    p.add_argument("--theme", default=defaults.theme, choices=["light", "dark", "blog"],
                   help=_("(default: {default})", default="%(default)s"))
    p.add_argument("--transparent", action="store_true", help=_("transparent background"))
    p.add_argument("--presenter", action="store_true", help=_("bigger fonts, lines and markers"))
    p.add_argument("--fps", type=int, default=defaults.fps,
                   help=_("frames per second of GIF/MP4, {lo} to {hi} (default: {default})", lo=fps[0], hi=fps[1],
                          default=defaults.fps))
    p.add_argument("-q", "--quiet", action="store_true", help=_("no progress lines while an animation renders"))
    p.add_argument("--lang", default=i18n.language(), choices=list(i18n.LANGUAGES),
                   help=_("language of the figure's text, and of these messages: en (English) or zh (Chinese) "
                          "(default: {default})", default="%(default)s"))
    return p


@functools.cache
def _export_option_names() -> frozenset[str]:
    return frozenset(a.dest for a in _export_parser("posviz")._actions) - {"name"}


class _UsageError(Exception):
    pass


def _raising_parser(prog: str) -> argparse.ArgumentParser:
    """The export parser, raising _UsageError where argparse would print usage and exit."""
    parser = _export_parser(prog)

    def error(message: str) -> None:
        raise _UsageError(message)

    parser.error = error  # type: ignore[method-assign]
    return parser


def output_format(out: str, name: str) -> str:
    """The export format chosen by the suffix of ``out`` (ValueError if ``name`` has no such format)."""
    fmt = Path(out).suffix.lstrip(".").lower()
    if fmt not in export.formats_for(name):
        raise ValueError(f"cannot write {out!r}: the suffix chooses the format, and {name} exports to "
                         f"{', '.join(export.formats_for(name))}")
    return fmt


def check_output_path(out: str) -> None:
    """ValueError unless ``out`` can be written as a regular file: an existing writable file, or a new one, in
    an existing writable directory (the file is written beside its target, then moved over it). Directories,
    FIFOs, devices (/dev/full) and sockets are refused from their mode alone, never opened (opening a FIFO
    blocks until someone reads it)."""
    path = Path(out)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as err:
        raise ValueError(f"cannot write {out!r}: {err.strerror}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ValueError(f"cannot write {out!r}: it is a directory; give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        raise ValueError(f"cannot write {out!r}: it is not a regular file (a FIFO, device or socket)")
    if mode is not None and not os.access(path, os.W_OK):
        raise ValueError(f"cannot write {out!r}: the file is not writable")
    parent = Path(os.path.realpath(path)).parent if mode is not None else path.parent
    if not parent.is_dir():
        raise ValueError(f"cannot write {out!r}: directory {str(parent)!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write {out!r}: directory {str(parent)!r} is not writable")


class FrameProgress:
    """Prints "frame i of n" of an animation on one line of ``stream`` (each report overwrites the last), and
    ends that line when done or abandoned (``close``), so an error message starts on a line of its own."""

    def __init__(self, label: str, stream: TextIO) -> None:
        self.label, self.stream, self.open = label, stream, False

    def __call__(self, done: int, total: int) -> None:
        self.stream.write("\r" + _("{file}: frame {done} of {total}", file=self.label, done=done, total=total))
        self.stream.flush()
        self.open = done < total
        if not self.open:
            self.stream.write("\n")

    def close(self) -> None:
        if self.open:
            self.stream.write("\n")
            self.open = False


def _progress(out: str, quiet: bool) -> FrameProgress | None:
    """A progress line for ``out`` on stderr, only when stderr is a terminal (logs and pipes stay clean)."""
    stream = sys.stderr
    if quiet or stream is None or not stream.isatty():
        return None
    return FrameProgress(out, stream)


def _write_output(out: str, fmt: str, args: argparse.Namespace, params: dict[str, object],
           opts: export.ExportOptions) -> None:
    """Export to ``out`` (replacing it only once complete), showing progress; ValueError naming ``out`` if
    the file cannot be written."""
    progress = _progress(out, args.quiet) if fmt in export.ANIMATION_FORMATS else None
    try:
        export.export_file(out, args.name, params, fmt, opts, progress=progress)
    except OSError as err:
        raise ValueError(f"cannot write {out!r}: {err.strerror or err}") from None
    finally:
        if progress is not None:
            progress.close()


def unknown_figure(name: str, prog: str) -> str:
    """The message for a figure name that is not registered, with the closest names."""
    return _("unknown figure {name}{suggestion} ({prog} export --names lists them)", name=repr(name),
             suggestion=_suggest(name, FIGURES), prog=prog)


def run(args: argparse.Namespace, rest: list[str], prog: str = "posviz") -> None:
    """Check everything that can be checked, then render and write each output (ValueError on failure)."""
    if not args.name:
        raise _UsageError(_("name a figure ({prog} export --names lists them)", prog=prog))
    if args.name not in FIGURES:
        raise _UsageError(unknown_figure(args.name, prog))
    if not args.output:
        raise _UsageError(_("give an output file with -o FILE (its suffix chooses the format)"))
    params = parse_figure_params(FIGURES[args.name], rest)
    opts = export.ExportOptions(width=args.width, height=args.height, scale=args.scale, theme=args.theme,
                                transparent=args.transparent, presenter=args.presenter, fps=args.fps)
    outputs = [(out, output_format(out, args.name)) for out in args.output]
    lacking = export.unavailable(dict.fromkeys(fmt for _out, fmt in outputs))
    if lacking:
        raise export.ExportUnavailableError(export.how_to_enable(lacking))
    for out, _fmt in outputs:
        check_output_path(out)
    n_frames = len(build(args.name, **params).frames)  # the builder validates every parameter
    for _out, fmt in outputs:
        export.check_budget(fmt, opts, n_frames)
    _warn_without_cjk_font(fmt for _out, fmt in outputs)
    for out, fmt in outputs:
        _write_output(out, fmt, args, params, opts)
        print(_("wrote {file}", file=out))


def _warn_without_cjk_font(fmts: object) -> None:
    """In Chinese, a line on stderr naming the font a rendered export needs when no font with Chinese glyphs is
    installed (the file is still written: its Chinese text shows as empty boxes)."""
    from posviz.theme import CJK_FONT, cjk_font_installed

    if i18n.language() == "zh" and any(f in export.RENDERED for f in fmts) and not cjk_font_installed():
        print(_("posviz: note: no font with Chinese characters is installed; the figure's Chinese text needs {font} "
                "(apt-get install fonts-noto-cjk, or any font `fc-list :lang=zh` lists)", font=CJK_FONT),
              file=sys.stderr)


def _listing(args: argparse.Namespace) -> str:
    """What --list or --names prints (ValueError if no figure matches)."""
    pattern = args.names if args.names is not None else args.list
    names = [args.name] if args.name in FIGURES and not pattern else matching(pattern or "")
    if not names:
        raise ValueError(_("no figure matches {pattern}{suggestion}", pattern=repr(pattern),
                           suggestion=_suggest(pattern, FIGURES)))
    if args.names is not None:
        return "\n".join(names)
    return "\n".join(figure_block(FIGURES[name]) for name in names)


def _help(parser: argparse.ArgumentParser, name: str | None, prog: str) -> str:
    """The export help, followed by figure ``name``'s parameters when one is named."""
    if name is None:
        return parser.format_help().rstrip()
    if name not in FIGURES:
        raise _UsageError(unknown_figure(name, prog))
    return (f"{parser.format_help().rstrip()}\n\n{figure_block(FIGURES[name], ranges=True)}\n\n"
            + _("Ranges are at the other parameters' defaults; the figure checks each value and names the valid "
                "range when one is outside it."))


def main(argv: list[str] | None = None) -> int:
    """Run ``posviz export …`` (``argv`` starts with "export"); return the exit code (0 ok, 2 on any error,
    reported in one line on stderr)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    with i18n.using(asked_language(argv)):
        return _main(argv, prog_name())


def asked_language(argv: list[str]) -> str:
    """The language ``--lang`` asks for (read before the parser is built, so that its help is in that language);
    else the language the command runs in (the environment's; the parser reports a value posviz does not speak)."""
    for i, arg in enumerate(argv):
        value = arg.split("=", 1)[1] if arg.startswith("--lang=") else argv[i + 1] if arg == "--lang" and \
            i + 1 < len(argv) else None
        if value in i18n.LANGUAGES:
            return value
    return i18n.language()


def _main(argv: list[str], prog: str) -> int:
    try:
        if argv[:1] != ["export"]:
            raise _UsageError(_("expected the export command: {prog} export --help", prog=prog))
        parser = _raising_parser(prog)
        args, rest = parser.parse_known_args(argv[1:])
        if args.help:
            print(_help(parser, args.name, prog))
        elif args.list is not None or args.names is not None:
            print(_listing(args))
        else:
            run(args, rest, prog)
    except (_UsageError, ValueError, export.ExportUnavailableError) as err:
        return _report_error(str(err))
    except OSError as err:
        where = f": {err.filename}" if getattr(err, "filename", None) else ""
        return _report_error(f"{err.strerror or err}{where}")
    except Exception as err:  # the contract: one line and exit 2, whatever went wrong
        return _report_error(f"{type(err).__name__}: {err}")
    return 0


def _report_error(message: str) -> int:
    """Print ``message`` as the one error line on stderr; the exit code 2."""
    print(f"posviz: error: {' '.join(message.split())}", file=sys.stderr)
    return 2
