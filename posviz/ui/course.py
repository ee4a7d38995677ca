"""A lesson declares itself once: slug, title, icon, summary, its controls, and its parts.

    lesson = ui.Lesson("rope", "RoPE", icon="🌀", order=3, summary="...", intro="...",
                       controls=(ui.Int("d", "head dim d", default=64, lo=2, hi=256, step=2), ...))

    @lesson.part("clock", "1. Clock hands", uses=("d",), aliases=("old_key",),
                 controls=(ui.Int("m", "position m", default=3, lo=0, hi=64),))
    def clock(v: ui.Values) -> None:
        own = ui.controls(where="main")          # draws the part's declared controls here: own.m
        ui.figure_panel(rope_clock, dict(dim=v.d, m=own.m), caption="...", key="clock")

    lesson.run()

Every control is declared, the lesson's and each part's own, so the whole course (lessons, parts, controls with
their kind, default and range) is known without running a page: :func:`outline` gives it as data (``posviz
lessons --json``), and the tests, the gallery and the docs read it. A part decides only *where* its controls
are drawn (``ui.controls``).

The slug names the lesson's widget keys (a title can change without breaking anything); the page's address
is its file name in ``pages/`` without the number prefix. The home page's lesson map, the README's table and
cross-links (:func:`link`) are built from these declarations (:func:`lessons` imports every page module to
read them; ``run`` draws nothing when the module is imported rather than run by Streamlit).
"""

from __future__ import annotations

import importlib.util
import re
import sys
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from posviz import i18n
from posviz.i18n import N_, _
from posviz.ui.params import Param

if TYPE_CHECKING:
    from posviz.ui.questions import Question

_REGISTRY: dict[str, Lesson] = {}
_DISCOVERY_LOCK = threading.Lock()


@dataclass(frozen=True)
class Part:
    """One step of a lesson: its URL key, the label of its step, the function that draws it, the lesson
    controls it uses (the sidebar shows only those), old URL keys that still open it, and its own controls
    (drawn where the part calls ``ui.controls``)."""

    key: str
    label: str
    draw: Callable[..., None]
    uses: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    title: str | None = None
    controls: tuple[Param, ...] = ()

    def control(self, name: str) -> Param:
        """The part's own control called ``name`` (ValueError naming the declared ones otherwise)."""
        for control in self.controls:
            if control.name == name:
                return control
        declared = ", ".join(c.name for c in self.controls) or "none"
        raise ValueError(f"part {self.key!r} draws control {name!r}, which it does not declare in controls= "
                         f"(declared: {declared})")


@dataclass
class Lesson:
    """A lesson's declaration (see the module docstring)."""

    slug: str
    title: str
    icon: str
    order: float  # place in the course: 6.5 goes between lessons 6 and 7
    summary: str
    intro: str = ""
    controls: tuple[Param, ...] = ()
    headline: str = ""  # the registered figure that stands for the lesson (the README gallery, the home path)
    # the learning path (None: posviz.ui.path's table says): the lessons to take first (slugs), minutes, optional
    needs: tuple[str, ...] | None = None
    minutes: int | None = None
    optional: bool | None = None
    # check-yourself questions (posviz.ui.questions.Question); None: posviz.ui.questions' table says
    questions: tuple[Question, ...] | None = None
    script: Path = field(default_factory=lambda: Path(sys._getframe(2).f_code.co_filename).resolve())
    parts: dict[str, Part] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_]*", self.slug):
            raise ValueError(f"lesson slug must be lower-case letters, digits and _; got {self.slug!r}")
        names = [c.name for c in self.controls]
        for i, control in enumerate(self.controls):
            unknown = [n for n in control.depends_on() if n not in names[:i]]
            if unknown:
                raise ValueError(f"control {control.name!r} is bounded by {unknown[0]!r}, which is not an earlier "
                                 f"control of lesson {self.slug!r}")
        if len(set(names)) != len(names) or {"part", "present"} & set(names):
            raise ValueError(f"lesson {self.slug!r}: control names must be unique and not 'part' or 'present'")
        self._check_questions()
        _REGISTRY[self.slug] = self

    def _check_questions(self) -> None:
        """``questions=``: a tuple of ``posviz.ui.questions.Question`` (the table in that module is the default)."""
        if self.questions is None:
            return
        from posviz.ui.questions import Question

        if not isinstance(self.questions, tuple) or not all(isinstance(q, Question) for q in self.questions):
            raise ValueError(f"lesson {self.slug!r}: questions must be a tuple of posviz.ui.questions.Question; "
                             f"got {self.questions!r}")

    @property
    def url_path(self) -> str:
        """The page's address path: its file name without the number prefix (``4_RoPE.py`` -> ``RoPE``)."""
        return re.sub(r"^\d+_", "", self.script.stem)

    def part(self, key: str, label: str, *, uses: Iterable[str] = (), aliases: Iterable[str] = (),
             title: str | None = None, controls: Iterable[Param] = ()) -> Callable[[Callable[..., None]],
                                                                                Callable[..., None]]:
        """Declare a part (decorator). ``uses``: the lesson controls it reads; ``title``: its heading
        (default: ``label``); ``controls``: its own controls (a bound may name a lesson control or an earlier
        one of these)."""
        uses, aliases, controls = tuple(uses), tuple(aliases), tuple(controls)
        unknown = [u for u in uses if u not in self.control_names]
        if unknown:
            raise ValueError(f"part {key!r} uses {unknown[0]!r}, which lesson {self.slug!r} does not declare")
        taken = {k for p in self.parts.values() for k in (p.key, *p.aliases)}
        if taken & {key, *aliases}:
            raise ValueError(f"part key or alias {sorted(taken & {key, *aliases})[0]!r} used twice")
        self._check_part_controls(key, controls)

        def register(draw: Callable[..., None]) -> Callable[..., None]:
            self.parts[key] = Part(key, label, draw, uses, aliases, title, controls)
            return draw

        return register

    def _check_part_controls(self, key: str, controls: tuple[Param, ...]) -> None:
        """A part's own controls: bounded by a lesson control or an earlier one of the part; a name the lesson
        uses for its own controls is refused, and two parts naming the same control must declare it alike
        (it is one URL parameter)."""
        known = list(self.control_names)
        others = {c.name: c for p in self.parts.values() for c in p.controls}
        for control in controls:
            unknown = [n for n in control.depends_on() if n not in known]
            if unknown:
                raise ValueError(f"part {key!r}: control {control.name!r} is bounded by {unknown[0]!r}, which is "
                                 "neither a lesson control nor an earlier control of the part")
            if control.name in self.control_names or control.name in ("part", "present"):
                raise ValueError(f"part {key!r}: control name {control.name!r} is taken by the lesson or the kit")
            if control.name in others and others[control.name] != control:
                raise ValueError(f"part {key!r}: control {control.name!r} is declared differently by another part")
            if control.name in known:
                raise ValueError(f"part {key!r}: control {control.name!r} declared twice")
            known.append(control.name)

    @property
    def control_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.controls)

    def run(self) -> None:
        """Draw the lesson (when Streamlit runs the page; nothing when the module is only imported)."""
        caller = sys._getframe(1).f_globals.get("__name__")
        if caller != "__main__":
            return
        from posviz.ui.run import run_lesson  # the page imports streamlit; declarations must not need it

        run_lesson(self)


def quiet_outside_a_server() -> None:
    """Silence Streamlit's notices below errors: a page read outside a server (``posviz lessons``, a benchmark)
    logs that its caches have no runtime, which is expected there and no warning to the reader."""
    import streamlit.logger

    streamlit.logger.set_log_level("error")


def _pages_dir(pages_dir: Path | None) -> Path:
    if pages_dir is None:  # the checkout's pages/, or in an installed wheel the copy in posviz/_app/
        from posviz._app_files import app_dir

        pages_dir = app_dir() / "pages"
    return Path(pages_dir)


def is_reference_page(path: Path) -> bool:
    """A page in pages/ that is not a lesson (the glossary): it declares no ``ui.Lesson`` and draws itself with
    ``ui.plain_page``. Every other page must declare a lesson."""
    text = Path(path).read_text(encoding="utf-8")
    return "Lesson(" not in text and "plain_page(" in text


def reference_pages(pages_dir: Path | None = None) -> list[Path]:
    """The pages in ``pages_dir`` that are not lessons (:func:`is_reference_page`), by file name."""
    return [p for p in sorted(_pages_dir(pages_dir).glob("*.py")) if is_reference_page(p)]


def lessons(pages_dir: Path | None = None) -> list[Lesson]:
    """Every lesson of the app, in course order, read from the page modules in ``pages_dir`` (reference pages
    such as the glossary are not lessons and are left out)."""
    pages_dir = _pages_dir(pages_dir)
    found = []
    with _DISCOVERY_LOCK:
        for path in sorted(pages_dir.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "Lesson(" not in text and "plain_page(" in text:  # a reference page (is_reference_page)
                continue
            if "Lesson(" not in text:
                raise ValueError(f"{path.name} declares no ui.Lesson and is no ui.plain_page: every page in pages/ "
                                 "is a lesson or a reference page")
            script = path.resolve()  # once per page: resolving is most of a call's time
            found += [ls for ls in _REGISTRY.values() if ls.script == script] or _import_page(path)
    return sorted({ls.slug: ls for ls in found}.values(), key=lambda ls: ls.order)


def _import_page(path: Path) -> list[Lesson]:
    """Import a page module (its ``lesson.run()`` draws nothing then) and return the lessons it declares."""
    name = "_posviz_page_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return [v for v in vars(module).values() if isinstance(v, Lesson)]


def find(slug: str, pages_dir: Path | None = None) -> Lesson:
    """The lesson declared with ``slug`` (ValueError naming the known slugs otherwise)."""
    known = {ls.slug: ls for ls in lessons(pages_dir)}
    if slug not in known:
        raise ValueError(f"no lesson with slug {slug!r}; lessons: {', '.join(known)}")
    return known[slug]


def href(slug: str, pages_dir: Path | None = None, **query: object) -> str:
    """The relative address of lesson ``slug`` with ``query`` (a link that opens a view of it), in the current
    language (``lang`` added when it is not English)."""
    lesson = find(slug, pages_dir)
    if i18n.language() != i18n.DEFAULT and "lang" not in query:
        query = {**query, "lang": i18n.language()}
    part = query.get("part")
    known = {k for p in lesson.parts.values() for k in (p.key, *p.aliases)}
    if part is not None and known and part not in known:
        raise ValueError(f"lesson {slug!r} has no part {part!r}; parts: {', '.join(lesson.parts)}")
    return app_path(lesson.url_path) + ("?" + urllib.parse.urlencode(query) if query else "")


def app_path(page: str) -> str:
    """The absolute path of the app's page ``page`` (``"RoPE"``, ``"Glossary#offset"``) behind the server's
    ``server.baseUrlPath``: a markdown link "/RoPE" would leave an app served under "/course/" for the host's
    root. Read when the link is made, so it follows the running server's setting ("" outside a server)."""
    base = ""
    if "streamlit" in sys.modules:  # declarations and the CLI must not need streamlit; a page has imported it
        base = str(sys.modules["streamlit"].get_option("server.baseUrlPath") or "").strip("/")
    return "/" + "/".join(filter(None, (base, page)))


def link(slug: str, part: str | None = None, text: str | None = None, pages_dir: Path | None = None,
         **query: object) -> str:
    """A markdown link to lesson ``slug`` (at ``part`` with ``query``), showing ``text`` or, by default, the
    lesson's title and the part's label ("RoPE: 9. Which pairs matter") in the current language; a wrong slug or
    part raises as :func:`href` does."""
    address = href(slug, pages_dir, **({"part": part} if part else {}), **query)
    if text is None:
        lesson = find(slug, pages_dir)
        label = next((p.label for p in lesson.parts.values() if part in (p.key, *p.aliases)), None)
        title = _(lesson.title)
        text = _("{lesson}: {part}", lesson=title, part=_(label)) if label else title
    return f"[{text}]({address})"


def markdown_table(items: Iterable[Lesson]) -> str:
    """The README's table of lessons: title (linked to its page in the repository) and summary."""
    rows = [f"| [{ls.icon} {ls.title}](pages/{ls.script.name}) | {ls.summary} |" for ls in items]
    return "\n".join(["| Lesson | What it teaches |", "|---|---|", *rows])


GLOSSARY_PATH = "Glossary"  # the glossary page's address: pages/99_Glossary.py without its number
GLOSSARY_TITLE = N_("Glossary and notation")  # its title, which the home page and the sidebar repeat


README_START, README_END = "<!-- lessons:start -->", "<!-- lessons:end -->"


def gallery_image(lesson: Lesson) -> str:
    """Where ``docs/gallery/make.sh`` writes ``lesson``'s headline figure: named after its page file."""
    return f"docs/gallery/{lesson.script.stem.lower()}.png"


def markdown_gallery(items: Iterable[Lesson]) -> str:
    """The README's folded gallery: each lesson's headline figure at blog size, in course order."""
    lines = [f"![{ls.title}]({gallery_image(ls)})" for ls in items]
    summary = "Gallery: each lesson's headline figure at blog size (<code>sh docs/gallery/make.sh</code>)"
    return "\n".join([f"<details><summary>{summary}</summary>", "", *lines, "", "</details>"])


def readme_with_table(readme: str, items: Iterable[Lesson]) -> str:
    """``readme`` with the block between the lesson markers replaced by :func:`markdown_table` and
    :func:`markdown_gallery`: everything the README says per lesson is made from the declarations."""
    head, rest = readme.split(README_START, 1)
    _table, tail = rest.split(README_END, 1)
    items = list(items)
    return f"{head}{README_START}\n{markdown_table(items)}\n\n{markdown_gallery(items)}\n{README_END}{tail}"


def outline(items: Iterable[Lesson]) -> dict[str, Any]:
    """The course as plain data (``posviz lessons --json``): each lesson's title, slug, page, address and order,
    its controls, and each part's key, title, the lesson controls it uses and its own controls."""
    def part_outline(part: Part) -> dict[str, Any]:
        return {"key": part.key, "label": part.label, "title": part.title or part.label, "aliases": list(part.aliases),
                "uses": list(part.uses), "controls": [c.outline() for c in part.controls]}

    return {"lessons": [
        {"title": ls.title, "slug": ls.slug, "icon": ls.icon, "order": ls.order, "page": f"pages/{ls.script.name}",
         "url_path": ls.url_path, "summary": ls.summary, "headline": ls.headline,
         "controls": [c.outline() for c in ls.controls],
         "parts": [part_outline(p) for p in ls.parts.values()]}
        for ls in items]}


def outline_text(items: Iterable[Lesson]) -> str:
    """The course as a readable outline (``posviz lessons``), in the current language: lessons, their parts, every
    control by name."""
    def names(controls: Iterable[Param] | Iterable[str]) -> str:
        return ", ".join(c if isinstance(c, str) else c.name for c in controls) or _("none")

    lines = []
    for ls in items:
        lines += [f"{ls.order}. {_(ls.title)}  (/{ls.url_path}, {ls.script.name})",
                  _("   lesson controls: {names}", names=names(ls.controls))]
        for part in ls.parts.values():
            own = _("; own: {names}", names=names(part.controls)) if part.controls else ""
            lines.append(_("   - {label}  [part={key}]  uses: {uses}{own}", label=_(part.label), key=part.key,
                           uses=names(part.uses), own=own))
    return "\n".join(lines)


def write_readme() -> Path:
    """Rewrite README.md's lesson table and gallery from the declarations (``python -m posviz.ui``)."""
    readme = Path(__file__).resolve().parents[2] / "README.md"
    readme.write_text(readme_with_table(readme.read_text(encoding="utf-8"), lessons()), encoding="utf-8")
    return readme
