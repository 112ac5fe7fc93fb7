"""One theme module holds every colour; both themes keep text at 4.5:1 or more; the scale
and the theme are changed from the keyboard and kept; ``gui --theme/--scale`` apply them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QPalette

from annotator.gui import theme

pytestmark = pytest.mark.gui

GUI = Path(theme.__file__).parent
HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")


@pytest.fixture(autouse=True)
def back_to_light(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """Tests share one QApplication: leave it in the light theme at scale 1."""
    yield
    theme.apply(qapp, "light", 1.0)


@pytest.mark.parametrize(
    ("foreground", "background", "expected"),
    [("#000000", "#ffffff", 21.0), ("#ffffff", "#ffffff", 1.0), ("#777777", "#ffffff", 4.48),
     ("#767676", "#ffffff", 4.54), ("#ff0000", "#ffffff", 4.0), ("#0000ff", "#ffffff", 8.59)],
)
def test_contrast_matches_wcag_reference_values(foreground, background, expected) -> None:  # type: ignore[no-untyped-def]
    # References: WCAG 2's definition; #767676 is WebAIM's lightest grey passing AA on white.
    assert theme.contrast(foreground, background) == pytest.approx(expected, abs=0.01)
    assert theme.contrast(background, foreground) == pytest.approx(expected, abs=0.01)


@pytest.mark.parametrize("name", theme.THEMES)
def test_every_text_pair_of_the_theme_reaches_4_5_to_1(name: str) -> None:
    palette = theme.PALETTES[name]
    low = [(fg, bg, round(theme.contrast(palette[fg], palette[bg]), 2))
           for fg, bg in theme.TEXT_PAIRS if theme.contrast(palette[fg], palette[bg]) < 4.5]
    assert low == []


def test_both_themes_name_the_same_colours() -> None:
    assert set(theme.LIGHT) == set(theme.DARK)
    used = {n for pair in theme.TEXT_PAIRS for n in pair}
    assert used <= set(theme.LIGHT)


def test_no_colour_is_written_outside_the_theme_module() -> None:
    found = [f"{path.relative_to(GUI)}:{n}" for path in GUI.rglob("*.py") if path.name != "theme.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if HEX.search(line) or "QColor(\"" in line]
    assert found == []


@pytest.mark.parametrize("name", theme.THEMES)
def test_disabled_text_stays_readable(qapp, name: str) -> None:  # type: ignore[no-untyped-def]
    """A submitted verdict's form is disabled: its text was grey on grey (Fusion: 1.9:1)."""
    theme.apply(qapp, name, 1.0)
    palette = qapp.palette()
    disabled = QPalette.ColorGroup.Disabled
    for text, ground in ((QPalette.ColorRole.Text, QPalette.ColorRole.Base),
                         (QPalette.ColorRole.WindowText, QPalette.ColorRole.Window),
                         (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Button)):
        ratio = theme.contrast(palette.color(disabled, text).name(),
                               palette.color(disabled, ground).name())
        assert ratio >= 4.5, (text, ratio)


def test_every_style_template_names_known_colours() -> None:
    templates = re.compile(r"\$([a-z_]+)")
    for path in (p for p in GUI.rglob("*.py") if p.name != "theme.py"):
        for name in templates.findall(path.read_text(encoding="utf-8")):
            assert name in theme.LIGHT, f"{path.name}: ${name}"


def test_ctrl_plus_and_minus_scale_the_interface_and_keep_it(qtbot, make_window, qapp) -> None:  # type: ignore[no-untyped-def]
    theme.apply(qapp, "light", 1.0)
    base = qapp.font().pointSizeF()
    window = make_window()
    assert window.registry.shortcut("app.scale_up") == "Ctrl+="
    assert window.registry.shortcut("app.scale_down") == "Ctrl+-"
    assert window.registry.conflicts() == []
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert theme.scale() == pytest.approx(1.2)
    assert qapp.font().pointSizeF() == pytest.approx(base * 1.2)
    qtbot.keyClick(window, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
    assert theme.scale() == pytest.approx(1.1)
    assert float(QSettings().value("appearance/scale")) == pytest.approx(1.1)  # type: ignore[arg-type]
    assert theme.saved_scale() == pytest.approx(1.1)


def test_the_theme_toggle_rebuilds_the_pages_in_dark_and_keeps_the_choice(  # type: ignore[no-untyped-def]
    qtbot, make_window, qapp
) -> None:
    window = make_window(user="cu")
    window.show_page("export")
    before = window.built["export"]
    qtbot.keyClick(window, Qt.Key.Key_L,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert theme.name() == "dark" and QSettings().value("appearance/theme") == "dark"
    assert qapp.palette().color(QPalette.ColorRole.Window).name() == theme.DARK["window"]
    assert window.page_ids[window.tabs.currentIndex()] == "export"
    assert window.built["export"] is not before  # rebuilt in the new colours
    assert theme.DARK["topbar"] in window.top_bar.styleSheet()
    window.set_theme("system")
    assert QSettings().value("appearance/theme") == "system"
    assert theme.name() == theme.system_theme()


def test_gui_theme_and_scale_options_apply_for_the_run(qtbot, project_dir, qapp) -> None:  # type: ignore[no-untyped-def]
    from annotator.cli import build_parser
    from annotator.gui.app import open_window

    theme.apply(qapp, "light", 1.0)
    base = qapp.font().pointSizeF()
    args = build_parser().parse_args(["--project", str(project_dir), "--as", "a1", "gui",
                                      "--theme", "dark", "--scale", "1.5"])
    window = open_window(args)
    qtbot.addWidget(window)
    assert theme.name() == "dark"
    assert qapp.font().pointSizeF() == pytest.approx(base * 1.5)
    assert QSettings().value("appearance/theme") is None  # for this run only
    window.context.project.close()


def test_a_scale_out_of_range_is_refused_in_one_line(project_dir) -> None:  # type: ignore[no-untyped-def]
    from annotator.cli import build_parser
    from annotator.errors import AnnotatorError
    from annotator.gui.app import run_gui

    args = build_parser().parse_args(["--project", str(project_dir), "gui", "--scale", "9",
                                      "--screenshot", "x.png"])
    with pytest.raises(AnnotatorError, match="--scale 9.0 is out of range"):
        run_gui(args)


def test_following_the_system_switches_when_the_desktop_does(  # type: ignore[no-untyped-def]
    make_window, monkeypatch
) -> None:
    window = make_window()
    assert theme.saved_choice() == "system" and theme.name() == "light"
    monkeypatch.setattr(theme, "system_theme", lambda: "dark")
    window.system_scheme_changed()
    assert theme.name() == "dark"
    window.set_theme("light")  # a chosen theme stays, whatever the desktop does
    window.system_scheme_changed()
    assert theme.name() == "light"
