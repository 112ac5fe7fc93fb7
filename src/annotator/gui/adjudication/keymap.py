"""Every action of the review page with its default shortcut (data, not code).

One key picks a reviewer's value (A, B, C, D), E opens an edit, a digit chooses the reason
code, Enter confirms: a decision is three key presses. Single keys never fire while a text
field has focus (Qt lets the field take the key first).
"""

from __future__ import annotations

from annotator.gui.actions import ActionSpec

DECIDE = "Decide"
CASE = "Case"
NAV = "Navigation"
BULK = "Bulk"
PICK_LETTERS = ("A", "B", "C", "D")
REASON_KEYS = 9


def _page(id_: str, text: str, key: str, group: str) -> ActionSpec:
    return ActionSpec(f"review.{id_}", text, key, group, context="page")


REVIEW_ACTIONS: tuple[ActionSpec, ...] = (
    *(_page(f"pick.{x}", f"Take Reviewer {x}'s value", x, DECIDE) for x in PICK_LETTERS),
    _page("edit", "Edit the value (starts from the agreed pairs for an order)", "E", DECIDE),
    *(
        _page(f"reason.{n}", f"Reason code {n} of the project's list", str(n), DECIDE)
        for n in range(1, REASON_KEYS + 1)
    ),
    _page("text", "Write the optional reason text", "T", DECIDE),
    _page("confirm", "Confirm the decision", "Return", DECIDE),
    _page("confirm.keypad", "Confirm the decision (keypad)", "Enter", DECIDE),
    _page("reopen", "Reopen the decision on this item", "R", DECIDE),
    _page("green_light", "Green-light the case", "G", CASE),
    _page("exclude", "Exclude the case as irresolvable (with a reason)", "X", CASE),
    _page("history", "Case history: who changed what and when", "Ctrl+H", CASE),
    _page("item.next", "Next item", "J", NAV),
    _page("item.previous", "Previous item", "K", NAV),
    _page("case.next", "Next case in the queue", "N", NAV),
    _page("case.previous", "Previous case in the queue", "P", NAV),
    _page("focus.queue", "Go to the queue", "Q", NAV),
    _page("refresh", "Reload the queue", "F5", NAV),
    _page("bulk.green_light", "Green-light every unanimous case", "Shift+G", BULK),
    _page("bulk.optional", "Resolve every optional vs unnecessary conflict", "Shift+O", BULK),
)
