"""``python -m posviz.models train | grid | merge | report | docs | figures``: train the shipped models (and
compute the evidence grid from them), print the run, write docs/MODELS.md's tables, export its figures.
A missing or damaged weights file or manifest is reported in one line (exit 1), never a traceback."""

from __future__ import annotations

import argparse
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import posviz.models as pm
from posviz.models import WeightsError

if TYPE_CHECKING:
    from collections.abc import Callable

    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]
    Handler = Callable[[argparse.Namespace, argparse.ArgumentParser], int]

EXPORTS = {"models_extension": dict(factor=4.0, finetuned=True, methods="default,linear,ntk,yarn,llama3"),
           "models_schemes": dict(factor=4.0),
           "models_retrieval": dict(factor=4.0, finetuned=True, methods="default,linear,ntk,yarn,llama3")}


def main(argv: list[str] | None = None) -> int:
    """Run one command; 0 on success, 1 with one line on stderr when the weights or the manifest are unusable."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args, parser)
    except WeightsError as err:
        print(f"python -m posviz.models: error: {err}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per job, each declared with its options by its own function below."""
    parser = argparse.ArgumentParser(prog="python -m posviz.models", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    docs = "write the generated tables of docs/MODELS.md from the manifest and the curves"
    report = "print the markdown tables of the shipped run (quoted in docs/MODELS.md)"
    for declare in (_declare_train, _declare_grid, partial(_declare_plain, name="docs", help=docs, run=_docs),
                    _declare_merge, partial(_declare_plain, name="report", help=report, run=_report),
                    _declare_figures):
        declare(sub)
    return parser


def _declare_plain(sub: Subcommands, *, name: str, help: str, run: Handler) -> None:
    """A subcommand with no options of its own."""
    sub.add_parser(name, help=help).set_defaults(run=run)


def _declare_train(sub: Subcommands) -> None:
    t = sub.add_parser("train", help="train every scheme at L and the PI/YaRN fine-tunes; write weights")
    t.add_argument("--out", type=Path, default=pm.WEIGHTS, help="output folder (default: the shipped weights)")
    t.add_argument("--steps", type=int, default=None, help="training steps of every scheme (a short run)")
    t.add_argument("--finetune-steps", type=int, default=None, help="fine-tune steps (0: no fine-tunes)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a busy machine)")
    t.add_argument("--jobs", type=int, default=2, help="worker processes (one model each)")
    t.add_argument("--schemes", default=None, help="comma-separated subset of the schemes ('': the fine-tunes only, "
                                                  "from the RoPE model in --out)")
    t.set_defaults(run=_train)


def _declare_grid(sub: Subcommands) -> None:
    g = sub.add_parser("grid", help="compute the evidence curves of the slider values from the shipped weights")
    g.add_argument("--models", default=None, help="comma-separated models to recompute (default: every one)")
    g.set_defaults(run=_grid)


def _declare_merge(sub: Subcommands) -> None:
    m = sub.add_parser("merge", help="copy a retrained subset (weights + records) into the shipped run")
    m.add_argument("src", type=Path, help="the --out folder of the subset's run")
    m.add_argument("--into", type=Path, default=pm.WEIGHTS)
    m.set_defaults(run=_merge)


def _declare_figures(sub: Subcommands) -> None:
    f = sub.add_parser("figures", help="export the evidence figures (PNG) for the docs and the README")
    f.add_argument("--out", type=Path, default=Path("docs"), help="folder (default: docs)")
    f.add_argument("--n-sequences", type=int, default=0, help="sequences per curve (default: the app's 32)")
    f.set_defaults(run=_figures)


def _merge(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``merge``: copy a retrained subset's weights and records into the shipped run."""
    from posviz.models.train import merge_into

    try:
        merged = merge_into(args.src, args.into)
    except (ValueError, OSError) as err:  # recipes that differ, a file missing from the subset's run
        print(f"python -m posviz.models: error: {err}", file=sys.stderr)
        return 1
    print(f"merged into {args.into}/manifest.json: {', '.join(merged['merged'][-1]['models'])}")
    return 0


def _figures(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``figures``: export the evidence figures of ``EXPORTS`` as PNG files."""
    import posviz.figures.models  # noqa: F401  (registers the builders)
    from posviz.export import export_figure

    for name, params in EXPORTS.items():
        path = args.out / f"{name}.png"
        path.write_bytes(export_figure(name, dict(params, n_sequences=args.n_sequences), "png"))
        print(f"wrote {path}")
    return 0


def _grid(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``grid``: recompute the evidence curves (every model, or ``--models``) from the shipped weights."""
    from posviz.models.curves import write_grid

    names = None if args.models is None else tuple(n.strip() for n in args.models.split(",") if n.strip())
    written = write_grid(names=names)
    print(f"wrote {pm.WEIGHTS / 'curves.npz'}: {written['curves']} curves, {written['bytes']:,} bytes")
    return 0


def _docs(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``docs``: write the generated tables of docs/MODELS.md."""
    from posviz.models.report import write_docs

    print(f"wrote the generated tables of {write_docs()}")
    return 0


def _report(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``report``: print the markdown tables of the shipped run, each record checked first."""
    from posviz.models import manifest
    from posviz.models.report import past_L_table, report_table

    for name in manifest()["models"]:   # each record checked first: its own one-line WeightsError
        if name in pm.NAMES:
            pm.record(name)
    try:
        table = report_table(manifest())
    except WeightsError:
        raise
    except (KeyError, TypeError, ValueError):  # valid JSON whose records lack what the table reads
        raise WeightsError(pm.WEIGHTS / "manifest.json", "is not a complete training record") from None
    print(table + "\n\n" + past_L_table())
    return 0


def _train(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``train``: every model (or ``--schemes``), the manifest and, for a full run, its evidence grid."""
    from dataclasses import replace

    from posviz.models import SCHEMES
    from posviz.models.train import Recipe, run

    recipe = Recipe(seed=args.seed)
    if args.steps is not None:
        recipe = replace(recipe, steps=args.steps, scheme_steps=())   # every scheme the same short run
    if args.finetune_steps:
        recipe = replace(recipe, finetune_steps=args.finetune_steps)
    schemes = SCHEMES if args.schemes is None else tuple(s.strip() for s in args.schemes.split(",") if s.strip())
    if not schemes and not (args.out / "rope.pt").exists():
        parser.error(f"--schemes '' trains the fine-tunes only, from {args.out / 'rope.pt'}, which is missing")
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown:
        parser.error(f"--schemes: unknown {unknown[0]!r}; choose from {', '.join(SCHEMES)}")
    manifest = run(args.out, recipe, args.threads, schemes, finetune=args.finetune_steps != 0, jobs=args.jobs)
    print(f"wrote {args.out}/manifest.json ({manifest['total_seconds']:.0f} s)")
    if set(manifest["models"]) == set(pm.NAMES):   # a full run: its evidence grid, from its own weights
        from posviz.models.curves import write_grid

        shipped, pm.WEIGHTS = pm.WEIGHTS, args.out
        try:
            written = write_grid(args.out / "curves.npz")
        finally:
            pm.WEIGHTS = shipped
        print(f"wrote {args.out}/curves.npz ({written['curves']} curves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
