"""Every action of the Judge scoring page with its default shortcut (data, not code).

Registered through the window's action registry, so the shortcut sheet (F1) lists them,
rebinding reaches them and a clash with another action is found. Single keys never fire
while a text field has focus (Qt lets the field take the key first). Ids are stable:
rebinding is stored by id.
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec

SCORE = "Judge scoring"
NAV = "Judge outputs"
SCORES = (0, 1, 2, 3)
LABELS = {"E": "exact", "A": "acceptable", "U": "unmatched"}


def _page(id_: str, text: str, key: str, group: str) -> ActionSpec:
    return ActionSpec(f"judge.{id_}", text, key, group, context="page")


JUDGE_ACTIONS: tuple[ActionSpec, ...] = (
    *(_page(f"score.{n}", f"Score {n} on the highlighted row", str(n), SCORE) for n in SCORES),
    *(
        _page(f"label.{letter}", f"Label {word} on the highlighted row", letter, SCORE)
        for letter, word in LABELS.items()
    ),
    _page("row.next", "Next row of the form", "Down", SCORE),
    _page("row.previous", "Previous row of the form", "Up", SCORE),
    _page("undo", "Undo", "Ctrl+Z", SCORE),
    _page("redo", "Redo", "Ctrl+Y", SCORE),
    _page("redo.shift", "Redo (Ctrl+Shift+Z)", "Ctrl+Shift+Z", SCORE),
    _page("submit", "Submit the scores of this output", "Ctrl+Return", SCORE),
    _page("item.next", "Next output", "PgDown", NAV),
    _page("item.previous", "Previous output", "PgUp", NAV),
)
