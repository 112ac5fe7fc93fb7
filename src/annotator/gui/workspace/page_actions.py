"""Connecting the annotate page's actions (``keymap``) to what they do.

Every action goes through the window's ActionRegistry, so the shortcut sheet, conflict
detection and rebinding see all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QTabWidget

from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY, label_key
from annotator.gui.context import GuiContext
from annotator.gui.workspace.case_list import CaseListPanel
from annotator.gui.workspace.keymap import ANNOTATE_ACTIONS
from annotator.gui.workspace.labels_panel import LabelsPanel
from annotator.gui.workspace.layout import CaseHeader
from annotator.gui.workspace.metadata_editor import MetadataEditor
from annotator.gui.workspace.session import CaseSession
from annotator.gui.workspace.viewer import ImageViewer
from annotator.imaging.window import CT_PRESETS
from annotator.services.order_board import Move


class AnnotatePage(Protocol):
    """What the actions reach on the annotate page (a QWidget: the actions are created on it).

    A protocol, not the page class, so this module does not import the page that imports it.
    """

    context: GuiContext
    session: CaseSession
    exam: str
    tabs: QTabWidget
    header: CaseHeader
    viewer: ImageViewer
    labels_panel: LabelsPanel
    metadata: MetadataEditor
    case_list: CaseListPanel

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name
    def move_exam(self, figure: str, move: Move) -> None: ...
    def accept_exam(self) -> None: ...
    def accept_all(self) -> None: ...
    def submit(self) -> None: ...
    def reopen(self) -> None: ...
    def step_exam(self, step: int) -> None: ...
    def step_case(self, step: int) -> None: ...


def _cycle(values: tuple[str, ...], current: object) -> str:
    """The value after ``current`` (the first when unset), wrapping around."""
    value = current.get("value") if isinstance(current, dict) else None
    if value not in values:
        return values[0]
    return values[(values.index(value) + 1) % len(values)]


def handlers(page: AnnotatePage) -> dict[str, Callable[[], None]]:
    """Action id -> what it does on ``page``."""
    s, panel, viewer = page.session, page.labels_panel, page.viewer

    def importance(value: str) -> Callable[[], None]:
        return lambda: panel.set_label("importance", page.exam, value)

    def stage(move: Move) -> Callable[[], None]:
        return lambda: page.move_exam(page.exam, move)

    def cycle(family: str, values: tuple[str, ...]) -> Callable[[], None]:
        return lambda: panel.set_label(family, "", _cycle(values, s.labels.get(family)))

    def toggle_meta_ok() -> None:
        on = s.labels.get(label_key("meta_ok", page.exam)) is not True
        panel.set_label("meta_ok", page.exam, on)

    def tab(index: int, focus: Callable[[], None] | None = None) -> Callable[[], None]:
        def run() -> None:
            page.tabs.setCurrentIndex(index)
            if focus is not None:
                focus()
        return run

    def preset(key: str) -> Callable[[], None]:
        return lambda: viewer.apply_preset(key)

    def undo() -> None:
        s.flush()
        s.undo_group.undo()

    def redo() -> None:
        s.flush()
        s.undo_group.redo()

    table: dict[str, Callable[[], None]] = {
        **{f"annotate.importance.{v}": importance(v) for v in IMPORTANCE},
        **{f"annotate.stage.{n}": stage(Move("stage", n)) for n in range(1, 10)},
        "annotate.stage.tie": stage(Move("tie_previous")),
        "annotate.stage.unranked": stage(Move("unranked")),
        "annotate.accept.exam": page.accept_exam,
        "annotate.accept.all": page.accept_all,
        "annotate.meta_ok": toggle_meta_ok,
        "annotate.edit.metadata": tab(1, lambda: page.metadata.fields["modality"].setFocus()),
        "annotate.focus.red_flag": tab(0, lambda: panel.red_flag.setFocus()),
        "annotate.focus.comment": tab(0, lambda: panel.comment.setFocus()),
        "annotate.focus.discard": tab(0, panel.focus_discard),
        "annotate.difficulty.cycle": cycle("difficulty", DIFFICULTY),
        "annotate.rarity.cycle": cycle("rarity", RARITY),
        "annotate.submit": page.submit,
        "annotate.reopen": page.reopen,
        "annotate.history": page.show_history,
        "annotate.view.fit": viewer.fit,
        "annotate.view.actual": viewer.actual_size,
        "annotate.view.zoom_in": lambda: viewer.zoom_by(1.25),
        "annotate.view.zoom_out": lambda: viewer.zoom_by(0.8),
        "annotate.view.invert": viewer.toggle_invert,
        "annotate.view.reset_window": viewer.reset_window,
        **{f"annotate.view.preset.{p.key}": preset(p.key) for p in CT_PRESETS},
        "annotate.view.next_slice": lambda: viewer.step(1),
        "annotate.view.previous_slice": lambda: viewer.step(-1),
        "annotate.exam.next": lambda: page.step_exam(1),
        "annotate.exam.previous": lambda: page.step_exam(-1),
        "annotate.case.next": lambda: page.step_case(1),
        "annotate.case.previous": lambda: page.step_case(-1),
        "annotate.search": page.case_list.focus_search,
        "annotate.tab.labels": tab(0),
        "annotate.tab.metadata": tab(1),
        "annotate.tab.steps": tab(2),
        "annotate.tab.rubric": tab(3),
        "annotate.undo": undo,
        "annotate.redo": redo,
    }
    return table


def register_actions(page: AnnotatePage) -> None:
    """Create the page's actions in the registry and keep undo texts current."""
    registry = page.context.registry_for(page)
    table = handlers(page)
    for spec in ANNOTATE_ACTIONS:
        registry.register(spec, table[spec.id], page, page="annotate")
    undo, redo = registry.actions["annotate.undo"], registry.actions["annotate.redo"]
    group = page.session.undo_group

    def texts() -> None:
        undo.setText(f"Undo {group.undoText()}" if group.canUndo() else "Nothing to undo")
        redo.setText(f"Redo {group.redoText()}" if group.canRedo() else "Nothing to redo")
        undo.setEnabled(group.canUndo())
        redo.setEnabled(group.canRedo())
        page.header.undo.setToolTip(f"{undo.text()} ({registry.shortcut(undo.objectName())})")
        page.header.redo.setToolTip(f"{redo.text()} ({registry.shortcut(redo.objectName())})")
        page.header.undo.setEnabled(group.canUndo())
        page.header.redo.setEnabled(group.canRedo())

    for signal in (group.undoTextChanged, group.redoTextChanged, group.canUndoChanged,
                   group.canRedoChanged, group.activeStackChanged, group.indexChanged):
        signal.connect(lambda *_: texts())
    page.header.undo.clicked.connect(undo.trigger)
    page.header.redo.clicked.connect(redo.trigger)
    texts()
