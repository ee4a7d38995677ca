"""Control specifications: what a page's controls are, how they read from and write to the URL.

Each ``Param`` knows its default, its valid values, how to parse a query-string value (``parse`` raises
``ValueError`` for anything invalid: text, NaN, infinities, out-of-range or off-step numbers, unknown
options, empty strings) and how to draw its Streamlit widget. Parsing needs no streamlit, so it is
tested directly; only ``render`` touches streamlit.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from posviz.i18n import _

# A bound of a control: a number, the name of an earlier control of the lesson (its value is the bound), or a
# function of the values of earlier controls (``hi=lambda v: v.H - 1``). The kit resolves it before drawing.
Bound = float | str | Callable[[Mapping[str, Any]], float]

_INT_RE = re.compile(r"^[+-]?\d{1,18}$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?$")
MAX_URL_VALUE = 2000


def _number(raw: str) -> float:
    text = raw.strip()
    if not text or len(text) > 40 or not _FLOAT_RE.match(text):
        raise ValueError("not a number")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


def _fmt(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:.0e}".replace("e+0", "e").replace("e+", "e")


def _bound_text(hi: Any, hi_max: float | None) -> str:
    if isinstance(hi, (int, float)):
        return _fmt(hi)
    if hi_max is None:
        return hi if isinstance(hi, str) else _("a bound set by the other controls")
    if isinstance(hi, str):
        return _("{control} (at most {hi})", control=hi, hi=_fmt(hi_max))
    return _("a bound set by the other controls (at most {hi})", hi=_fmt(hi_max))


def _label(param: Param) -> tuple[str, str | None]:
    """A control's label and help in the page's language (declared in English, marked with ``N_``; the help's
    placeholders filled with ``help_values``)."""
    return _(param.label), (_(param.help, **dict(param.help_values)) if param.help else param.help)


def _option_label(options: Mapping[str, str]) -> Callable[[str], str]:
    """The label of an option in the page's language."""
    return lambda value: _(options[value])


@dataclass(frozen=True)
class Param:
    """A control: ``name`` is its URL key, ``label`` what the learner reads next to it."""

    name: str
    label: str
    default: Any
    help: str | None = None
    # the sidebar heading this control sits under, folded away (a lesson with many settings groups them by the
    # thing they tune: "ALiBi", "T5"...); None: drawn directly in the sidebar
    group: str | None = dataclasses.field(default=None, kw_only=True)
    # the values of the help's named placeholders ("trained at {trained}"), filled in the page's language: a help
    # that quotes a number known at import time stays one message of the catalog
    help_values: tuple[tuple[str, Any], ...] = dataclasses.field(default=(), kw_only=True)

    def parse(self, raw: str) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_url(self, value: Any) -> str:
        return str(value)

    def valid_text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_widget(self, value: Any) -> Any:
        return value

    def from_widget(self, value: Any) -> Any:
        return value

    def render(self, st: Any, key: str) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def depends_on(self) -> tuple[str, ...]:
        """Names of the controls whose values bound this one (see ``Bound``)."""
        return ()

    def resolve(self, values: Mapping[str, Any]) -> Param:
        """This control with its bounds made concrete from the values of the controls it depends on."""
        return self

    def clamp(self, value: Any) -> Any:
        """``value`` moved into this (resolved) control's range."""
        return value

    @property
    def kind(self) -> str:
        """The control's kind as the course outline names it: int, float, log_float, choice, multi, bool, text."""
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(self).__name__).lower()

    def outline(self) -> dict[str, Any]:
        """What the control is, as plain data: name, kind, label, help, default and its valid values."""
        help_text = self.help.format(**dict(self.help_values)) if self.help and self.help_values else self.help
        return {"name": self.name, "kind": self.kind, "label": self.label, "help": help_text,
                "default": self.default, **self._valid_values()}

    def _valid_values(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class _Ranged(Param):
    """A number control whose ``lo``/``hi`` may depend on other controls (``hi="d"``: at most d).

    ``hi_max`` is the largest value a URL may ask for when ``hi`` is not a number (the URL is read before
    the other controls are known); after that the bound of the moment is applied by :meth:`clamp`.
    """

    lo: Any = 0
    hi: Any = 100
    hi_max: float | None = None

    def depends_on(self) -> tuple[str, ...]:
        return tuple(b for b in (self.lo, self.hi) if isinstance(b, str))

    def static_hi(self) -> float:
        if isinstance(self.hi, (int, float)):
            return self.hi
        if self.hi_max is None:
            raise ValueError(f"control {self.name!r}: a hi that depends on another control needs hi_max")
        return self.hi_max

    def static_lo(self) -> float:
        return self.lo if isinstance(self.lo, (int, float)) else -math.inf

    def resolve(self, values: Mapping[str, Any]) -> Param:
        def concrete(bound: Any) -> float:
            return values[bound] if isinstance(bound, str) else bound(values) if callable(bound) else bound

        lo = concrete(self.lo)
        hi = max(concrete(self.hi), lo)
        if isinstance(self, Int):
            lo, hi = int(lo), int(lo + (int(hi) - int(lo)) // self.step * self.step)
        return dataclasses.replace(self, lo=lo, hi=hi, hi_max=None)

    def clamp(self, value: Any) -> Any:
        return min(max(value, self.lo), self.hi)

    def _valid_values(self) -> dict[str, Any]:
        def bound(b: Any) -> Any:
            if isinstance(b, (int, float)):
                return b
            return {"control": b} if isinstance(b, str) else {"computed_from_other_controls": True}

        at_most = {} if isinstance(self.hi, (int, float)) else {"hi_max": self.hi_max}
        return {"lo": bound(self.lo), "hi": bound(self.hi), **at_most, "step": self.step}


@dataclass(frozen=True)
class Int(_Ranged):
    step: int = 1
    widget: str = "slider"  # or "number"

    def parse(self, raw: str) -> int:
        text = raw.strip()
        if not _INT_RE.match(text):
            raise ValueError("not an integer")
        value = int(text)
        lo = self.static_lo() if self.static_lo() > -math.inf else value
        if not lo <= value <= self.static_hi() or (value - lo) % self.step:
            raise ValueError("out of range")
        return value

    def valid_text(self) -> str:
        hi = _bound_text(self.hi, self.hi_max)
        if self.step != 1:
            return _("an integer from {lo} to {hi} in steps of {step}", lo=self.lo, hi=hi, step=self.step)
        return _("an integer from {lo} to {hi}", lo=self.lo, hi=hi)

    def render(self, st: Any, key: str) -> None:
        label, help_text = _label(self)
        if self.widget == "number" or self.lo == self.hi:  # a slider cannot span a single value
            st.number_input(label, self.lo, self.hi, step=self.step, key=key, help=help_text,
                            disabled=self.lo == self.hi)
        else:
            st.slider(label, self.lo, self.hi, step=self.step, key=key, help=help_text)


@dataclass(frozen=True)
class Float(_Ranged):
    lo: Any = 0.0
    hi: Any = 1.0
    step: float = 0.01
    widget: str = "slider"  # or "number"

    def parse(self, raw: str) -> float:
        value = _number(raw)
        lo, hi = self.static_lo(), self.static_hi()
        if not lo <= value <= hi:
            raise ValueError("out of range")
        base = lo if lo > -math.inf else 0.0
        snapped = base + round((value - base) / self.step) * self.step
        return float(min(max(round(snapped, 10), lo), hi))

    def to_url(self, value: float) -> str:
        return f"{value:g}"

    def valid_text(self) -> str:
        return _("a number from {lo} to {hi}", lo=_fmt(self.lo), hi=_bound_text(self.hi, self.hi_max))

    def render(self, st: Any, key: str) -> None:
        label, help_text = _label(self)
        if self.widget == "number" or self.lo == self.hi:  # a slider cannot span a single value
            st.number_input(label, float(self.lo), float(self.hi), step=float(self.step), key=key,
                            help=help_text, disabled=self.lo == self.hi)
        else:
            st.slider(label, float(self.lo), float(self.hi), step=float(self.step), key=key, help=help_text)


def log_grid(lo: float, hi: float, extra: Sequence[float] = ()) -> tuple[float, ...]:
    """Nice log-spaced values (1, 2, 5 per decade) from lo to hi, plus ``extra`` values, sorted."""
    values = set(extra) | {lo, hi}
    for exp in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        for mant in (1, 2, 5):
            v = mant * 10.0**exp
            if lo <= v <= hi:
                values.add(float(v))
    return tuple(sorted(float(v) for v in values if lo <= v <= hi))


@dataclass(frozen=True)
class LogFloat(Param):
    """A positive number on a log scale: a select-slider over 1-2-5 values per decade (plus extras)."""

    lo: float = 1.0
    hi: float = 1e7
    extra: tuple[float, ...] = ()
    options: tuple[float, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", log_grid(self.lo, self.hi, (self.default, *self.extra)))

    def snap(self, value: float) -> float:
        return min(self.options, key=lambda o: abs(math.log(o) - math.log(value)))

    def parse(self, raw: str) -> float:
        value = _number(raw)
        if not self.lo <= value <= self.hi:
            raise ValueError("out of range")
        return self.snap(value)

    def to_url(self, value: float) -> str:
        return f"{value:g}"

    def valid_text(self) -> str:
        return _("a number from {lo} to {hi}", lo=_fmt(self.lo), hi=_fmt(self.hi))

    def _valid_values(self) -> dict[str, Any]:
        return {"lo": self.lo, "hi": self.hi, "options": list(self.options)}

    def render(self, st: Any, key: str) -> None:
        label, help_text = _label(self)
        st.select_slider(label, options=list(self.options), key=key, help=help_text, format_func=_short)


def _short(x: float) -> str:
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if x >= div:
            q = x / div
            return f"{q:g}{unit}" if q == round(q, 2) else f"{x:g}"
    return f"{x:g}"


@dataclass(frozen=True)
class Choice(Param):
    options: Mapping[str, str] = field(default_factory=dict)  # value -> label
    widget: str = "auto"  # "radio", "select", "segmented" (a row of buttons) or "auto" (radio for <= 4 options)
    aliases: Mapping[str, str] = field(default_factory=dict)  # old URL value -> option (links keep working)

    def parse(self, raw: str) -> str:
        raw = self.aliases.get(raw, raw)
        if raw not in self.options:
            raise ValueError("unknown option")
        return raw

    def valid_text(self) -> str:
        return _("one of {options}", options=", ".join(self.options))

    def _valid_values(self) -> dict[str, Any]:
        return {"options": dict(self.options)}

    def render(self, st: Any, key: str) -> None:
        opts = list(self.options)
        fmt = _option_label(self.options)
        label, help_text = _label(self)
        if self.widget == "segmented":  # one button per option, one always chosen
            st.segmented_control(label, opts, key=key, format_func=fmt, help=help_text, required=True)
        elif self.widget == "radio" or (self.widget == "auto" and len(opts) <= 4):
            st.radio(label, opts, key=key, format_func=fmt, horizontal=True, help=help_text)
        else:
            st.selectbox(label, opts, key=key, format_func=fmt, help=help_text)


@dataclass(frozen=True)
class Multi(Param):
    options: Mapping[str, str] = field(default_factory=dict)

    def parse(self, raw: str) -> tuple[str, ...]:
        items = tuple(dict.fromkeys(x.strip() for x in raw.split(",") if x.strip()))
        if not items or any(x not in self.options for x in items):
            raise ValueError("unknown option")
        return items

    def to_url(self, value: Sequence[str]) -> str:
        return ",".join(value)

    def valid_text(self) -> str:
        return _("a comma-separated list of {options}", options=", ".join(self.options))

    def _valid_values(self) -> dict[str, Any]:
        return {"options": dict(self.options)}

    def to_widget(self, value: Sequence[str]) -> list[str]:
        return list(value)

    def from_widget(self, value: Sequence[str]) -> tuple[str, ...]:
        return tuple(value)

    def render(self, st: Any, key: str) -> None:
        label, help_text = _label(self)
        st.multiselect(label, list(self.options), key=key, format_func=_option_label(self.options), help=help_text)


@dataclass(frozen=True)
class Bool(Param):
    def parse(self, raw: str) -> bool:
        text = raw.strip().lower()
        if text in ("1", "true", "on", "yes"):
            return True
        if text in ("0", "false", "off", "no"):
            return False
        raise ValueError("not a boolean")

    def to_url(self, value: bool) -> str:
        return "1" if value else "0"

    def valid_text(self) -> str:
        return _("1 or 0")

    def render(self, st: Any, key: str) -> None:
        label, help_text = _label(self)
        st.toggle(label, key=key, help=help_text)


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Text(Param):
    """Free text (shown back only as plain text). Control characters are removed; length is capped."""

    max_chars: int = 400
    area: bool = False

    def parse(self, raw: str) -> str:
        text = _CONTROL.sub("", raw)
        if len(text) > self.max_chars:
            raise ValueError("too long")
        return text

    def valid_text(self) -> str:
        return _("text of at most {max_chars} characters", max_chars=self.max_chars)

    def _valid_values(self) -> dict[str, Any]:
        return {"max_chars": self.max_chars}

    def from_widget(self, value: str) -> str:
        return _CONTROL.sub("", value or "")[: self.max_chars]

    def render(self, st: Any, key: str) -> None:
        widget = st.text_area if self.area else st.text_input
        label, help_text = _label(self)
        widget(label, key=key, max_chars=self.max_chars, help=help_text)


def parse_or_default(param: Param, raw: str | None) -> tuple[Any, str | None]:
    """The value for ``raw`` (a query-string value or None) and a warning if it had to fall back."""
    if raw is None:
        return param.default, None
    try:
        if len(raw) > MAX_URL_VALUE:
            raise ValueError("too long")
        return param.parse(raw), None
    except ValueError:
        default = param.to_url(param.default) if not isinstance(param, Text) else _("the example text")
        return param.default, _("URL parameter `{name}` had an invalid value and was ignored; using the default "
                                "({default}). Valid: {valid}.", name=param.name, default=default,
                                valid=param.valid_text())


def values_for(controls: Sequence[Param], read: Callable[[Param, Param], Any],
               earlier: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every control's value, in declaration order: its bounds resolved from the values before it (``earlier``,
    then those of the controls before it here), and the value ``read(control, resolved)`` gives (the URL's, the
    session's, a test's) clamped into them. The page reads its controls through this, so a test of it tests
    what the page does."""
    values = dict(earlier or {})
    out: dict[str, Any] = {}
    for control in controls:
        resolved = control.resolve(values)
        values[control.name] = out[control.name] = resolved.clamp(read(control, resolved))
    return out
