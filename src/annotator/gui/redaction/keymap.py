"""Every action of the Redaction page with its default shortcut (data, not code).

Registered through the window's action registry, so the shortcut sheet (F1) lists them and
rebinding reaches them. Ids are stable: rebinding is stored by id.
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec

BOXES = "Redaction boxes"
NAV = "Redaction images"
STEP = 2  # pixels an arrow key moves or resizes a box by


def _page(id_: str, text: str, key: str, group: str) -> ActionSpec:
    return ActionSpec(f"redaction.{id_}", text, key, group, context="page")


REDACTION_ACTIONS: tuple[ActionSpec, ...] = (
    _page("image.next", "Next flagged image", "PgDown", NAV),
    _page("image.previous", "Previous flagged image", "PgUp", NAV),
    _page("frame.next", "Next frame", ".", NAV),
    _page("frame.previous", "Previous frame", ",", NAV),
    _page("box.add", "New box in the middle of the image", "Insert", BOXES),
    _page("box.delete", "Delete the selected box", "Delete", BOXES),
    _page("box.select_next", "Select the next box", "]", BOXES),
    _page("box.left", "Move the selected box left", "Left", BOXES),
    _page("box.right", "Move the selected box right", "Right", BOXES),
    _page("box.up", "Move the selected box up", "Up", BOXES),
    _page("box.down", "Move the selected box down", "Down", BOXES),
    _page("box.narrower", "Make the selected box narrower", "Shift+Left", BOXES),
    _page("box.wider", "Make the selected box wider", "Shift+Right", BOXES),
    _page("box.shorter", "Make the selected box shorter", "Shift+Up", BOXES),
    _page("box.taller", "Make the selected box taller", "Shift+Down", BOXES),
    _page("undo", "Undo a box edit", "Ctrl+Z", BOXES),
    _page("redo", "Redo a box edit", "Ctrl+Shift+Z", BOXES),
    _page("apply", "Black out the boxes (cannot be undone)", "Ctrl+Return", BOXES),
)
