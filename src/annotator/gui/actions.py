"""One registry of every user action: stable ids, default shortcuts as data, rebinding.

Pages register their actions here (never one-off QShortcuts) so that the shortcut sheet,
conflict detection and user rebinding see all of them (style-by-example, practice 6).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, QStandardPaths, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget


@dataclass(frozen=True)
class ActionSpec:
    """An action's identity and default shortcut (data, not code)."""

    id: str  # stable, e.g. "annotate.importance.essential"
    text: str  # menu / sheet text
    shortcut: str  # default, in QKeySequence portable text ("E", "Ctrl+Z", "")
    group: str  # heading in the shortcut sheet
    context: str = "window"  # "window" or "page": page actions only fire on their page
    # The domain.permissions.Action value it needs ("" for none): the desk disables its
    # button, with a tooltip naming the role, for a user whose roles do not allow it.
    needs: str = ""


def _bindings_file() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(base or Path.home() / ".config" / "annotator") / "shortcuts.json"


class ActionRegistry(QObject):
    """Creates QActions from specs, applies user rebinding, reports conflicts."""

    changed = Signal(str)
    """An action got a new shortcut (its id)."""
    registered = Signal(str)
    """An action was added to the registry (its id)."""
    unregistered = Signal(str)
    """An action left the registry, with the page or widget that owned it (its id)."""

    def __init__(self, parent: QObject | None = None, bindings_file: Path | None = None) -> None:
        super().__init__(parent)
        self.specs: dict[str, ActionSpec] = {}
        self.actions: dict[str, QAction] = {}
        self._page_of: dict[str, str] = {}
        self.bindings_file = bindings_file or _bindings_file()
        self.overrides: dict[str, str] = self._load()

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.bindings_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def register(
        self, spec: ActionSpec, handler: Callable[[], None], widget: QWidget, page: str = ""
    ) -> QAction:
        """Create the action on ``widget`` (the page or the main window) and connect it."""
        if spec.id in self.specs:
            raise ValueError(f"action {spec.id!r} registered twice")
        action = QAction(spec.text, widget)
        action.setObjectName(spec.id)
        action.setShortcut(QKeySequence(self.overrides.get(spec.id, spec.shortcut)))
        action.setShortcutContext(
            Qt.ShortcutContext.WidgetWithChildrenShortcut
            if spec.context == "page"
            else Qt.ShortcutContext.WindowShortcut
        )
        # triggered() passes "checked"; handlers take no arguments.
        action.triggered.connect(lambda _checked=False: handler())
        widget.addAction(action)
        self.specs[spec.id] = spec
        self.actions[spec.id] = action
        self._page_of[spec.id] = page
        self.registered.emit(spec.id)
        return action

    def unregister_page(self, page: str) -> None:
        """Forget the actions of a page that is being rebuilt (e.g. after a user switch)."""
        for action_id in [i for i, p in self._page_of.items() if p == page]:
            self.specs.pop(action_id)
            self._page_of.pop(action_id)
            action = self.actions.pop(action_id)
            action.deleteLater()
            self.unregistered.emit(action_id)

    def unregister_owned_by(self, widget: QWidget) -> None:
        """Forget the actions created on ``widget`` or its children (the page goes away)."""
        for action_id, action in list(self.actions.items()):
            owner = action.parent()
            while owner is not None and owner is not widget:
                owner = owner.parent()
            if owner is widget:
                self.specs.pop(action_id)
                self._page_of.pop(action_id)
                self.actions.pop(action_id)
                self.unregistered.emit(action_id)

    def default(self, action_id: str) -> str:
        """The shortcut an action has when the user has not rebound it."""
        return self.specs[action_id].shortcut

    def shortcut(self, action_id: str) -> str:
        return self.actions[action_id].shortcut().toString(QKeySequence.SequenceFormat.PortableText)

    def conflicts(self) -> list[tuple[str, str, str]]:
        """Pairs of actions that share a shortcut where both can fire: (key, id, id)."""
        found = []
        ids = sorted(self.actions)
        for i, first in enumerate(ids):
            for second in ids[i + 1 :]:
                key = self.shortcut(first)
                if not key or key != self.shortcut(second):
                    continue
                pages = {self._page_of[first], self._page_of[second]}
                # Page-scoped actions on different pages never fire together.
                if len(pages) == 2 and "" not in pages:
                    continue
                found.append((key, first, second))
        return found

    def rebind(self, action_id: str, shortcut: str) -> list[tuple[str, str, str]]:
        """Give an action a new shortcut; refuses (and changes nothing) on a conflict."""
        action = self.actions[action_id]
        old = action.shortcut()
        action.setShortcut(QKeySequence(shortcut))
        clashes = [c for c in self.conflicts() if action_id in c[1:]]
        if clashes:
            action.setShortcut(old)
            return clashes
        self.overrides[action_id] = shortcut
        self._save()
        self.changed.emit(action_id)
        return []

    def _save(self) -> None:
        self.bindings_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.bindings_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.overrides, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(self.bindings_file)

    def rows(self) -> list[tuple[str, str, str, str]]:
        """(id, group, text, shortcut) for every action, by group then text."""
        return sorted(
            (
                (spec.id, spec.group, spec.text, self.shortcut(spec.id))
                for spec in self.specs.values()
            ),
            key=lambda row: (row[1], row[2]),
        )

    def sheet(self) -> list[tuple[str, str, str]]:
        """(group, text, shortcut) rows for the shortcut sheet, grouped and sorted."""
        return sorted(
            (spec.group, spec.text, self.shortcut(spec.id)) for spec in self.specs.values()
        )
