"""The desk's Actions area: a button for every registered action whose id starts with
``project.``, so each curator action the app gains appears here without editing the desk.

An action says which permission it needs (``ActionSpec.needs``, a
:class:`~annotator.domain.permissions.Action` value; else an id ``project.<action>`` that
names one); a user whose roles do not allow it sees its button disabled, with a tooltip
naming the role it needs (``gui.permits``). The actions are the curator's commands
(:mod:`annotator.gui.curator.menu`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton, QSizePolicy, QVBoxLayout, QWidget

from annotator.domain.permissions import Action
from annotator.gui.actions import ActionRegistry, ActionSpec
from annotator.gui.context import GuiContext
from annotator.gui.permits import why_not

PREFIX = "project."
GROUP = "Project"


def needed_action(spec: ActionSpec) -> Action | None:
    """The permission an action needs: its ``needs``, else the one its id names, else None."""
    for name in (spec.needs, spec.id.removeprefix(PREFIX)):
        if name in Action.__members__.values():
            return Action(name)
    return None


def project_action_ids(registry: ActionRegistry) -> list[str]:
    """The ``project.*`` actions registered now, in registration order."""
    return [i for i in registry.specs if i.startswith(PREFIX)]


class ActionsPanel(QWidget):
    """A column of buttons, one per ``project.*`` action, following the registry."""

    def __init__(self, context: GuiContext, registry: ActionRegistry,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.registry = registry
        self.buttons: dict[str, QPushButton] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._shown: list[str] = []
        registry.registered.connect(self._registry_changed)
        registry.unregistered.connect(self._registry_changed)

    def _registry_changed(self, action_id: str) -> None:
        if action_id.startswith(PREFIX):
            self.fill()

    def fill(self) -> None:
        """Show the ``project.*`` actions registered now (nothing changes if none came or
        went since the last call)."""
        ids = project_action_ids(self.registry)
        if ids == self._shown:
            return
        for button in self.buttons.values():
            self._layout.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        for action_id in ids:
            button = self._button(action_id, self.registry.actions[action_id])
            self.buttons[action_id] = button
            self._layout.addWidget(button)
        self._shown = ids

    def _button(self, action_id: str, action: QAction) -> QPushButton:
        spec = self.registry.specs[action_id]
        button = QPushButton(spec.text)
        button.setObjectName(action_id)
        button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        needed = needed_action(spec)
        reason = why_not(self.context, needed) if needed is not None else None
        if reason is not None:
            button.setEnabled(False)
            button.setToolTip(reason)
        else:
            button.setToolTip(spec.text + (f" ({self.registry.shortcut(action_id)})"
                                           if self.registry.shortcut(action_id) else ""))
            button.clicked.connect(_trigger(action))
        return button


def _trigger(action: QAction) -> Callable[[], None]:
    return lambda: action.trigger()
