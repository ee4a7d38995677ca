"""``python -m posviz.models train | grid | merge | report | docs | figures``: train the shipped models (and
compute the evidence grid from them), print the run, write docs/MODELS.md's tables, export its figures.
A missing or damaged weights file or manifest is reported in one line (exit 1), never a traceback."""

import argparse
import sys
from pathlib import Path

import posviz.models as pm
from posviz.models import WeightsError

EXPORTS = {"models_extension": dict(factor=4.0, finetuned=True, methods="default,linear,ntk,yarn,llama3"),
           "models_schemes": dict(factor=4.0),
           "models_retrieval": dict(factor=4.0, finetuned=True, methods="default,linear,ntk,yarn,llama3")}


def main(argv: list[str] | None = None) -> int:
    """Run one command; 0 on success, 1 with one line on stderr when the weights or the manifest are unusable."""
    try:
        return _command(argv)
    except WeightsError as err:
        print(f"python -m posviz.models: error: {err}", file=sys.stderr)
        return 1


def _command(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posviz.models", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train every scheme at L and the PI/YaRN fine-tunes; write weights")
    t.add_argument("--out", type=Path, default=pm.WEIGHTS, help="output folder (default: the shipped weights)")
    t.add_argument("--steps", type=int, default=None, help="training steps of every scheme (a short run)")
    t.add_argument("--finetune-steps", type=int, default=None, help="fine-tune steps (0: no fine-tunes)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a busy machine)")
    t.add_argument("--jobs", type=int, default=2, help="worker processes (one model each)")
    t.add_argument("--schemes", default=None, help="comma-separated subset of the schemes ('': the fine-tunes only, "
                                                  "from the RoPE model in --out)")
    g = sub.add_parser("grid", help="compute the evidence curves of the slider values from the shipped weights")
    g.add_argument("--models", default=None, help="comma-separated models to recompute (default: every one)")
    sub.add_parser("docs", help="write the generated tables of docs/MODELS.md from the manifest and the curves")
    m = sub.add_parser("merge", help="copy a retrained subset (weights + records) into the shipped run")
    m.add_argument("src", type=Path, help="the --out folder of the subset's run")
    m.add_argument("--into", type=Path, default=pm.WEIGHTS)
    sub.add_parser("report", help="print the markdown tables of the shipped run (quoted in docs/MODELS.md)")
    f = sub.add_parser("figures", help="export the evidence figures (PNG) for the docs and the README")
    f.add_argument("--out", type=Path, default=Path("docs"), help="folder (default: docs)")
    f.add_argument("--n-sequences", type=int, default=0, help="sequences per curve (default: the app's 32)")
    args = parser.parse_args(argv)
    if args.command == "merge":
        from posviz.models.train import merge_into

        try:
            merged = merge_into(args.src, args.into)
        except (ValueError, OSError) as err:  # recipes that differ, a file missing from the subset's run
            print(f"python -m posviz.models: error: {err}", file=sys.stderr)
            return 1
        print(f"merged into {args.into}/manifest.json: {', '.join(merged['merged'][-1]['models'])}")
        return 0
    if args.command == "figures":
        import posviz.figures.models  # noqa: F401  (registers the builders)
        from posviz.export import export_figure

        for name, params in EXPORTS.items():
            path = args.out / f"{name}.png"
            path.write_bytes(export_figure(name, dict(params, n_sequences=args.n_sequences), "png"))
            print(f"wrote {path}")
        return 0
    if args.command == "grid":
        from posviz.models.curves import write_grid

        names = None if args.models is None else tuple(n.strip() for n in args.models.split(",") if n.strip())
        written = write_grid(names=names)
        print(f"wrote {pm.WEIGHTS / 'curves.npz'}: {written['curves']} curves, {written['bytes']:,} bytes")
        return 0
    if args.command == "docs":
        from posviz.models.report import write_docs

        print(f"wrote the generated tables of {write_docs()}")
        return 0
    if args.command == "report":
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

    return _train(args, parser)


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
