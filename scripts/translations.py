"""The translation catalogs' tools, with Babel (a dev dependency): ``extract`` writes the template of every message
the sources mark (``_``, ``N_``, ``ngettext``) to ``posviz/locale/posviz.pot``; ``compile`` writes each
``posviz/locale/<lang>/LC_MESSAGES/<domain>.po`` to the ``.mo`` the app reads; ``missing`` lists the marked messages
no catalog of a language translates. Run from the repository: ``python scripts/translations.py compile``.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_file
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "posviz" / "locale"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
SOURCES = ("Home.py", "app.py", "pages/*.py", "posviz/**/*.py")


def sources() -> list[Path]:
    """Every Python file whose strings can reach a student."""
    return sorted({p for pattern in SOURCES for p in ROOT.glob(pattern) if "__pycache__" not in p.parts})


def extract() -> Catalog:
    """Every marked message of the sources, with where it is used."""
    template = Catalog(project="posviz", charset="utf-8")
    for path in sources():
        rel = path.relative_to(ROOT).as_posix()
        for line, message, comments, context in extract_from_file("python", path, keywords=KEYWORDS):
            template.add(message, None, [(rel, line)], auto_comments=comments, context=context)
    return template


STAMP = datetime(2026, 1, 1, tzinfo=UTC)  # the header's dates, so compiling twice writes the same bytes


def read(po: Path) -> Catalog:
    with po.open("rb") as f:
        catalog = read_po(f)
    catalog.creation_date = catalog.revision_date = STAMP
    return catalog


def compile_all() -> list[Path]:
    """Each catalog compiled to the ``.mo`` beside it; the files written."""
    written = []
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        with mo.open("wb") as f:
            write_mo(f, read(po))
        written.append(mo)
    return written


def missing(lang: str) -> list[str]:
    """The marked messages that no catalog of ``lang`` translates."""
    translated = {m.id for po in LOCALE.glob(f"{lang}/LC_MESSAGES/*.po") for m in read(po) if m.id and m.string}
    return sorted(str(m.id) for m in extract() if m.id and m.id not in translated)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/translations.py", description=__doc__)
    parser.add_argument("command", choices=("extract", "compile", "missing"))
    parser.add_argument("--lang", default="zh")
    args = parser.parse_args(argv)
    if args.command == "extract":
        with (LOCALE / "posviz.pot").open("wb") as f:
            write_po(f, extract(), width=118)
        print(f"wrote {LOCALE / 'posviz.pot'}")
    elif args.command == "compile":
        for path in compile_all():
            print(f"wrote {path.relative_to(ROOT)}")
    else:
        for message in missing(args.lang):
            print(repr(message) if isinstance(message, str) else message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
