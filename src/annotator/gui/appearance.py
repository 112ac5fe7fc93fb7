"""The top bar's "View" menu: the theme (follow the system, light, dark), the scale, and
whether a submit goes on to the next open case.

The menu only offers the window's registered actions and the theme choice; the window
applies them (:meth:`MainWindow.set_theme`, :meth:`MainWindow.set_scale`).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from annotator.gui import preferences, theme
from annotator.gui.actions import ActionRegistry


class ThemedWindow(Protocol):
    """What the menu needs of the main window (a Protocol: no import cycle with it)."""

    remember: bool
    registry: ActionRegistry

    def set_theme(self, choice: str) -> None: ...

    def as_widget(self) -> QWidget: ...

CHOICE_TEXT = {"system": "Theme: follow the system", "light": "Theme: light",
               "dark": "Theme: dark"}


class AppearanceMenu:
    def __init__(self, window: ThemedWindow) -> None:
        self.menu = QMenu(window.as_widget())
        group = QActionGroup(self.menu)
        self.choices: dict[str, QAction] = {}
        current = theme.saved_choice() if window.remember else theme.name()
        for choice in theme.CHOICES:
            action = self.menu.addAction(CHOICE_TEXT[choice])
            action.setCheckable(True)
            action.setChecked(choice == current)
            action.triggered.connect(lambda _=False, c=choice: window.set_theme(c))
            group.addAction(action)
            self.choices[choice] = action
        self.menu.addSeparator()
        self.next_after_submit = self.menu.addAction("After a submit, open the next open case")
        self.next_after_submit.setCheckable(True)
        self.next_after_submit.setChecked(preferences.next_after_submit())
        self.next_after_submit.toggled.connect(preferences.set_next_after_submit)
        self.menu.addSeparator()
        self.window = window
        self.button = QToolButton()
        self.button.setText("View \u25be")
        self.button.setToolTip("Theme and interface size (Ctrl+= larger, Ctrl+- smaller)")
        self.button.setAutoRaise(True)
        self.button.setMenu(self.menu)
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.pressed.connect(self._add_scale_actions)

    def _add_scale_actions(self) -> None:
        """The scale actions join the menu once registered (the window registers them later)."""
        registry = self.window.registry
        for action_id in ("app.scale_up", "app.scale_down", "app.scale_reset"):
            action = registry.actions.get(action_id)
            if action is not None and action not in self.menu.actions():
                self.menu.addAction(action)

    def chosen(self, choice: str) -> None:
        """Tick ``choice`` (set by a shortcut or the menu)."""
        self.choices[choice].setChecked(True)
