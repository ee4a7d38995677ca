"""``python -m posviz.models train``: train every shipped model (see posviz.models.train)."""

import argparse
import sys
from pathlib import Path

from posviz.models import WEIGHTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m posviz.models", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="train every scheme at L and the PI/YaRN fine-tunes; write weights")
    t.add_argument("--out", type=Path, default=WEIGHTS, help="output folder (default: the shipped weights)")
    t.add_argument("--steps", type=int, default=None, help="training steps per scheme")
    t.add_argument("--finetune-steps", type=int, default=None, help="fine-tune steps (0: no fine-tunes)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a busy machine)")
    t.add_argument("--jobs", type=int, default=2, help="worker processes (one model each)")
    t.add_argument("--schemes", default=None, help="comma-separated subset of the schemes")
    args = parser.parse_args(argv)

    from dataclasses import replace

    from posviz.models import SCHEMES
    from posviz.models.train import Recipe, run

    recipe = Recipe(seed=args.seed)
    if args.steps is not None:
        recipe = replace(recipe, steps=args.steps)
    if args.finetune_steps:
        recipe = replace(recipe, finetune_steps=args.finetune_steps)
    schemes = SCHEMES if args.schemes is None else tuple(s.strip() for s in args.schemes.split(",") if s.strip())
    unknown = [s for s in schemes if s not in SCHEMES]
    if unknown:
        parser.error(f"--schemes: unknown {unknown[0]!r}; choose from {', '.join(SCHEMES)}")
    manifest = run(args.out, recipe, args.threads, schemes, finetune=args.finetune_steps != 0, jobs=args.jobs)
    print(f"wrote {args.out}/manifest.json ({manifest['total_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
