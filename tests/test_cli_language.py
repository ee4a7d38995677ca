"""``posviz export NAME --lang zh``: the figure's text and the command's own messages in Chinese; English stays the
default, a language posviz does not speak is a usage error, and a missing CJK font is named before a rendered
export."""

from __future__ import annotations

import json
import re

import pytest

from posviz import export
from posviz.cli import main
from posviz.cli.export import asked_language

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_lang_is_read_before_the_parser(capsys):
    assert asked_language(["export", "x", "--lang", "zh"]) == "zh"
    assert asked_language(["export", "x", "--lang=zh"]) == "zh"
    assert asked_language(["export", "x", "--lang", "fr"]) == asked_language(["export", "--lang"]) == "en"


def test_help_in_chinese_and_in_english(capsys):
    assert main(["export", "--lang", "zh", "--help"]) == 0
    chinese = capsys.readouterr().out
    assert "--lang" in chinese and "--output" in chinese  # option names stay English
    assert "显示本帮助" in chinese and "图中文字和这些提示信息的语言" in chinese
    assert main(["export", "--help"]) == 0
    english = capsys.readouterr().out
    assert not CJK.search(english) and "language of the figure's text" in english


def test_export_writes_the_figure_in_chinese(tmp_path, capsys):
    en, zh = tmp_path / "en.json", tmp_path / "zh.json"
    assert main(["export", "rope_clock", "-o", str(en)]) == 0
    assert main(["export", "rope_clock", "--lang", "zh", "-o", str(zh)]) == 0
    out = capsys.readouterr().out
    assert f"已写入 {zh}" in out and f"wrote {en}" in out
    names = [[t["name"] for t in json.loads(p.read_text(encoding="utf-8"))["traces"]] for p in (en, zh)]
    assert len(names[0]) == len(names[1]) and names[0] != names[1]
    assert not any(CJK.search(n or "") for n in names[0]) and any(CJK.search(n or "") for n in names[1])
    html = tmp_path / "zh.html"
    assert main(["export", "rope_clock", "--lang", "zh", "-o", str(html)]) == 0
    assert "▶ 播放" in html.read_text(encoding="utf-8")  # the animation's own buttons (the figure kit's)


def test_an_unknown_language_is_a_usage_error(tmp_path, capsys):
    assert main(["export", "rope_clock", "--lang", "fr", "-o", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert "--lang" in err and "fr" in err and not (tmp_path / "x.json").exists()


def test_a_missing_cjk_font_is_named_for_a_rendered_export(tmp_path, capsys, monkeypatch):
    import posviz.theme

    written = []
    monkeypatch.setattr(posviz.theme, "cjk_font_installed", lambda: False)
    monkeypatch.setattr(export, "unavailable", lambda fmts: {})
    monkeypatch.setattr(export, "export_file", lambda path, *args, **kwargs: written.append(path))
    assert main(["export", "rope_clock", "--lang", "zh", "-o", str(tmp_path / "x.png")]) == 0
    assert "Noto Sans CJK SC" in capsys.readouterr().err and written
    assert main(["export", "rope_clock", "-o", str(tmp_path / "y.png")]) == 0
    assert "Noto Sans CJK SC" not in capsys.readouterr().err


@pytest.mark.parametrize(("environ", "lang"), [
    ({}, "en"), ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, "zh"),
    ({"LANGUAGE": "en", "LANG": "zh_CN.UTF-8"}, "en"), ({"LC_MESSAGES": "zh_CN", "LANG": "C"}, "zh"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
])
def test_a_command_speaks_the_environments_language(environ, lang):
    """gettext's order: the first set of LANGUAGE, LC_ALL, LC_MESSAGES, LANG names the language."""
    from posviz import i18n

    assert i18n.environment_language(environ) == lang


def test_the_course_outline_follows_a_chinese_locale(capsys, monkeypatch):
    from posviz import cli

    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    assert cli.main(["lessons"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. 从整数到正弦  (/From_integers_to_sinusoids,") and "本课控件：" in out
    assert cli.main(["nonsense"]) == 2
    assert "posviz：错误：未知命令 'nonsense'" in capsys.readouterr().err
