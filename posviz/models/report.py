"""The tables docs/MODELS.md quotes, generated: the training run (from the manifest) and the evidence (from the
curves the lesson draws). ``python -m posviz.models docs`` writes them between ``<!-- generated: NAME -->`` and
``<!-- end generated -->`` markers; tests/test_models_docs.py checks the file holds what they compute now.
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).parents[2] / "docs" / "MODELS.md"
REPORT_FACTORS = (2.0, 4.0, 8.0, 16.0)
MARKER = re.compile(r"(<!-- generated: (?P<name>[A-Za-z_]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def _label(name: str, rec: dict) -> str:
    return f"{name} ({rec['method']} s = {rec['factor']:g} at inference)" if rec.get("finetuned") else name


def _short(revision: str) -> str:
    """A revision as 7 hex digits, "+dirty" kept: "1a2b3c4+dirty"."""
    head, _, dirty = revision.partition("+")
    return head[:7] + (f"+{dirty}" if dirty else "")


def report_table(manifest: dict) -> str:
    """The training run, one row per model, from the manifest: recipe, time, the metrics at L and at L' = s·L
    (loss above the Bayes floor, retrieval), the code revision and the weights' sha256."""
    L = manifest["train_length"]
    Lp = int(round(manifest["recipe"]["finetune_factor"] * L))
    rows = ["| model | steps × batch at length, peak lr | wall s | CPU s | final train loss | above floor at L "
            f"| retrieval at L | above floor past L at L' = {Lp} | retrieval past L at L' | code | sha256 |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in manifest["models"].items():
        a, b = r["metrics"][f"at_L_{L}"], r["metrics"][f"at_Lprime_{Lp}"]
        rec = r["recipe"]
        rows.append(f"| {_label(name, r)} | {rec['steps']} × {rec['batch']} at {rec['length']}, {rec['lr']:g} | "
                    f"{r['train_seconds']:.0f} | {r['train_cpu_seconds']:.0f} | {r['final_train_loss']:.3f} | "
                    f"{a['excess_over_floor']:.3f} | {a['retrieval']:.1%} | {b['excess_past_L']:.3f} | "
                    f"{b['retrieval_past_L']:.1%} | `{_short(r['git_revision'])}` | `{r['sha256'][:12]}` |")
    return "\n".join(rows)


def run_summary(manifest: dict) -> str:
    """One paragraph: the run's CPU and wall time, jobs and threads, torch, revision, code digest, merged runs."""
    cpu = manifest["total_cpu_seconds"]
    merged = manifest.get("merged", [])
    parts = "".join(f"; merged from a run of {', '.join(m['models'])} ({m['total_seconds']:,.0f} s wall)"
                    for m in merged)
    return (f"Run: {len(manifest['models'])} models, {cpu:,.0f} s of training CPU time in all (about "
            f"{cpu / 120:.0f} min on two free cores with `--jobs 2`, plus a few minutes of CPU for the evaluations "
            f"and the evidence grid); {manifest['total_seconds']:,.0f} s wall for the main run on the shared "
            f"reference machine{parts}. {manifest['threads']} torch thread per worker, torch {manifest['torch']}, "
            f"code revision `{manifest['git_revision']}`, training code sha256 `{manifest['code_sha256'][:16]}…`.")


def _rows() -> list[tuple[str, str, str, tuple[float, ...]]]:
    """(label, model, method, factors) of every row of the evidence tables."""
    import posviz.models as pm
    from posviz.figures.models import SCHEME_LABELS
    from posviz.models.curves import SCHEME_FACTORS
    from posviz.scaling import METHODS as LABELS

    rows = [(f"RoPE, {LABELS[m].label}", "rope", m, REPORT_FACTORS) for m in pm.METHODS]
    rows += [(f"RoPE fine-tuned at {pm.record(f'rope_{m}_ft')['factor']:g}L, {LABELS[m].label}", f"rope_{m}_ft", m,
              (pm.record(f"rope_{m}_ft")["factor"],)) for m in pm.FINETUNED]
    rows += [(SCHEME_LABELS[s], s, "default", tuple(f for f in REPORT_FACTORS if f in SCHEME_FACTORS))
             for s in pm.SCHEMES if s != "rope"]
    return rows


def evidence_table(kind: str) -> str:
    """Markdown table over ``REPORT_FACTORS`` of the lesson's curves (``posviz.models.curve``: 32 sequences,
    seed 0): ``kind="loss"`` the mean loss above the Bayes floor past L, ``"retrieval"`` the retrieval rate past
    L and the effective context."""
    import numpy as np

    import posviz.models as pm

    L = pm.train_length()
    head = "| model, method at inference | " + " | ".join(f"s = {f:g} (L' = {int(f * L)})" for f in REPORT_FACTORS)
    out = [head + " |", "|---|" + "---|" * len(REPORT_FACTORS)]
    for label, name, method, factors in _rows():
        cells = []
        for f in REPORT_FACTORS:
            if f not in factors:
                cells.append("")
                continue
            c = pm.curve(name, int(f * L), method, f if name.startswith("rope") else 1.0)
            if kind == "loss":
                cells.append(f"{pm.past_L(c.loss, L):.2f}")
            else:
                rate = float(np.nanmean(c.retrieval[L:]))
                cells.append(f"{rate:.0%}, {pm.effective_context(c):,}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def generated() -> dict[str, str]:
    """Every generated block of docs/MODELS.md by marker name, computed now."""
    import posviz.models as pm

    man = pm.manifest()
    return {"run": run_summary(man), "training": report_table(man), "past_L": evidence_table("loss"),
            "retrieval": evidence_table("retrieval")}


def fill(text: str, blocks: dict[str, str]) -> str:
    """``text`` with every ``<!-- generated: NAME -->`` block replaced by ``blocks[NAME]``; a KeyError names an
    unknown block."""
    return MARKER.sub(lambda m: m.group(1) + blocks[m.group("name")] + "\n" + m.group(4), text)


def write_docs(path: Path = DOCS) -> Path:
    """Rewrite the generated blocks of docs/MODELS.md from the shipped run."""
    path.write_text(fill(path.read_text(), generated()))
    return path


def past_L_table() -> str:
    """The evidence table of loss above the floor past L (``evidence_table("loss")``), as ``report`` prints."""
    return evidence_table("loss")
