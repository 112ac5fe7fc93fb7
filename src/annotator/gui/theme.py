"""Every colour of the app, in a light and a dark theme, and the interface scale.

Widgets never name a colour: they ask :func:`colour` for a role ("text_dim", "danger") or
fill a style sheet template with :func:`css` (``$name`` placeholders). :data:`TEXT_PAIRS`
lists every text-on-background pair the themes draw, so a test can hold each of them to
WCAG's 4.5:1 contrast. The theme is "system" (follow the desktop's colour scheme), "light"
or "dark"; the choice and the scale are kept in the user's settings (``appearance/...``).
Changing either rebuilds the pages, which read their colours when they are built.
"""

from __future__ import annotations

from string import Template

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

THEMES = ("light", "dark")
CHOICES = ("system", *THEMES)
SCALE_STEP, SCALE_MIN, SCALE_MAX = 0.1, 0.5, 3.0

LIGHT: dict[str, str] = {
    # the window and its standard widgets (QPalette)
    "window": "#f2f3f5", "base": "#ffffff", "alt_base": "#f5f6f8", "button": "#e9ebee",
    "text": "#1b1f23", "text_dim": "#50575e", "disabled_text": "#5b6268", "border": "#b9bec4",
    "highlight": "#1f6fc5", "on_highlight": "#ffffff", "link": "#1a5fb4",
    "tooltip": "#fffbe6", "tooltip_text": "#1b1f23",
    # the top bar with the page tabs
    "topbar": "#2c3e50", "topbar_text": "#ffffff", "tab_text": "#dfe6ee", "tab_accent": "#5dade2",
    "topbar_hover": "#3d566e", "send": "#1e7e45", "send_disabled": "#4f7f63", "on_send": "#ffffff",
    # messages
    "danger": "#b03a2e", "warning": "#8a5200", "success": "#1e6f3d", "suggestion": "#6c3483",
    "on_danger": "#ffffff",
    # case states: a coloured word in lists, white on the colour in chips
    "state_assigned": "#5a6566", "state_in_progress": "#8a5200", "state_submitted": "#1e6f3d",
    "chip_assigned": "#5a6566", "chip_in_progress": "#95570a", "chip_submitted": "#1e7040",
    "on_chip": "#ffffff",
    # importance badges on exam cards: white on the colour, or the colour as a dashed hint
    "essential": "#b03a2e", "optional": "#8a5200", "unnecessary": "#5a6566",
    "flag": "#b03a2e", "stage": "#1f6fc5", "meta_ok": "#1e6f3d",
    "card": "#ffffff", "card_selected": "#eaf2fb", "card_border": "#c8ccd0",
    "card_border_selected": "#2e86de", "card_text": "#1b1f23", "card_text_dim": "#4a5056",
    # the order board and the label panel
    "board": "#eef0f3", "board_title": "#3a3f44", "zone_title": "#4a5056",
    "column": "#ffffff", "column_border": "#c8ccd0", "empty_border": "#9aa0a6",
    "unranked": "#f4f4f4", "tray": "#fbf8ef", "tray_border": "#c9b37e", "tray_text": "#5d4e2b",
    "hover": "#d6eaf8", "hover_border": "#2e86de",
    "chip": "#eaf2fb", "chip_border": "#9cc3ea", "chip_current": "#d6eaf8",
    "fixed": "#fff4e0", "value": "#ffffff", "value_border": "#b9bec4", "value_on": "#1f6fc5",
    "value_on_border": "#1b6fc2",
    "missing": "#fdf2e9", "missing_border": "#f0b27a", "problems": "#fdedec",
    "problems_border": "#e6b0aa", "problems_fixed": "#e9f7ef", "problems_fixed_border": "#a9dfbf",
    "progress": "#f4f5f7", "progress_chunk": "#a9dfbf",
    # images: always dark, whatever the theme (radiology is read on black)
    "viewer": "#111315", "viewer_bar": "#1d2023", "viewer_text": "#e8e8e8",
    # SME, judge and meta-review pages
    "choice": "#1f6fc5", "on_choice": "#ffffff", "rubric": "#eee8f6",
    "diff_changed": "#875400", "diff_missing": "#b03a2e", "diff_extra": "#1f5f99",
    "picked": "#eef4fd", "picked_border": "#1a73e8", "frame_border": "#c8c8c8",
    "open": "#b3261e", "decided": "#1b6e20", "overridden": "#6a4fb3", "moot": "#5f5f5f",
    "agreed": "#555555", "elsewhere": "#7a5200",
    # the round trip's import table
    "added": "#1e7d32", "unchanged": "#555555", "stale": "#8a5200", "refused": "#b71c1c",
    # dashed hints and alerts on exam cards and frames
    "essential_text": "#b03a2e", "optional_text": "#8a5200", "unnecessary_text": "#5a6566",
    "meta_ok_text": "#1e6f3d", "flag_text": "#b03a2e", "danger_bg": "#b03a2e",
    "card_frame": "#fafafa",
}

DARK: dict[str, str] = {
    "window": "#1f2226", "base": "#17191c", "alt_base": "#23272c", "button": "#2c3036",
    "text": "#e6e8eb", "text_dim": "#aab1b9", "disabled_text": "#949ba3", "border": "#4d545c",
    "highlight": "#2f6db3", "on_highlight": "#ffffff", "link": "#8cc4ff",
    "tooltip": "#2c3036", "tooltip_text": "#e6e8eb",
    "topbar": "#15202b", "topbar_text": "#ffffff", "tab_text": "#d3dbe4", "tab_accent": "#5dade2",
    "topbar_hover": "#2a3a4b", "send": "#1e7e45", "send_disabled": "#3d5a49", "on_send": "#ffffff",
    "danger": "#ff8a80", "warning": "#f0b45a", "success": "#7dd99b", "suggestion": "#d2a8ff",
    "on_danger": "#ffffff",
    "state_assigned": "#b5bcc2", "state_in_progress": "#f0b45a", "state_submitted": "#7dd99b",
    "chip_assigned": "#5a6566", "chip_in_progress": "#95570a", "chip_submitted": "#1e7040",
    "on_chip": "#ffffff",
    "essential": "#b03a2e", "optional": "#8a5200", "unnecessary": "#5a6566",
    "flag": "#b03a2e", "stage": "#2f6db3", "meta_ok": "#1e6f3d",
    "card": "#23272c", "card_selected": "#1d3a5c", "card_border": "#4d545c",
    "card_border_selected": "#5dade2", "card_text": "#e6e8eb", "card_text_dim": "#b5bcc2",
    "board": "#1b1e22", "board_title": "#cfd4da", "zone_title": "#b5bcc2",
    "column": "#23272c", "column_border": "#4d545c", "empty_border": "#6b727a",
    "unranked": "#262a2f", "tray": "#2b2820", "tray_border": "#8a7a4e", "tray_text": "#e3d3a6",
    "hover": "#1d3a5c", "hover_border": "#5dade2",
    "chip": "#1d3048", "chip_border": "#3f6b99", "chip_current": "#1d3a5c",
    "fixed": "#3a3020", "value": "#2c3036", "value_border": "#5a6168", "value_on": "#2f6db3",
    "value_on_border": "#5dade2",
    "missing": "#3a2a1c", "missing_border": "#a86a30", "problems": "#3a2020",
    "problems_border": "#8a4a44", "problems_fixed": "#1e3327", "problems_fixed_border": "#3f7a56",
    "progress": "#2c3036", "progress_chunk": "#2f6b48",
    "viewer": "#111315", "viewer_bar": "#1d2023", "viewer_text": "#e8e8e8",
    "choice": "#2f6db3", "on_choice": "#ffffff", "rubric": "#2e2838",
    "diff_changed": "#f0b45a", "diff_missing": "#ff8a80", "diff_extra": "#8cc4ff",
    "picked": "#1d3048", "picked_border": "#5dade2", "frame_border": "#4d545c",
    "open": "#ff8a80", "decided": "#7dd99b", "overridden": "#c3b1ff", "moot": "#aab1b9",
    "agreed": "#aab1b9", "elsewhere": "#f0b45a",
    "added": "#7dd99b", "unchanged": "#aab1b9", "stale": "#f0b45a", "refused": "#ff8a80",
    "essential_text": "#ff8a80", "optional_text": "#f0b45a", "unnecessary_text": "#b5bcc2",
    "meta_ok_text": "#7dd99b", "flag_text": "#ff8a80", "danger_bg": "#b03a2e",
    "card_frame": "#23272c",
}

PALETTES = {"light": LIGHT, "dark": DARK}

# Every text colour the app draws, with every background it is drawn on.
_ON_SURFACES = ("base", "window", "alt_base")
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    *((fg, bg) for fg in ("text", "text_dim", "disabled_text", "link", "danger", "warning",
                          "success", "suggestion", "state_assigned", "state_in_progress",
                          "state_submitted", "diff_changed", "diff_missing", "diff_extra",
                          "open", "decided", "overridden", "moot", "agreed", "elsewhere",
                          "added", "unchanged", "stale", "refused", "flag_text")
      for bg in _ON_SURFACES),
    ("text", "button"), ("disabled_text", "button"), ("on_highlight", "highlight"),
    ("tooltip_text", "tooltip"),
    ("topbar_text", "topbar"), ("tab_text", "topbar"), ("topbar_text", "topbar_hover"),
    ("on_send", "send"), ("on_send", "send_disabled"), ("on_danger", "danger_bg"),
    ("on_chip", "chip_assigned"), ("on_chip", "chip_in_progress"), ("on_chip", "chip_submitted"),
    ("on_chip", "essential"), ("on_chip", "optional"), ("on_chip", "unnecessary"),
    ("on_chip", "flag"), ("on_chip", "stage"),
    ("card_text", "card"), ("card_text_dim", "card"), ("card_text", "card_selected"),
    ("card_text_dim", "card_selected"), ("essential_text", "card"), ("optional_text", "card"),
    ("unnecessary_text", "card"), ("meta_ok_text", "card"),
    ("board_title", "board"), ("zone_title", "column"), ("zone_title", "unranked"),
    ("zone_title", "tray"), ("tray_text", "tray"), ("text", "column"), ("text", "chip"),
    ("text", "chip_current"), ("text", "hover"), ("text", "fixed"), ("text", "value"),
    ("on_choice", "value_on"), ("on_choice", "choice"), ("text", "missing"),
    ("text", "problems"), ("text", "problems_fixed"), ("text", "progress"),
    ("text", "progress_chunk"), ("viewer_text", "viewer"), ("viewer_text", "viewer_bar"),
    ("text", "rubric"), ("flag_text", "rubric"), ("text", "picked"), ("text", "card_frame"),
)
_active = dict(LIGHT)
_active_name = "light"
_scale = 1.0
_base_point_size: float | None = None


def contrast(foreground: str, background: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21)."""

    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def name() -> str:
    """The theme in use: "light" or "dark"."""
    return _active_name


def colour(role: str) -> str:
    """The active theme's colour for ``role``, as ``#rrggbb``."""
    return _active[role]


def qcolour(role: str) -> QColor:
    return QColor(_active[role])


def span(role: str, inner_html: str) -> str:
    """``inner_html`` in the role's colour, for rich-text labels."""
    return f"<span style='color:{_active[role]}'>{inner_html}</span>"


def css(template: str) -> str:
    """A style sheet with each ``$role`` replaced by the active theme's colour."""
    return Template(template).substitute(_active)


def system_theme() -> str:
    """The desktop's colour scheme as "light" or "dark" (light when it does not say)."""
    scheme = QGuiApplication.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


def resolve(choice: str) -> str:
    """ "system" -> the desktop's theme; "light" and "dark" stay."""
    return system_theme() if choice == "system" else choice


def saved_choice() -> str:
    value = str(QSettings().value("appearance/theme", "system"))
    return value if value in CHOICES else "system"


def saved_scale() -> float:
    try:
        value = float(QSettings().value("appearance/scale", 1.0))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1.0
    return clamp_scale(value)


def clamp_scale(value: float) -> float:
    return round(min(SCALE_MAX, max(SCALE_MIN, value)), 2)


def _qt_palette(colours: dict[str, str]) -> QPalette:
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    palette = QPalette()
    pairs = {role.Window: "window", role.WindowText: "text", role.Base: "base",
             role.AlternateBase: "alt_base", role.Text: "text", role.Button: "button",
             role.ButtonText: "text", role.BrightText: "on_danger", role.Highlight: "highlight",
             role.HighlightedText: "on_highlight", role.ToolTipBase: "tooltip",
             role.ToolTipText: "tooltip_text", role.PlaceholderText: "text_dim",
             role.Link: "link", role.Mid: "border", role.Dark: "border"}
    for qt_role, key in pairs.items():
        palette.setColor(qt_role, QColor(colours[key]))
    for qt_role in (role.WindowText, role.Text, role.ButtonText):
        # Read-only forms (a submitted verdict) stay readable: 4.5:1, not grey on grey.
        palette.setColor(group.Disabled, qt_role, QColor(colours["disabled_text"]))
    # A disabled button lies flat on the window (Fusion shades a button lighter than its
    # colour; a dark theme's grey label on that lighter grey fell to 3.8:1).
    palette.setColor(group.Disabled, role.Button, QColor(colours["window"]))
    return palette


def apply(app: QApplication, theme: str, scale: float) -> None:
    """Use ``theme`` ("light" or "dark") and ``scale`` (font size factor) from now on."""
    global _active, _active_name, _base_point_size, _scale
    if _base_point_size is None:  # the desktop's size, before any scaling
        _base_point_size = app.font().pointSizeF()
    _active_name, _scale = theme, clamp_scale(scale)
    _active = dict(PALETTES[theme])
    app.setPalette(_qt_palette(_active))
    font = app.font()
    font.setPointSizeF(_base_point_size * _scale)
    app.setFont(font)


def scale() -> float:
    """The interface scale in use (1.0: the desktop's font size)."""
    return _scale
