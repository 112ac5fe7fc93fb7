"""The one undo command: "set a field; undo writes back what the store replaced".

Driven with a plain dict as the store, so the command is checked apart from any page; the
pages' own tests (annotate, SME, judge) check it against the real services.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoStack

from annotator.errors import AnnotatorError, StateError
from annotator.gui.undo import SetCommand


class Store:
    """One field; ``write`` returns what it replaced, as the services do."""

    def __init__(self, value: Any = None) -> None:
        self.value = value
        self.writes: list[tuple[Any, str]] = []
        self.refuse = False
        self.errors: list[AnnotatorError] = []

    def write(self, value: Any, text: str) -> Any:
        if self.refuse:
            raise StateError("submitted elsewhere")
        before, self.value = self.value, value
        self.writes.append((value, text))
        return before

    def command(self, value: Any, **merge: Any) -> SetCommand[Any]:
        return SetCommand(f"field = {value}", self.write, value, self.errors.append, **merge)


def test_undo_writes_back_what_the_store_replaced(qapp: Any) -> None:
    store, stack = Store("theirs"), QUndoStack()
    stack.push(store.command("mine"))  # the page showed nothing; the store held "theirs"
    assert store.value == "mine"
    stack.undo()
    assert store.value == "theirs"
    assert store.writes[-1] == ("theirs", "undo field = mine")
    stack.redo()
    assert store.value == "mine"


def test_a_refused_save_is_reported_and_leaves_no_step(qapp: Any) -> None:
    store, stack = Store(1), QUndoStack()
    store.refuse = True
    stack.push(store.command(2))
    assert stack.count() == 0 and store.value == 1
    assert [str(e) for e in store.errors] == ["submitted elsewhere"]


def test_a_write_that_changes_nothing_leaves_no_step(qapp: Any) -> None:
    store, stack = Store(3), QUndoStack()
    stack.push(store.command(3))
    assert stack.count() == 0


def test_a_burst_with_one_merge_key_is_one_step(qapp: Any) -> None:
    store, stack = Store("a"), QUndoStack()
    for text in ("ab", "abc", "abcd"):
        stack.push(store.command(text, merge_key="comment"))
    stack.push(store.command("x", merge_key="other"))
    assert stack.count() == 2
    stack.undo()
    stack.undo()
    assert store.value == "a"  # one undo for the whole burst, back to before it


def test_a_burst_back_to_its_start_leaves_no_step(qapp: Any) -> None:
    store, stack = Store("a"), QUndoStack()
    stack.push(store.command("ab", merge_key="comment"))
    stack.push(store.command("a", merge_key="comment"))
    assert stack.count() == 0


def test_commands_without_a_merge_key_never_merge(qapp: Any) -> None:
    store, stack = Store(0), QUndoStack()
    stack.push(store.command(1))
    stack.push(store.command(2))
    assert stack.count() == 2
