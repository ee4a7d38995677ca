"""The language every string a student sees is shown in: English (the source text) or Simplified Chinese.

Translations are GNU gettext catalogs: ``posviz/locale/<lang>/LC_MESSAGES/<domain>.po``, compiled to ``.mo`` by
Babel (``python scripts/translations.py compile``). A domain is ``posviz`` for the shared kit (controls,
step bar, export, home page, glossary) or a lesson's slug for that lesson's page and figures, so a lesson brings
its own catalog and edits no shared file; at run time every domain's catalog of a language is searched. A message
is the English text with named placeholders (``_("{n} of {total} pairs", n=3, total=16)``); numbers are formatted
by the placeholder's own format spec in both languages, from the same values. ``N_`` marks text declared at import
time (a control's label, a part's title), which the kit translates when it draws it.

The language is held per script run in a context variable (``set_language``), so two students' sessions in one
server never see each other's; work handed to another thread carries it (``in_language``).
"""

from __future__ import annotations

import contextvars
import functools
import gettext as _gettext
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

LANGUAGES: dict[str, str] = {"en": "English", "zh": "中文"}
DEFAULT = "en"
LOCALE_DIR = Path(__file__).with_name("locale")
_LANGUAGE: contextvars.ContextVar[str] = contextvars.ContextVar("posviz_language", default=DEFAULT)
T = TypeVar("T")


def check_language(lang: object) -> str:
    """``lang`` if it is a language posviz speaks ("en", "zh"); ValueError naming it and the choices otherwise."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {', '.join(LANGUAGES)}; got {lang!r}")
    return lang


def environment_language(environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks by default: gettext's rule, the first set of LANGUAGE, LC_ALL, LC_MESSAGES
    and LANG; Chinese for a ``zh`` locale (``zh_CN.UTF-8``), else English."""
    env = os.environ if environ is None else environ
    locale = next((env[k] for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG") if env.get(k)), "")
    return "zh" if locale.lower().startswith("zh") else DEFAULT


def language() -> str:
    """The language of the current script run, request or command ("en" unless set)."""
    return _LANGUAGE.get()


def set_language(lang: str) -> None:
    """Show every later string of this script run (this context) in ``lang``."""
    _LANGUAGE.set(check_language(lang))


@contextmanager
def using(lang: str) -> Iterator[None]:
    """Within the block, strings are in ``lang``; the language before it is restored after."""
    token = _LANGUAGE.set(check_language(lang))
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def in_language(fn: Callable[..., T]) -> Callable[..., T]:
    """``fn`` bound to the current language, for running in another thread (a thread starts in English)."""
    lang = language()

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> T:
        with using(lang):
            return fn(*args, **kwargs)

    return call


@functools.cache
def catalog(lang: str) -> _gettext.NullTranslations:
    """Every domain's compiled catalog of ``lang``, chained (English: none, the source text is English)."""
    chain = _gettext.NullTranslations()
    if lang == DEFAULT:
        return chain
    for path in sorted((LOCALE_DIR / lang / "LC_MESSAGES").glob("*.mo")):
        with path.open("rb") as f:
            chain.add_fallback(_gettext.GNUTranslations(f))
    return chain


def _(message: str, /, **values: Any) -> str:
    """``message`` in the current language, its named placeholders filled with ``values`` (``str.format``)."""
    text = catalog(language()).gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The singular or plural form of a message for count ``n`` in the current language (Chinese has one form);
    ``n`` and ``values`` fill its named placeholders."""
    text = catalog(language()).ngettext(singular, plural, n)
    return text.format(n=n, **values)


def N_(message: str, /) -> str:
    """Mark ``message`` for the catalog without translating it now: text declared at import time, translated by
    the code that shows it (with :func:`_`)."""
    return message

