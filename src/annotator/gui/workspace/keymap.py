"""Every action of the annotate page with its default shortcut (data, not code).

Single keys act on the current exam or case and never fire while a text field has focus
(Qt lets the field take the key first). The action ids are stable: user rebinding is
stored by id.
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec
from annotator.imaging.window import CT_PRESETS

EXAM = "Current exam"
ORDER = "Order board"
CASE = "Case"
VIEW = "Image viewer"
NAV = "Navigation"
EDIT = "Editing"


def _page(id_: str, text: str, key: str, group: str) -> ActionSpec:
    return ActionSpec(f"annotate.{id_}", text, key, group, context="page")


ANNOTATE_ACTIONS: tuple[ActionSpec, ...] = (
    _page("importance.essential", "Importance: essential", "E", EXAM),
    _page("importance.optional", "Importance: optional", "O", EXAM),
    _page("importance.unnecessary", "Importance: unnecessary", "U", EXAM),
    _page("accept.exam", "Accept the draft's suggestions for this exam", "A", EXAM),
    _page("meta_ok", "Metadata correct (toggle)", "M", EXAM),
    _page("edit.metadata", "Edit this exam's metadata and caption", "Ctrl+E", EXAM),
    _page("focus.red_flag", "Write a red flag for this exam", "X", EXAM),
    *(
        _page(f"stage.{n}", f"Put the exam in stage {n}", str(n), ORDER)
        for n in range(1, 10)
    ),
    _page("stage.tie", "Tie with the previous exam", "T", ORDER),
    _page("stage.unranked", "Mark the exam unranked", "0", ORDER),
    _page("accept.all", "Accept every suggestion of the case", "Shift+A", CASE),
    _page("difficulty.cycle", "Difficulty: next value", "D", CASE),
    _page("rarity.cycle", "Rarity: next value", "R", CASE),
    _page("focus.comment", "Write a case comment", "C", CASE),
    _page("focus.discard", "Discard the case (choose a reason)", "Ctrl+D", CASE),
    _page("submit", "Submit the case", "Ctrl+Return", CASE),
    _page("reopen", "Reopen the submitted case", "Ctrl+Shift+R", CASE),
    _page("history", "Case history: who changed what and when", "Ctrl+H", CASE),
    _page("view.fit", "Fit the image to the viewer", "F", VIEW),
    _page("view.actual", "Actual size (1:1)", "=", VIEW),
    _page("view.zoom_in", "Zoom in", "+", VIEW),
    _page("view.zoom_out", "Zoom out", "-", VIEW),
    _page("view.invert", "Invert grey levels", "I", VIEW),
    _page("view.reset_window", "Reset window/level", "W", VIEW),
    *(
        _page(f"view.preset.{p.key}", f"CT window: {p.label}", f"Alt+{i}", VIEW)
        for i, p in enumerate(CT_PRESETS, start=1)
    ),
    _page("view.next_slice", "Next slice / frame", "Down", VIEW),
    _page("view.previous_slice", "Previous slice / frame", "Up", VIEW),
    _page("exam.next", "Next exam", "Right", NAV),
    _page("exam.previous", "Previous exam", "Left", NAV),
    _page("case.next", "Next case", "Ctrl+Down", NAV),
    _page("case.previous", "Previous case", "Ctrl+Up", NAV),
    _page("search", "Search cases", "Ctrl+F", NAV),
    _page("tab.labels", "Show the labels", "Ctrl+1", NAV),
    _page("tab.metadata", "Show the metadata editor", "Ctrl+2", NAV),
    _page("tab.steps", "Show the step editor", "Ctrl+3", NAV),
    _page("tab.rubric", "Show the rubric review", "Ctrl+4", NAV),
    _page("undo", "Undo", "Ctrl+Z", EDIT),
    _page("redo", "Redo", "Ctrl+Shift+Z", EDIT),
)
