"""Long work with progress and cancel, without Qt (Orange's ``TaskState``, Anki's ``QueryOp``).

A long service call (import, export, bundles, package import) takes a :class:`TaskState`.
It reports ``progress(fraction, message)`` as it goes and calls ``check()`` at *safe
points* only: between whole units of work (a batch of cases, a case, a package, an image
written to a staging folder), where stopping leaves nothing half-done. ``check()`` raises
:class:`Cancelled` once someone called ``cancel()``, from any thread. :func:`run_task`
keeps the result or the error on the state, so a front end that ran the work elsewhere (the
GUI's worker thread) reads them afterwards. The command line and tests pass nothing and get
a state that reports to no one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from annotator.errors import AnnotatorError

T = TypeVar("T")
Listener = Callable[[float, str], None]


class Cancelled(AnnotatorError):
    """The user cancelled; ``partial`` is what was finished (whole units) before it stopped."""

    def __init__(self, message: str = "cancelled", partial: Any = None) -> None:
        super().__init__(message)
        self.partial = partial


class TaskState:
    """Progress out, cancel in: shared by the work and whoever watches it (thread-safe)."""

    def __init__(self, listener: Listener | None = None) -> None:
        self._listener = listener
        self._cancel = threading.Event()
        self.fraction = 0.0
        self.message = ""
        self.result: Any = None
        self.error: BaseException | None = None

    def progress(self, fraction: float, message: str = "") -> None:
        """Report how far the work is (0..1) and what it is doing now."""
        self.fraction = min(max(fraction, 0.0), 1.0)
        if message:
            self.message = message
        if self._listener is not None:
            self._listener(self.fraction, self.message)

    def cancel(self) -> None:
        """Ask the work to stop at its next safe point."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self, partial: Any = None) -> None:
        """A safe point: raise :class:`Cancelled` (carrying ``partial``) if cancel was asked."""
        if self._cancel.is_set():
            raise Cancelled("cancelled" + (f" after {self.message}" if self.message else ""),
                            partial)

    def part(self, start: float, end: float) -> TaskState:
        """A state for a stage of the work: its 0..1 is this state's ``start``..``end``."""
        stage = TaskState(lambda f, m: self.progress(start + (end - start) * f, m))
        stage._cancel = self._cancel  # one cancel for the whole work
        return stage


def run_task(work: Callable[[TaskState], T], state: TaskState) -> T:
    """Run ``work(state)``; keep its result, or its error (re-raised), on ``state``."""
    try:
        state.result = work(state)
    except BaseException as exc:
        state.error = exc
        raise
    return state.result  # type: ignore[no-any-return]
