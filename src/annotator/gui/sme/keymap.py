"""Every action of the SME review page with its default shortcut (data, not code).

Single keys never fire while a text field has focus (Qt lets the field take the key
first), so typing a rationale never sets a verdict. Ids are stable: rebinding is stored
by id.
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec

MAX_LEVEL_KEYS = 9
VERDICT = "SME verdict"
NAV = "SME queue"


def _page(id_: str, text: str, key: str, group: str) -> ActionSpec:
    return ActionSpec(f"sme.{id_}", text, key, group, context="page")


SME_ACTIONS: tuple[ActionSpec, ...] = (
    _page("applicable", "Applicable", "A", VERDICT),
    _page("excluded", "Excluded (name the exclusion clause)", "X", VERDICT),
    _page("pass", "Pass", "P", VERDICT),
    _page("flag", "Flag (name the failed condition)", "F", VERDICT),
    *(
        _page(f"level.{n}", f"Score: described level {n} (highest first)", str(n), VERDICT)
        for n in range(1, MAX_LEVEL_KEYS + 1)
    ),
    _page("rationale", "Write the rationale", "R", VERDICT),
    _page("submit", "Submit the verdict", "Ctrl+Return", VERDICT),
    _page("submit.enter", "Submit the verdict (keypad Enter)", "Ctrl+Enter", VERDICT),
    _page("undo", "Undo", "Ctrl+Z", VERDICT),
    _page("redo", "Redo", "Ctrl+Shift+Z", VERDICT),
    _page("next", "Next item", "J", NAV),
    _page("previous", "Previous item", "K", NAV),
)
